/* Resolving a sandboxed task's path on descriptors, inside its own root.
 *
 * The supervisor runs outside the sandbox, so every lookup it makes for a task
 * must behave as the task's would: start at the task's cwd, dirfd or root
 * (through /proc/TID), stay inside the task's root, and never let the kernel
 * follow a symlink relative to the SUPERVISOR's root, or a write lands on the
 * host (docs/kernel-facts.md, no-follow-in-own-root). openat2 does the walk:
 *  - absolute paths: RESOLVE_IN_ROOT from the task's root (absolute
 *    symlinks met on the way are taken relative to it, ".." stops at it);
 *  - relative paths: RESOLVE_BENEATH from the base; it answers EXDEV when
 *    the walk would leave the base (".." above it, an absolute symlink),
 *    and we retry IN_ROOT from the base's own path, checked to be the same
 *    folder (dev, ino) before it is trusted;
 *  - always RESOLVE_NO_MAGICLINKS: /proc/PID/{fd,cwd,root} links would
 *    jump anywhere, including outside the task's root.
 */
#include "guard/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static int openat2_dir(int dirfd, const char *path, unsigned long long resolve)
{
	struct open_how how = {
	    .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
	    .resolve = resolve | RESOLVE_NO_MAGICLINKS,
	};

	/* EAGAIN: a rename or mount raced a ".." walk; the kernel asks us to
	 * retry rather than risk a wrong answer. */
	for (int i = 0; i < 16; i++) {
		long r = syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
		if (r >= 0)
			return (int)r;
		if (errno != EAGAIN && errno != EINTR)
			return -errno;
	}
	return -EAGAIN;
}

/* The EXDEV fallback: the base's path (as the kernel prints it, relative to
 * the root of its mount namespace, which is the task's root under bwrap),
 * trusted only after it resolves in the task's root to the very same
 * folder. */
static int open_dir_from_root(struct guard_ctx *c, int basefd, const char *dir,
			      int *out)
{
	char link[64], base[PATH_MAX], full[PATH_MAX];
	struct stat a, b;
	ssize_t n;
	int r;

	snprintf(link, sizeof(link), "/proc/thread-self/fd/%d", basefd);
	n = readlink(link, base, sizeof(base) - 1);
	if (n < 0)
		return -errno;
	base[n] = '\0';
	if (base[0] != '/')
		return -EPERM; /* "pipe:[…]", an anonymous inode: not a path */
	int root = guard_root(c);
	if (root < 0)
		return -EPERM;
	int fd = openat2_dir(root, base, RESOLVE_IN_ROOT);
	if (fd < 0)
		return -EPERM;
	r = fstat(fd, &a) == 0 && fstat(basefd, &b) == 0 &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino;
	close(fd);
	if (!r)
		return -EPERM; /* deleted, moved, or outside the task's root */
	if ((size_t)snprintf(full, sizeof(full), "%s/%s", base, dir) >=
	    sizeof(full))
		return -ENAMETOOLONG;
	fd = openat2_dir(root, full, RESOLVE_IN_ROOT);
	if (fd < 0)
		return fd;
	*out = fd;
	return 0;
}

int guard_root(struct guard_ctx *c)
{
	if (c->rootfd < 0 && c->procfd >= 0) {
		c->rootfd =
		    openat(c->procfd, "root", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (c->rootfd < 0)
			return -errno;
	}
	return c->rootfd < 0 ? -EPERM : c->rootfd;
}

int guard_open_dir(struct guard_ctx *c, int basefd, const char *dir, int *out)
{
	int fd;

	if (dir[0] == '/') {
		int root = guard_root(c);
		if (root < 0)
			return -EPERM;
		fd = openat2_dir(root, dir, RESOLVE_IN_ROOT);
	} else {
		fd = openat2_dir(basefd, *dir ? dir : ".", RESOLVE_BENEATH);
	}
	if (fd == -EXDEV && dir[0] != '/')
		return open_dir_from_root(c, basefd, dir, out);
	if (fd < 0)
		return fd;
	*out = fd;
	return 0;
}

int guard_lookup_parent(struct guard_ctx *c, int basefd, const char *path,
			int *parent, char *last, size_t lastcap, bool *slash)
{
	char dir[PATH_MAX];
	int r = guard_split(path, dir, sizeof(dir), last, lastcap, slash);

	if (r < 0)
		return r;
	return guard_open_dir(c, basefd, dir, parent);
}
