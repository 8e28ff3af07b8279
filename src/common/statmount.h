/* statmount(2) (Linux 6.8; its mount options from 6.11), newer than Debian
 * 12's kernel headers: what one mount is, asked of the kernel by its id,
 * instead of reading /proc/self/mountinfo, which costs more the more
 * cgroup mounts there are (the kernel writes each one's root path). A
 * kernel without it answers ENOSYS, one without a field leaves its bit
 * out of mask: every caller then falls back to mountinfo. Linux only. */
#pragma once

#include <stdint.h>

#ifndef STATX_MNT_ID_UNIQUE
#define STATX_MNT_ID_UNIQUE 0x00004000U
#endif
#define NR_STATMOUNT 457 /* the shared table of new syscalls */

#define LNK_STATMOUNT_SB_BASIC 0x00000001U  /* the super block's fields */
#define LNK_STATMOUNT_MNT_POINT 0x00000010U /* mnt_point */
#define LNK_STATMOUNT_FS_TYPE 0x00000020U   /* fs_type */
#define LNK_STATMOUNT_MNT_OPTS 0x00000080U  /* mnt_opts */

struct mnt_id_req {
	uint32_t size, spare;
	uint64_t mnt_id, param, mnt_ns_id;
};

/* The fixed part of the kernel's struct statmount (512 bytes); string
 * fields are offsets into str. Only the fields lnk reads are named. */
struct lnk_statmount {
	uint32_t size, mnt_opts;
	uint64_t mask;
	uint32_t sb_dev_major, sb_dev_minor;
	uint64_t sb_magic;
	uint32_t sb_flags, fs_type;
	uint64_t mnt_id, mnt_parent_id;
	uint32_t mnt_id_old, mnt_parent_id_old;
	uint64_t mnt_attr, mnt_propagation, mnt_peer_group, mnt_master;
	uint64_t propagate_from;
	uint32_t mnt_root, mnt_point;
	uint64_t rest[50]; /* fields lnk does not read, to 512 bytes */
	char str[];
};
_Static_assert(sizeof(struct lnk_statmount) == 512,
	       "the kernel's struct statmount is 512 bytes before its strings");
