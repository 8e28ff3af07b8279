/* Files with more than one name: a write must not reach the other names.
 *
 * Threat: a file in a write folder is a second name (a hard link) of a
 * file outside it: cp -al backups, package stores (pnpm links every file of
 * node_modules to its store), perf's build-id cache ~/.debug, which run as
 * root holds hard links of the programs in /usr/bin. Landlock and the mounts
 * judge a path, not the file behind it, so a write through that name would
 * change the file outside, a program someone runs later (and a chmod of it
 * would let every account rewrite it). Which folder the other names are in
 * is not knowable from the file, so any regular file with more than one name
 * is treated as shared:
 *  - opened for writing (open and truncate come here through the guard),
 *    or given a new mode by its owner, the name first gets a file of its
 *    own: a copy (empty when the open truncates) with the same mode,
 *    renamed over the name, so the other names keep the file as it was;
 *  - its owner or extended attributes are not changed (EPERM): that
 *    would change every name's.
 * A descriptor the program already holds for writing was opened through
 * here, or given to lnk by the user. */
#include "guard/supervisor.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "common/esc.h"

bool guard_is_shared(const struct stat *st)
{
	return S_ISREG(st->st_mode) && st->st_nlink > 1;
}

bool guard_open_writes(int flags)
{
	return !(flags & O_PATH) &&
	       ((flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC));
}

/* The content of from into to, from the start; 0 or -errno. */
static int copy_content(int from, int to)
{
	char buf[65536];

	for (;;) {
		ssize_t n = copy_file_range(from, NULL, to, NULL, 1 << 30, 0);
		if (n == 0)
			return 0;
		if (n > 0)
			continue;
		if (errno == EINTR)
			continue;
		if (errno != EXDEV && errno != ENOSYS && errno != EINVAL &&
		    errno != EOPNOTSUPP)
			return -errno;
		break; /* a file system that cannot: by hand, from here */
	}
	for (;;) {
		ssize_t n = read(from, buf, sizeof(buf));
		if (n == 0)
			return 0;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(to, buf + off, (size_t)(n - off));
			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0)
				return -errno;
			off += w;
		}
	}
}

int guard_own_copy(struct guard *n, int dir, const char *name, int o,
		   const struct stat *st, bool truncating, int *out)
{
	char tmp[64];
	unsigned rnd = 0;
	int fd = -1, r;
	struct statvfs sv;

	*out = -1;
	/* The rename below is lnk's, from outside the sandbox's mount
	 * namespace, where the kernel does not refuse to rename over one of
	 * its mount points: over a read-only bind (a kept dot file, a --read
	 * file in a write folder) it would detach that mount, and the name
	 * would then be the program's to write. So the name must be one the
	 * program could replace itself, as the mounts and the guard's rules
	 * see it from inside. */
	if (fstatvfs(o, &sv) < 0)
		return -EPERM;
	if (sv.f_flag & ST_RDONLY)
		return -EROFS;
	if ((r = guard_mount_point_at(dir, name)) != 0)
		return r > 0 ? -EBUSY : r;
	if (guard_refuses(n, dir, name))
		return -EPERM;
	/* A fresh name beside it (the folder is the program's to write, or
	 * this fails as the program's write would have). */
	for (int tries = 0; fd < 0 && tries < 16; tries++) {
		if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
			return -EIO;
		snprintf(tmp, sizeof(tmp), ".lnk-own-%08x", rnd);
		fd = openat(dir, tmp,
			    O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0600);
		if (fd < 0 && errno != EEXIST)
			return -errno;
	}
	if (fd < 0)
		return -EEXIST;
	r = 0;
	if (!truncating) {
		char p[64];
		snprintf(p, sizeof(p), "/proc/thread-self/fd/%d", o);
		int from = open(p, O_RDONLY | O_CLOEXEC | O_NOCTTY);
		r = from < 0 ? -errno : copy_content(from, fd);
		if (from >= 0)
			close(from);
	}
	/* The same mode, never a set-id bit (lnk-init's filter); as root
	 * the same owner too, as another user the file is theirs anyway. */
	if (r == 0 && fchmod(fd, st->st_mode & (mode_t) ~(S_ISUID | S_ISGID |
							  S_IFMT)) < 0)
		r = -errno;
	if (r == 0 && geteuid() == 0 && (st->st_uid != 0 || st->st_gid != 0) &&
	    fchown(fd, st->st_uid, st->st_gid) < 0)
		r = -errno;
	if (r == 0 && renameat(dir, tmp, dir, name) < 0)
		r = -errno;
	if (r < 0) {
		unlinkat(dir, tmp, 0);
		close(fd);
		return r;
	}
	*out = fd;
	return 0;
}

void guard_refuse_shared(struct guard *n, int obj)
{
	guard_refuse_object(n, obj, "owner or attributes",
			    "it has other names (hard links), which may be "
			    "outside the write folders");
}
