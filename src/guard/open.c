/* The opens: a new file created by the worker, an existing object
 * opened by the restricted executor. */
#include "guard/supervisor.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/statfs.h>
#include <unistd.h>

/* Blocking FIFO opens at once: well under POOL_MAX, so that ordinary
 * creations always find a free pair (tests/e2e/test_inv5_processes.py
 * floods it with 300). */
#define FIFO_MAX 48

/* Opens what the O_PATH fd o names as the program's own open would:
 * reopened through our own /proc/thread-self/fd, so the kernel checks the
 * permissions and runs the open (and its Landlock and ptrace checks) in
 * this restricted thread. Nothing is created. */
int guard_reopen(int o, int flags)
{
	char p[64];

	snprintf(p, sizeof(p), "/proc/thread-self/fd/%d", o);
	int fd = open(p, (flags & ~(O_CREAT | O_EXCL | O_NOFOLLOW)) |
			     O_CLOEXEC | O_NOCTTY);
	return fd < 0 ? -errno : fd;
}

/* A FIFO opened for reading, or for writing with no reader yet, blocks
 * until its peer comes (docs/kernel-facts.md, fifo-needs-a-pool), holding this
 * worker pair. At most FIFO_MAX wait at once; beyond, EAGAIN: a flood of them
 * (300 in tests/e2e/test_inv5_processes.py) must not leave no pair for every
 * other creation. A writer first tries without blocking: with a reader there,
 * it never waits. */
int guard_open_fifo(struct guard *n, int o, int flags)
{
	int acc = flags & O_ACCMODE, fd;

	if ((flags & O_NONBLOCK) || acc == O_RDWR)
		return guard_reopen(o, flags); /* never blocks */
	if (acc == O_WRONLY) {
		fd = guard_reopen(o, flags | O_NONBLOCK);
		if (fd >= 0) {
			int fl = fcntl(fd, F_GETFL);
			if (fl < 0 ||
			    fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
				close(fd);
				return -EPERM;
			}
			return fd;
		}
		if (fd != -ENXIO)
			return fd;
	}
	if (atomic_fetch_add(&n->fifo_blocked, 1) >= FIFO_MAX) {
		atomic_fetch_sub(&n->fifo_blocked, 1);
		return -EAGAIN;
	}
	fd = guard_reopen(o, flags);
	atomic_fetch_sub(&n->fifo_blocked, 1);
	return fd;
}

/* The object (O_PATH) an O_CREAT open found already there: checked here,
 * then opened without O_CREAT by the executor (restricted). Returns an fd
 * or -errno. */
static int open_existing(struct guard *n, struct task *t, int o, int flags)
{
	struct stat st;
	struct statfs sf;
	int use = o;

	if (fstat(o, &st) < 0 || fstatfs(o, &sf) < 0)
		return -EPERM;
	/* /proc/1/mem, maps, environ, /sys/...: never (the confused
	 * deputy: tests/e2e/test_inv5_processes.py, test_pid1_memory_*).
	 * EACCES, as Landlock answers the program's own open. */
	if (!guard_fs_ok((unsigned long)sf.f_type, true) || S_ISBLK(st.st_mode))
		return -EACCES;
	if (S_ISCHR(st.st_mode)) {
		switch (guard_chardev(st.st_rdev)) {
		case GUARD_DEV_OPEN:
			break;
		case GUARD_DEV_CTTY:
			/* /dev/tty names the CALLER's terminal: ours would
			 * be the user's real one, past the program's pty. */
			if (t->ctty == GUARD_CTTY_UNKNOWN)
				t->ctty = guard_find_ctty(t);
			if (t->ctty < 0)
				return -ENXIO;
			use = t->ctty;
			if (fstat(use, &st) < 0 || fstatfs(use, &sf) < 0 ||
			    !guard_fs_ok((unsigned long)sf.f_type, true) ||
			    !S_ISCHR(st.st_mode) ||
			    guard_chardev(st.st_rdev) != GUARD_DEV_OPEN)
				return -ENXIO;
			break;
		case GUARD_DEV_REFUSE:
			return -EACCES;
		}
	}
	if (flags & O_PATH) {
		/* a new O_PATH file: `use` may be the task's own open file
		 * (pidfd_getfd), whose access a dup would hand over */
		char p[64];
		snprintf(p, sizeof(p), "/proc/thread-self/fd/%d", use);
		int fd = open(p, O_PATH | O_CLOEXEC);
		return fd < 0 ? -errno : fd;
	}
	if (S_ISDIR(st.st_mode) && (flags & O_CREAT))
		return -EISDIR;
	(void)n;
	return guard_exec_open(t->w, use, flags, S_ISFIFO(st.st_mode));
}

/* A write to a file with other names (shared.c): the program must be
 * allowed the write on the file as it is (the executor opens it so, without
 * O_TRUNC, and writes nothing), then its name gets a file of its own, which
 * is what is opened. */
