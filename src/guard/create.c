/* The calls that give a name in a folder: mkdir, mknod, symlink, link,
 * rename. */
#include "guard/supervisor.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif
#ifndef RENAME_WHITEOUT
#define RENAME_WHITEOUT (1 << 2)
#endif

/* Where a new name goes: 0 with w located (guard_where_close it), or the
 * answer: -EEXIST when the path is a magic link or ends in "." or "..",
 * as natively. */
static int new_name(struct task *t, int base, const char *path, struct where *w)
{
	int r = guard_locate(t, base, path, w);

	if (r < 0)
		return r;
	if (w->magic >= 0 || guard_is_dots(w->last)) {
		guard_where_close(w);
		return -EEXIST;
	}
	return 0;
}

/* Takes the task's umask for the creation that follows: 0, or -EPERM
 * when it cannot be read (fail closed). */
static int task_umask(struct task *t)
{
	if (guard_task_status(t) < 0)
		return -EPERM;
	umask(t->umask);
	return 0;
}

int guard_do_mkdir(struct guard *n, struct task *t, int base, const char *path,
		   mode_t mode)
{
	struct where w;
	int r = new_name(t, base, path, &w);

	mode &= (mode_t) ~(S_ISUID | S_ISGID); /* see guard_do_open */
	if (r < 0)
		return r;
	if ((r = guard_check(n, w.parent, w.last)) == 0 &&
	    (r = task_umask(t)) == 0)
		r = mkdirat(w.parent, w.last, mode) < 0 ? -errno : 0;
	guard_where_close(&w);
	return r;
}

int guard_do_mknod(struct guard *n, struct task *t, int base, const char *path,
		   mode_t mode, dev_t dev)
{
	struct where w;
	int r = new_name(t, base, path, &w);

	mode &= (mode_t) ~(S_ISUID | S_ISGID); /* see guard_do_open */
	if (r < 0)
		return r;
	if (S_ISCHR(mode) || S_ISBLK(mode))
		r = -EACCES; /* never granted by the sandbox's Landlock either
			      * (a whiteout 0:0 needs no capability) */
	else if ((r = guard_check(n, w.parent, w.last)) == 0) {
		if (w.slash)
			r = guard_slash_err(&w);
		else if ((r = task_umask(t)) == 0)
			r = mknodat(w.parent, w.last, mode, dev) < 0 ? -errno
								     : 0;
	}
	guard_where_close(&w);
	return r;
}

int guard_do_symlink(struct guard *n, struct task *t, const char *target,
		     int base, const char *path)
{
	struct where w;
	int r = new_name(t, base, path, &w);

	if (r < 0)
		return r;
	if ((r = guard_check(n, w.parent, w.last)) == 0) {
		if (w.slash)
			r = guard_slash_err(&w);
		else
			r = symlinkat(target, w.parent, w.last) < 0 ? -errno
								    : 0;
	}
	guard_where_close(&w);
	return r;
}

/* A name may be given to an existing object only when it is an ordinary
 * one: never a setuid or setgid program (an O_TMPFILE made with one, say,
 * should lnk-init's filter ever miss it), nothing on a pseudo file
 * system. */
static int link_source_ok(int fd)
{
	struct stat st;
	struct statfs sf;

	if (fstat(fd, &st) < 0 || fstatfs(fd, &sf) < 0)
		return -EPERM;
	if (!guard_fs_ok((unsigned long)sf.f_type, true))
		return -EACCES;
	if (S_ISREG(st.st_mode) &&
	    ((st.st_mode & S_ISUID) ||
	     (st.st_mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP)))
		return -EPERM;
	return 0;
}

