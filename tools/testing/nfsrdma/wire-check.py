#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Hold the Wireshark dissector's reading of a two-host run's capture
against what both kernels reported for the same connects.

wire-check.py PCAP CLIENT-LOG PLUGIN-SO

The client VM's wire-capture scenario printed, for each connect it made,
the client's view (E2E-WIRE client ...: a kernel mount's
xprtrdma_inline_thresh event or rpcrdma-cm probe's "established" event)
and, at the end, nfsd's svcrdma_cm_accept event of each (E2E-WIRE
server ...). The capture holds
those connects last, each a CM REQ and REP pair (paired here by their
Communication IDs, independently of the dissector), or on iWARP an MPA
Request and Reply (paired by their TCP connection). For each connect:
  - the REQ as decoded by the dissector (status, offset, version, sizes,
    R) must be what nfsd decoded from it;
  - the REP as decoded must be what the client decoded from it;
  - the thresholds and the Send With Invalidate decision shown on the
    REP must be nfsd's, and the client's where the client computed them
    from what it put on the wire (the kernel mount, the well-formed
    probe); the REP must name its REQ's frame.
Prints one line per check ("ok ..." or "not ok ..."); exits 1 on any
mismatch, 2 if the inputs cannot be read.
"""

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys

DEFAULTS = {'send': 1024, 'recv': 1024, 'r': 0}
# The connects whose client computed its thresholds from what it sent
CLIENT_NEGOTIATED = {'mount', 'well-formed'}

FIELDS = ['frame', 'infiniband.mad.attributeid', 'infiniband.cm.req',
          'infiniband.cm.rep', 'infiniband.cm.rep.remotecommid',
          'iwarp_mpa.req', 'iwarp_mpa.rep', 'tcp.stream',
          'rpcrdma.cm.msg', 'rpcrdma.cm.status', 'rpcrdma.cm.offset',
          'rpcrdma.cm.version', 'rpcrdma.cm.r', 'rpcrdma.cm.send_size',
          'rpcrdma.cm.recv_size', 'rpcrdma.cm.req_frame',
          'rpcrdma.cm.c2s_threshold', 'rpcrdma.cm.s2c_threshold',
          'rpcrdma.cm.send_with_inv']

failures = []


def check(what, got, want):
    if str(got) == str(want):
        print(f'ok {what} = {want}')
    else:
        print(f'not ok {what}: dissector {got}, kernel {want}')
        failures.append(f'{what}: dissector shows {got}, the kernel {want}')


def num(v, last=False):
    """tshark prints numbers in decimal or hex, booleans as True/False,
    and every occurrence of a field, joined by ';': the first (or last)"""
    if v in ('', None):
        return None
    v = v.split(';')[-1 if last else 0]
    if v in ('True', 'False'):
        return int(v == 'True')
    return int(v, 0)


def tshark_rows(pcap, plugin):
    """One dict per CM MAD of the capture, read by tshark with the plugin
    (loaded as the plugin's own test loads it: test-dissector.py's Env)"""
    path = os.path.join(os.path.dirname(plugin), 'test-dissector.py')
    spec = importlib.util.spec_from_file_location('test_dissector', path)
    td = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(td)
    env = td.Env(plugin)
    try:
        if 'rpcrdma.cm' not in env.run(['-G', 'protocols']):
            sys.exit(f'tshark did not load the plugin {plugin}')
        # a copy that tshark can read when it runs as nobody
        copy = os.path.join(env.tmp, 'run.pcap')
        shutil.copy(pcap, copy)
        os.chmod(copy, 0o644)
        rows = env.fields(copy, FIELDS[1:])
    except RuntimeError as e:
        sys.exit(str(e))
    finally:
        env.cleanup()
    return [r for r in rows if r['infiniband.mad.attributeid'] or
            r['iwarp_mpa.req'] or r['iwarp_mpa.rep']]


def connects_in_capture(rows):
    """(REQ row, REP row) per connect, in REQ order; the first copy of each
    (the CM resends a MAD that is not answered in time)"""
    reqs, reps = {}, {}
    for row in rows:
        if row['iwarp_mpa.req']:
            reqs.setdefault(('tcp', row['tcp.stream']), row)
            continue
        if row['iwarp_mpa.rep']:
            reps.setdefault(('tcp', row['tcp.stream']), row)
            continue
        attr = num(row['infiniband.mad.attributeid'])
        if attr == 0x10 and row['infiniband.cm.req']:
            reqs.setdefault(num(row['infiniband.cm.req']), row)
        elif attr == 0x13 and row['infiniband.cm.rep.remotecommid']:
            reps.setdefault(num(row['infiniband.cm.rep.remotecommid']), row)
    out = []
    for cid, req in sorted(reqs.items(), key=lambda kv: int(kv[1]['frame'])):
        out.append((req, reps.get(cid)))
    return out


def decoded(row):
    """What the dissector decoded from one message; the RFC defaults when
    there is none it could use"""
    if row is None or not row['rpcrdma.cm.status']:
        return {'status': 'absent', 'offset': -1, 'version': 0, **DEFAULTS}
    status = row['rpcrdma.cm.status']
    names = {'0': 'valid', '1': 'absent', '2': 'truncated', '3': 'bad-version'}
    status = names.get(status, status)
    # An identifier the search skipped shows its own Version before the
    # message's: the message's is the last, the first skipped one is what
    # the kernel reports when there is no message
    d = {'status': status,
         'offset': num(row['rpcrdma.cm.offset']),
         'version': num(row['rpcrdma.cm.version'], last=status == 'valid')}
    if d['offset'] is None:
        d['offset'] = -1
    if status in ('absent', 'truncated') or d['version'] is None:
        d['version'] = 0
    if status == 'valid':
        d.update(send=num(row['rpcrdma.cm.send_size']),
                 recv=num(row['rpcrdma.cm.recv_size']),
                 r=num(row['rpcrdma.cm.r']))
    else:
        d.update(DEFAULTS)
    return d


# Both kernel events name their fields alike: the peer's message as
# decoded (status, offset, version, sizes, R), the local end's own,
# then the thresholds and the Send With Invalidate decision
PEER = (r'status=(?P<status>\S+) offset=(?P<offset>-?\d+) version=(?P<version>\d+) '
        r'send/recv=(?P<send>\d+)/(?P<recv>\d+) remote_inv=(?P<r>\d)')
OWN = r'send/recv=(?P<own_send>\d+)/(?P<own_recv>\d+) remote_inv=(?P<own_r>\d)'
NEG = (r'c2s/s2c=(?P<c2s>\d+)/(?P<s2c>\d+) send_with_inv=(?P<swi>\d) '
       r'recv_wanted=\d+')
# nfsd's rpcrdma:svcrdma_cm_accept
ACCEPT = re.compile(r'svcrdma_cm_accept: addr=\S+ client ' + PEER + r', server ' + OWN +
                    r', ' + NEG)
# the kernel client's rpcrdma:xprtrdma_inline_thresh
THRESH = re.compile(r'xprtrdma_inline_thresh: .* client ' + OWN + r', server ' + PEER +
                    r', ' + NEG)


def event_view(regex, line, what):
    """The peer's message, the own one and the negotiation of an event"""
    m = regex.search(line)
    if not m:
        sys.exit(f'cannot read the {what} event: {line}')
    g = {k: (v if k == 'status' else int(v)) for k, v in m.groupdict().items()}
    return {'peer': {k: g[k] for k in ('status', 'offset', 'version', 'send', 'recv', 'r')},
            'own': {'send': g['own_send'], 'recv': g['own_recv'], 'r': g['own_r']},
            'neg': {k: g[k] for k in ('c2s', 's2c', 'swi')}}


