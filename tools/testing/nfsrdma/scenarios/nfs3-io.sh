# SPDX-License-Identifier: GPL-2.0
# NFSv3 over RDMA (rpcbind, mountd, nolock): the same workload as
# nfs41-io.
local_nfsd
nfs_mount 3 /mnt/nfs3
workload /mnt/nfs3
say "mountstats: $(rdma_stats /mnt/nfs3)"
nfs_umount /mnt/nfs3
