# SPDX-License-Identifier: GPL-2.0
# The first Call on a new connection is answered at once, every time.
# An RPC client's first Call is often alone (the NULL a mount starts
# with), so nothing after it wakes a server that missed it: the client
# waits for its RPC timeout and reconnects. rpcrdma-call makes 40
# connections to nfsd, one after the other, each sending one NULL with
# a 5-second timeout. On soft-iWARP, whose passive side used to leave a
# first frame that arrived before siw_accept() took the socket unread
# (patches/siw), about one connection in ten had no answer; over
# soft-RoCE the scenario shows the same holds there.
[ "$E2E_ROLE" != client ] || skip "counts the server's connections: a single-VM scenario"
local_nfsd
n=0 late=
while [ $n -lt 40 ]; do
	rpcrdma-call --json "$E2E_SERVER" --proc null --timeout 5 >/tmp/first.out 2>&1 ||
		late="$late $n($(grep -m1 -o '"detail": "[^"]*"' /tmp/first.out | cut -d'"' -f4))"
	n=$((n + 1))
done
expect_eq "of 40 new connections, those whose first Call got no answer in 5 s" "${late:- none}" " none"