/* An O_PATH fd on what `old` names, following a final symlink by hand. */
int guard_open_old_followed(struct task *t, struct where *w)
{
	for (int hop = 0; hop <= 40; hop++) {
		if (guard_is_dots(w->last))
			return -EPERM; /* a folder: cannot be linked */
		int fd =
		    openat(w->parent, w->last, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		struct stat st;
		if (fstat(fd, &st) < 0) {
			close(fd);
			return -EPERM;
		}
		if (!S_ISLNK(st.st_mode))
			return fd;
		close(fd);
		int r = guard_follow(t, w);
		if (r < 0)
			return r;
	}
	return -ELOOP;
}

int guard_do_link(struct guard *n, struct task *t, int obase, const char *old,
		  int nbase, const char *newp, int flags)
{
	struct where o = {.parent = -1}, nw = {.parent = -1};
	char src[64];
	int r, srcfd = -1;

	if (flags & ~(AT_SYMLINK_FOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	r = guard_locate(t, nbase, newp, &nw);
	if (r < 0)
		return r;
	if (nw.magic >= 0 || guard_is_dots(nw.last)) {
		r = -EEXIST;
		goto out;
	}
	r = guard_check(n, nw.parent, nw.last);
	if (r < 0)
		goto out;
	if (nw.slash) {
		r = guard_slash_err(&nw);
		goto out;
	}

	if (!*old && (flags & AT_EMPTY_PATH)) {
		/* flink: old is the dirfd itself (O_TMPFILE + linkat), or
		 * its cwd: the worker opened it (O_PATH) as obase. */
		if (obase < 0) {
			r = obase == -1 ? -EBADF : obase;
			goto out;
		}
		snprintf(src, sizeof(src), "/proc/thread-self/fd/%d", obase);
	} else {
		r = guard_locate(t, obase, old, &o);
		if (r < 0)
			goto out;
		if (o.magic >= 0) {
			if (!(flags & AT_SYMLINK_FOLLOW)) {
				r = -EXDEV; /* linking a proc symlink */
				goto out;
			}
			snprintf(src, sizeof(src), "/proc/thread-self/fd/%d",
				 o.magic);
		} else if (flags & AT_SYMLINK_FOLLOW) {
			srcfd = guard_open_old_followed(t, &o);
			if (srcfd < 0) {
				r = srcfd;
				goto out;
			}
			snprintf(src, sizeof(src), "/proc/thread-self/fd/%d",
				 srcfd);
		} else {
			if (guard_is_dots(o.last)) {
				r = -EPERM;
				goto out;
			}
			srcfd = openat(o.parent, o.last,
				       O_PATH | O_NOFOLLOW | O_CLOEXEC);
			if (srcfd < 0) {
				r = -errno;
				goto out;
			}
			/* linked below by this descriptor, never again by
			 * name: a swap of o.last in between cannot change
			 * what gets the new name (a symlink's own O_PATH
			 * file links the symlink itself) */
			snprintf(src, sizeof(src), "/proc/thread-self/fd/%d",
				 srcfd);
		}
	}
	{
		/* what the proc link names, checked like any source: an
		 * ordinary object, inside the grants (an inherited host
		 * file is not given a name in a write folder) */
		int chk = open(src, O_PATH | O_CLOEXEC);
		if (chk < 0) {
			r = -errno;
			goto out;
		}
		r = link_source_ok(chk);
		if (r == 0 && (r = guard_on_sandbox_mounts(t, chk)) >= 0)
			r = r > 0 ? 0 : -EXDEV;
		close(chk);
		if (r < 0)
			goto out;
	}
	/* The kernel follows only a proc link naming an object the task (or
	 * we, for it) already hold: never a path the task controls. */
	r = linkat(AT_FDCWD, src, nw.parent, nw.last, AT_SYMLINK_FOLLOW) < 0
		? -errno
		: 0;
out:
	if (srcfd >= 0)
		close(srcfd);
	guard_where_close(&o);
	guard_where_close(&nw);
	return r;
}

int guard_do_rename(struct guard *n, struct task *t, int obase, const char *old,
		    int nbase, const char *newp, unsigned flags)
{
	struct where o = {.parent = -1}, nw = {.parent = -1};
	char ol[NAME_MAX + 2], nl[NAME_MAX + 2];
	int r;

	r = guard_locate(t, obase, old, &o);
	if (r < 0)
		return r;
	r = guard_locate(t, nbase, newp, &nw);
	if (r < 0)
		goto out;
	if (o.magic >= 0 || nw.magic >= 0) {
		r = -EXDEV;
		goto out;
	}
	if (guard_is_dots(o.last) || guard_is_dots(nw.last)) {
		r = (flags & RENAME_NOREPLACE) ? -EEXIST : -EBUSY;
		goto out;
	}
	/* Mount points: the kernel refuses to rename one (EBUSY) only when it
	 * is a mount point in the CALLER's namespace, and we are not in the
	 * sandbox's. Without this check, the read-only bind of an existing
	 * .envrc or .git (or a --hide over a folder) could be renamed away on
	 * the host through us. Measured: it was. */
	if ((r = guard_mount_point_at(o.parent, o.last)) != 0 ||
	    (r = guard_mount_point_at(nw.parent, nw.last)) != 0) {
		r = r > 0 ? -EBUSY : r;
		goto out;
	}
	/* An existing dot file that is not a mount (a symlink at the top) is
	 * not renamed away either. */
	if (guard_refuses(n, o.parent, o.last)) {
		r = -EBUSY;
		goto out;
	}
	/* Nor anything in (or itself) a guarded entry made outside during
	 * the run (late.c). */
	if ((r = guard_late_check(n, o.parent, o.last)) < 0)
		goto out;
	/* The new name is created; with EXCHANGE or WHITEOUT the old name is
	 * (re)created too. */
	r = guard_check(n, nw.parent, nw.last);
	if (r == 0 && (flags & (RENAME_EXCHANGE | RENAME_WHITEOUT)))
		r = guard_check(n, o.parent, o.last);
	if (r < 0) {
		/* replacing an existing guarded entry is a change too */
		r = r == -EEXIST ? -EPERM : r;
		goto out;
	}
	snprintf(ol, sizeof(ol), "%s%s", o.last, o.slash ? "/" : "");
	snprintf(nl, sizeof(nl), "%s%s", nw.last, nw.slash ? "/" : "");
	r = syscall(SYS_renameat2, o.parent, ol, nw.parent, nl, flags) < 0
		? -errno
		: 0;
out:
	guard_where_close(&o);
	guard_where_close(&nw);
	return r;
}