def server_views(lines):
    views = []
    for line in lines:
        v = event_view(ACCEPT, line, 'svcrdma_cm_accept')
        views.append({'client': v['peer'], 'neg': v['neg']})
    return views


def client_view(name, rest):
    """The client's view: what it decoded of the server's message and,
    where it has them, its own message and its thresholds"""
    if rest.startswith('{'):
        ev = json.loads(rest)
        p = ev['peer']
        v = {'server': {'status': p['status'], 'offset': p['offset'],
                        'version': p.get('version', 0),
                        'send': p['send_size'], 'recv': p['recv_size'],
                        'r': int(p['remote_inv'])}}
        n = ev['negotiated']
        v['neg'] = {'c2s': n['client_to_server'], 's2c': n['server_to_client'],
                    'swi': int(n['send_with_inv'])}
        return v
    v = event_view(THRESH, rest, 'xprtrdma_inline_thresh')
    return {'own': v['own'], 'server': v['peer'], 'neg': v['neg']}


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    pcap, log, plugin = sys.argv[1:]
    clients, servers = [], []
    with open(log, errors='replace') as f:
        for line in f:
            line = line.rstrip('\r\n')
            if line.startswith('E2E-WIRE client '):
                name, rest = line[len('E2E-WIRE client '):].split(' ', 1)
                clients.append((name, client_view(name, rest)))
            elif line.startswith('E2E-WIRE server '):
                servers.append(line)
    servers = server_views(servers)
    if not clients or len(clients) != len(servers):
        sys.exit(f'{len(clients)} connects in the client log, {len(servers)} nfsd events')
    conns = connects_in_capture(tshark_rows(pcap, plugin))
    if len(conns) < len(clients):
        sys.exit(f'{len(conns)} connect requests in {pcap}, expected at least {len(clients)}')
    conns = conns[-len(clients):]

    for (name, cv), sv, (req, rep) in zip(clients, servers, conns):
        q = decoded(req if req['rpcrdma.cm.status'] else None)
        for k in ('status', 'offset', 'version', 'send', 'recv', 'r'):
            check(f'{name}: REQ {k}', q[k], sv['client'][k])
        if 'own' in cv:
            for k in ('send', 'recv', 'r'):
                check(f'{name}: REQ {k} (as the client sent it)', q[k], cv['own'][k])
        if rep is None:
            check(f'{name}: REP in the capture', 'none', 'present')
            continue
        p = decoded(rep)
        for k in ('status', 'offset', 'version', 'send', 'recv', 'r'):
            check(f'{name}: REP {k}', p[k], cv['server'][k])
        check(f'{name}: REP names its REQ', rep['rpcrdma.cm.req_frame'], req['frame'])
        shown = {'c2s': num(rep['rpcrdma.cm.c2s_threshold']),
                 's2c': num(rep['rpcrdma.cm.s2c_threshold']),
                 'swi': num(rep['rpcrdma.cm.send_with_inv'])}
        for k in ('c2s', 's2c', 'swi'):
            check(f'{name}: REP {k} (nfsd)', shown[k], sv['neg'][k])
            if name in CLIENT_NEGOTIATED:
                check(f'{name}: REP {k} (client)', shown[k], cv['neg'][k])
    print(f'# {len(clients)} connects checked')
    if failures:
        print(f'# first mismatch: {failures[0]}')
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
