# SPDX-License-Identifier: GPL-2.0
# What both kernels say about each connect, for the host to hold against
# the Wireshark dissector's reading of the same connects in the run's
# capture (tools/testing/nfsrdma/wire-check.py; run.sh records the link
# with qemu's filter-dump). In the client VM of a two-host run whose
# server runs our module. Each connect gives one E2E-WIRE line of the
# client's view, in order:
#   E2E-WIRE client NAME <event>  a kernel mount: its
#                                 xprtrdma_inline_thresh event
#   E2E-WIRE client NAME {json}   rpcrdma-cm probe's "established"
# and, at the end, one line per connect nfsd accepted, in order:
#   E2E-WIRE server <svcrdma_cm_accept event>
# The probes send crafted Private Data: an identifier at an odd offset,
# another Version (alone, and before a version 1 message), six octets
# that the CM pads with zeroes, an identifier too close to the end of
# the CM's 56 octets, no Private Data at all, Reserved bits with a
# 1 KiB Receive Size.
[ "$E2E_ROLE" = client ] || skip "runs in the client VM of a two-host run"
[ "$E2E_SERVER_RPCRDMA" = ours ] || skip "needs our module on the server (its svcrdma_cm_accept events)"
expect_eq "the server's svcrdma_cm_accept events" "$(ctl accepts-on)" ok

n=0
# A kernel mount and its unmount
mount_traced /mnt/wire
[ -n "$THRESH_EVENT" ] || fail_scenario "no xprtrdma_inline_thresh event for the mount"
echo "E2E-WIRE client mount $THRESH_EVENT"
n=$((n + 1))
nfs_umount /mnt/wire

# probe NAME OPTIONS...: one connect of rpcrdma-cm probe
probe() {
	local name=$1 out
	shift
	out=$(rpcrdma-cm --json probe "$E2E_SERVER" "$E2E_PORT" "$@") ||
		fail_scenario "$name: nfsd did not accept (probe status $?)"
	out=$(echo "$out" | grep -m1 '"event": "established"') ||
		fail_scenario "$name: no established event from rpcrdma-cm probe"
	echo "E2E-WIRE client $name $out"
	n=$((n + 1))
}

zeroes() { printf "%0$(($1 * 2))d" 0; }
probe well-formed  --send 8K --recv 16K
probe offset-7     --raw 00000000000000f6ab0e1801010f3f
probe version-2    --raw f6ab0e1802010f0f
probe v2-then-v1   --raw f6ab0e1802010f0ff6ab0e1801000303
probe six-octets   --raw f6ab0e180101
probe truncated    --raw "$(zeroes 50)f6ab0e180101"
probe none         --none
probe reserved-1k  --raw f6ab0e1801ff0300

# nfsd's view of each connect, once it has recorded all of them
i=0
while [ "$(ctl accepts | grep -c svcrdma_cm_accept)" -lt $n ]; do
	i=$((i + 1))
	[ $i -lt 20 ] || fail_scenario "nfsd recorded $(ctl accepts | grep -c svcrdma_cm_accept) accepts, expected $n"
	sleep 0.5
done
ctl accepts | sed 's/^/E2E-WIRE server /'
expect_eq "connects recorded by nfsd" "$(ctl accepts | grep -c svcrdma_cm_accept)" $n
