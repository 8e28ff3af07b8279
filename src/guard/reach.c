/* What the sandbox's grants reach: whether a descriptor lies on a mount
 * of the task's mount namespace. */
#include "guard/supervisor.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/statmount.h"

#ifndef NS_GET_MNTNS_ID
#define NS_GET_MNTNS_ID _IOR(0xb7, 0x5, uint64_t)
#endif

/* The old (non-unique) mount id of fd in /proc/TID/mountinfo: kernels
 * without statmount (before 6.11). The id cannot be reused while fd holds
 * its mount. 1 found, 0 not, -EPERM unknown. */
static int mount_in_mountinfo(struct task *t, int fd)
{
	struct statx sx;
	char line[8192];
	int r = 0;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &sx) < 0 ||
	    !(sx.stx_mask & STATX_MNT_ID))
		return -EPERM;
	int mfd = openat(t->procfd, "mountinfo", O_RDONLY | O_CLOEXEC);
	if (mfd < 0)
		return -EPERM;
	FILE *f = fdopen(mfd, "r");
	if (!f) {
		close(mfd);
		return -EPERM;
	}
	bool start = true; /* line holds the start of a line */
	while (r == 0 && fgets(line, sizeof(line), f)) {
		char *end;
		unsigned long long id = strtoull(line, &end, 10);
		if (start && end != line && *end == ' ' && id == sx.stx_mnt_id)
			r = 1;
		start = strchr(line, '\n') != NULL;
	}
	fclose(f);
	return r;
}

/* 1 when fd lies on a mount of the task's mount namespace, 0 when not
 * (the host's: an inherited stdin, stdout or folder; a pipe or socket),
 * -EPERM when it cannot be told. The sandbox's mount tree is exactly
 * what its grants show, with their read-only, hidden and missing places
 * (write confinement is mount-based), and a walk on descriptors never
 * leaves the namespace of the mount it starts on. So this is the test of
 * "inside the grants" for whatever the guard is asked to act on. */
int guard_on_sandbox_mounts(struct task *t, int fd)
{
	struct guard *n = t->w->n;
	struct statx sx;
	uint64_t ns;

	pthread_mutex_lock(&n->mnt_mu);
	ns = n->mntns;
	pthread_mutex_unlock(&n->mnt_mu);
	if (!ns) {
		int nsfd = openat(t->procfd, "ns/mnt", O_RDONLY | O_CLOEXEC);
		if (nsfd < 0)
			return -EPERM;
		if (ioctl(nsfd, NS_GET_MNTNS_ID, &ns) < 0 || !ns)
			ns = UINT64_MAX; /* before 6.10: mountinfo */
		close(nsfd);
		pthread_mutex_lock(&n->mnt_mu);
		n->mntns = ns;
		pthread_mutex_unlock(&n->mnt_mu);
	}
	if (ns == UINT64_MAX ||
	    statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID_UNIQUE, &sx) < 0 ||
	    !(sx.stx_mask & STATX_MNT_ID_UNIQUE))
		return mount_in_mountinfo(t, fd);
	bool known = false;
	pthread_mutex_lock(&n->mnt_mu);
	for (size_t i = 0; i < n->nmnt_in && !known; i++)
		known = n->mnt_in[i] == sx.stx_mnt_id;
	pthread_mutex_unlock(&n->mnt_mu);
	if (known)
		return 1;
	struct mnt_id_req req = {
	    .size = sizeof(req),
	    .mnt_id = sx.stx_mnt_id,
	    .param = LNK_STATMOUNT_SB_BASIC, /* the least there is */
	    .mnt_ns_id = ns,
	};
	union {
		uint64_t align;
		char b[512];
	} buf;
	if (syscall(NR_STATMOUNT, &req, buf.b, sizeof(buf.b), 0) == 0) {
		pthread_mutex_lock(&n->mnt_mu);
		if (n->nmnt_in < ARRAY_SIZE(n->mnt_in))
			n->mnt_in[n->nmnt_in++] = sx.stx_mnt_id;
		pthread_mutex_unlock(&n->mnt_mu);
		return 1;
	}
	if (errno == ENOENT)
		return 0;
	if (errno == ENOSYS || errno == EINVAL)
		return mount_in_mountinfo(t, fd);
	return -EPERM;
}

/* 0 when the guard may act beneath or on fd for the task; -EACCES (what
 * Landlock answers the program natively) when fd is not inside its
 * grants. */
int guard_reach_ok(struct task *t, int fd)
{
	int r = guard_on_sandbox_mounts(t, fd);

	return r > 0 ? 0 : r == 0 ? -EACCES : r;
}

/* An object the path names BY a descriptor of the task (/dev/stdout,
 * /dev/fd/N, /proc/self/fd/N), reopened with flags: inside the grants,
 * the mounts decide as for any path; outside them (the host's stdin or
 * stdout, a pipe) never more than the descriptor has, acc its access
 * mode: an inherited read-only deploy.sh stays read only, an append-only
 * log stays unread. */
int guard_fd_reopen_ok(struct task *t, int o, int acc, int flags)
{
	int r = guard_on_sandbox_mounts(t, o);

	if (r < 0)
		return r;
	if (r > 0 || guard_access_within(flags, acc))
		return 0;
	return -EACCES;
}