static int open_shared(struct guard *n, struct task *t, const struct where *w,
		       int o, const struct stat *st, int flags)
{
	int fd = open_existing(n, t, o, flags & ~(O_TRUNC | O_CREAT | O_EXCL));
	if (fd < 0)
		return fd;
	close(fd);
	int own;
	int r =
	    guard_own_copy(n, w->parent, w->last, o, st, flags & O_TRUNC, &own);
	if (r < 0)
		return r;
	r = open_existing(n, t, own, flags);
	close(own);
	return r;
}

int guard_do_open(struct guard *n, struct task *t, int base, int acc,
		  const char *path, int flags, mode_t mode)
{
	struct where w;
	int r = guard_locate(t, base, path, &w);

	/* /proc is read only inside: a write under /proc/self that names
	 * none of its descriptors, cwd or root fails there as it would
	 * natively, not as a name the supervisor cannot resolve. */
	if (w.proc_self && guard_open_writes(flags)) {
		if (r == 0)
			guard_where_close(&w);
		return -EROFS;
	}
	/* O_PATH ignores O_CREAT and O_EXCL: a lookup, nothing made. */
	if (flags & O_PATH)
		flags &= O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	bool excl = (flags & O_CREAT) && (flags & O_EXCL);
	bool follow_final = !(flags & O_NOFOLLOW) && !excl;
	int oflags = (flags & ~O_CLOEXEC) | O_CLOEXEC | O_NOCTTY;

	/* Belt and braces over lnk-init's filter: a --write folder is on
	 * the host, where a setuid file would stay setuid. */
	mode &= (mode_t) ~(S_ISUID | S_ISGID);
	if (r < 0)
		return r;
	if (w.magic >= 0) {
		/* Reopening the task's own open file or cwd: nothing is
		 * created. Native semantics for a final symlink first. */
		if (excl)
			return -EEXIST;
		if (flags & O_NOFOLLOW)
			return -ELOOP;
		if ((r = guard_fd_reopen_ok(t, w.magic, acc, flags)) < 0)
			return r;
		/* what no mount keeps: an entry made outside during the run
		 * (late.c), reopened for writing by its descriptor */
		if (guard_open_writes(flags) &&
		    (r = guard_late_object(n, t, w.magic)) < 0)
			return r;
		/* No name here to give a file of its own (shared.c). */
		struct stat st;
		if (guard_open_writes(flags) &&
		    (fstat(w.magic, &st) < 0 || guard_is_shared(&st)))
			return -EPERM;
		return open_existing(n, t, w.magic, flags);
	}
	for (int hop = 0;; hop++) {
		if (hop > 40) {
			r = -ELOOP;
			break;
		}
		if ((flags & O_CREAT) && w.slash) {
			r = -EISDIR;
			break;
		}
		if (guard_is_dots(w.last)) {
			r = -EISDIR;
			break;
		}
		/* -EEXIST: an existing guarded name, opened as it is, never
		 * created (should it vanish meanwhile: ENOENT, not a new
		 * .envrc). */
		r = guard_check(n, w.parent, w.last);
		bool guarded_name = r == -EEXIST;
		if (r < 0 && !(guarded_name && !excl))
			break;
		/* An existing guarded name is never written: kept, its
		 * read-only mount refuses it; made or replaced outside during
		 * the run (the mount gone with the old file), this does. */
		if (guarded_name && guard_open_writes(flags)) {
			r = guard_late_write_refused(n, w.parent, w.last,
						     "write");
			break;
		}
		/* Look before opening: an existing object is checked, and
		 * opened by guard_reopen(), never by an open that could block or
		 * create. */
		int o =
		    openat(w.parent, w.last, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (o >= 0) {
			struct stat st;
			if (excl) {
				close(o);
				r = -EEXIST;
				break;
			}
			if (fstat(o, &st) < 0) {
				close(o);
				r = -EPERM;
				break;
			}
			if (S_ISLNK(st.st_mode) && follow_final) {
				close(o);
				r = guard_follow(t, &w);
				if (r < 0)
					break;
				continue;
			}
			if (S_ISLNK(st.st_mode) && !(flags & O_PATH)) {
				close(o);
				r = -ELOOP;
				break;
			}
			if (guard_is_shared(&st) && guard_open_writes(flags)) {
				r = open_shared(n, t, &w, o, &st, flags);
				close(o);
				break;
			}
			r = open_existing(n, t, o, flags);
			close(o);
			break;
		}
		r = -errno;
		if (r != -ENOENT || !(flags & O_CREAT) || guarded_name)
			break;
		if (guard_task_status(t) < 0) {
			r = -EPERM;
			break;
		}
		umask(t->umask);
		int fd = openat(w.parent, w.last,
				oflags | O_CREAT | O_EXCL | O_NOFOLLOW, mode);
		if (fd >= 0) {
			r = fd;
			break;
		}
		r = -errno;
		/* Made by someone else meanwhile: look again (a hop). */
		if (r != -EEXIST || (flags & O_EXCL))
			break;
	}
	guard_where_close(&w);
	return r;
}
