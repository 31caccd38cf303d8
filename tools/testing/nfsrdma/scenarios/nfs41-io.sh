# SPDX-License-Identifier: GPL-2.0
# NFSv4.1 over RDMA: 8 MiB write and read back by checksum, a directory
# of 500 entries, creates and unlinks.
local_nfsd
nfs_mount 4.1 /mnt/nfs41
workload /mnt/nfs41
say "mountstats: $(rdma_stats /mnt/nfs41)"
nfs_umount /mnt/nfs41
