/* Paths of one call: where each starts, as the task sees it, and the
 * folder it names, resolved inside the task's root and its grants. */
#include "guard/supervisor.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void guard_where_close(struct where *w)
{
	if (w->parent >= 0)
		close(w->parent);
	w->parent = -1;
}

/* Where a path starts, as the task sees it: *fd is set to the task's
 * descriptor it starts at (-1 for its cwd) and 0 returned; 1 when it
 * starts at the task's root (absolute); -EBADF for a bad dirfd. Pure. */
static int base_of(int dirfd, const char *path, int *fd)
{
	struct guard_path np;

	guard_rewrite(path, &np);
	switch (np.base) {
	case GUARD_BASE_ROOT:
		return 1;
	case GUARD_BASE_FD:
		*fd = np.fd;
		return 0;
	case GUARD_BASE_CWD:
		*fd = -1;
		return 0;
	case GUARD_BASE_DIRFD:
		if (dirfd == AT_FDCWD)
			*fd = -1;
		else if (dirfd < 0)
			return -EBADF;
		else
			*fd = dirfd;
		return 0;
	}
	return -EBADF;
}

/* The worker's half: opens where path starts. -1 when it starts at the
 * root, else an fd (O_PATH on the cwd, or the task's descriptor itself,
 * its access mode in *acc) or -errno (kept for the executor to report at
 * the same point as the native call would). */
int guard_base_prepare(struct task *t, int dirfd, const char *path, int *acc)
{
	int fdnum, fd;
	int r = base_of(dirfd, path, &fdnum);

	*acc = O_PATH;
	if (r != 0)
		return r > 0 ? -1 : r;
	if (fdnum < 0) {
		fd = openat(t->procfd, "cwd", O_PATH | O_CLOEXEC);
		return fd < 0 ? -EPERM : fd;
	}
	fd = guard_task_getfd(t, fdnum);
	if (fd < 0)
		return fd;
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0) {
		close(fd);
		return -EPERM;
	}
	*acc = (fl & O_PATH) ? O_PATH : (fl & O_ACCMODE);
	return fd;
}

/* The end of locate: the folder found must be inside the sandbox's
 * grants, whatever it was reached from (a descriptor of the host's folder
 * given as stdin: `mkdir /dev/fd/0/.git`). */
static int located(struct task *t, struct where *w, int r)
{
	if (r == 0 && (r = guard_reach_ok(t, w->parent)) < 0)
		guard_where_close(w);
	return r;
}

/* Resolves the parent of path as the task sees it; base is the prepared
 * start of this path (guard_base_prepare). */
int guard_locate(struct task *t, int base, const char *path, struct where *w)
{
	struct guard_path np;
	char abs[PATH_MAX];

	w->parent = -1;
	w->magic = -1;
	w->slash = false;
	w->proc_self = false;
	if (!*path)
		return -ENOENT;
	guard_rewrite(path, &np);
	w->proc_self = np.proc_self;
	if (np.base == GUARD_BASE_ROOT) {
		/* Absolute, or /proc/self/root/...: IN_ROOT from its root. */
		if ((size_t)snprintf(abs, sizeof(abs), "/%s", np.rest) >=
		    sizeof(abs))
			return -ENAMETOOLONG;
		return located(t, w,
			       guard_lookup_parent(&t->ctx, -1, abs, &w->parent,
						   w->last, sizeof(w->last),
						   &w->slash));
	}
	if (base < 0)
		return base == -1 ? -EBADF : base;
	if (!*np.rest) {
		/* The path is the magic link itself (/dev/stdout). */
		w->magic = base;
		return 0;
	}
	struct stat st;
	if (fstat(base, &st) < 0 || !S_ISDIR(st.st_mode))
		return -ENOTDIR;
	return located(t, w,
		       guard_lookup_parent(&t->ctx, base, np.rest, &w->parent,
					   w->last, sizeof(w->last),
					   &w->slash));
}

/* The error a non-mkdir creation gets natively for "name/" (the kernel
 * suppresses the create): EEXIST when it exists, else ENOENT. */
int guard_slash_err(const struct where *w)
{
	struct stat st;
	return fstatat(w->parent, w->last, &st, AT_SYMLINK_NOFOLLOW) == 0
		   ? -EEXIST
		   : -ENOENT;
}

/* Follows the symlink `w->last` in w->parent by hand: re-locates w on its
 * target, inside the task's root. */
int guard_follow(struct task *t, struct where *w)
{
	char target[PATH_MAX];
	ssize_t n = readlinkat(w->parent, w->last, target, sizeof(target) - 1);

	if (n < 0)
		return -errno;
	target[n] = '\0';
	if (n == 0)
		return -ENOENT;
	struct where nw;
	int r = guard_lookup_parent(&t->ctx, target[0] == '/' ? -1 : w->parent,
				    target, &nw.parent, nw.last,
				    sizeof(nw.last), &nw.slash);
	if (r < 0)
		return r;
	close(w->parent);
	w->parent = nw.parent;
	memcpy(w->last, nw.last, sizeof(w->last));
	w->slash = w->slash || nw.slash;
	return 0;
}
