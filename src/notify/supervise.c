/* The seccomp user-notification supervisor (security core).
 *
 * lnk-init's filter notifies every creating syscall (open/openat with
 * O_CREAT, creat, mkdir(at), mknod(at), symlink(at), link(at),
 * rename(at|at2), bind). For each one we:
 *  1. pin the task (/proc/TID), read its path arguments ONCE
 *     (process_vm_readv) and check the notification is still valid, so the
 *     pid was not reused;
 *  2. resolve the parent folder on descriptors inside the task's root
 *     (resolve.c), rewriting the magic links it cannot follow for the task;
 *  3. refuse (EPERM) a listed dot-file name in a guarded folder, matched on
 *     the parent's (dev, ino);
 *  4. otherwise perform the call ourselves relative to that parent fd, with
 *     the task's umask, never following a symlink in our own root, and
 *     answer with the result, opens by injecting the fd (ADDFD_FLAG_SEND).
 * The kernel never re-reads the task's memory, so a thread that swaps the
 * path after our read changes nothing: race-free by construction. We never
 * use SECCOMP_USER_NOTIF_FLAG_CONTINUE. Fail closed: any error before the
 * operation answers EPERM. Every notification is answered (pitfall 10).
 *
 * Threads: one receiver, a pool of workers (a FIFO open blocks its worker
 * until a peer opens it: pitfall 9; the pool grows when all are busy). Each
 * worker unshares CLONE_FS, since umask and fchdir are per process
 * otherwise. Capabilities are dropped in the receiver before any worker
 * exists (workers inherit them): a root supervisor would otherwise create
 * files with DAC override where the sandboxed root could not (pitfall 6).
 *
 * Known differences from the native calls (none of them creates more than
 * the native call could):
 *  - mount points: the kernel's EBUSY for renaming one only applies in the
 *    caller's mount namespace, so rename checks them itself (statx
 *    STATX_MNT_ID against the parent);
 *  - opened files carry our f_cred; O_NOCTTY is forced; symlinks we follow
 *    by hand skip protected_symlinks;
 *  - an intermediate symlink into /proc/self, and /proc/<pid>/... with the
 *    task's own pid, fail (ELOOP/ENOENT): only /proc/self, thread-self,
 *    /dev/fd and /dev/std* are mapped;
 *  - ports below 1024: refused unless the task holds CAP_NET_BIND_SERVICE
 *    (ip_unprivileged_port_start of the sandbox is not read);
 *  - an open whose fd cannot be injected (EMFILE) has created the file.
 */
#include "notify/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "common/fdpass.h"

#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif
#ifndef RENAME_WHITEOUT
#define RENAME_WHITEOUT (1 << 2)
#endif

#define POOL_START 4
#define POOL_MAX 256
#define NT_SIG SIGURG /* ignored by default; interrupts a stuck worker */

enum op_kind {
	OP_OPEN,
	OP_MKDIR,
	OP_MKNOD,
	OP_SYMLINK,
	OP_LINK,
	OP_RENAME,
	OP_BIND
};

/* Which argument is which; -1 for none. The syscall table here must match
 * what lnk-init's filter notifies (src/init/seccomp_policy.h): a syscall
 * notified but missing here is answered ENOSYS, never continued. */
struct op {
	long nr;
	enum op_kind kind;
	signed char dfd1, p1, dfd2, p2, flags, mode, dev;
	int fixed_flags; /* creat: O_CREAT|O_WRONLY|O_TRUNC */
};

static const struct op ops[] = {
#ifdef __NR_open
    {__NR_open, OP_OPEN, -1, 0, -1, -1, 1, 2, -1, 0},
#endif
#ifdef __NR_creat
    {__NR_creat, OP_OPEN, -1, 0, -1, -1, -1, 1, -1,
     O_CREAT | O_WRONLY | O_TRUNC},
#endif
    {__NR_openat, OP_OPEN, 0, 1, -1, -1, 2, 3, -1, 0},
#ifdef __NR_mkdir
    {__NR_mkdir, OP_MKDIR, -1, 0, -1, -1, -1, 1, -1, 0},
#endif
    {__NR_mkdirat, OP_MKDIR, 0, 1, -1, -1, -1, 2, -1, 0},
#ifdef __NR_mknod
    {__NR_mknod, OP_MKNOD, -1, 0, -1, -1, -1, 1, 2, 0},
#endif
    {__NR_mknodat, OP_MKNOD, 0, 1, -1, -1, -1, 2, 3, 0},
/* symlink: p1 is the link's text (never resolved), p2 the new name */
#ifdef __NR_symlink
    {__NR_symlink, OP_SYMLINK, -1, 0, -1, 1, -1, -1, -1, 0},
#endif
    {__NR_symlinkat, OP_SYMLINK, -1, 0, 1, 2, -1, -1, -1, 0},
#ifdef __NR_link
    {__NR_link, OP_LINK, -1, 0, -1, 1, -1, -1, -1, 0},
#endif
    {__NR_linkat, OP_LINK, 0, 1, 2, 3, 4, -1, -1, 0},
#ifdef __NR_rename
    {__NR_rename, OP_RENAME, -1, 0, -1, 1, -1, -1, -1, 0},
#endif
#ifdef __NR_renameat
    {__NR_renameat, OP_RENAME, 0, 1, 2, 3, -1, -1, -1, 0},
#endif
    {__NR_renameat2, OP_RENAME, 0, 1, 2, 3, 4, -1, -1, 0},
    /* bind: p1 is the socket fd, p2 the address, flags its length */
    {__NR_bind, OP_BIND, -1, 0, -1, 1, 2, -1, -1, 0},
};

struct worker {
	pthread_t th;
	atomic_bool busy;
	bool started;
};

struct notify {
	struct notify_plan plan; /* deep copy */
	int sock, listener, stopfd;
	pthread_t receiver;
	bool receiver_started;

	pthread_mutex_t mu;	/* workers[], receiver_done, stats */
	pthread_cond_t done_cv; /* the receiver ended */
	struct worker *workers[POOL_MAX];
	size_t nworkers;
	atomic_size_t idle;
	atomic_bool finishing;
	bool receiver_done, broken;

	unsigned long notifications, refused;
	struct strv refused_pairs; /* "dir\tname", printed once each */
};

/* ---- one sandboxed task ---- */

struct task {
	pid_t tid;
	int procfd; /* /proc/TID, O_PATH: pinned to this task */
	struct nt_ctx ctx;
	bool status_read;
	mode_t umask;
	pid_t tgid;
	uint64_t capeff;
};

static void task_close(struct task *t)
{
	if (t->procfd >= 0)
		close(t->procfd);
	if (t->ctx.rootfd >= 0)
		close(t->ctx.rootfd);
}

static int task_status(struct task *t)
{
	char buf[4096];
	ssize_t n;
	bool um = false, tg = false, ce = false;

	if (t->status_read)
		return 0;
	int fd = openat(t->procfd, "status", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	/* strstr + strtoull: sscanf on every line showed in profiles */
	const char *p;
	char *end;
	if ((p = strstr(buf, "\nUmask:\t"))) {
		t->umask = (mode_t)(strtoul(p + 8, &end, 8) & 0777);
		um = end != p + 8;
	}
	if ((p = strstr(buf, "\nTgid:\t"))) {
		t->tgid = (pid_t)strtol(p + 7, &end, 10);
		tg = end != p + 7 && t->tgid > 0;
	}
	if ((p = strstr(buf, "\nCapEff:\t"))) {
		t->capeff = strtoull(p + 9, &end, 16);
		ce = end != p + 9;
	}
	if (!um || !tg || !ce)
		return -EIO; /* fail closed: a kernel without Umask: */
	t->status_read = true;
	return 0;
}

/* Reads a NUL-terminated string at addr from the task, page by page (a
 * string that ends just before an unmapped page is valid). */
static int read_str(pid_t tid, uint64_t addr, char *buf, size_t cap)
{
	size_t got = 0;
	long page = sysconf(_SC_PAGESIZE);

	if (!addr)
		return -EFAULT;
	while (got < cap) {
		uint64_t a = addr + got;
		size_t chunk = (size_t)page - (size_t)(a % (uint64_t)page);
		if (chunk > cap - got)
			chunk = cap - got;
		struct iovec l = {buf + got, chunk};
		struct iovec r = {(void *)(uintptr_t)a, chunk};
		ssize_t n = process_vm_readv(tid, &l, 1, &r, 1, 0);
		if (n <= 0)
			return n < 0 && errno != EFAULT ? -EPERM : -EFAULT;
		char *z = memchr(buf + got, '\0', (size_t)n);
		if (z)
			return 0;
		got += (size_t)n;
	}
	return -ENAMETOOLONG;
}

static int read_mem(pid_t tid, uint64_t addr, void *buf, size_t len)
{
	struct iovec l = {buf, len};
	struct iovec r = {(void *)(uintptr_t)addr, len};
	ssize_t n = process_vm_readv(tid, &l, 1, &r, 1, 0);

	if (n < 0)
		return errno == EFAULT ? -EFAULT : -EPERM;
	return (size_t)n == len ? 0 : -EFAULT;
}

/* ---- refusals ---- */

static void refuse(struct notify *n, const struct notify_guard *g,
		   const char *name)
{
	bool first;
	_cleanup_free_ char *pair = xasprintf("%s\t%s", g->dir, name);

	pthread_mutex_lock(&n->mu);
	n->refused++;
	first = !strv_contains(&n->refused_pairs, pair);
	if (first)
		strv_push(&n->refused_pairs, pair);
	pthread_mutex_unlock(&n->mu);
	if (first && !n->plan.quiet) {
		_cleanup_free_ char *msg =
		    g->name ? xasprintf("lnk: refused to create %s, which a "
					"dot-file link at the top of %s names: "
					"it would run outside the sandbox; "
					"--write-dot-files %s allows it\n",
					name, g->dir, g->dir)
			    : xasprintf("lnk: refused to create %s at the top "
					"of %s: it would run outside the "
					"sandbox; --write-dot-files %s allows "
					"it\n",
					name, g->dir, g->dir);
		(void)!write(STDERR_FILENO, msg, strlen(msg));
	}
	if (n->plan.on_refusal)
		n->plan.on_refusal(n->plan.on_refusal_ctx, g->dir, name);
}

/* 0 when creating `last` in parent is allowed. For a guarded name:
 * -EEXIST (unreported) when it exists already, since then nothing can be
 * created and the native call fails the same way (open without O_EXCL
 * retries without O_CREAT); else -EPERM, reported. -EPERM when the parent
 * cannot be checked (fail closed). */
static int check(struct notify *n, int parent, const char *last)
{
	struct stat st;

	if (fstat(parent, &st) < 0)
		return -EPERM;
	const struct notify_guard *g =
	    nt_decide(n->plan.guards, n->plan.n, st.st_dev, st.st_ino, last);
	if (!g)
		return 0;
	if (fstatat(parent, last, &st, AT_SYMLINK_NOFOLLOW) == 0)
		return -EEXIST;
	refuse(n, g, last);
	return -EPERM;
}

static bool guarded(struct notify *n, int parent, const char *last)
{
	struct stat st;

	if (fstat(parent, &st) < 0)
		return true;
	return nt_decide(n->plan.guards, n->plan.n, st.st_dev, st.st_ino,
			 last) != NULL;
}

/* 1 when name in dir is the root of a mount (seen from dir, that is in
 * the task's mount tree), 0 when not or missing, -EPERM when it cannot be
 * told (fail closed). */
static int mount_point_at(int dir, const char *name)
{
	struct statx a, b;

	if (statx(dir, "", AT_EMPTY_PATH, STATX_MNT_ID, &a) < 0 ||
	    !(a.stx_mask & STATX_MNT_ID))
		return -EPERM;
	if (statx(dir, name, AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &b) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!(b.stx_mask & STATX_MNT_ID))
		return -EPERM;
	if (b.stx_mnt_id != a.stx_mnt_id)
		return 1;
	return (b.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
		       (b.stx_attributes & STATX_ATTR_MOUNT_ROOT)
		   ? 1
		   : 0;
}

static bool is_dots(const char *s)
{
	return strcmp(s, ".") == 0 || strcmp(s, "..") == 0;
}

/* ---- paths of one call ---- */

struct where {
	int parent; /* -1 for a magic link */
	char last[NAME_MAX + 1];
	bool slash;
	const char *magic; /* "fd/N" or "cwd" under /proc/TID, when the path
			    * IS a magic link */
	char magicbuf[32];
};

static void where_close(struct where *w)
{
	if (w->parent >= 0)
		close(w->parent);
	w->parent = -1;
}

static int base_open(struct task *t, const char *rel)
{
	int fd = openat(t->procfd, rel, O_PATH | O_CLOEXEC);
	return fd < 0 ? (errno == ENOENT ? -EBADF : -errno) : fd;
}

/* Resolves the parent of path as the task sees it from dirfd. */
static int locate(struct task *t, int dirfd, const char *path, struct where *w)
{
	struct nt_path np;
	char rel[32], abs[PATH_MAX];
	int base = -1, r;

	w->parent = -1;
	w->magic = NULL;
	w->slash = false;
	if (!*path)
		return -ENOENT;
	nt_rewrite(path, &np);
	switch (np.base) {
	case NT_BASE_ROOT:
		/* Absolute, or /proc/self/root/...: IN_ROOT from its root. */
		if ((size_t)snprintf(abs, sizeof(abs), "/%s", np.rest) >=
		    sizeof(abs))
			return -ENAMETOOLONG;
		return nt_lookup_parent(&t->ctx, -1, abs, &w->parent, w->last,
					sizeof(w->last), &w->slash);
	case NT_BASE_FD:
		snprintf(rel, sizeof(rel), "fd/%d", np.fd);
		break;
	case NT_BASE_CWD:
		snprintf(rel, sizeof(rel), "cwd");
		break;
	case NT_BASE_DIRFD:
		if (dirfd == AT_FDCWD)
			snprintf(rel, sizeof(rel), "cwd");
		else if (dirfd < 0)
			return -EBADF;
		else
			snprintf(rel, sizeof(rel), "fd/%d", dirfd);
		break;
	}
	if (!*np.rest) {
		/* The path is the magic link itself (/dev/stdout). */
		snprintf(w->magicbuf, sizeof(w->magicbuf), "%s", rel);
		w->magic = w->magicbuf;
		return 0;
	}
	base = base_open(t, rel);
	if (base < 0)
		return base;
	struct stat st;
	if (fstat(base, &st) < 0 || !S_ISDIR(st.st_mode)) {
		close(base);
		return -ENOTDIR;
	}
	r = nt_lookup_parent(&t->ctx, base, np.rest, &w->parent, w->last,
			     sizeof(w->last), &w->slash);
	close(base);
	return r;
}

/* The error a non-mkdir creation gets natively for "name/" (the kernel
 * suppresses the create): EEXIST when it exists, else ENOENT. */
static int slash_err(const struct where *w)
{
	struct stat st;
	return fstatat(w->parent, w->last, &st, AT_SYMLINK_NOFOLLOW) == 0
		   ? -EEXIST
		   : -ENOENT;
}

/* Follows the symlink `w->last` in w->parent by hand: re-locates w on its
 * target, inside the task's root. */
static int follow(struct task *t, struct where *w)
{
	char target[PATH_MAX];
	ssize_t n = readlinkat(w->parent, w->last, target, sizeof(target) - 1);

	if (n < 0)
		return -errno;
	target[n] = '\0';
	if (n == 0)
		return -ENOENT;
	struct where nw;
	int r =
	    nt_lookup_parent(&t->ctx, target[0] == '/' ? -1 : w->parent, target,
			     &nw.parent, nw.last, sizeof(nw.last), &nw.slash);
	if (r < 0)
		return r;
	close(w->parent);
	w->parent = nw.parent;
	memcpy(w->last, nw.last, sizeof(w->last));
	w->slash = w->slash || nw.slash;
	return 0;
}

static bool is_symlink_at(int dir, const char *name)
{
	struct stat st;
	return fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       S_ISLNK(st.st_mode);
}

/* ---- the operations ---- */

static int do_open(struct notify *n, struct task *t, int dirfd,
		   const char *path, int flags, mode_t mode)
{
	struct where w;
	int r = locate(t, dirfd, path, &w);
	bool follow_final =
	    !(flags & O_NOFOLLOW) && !((flags & O_CREAT) && (flags & O_EXCL));
	int oflags = (flags & ~O_CLOEXEC) | O_CLOEXEC | O_NOCTTY;

	if (r < 0)
		return r;
	if (w.magic) {
		/* Reopening the task's own open file or cwd: nothing is
		 * created; our kernel follows a link to what it already
		 * holds. Native semantics for a final symlink first. */
		if ((flags & O_CREAT) && (flags & O_EXCL))
			return -EEXIST;
		if (flags & O_NOFOLLOW)
			return -ELOOP;
		r = openat(t->procfd, w.magic, oflags, mode);
		return r < 0 ? -errno : r;
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
		if (is_dots(w.last)) {
			r = -EISDIR;
			break;
		}
		int f = oflags;
		r = check(n, w.parent, w.last);
		if (r == -EEXIST && !(flags & O_EXCL)) {
			/* An existing guarded name: open it as it is, never
			 * with O_CREAT (should it vanish meanwhile, ENOENT,
			 * not a new .envrc). */
			f &= ~O_CREAT;
		} else if (r < 0) {
			break;
		}
		if (task_status(t) < 0) {
			r = -EPERM;
			break;
		}
		umask(t->umask);
		int fd = openat(w.parent, w.last, f | O_NOFOLLOW, mode);
		if (fd >= 0) {
			struct stat st;
			if (!(flags & O_PATH) || !follow_final ||
			    fstat(fd, &st) < 0 || !S_ISLNK(st.st_mode)) {
				r = fd;
				break;
			}
			close(fd); /* O_PATH on a symlink: follow it */
		} else {
			r = -errno;
			if (r != -ELOOP || !follow_final ||
			    !is_symlink_at(w.parent, w.last))
				break;
		}
		r = follow(t, &w);
		if (r < 0)
			break;
	}
	where_close(&w);
	return r;
}

static int do_mkdir(struct notify *n, struct task *t, int dirfd,
		    const char *path, mode_t mode)
{
	struct where w;
	int r = locate(t, dirfd, path, &w);

	if (r < 0)
		return r;
	if (w.magic || is_dots(w.last))
		r = -EEXIST;
	else if ((r = check(n, w.parent, w.last)) == 0) {
		if (task_status(t) < 0)
			r = -EPERM;
		else {
			umask(t->umask);
			r = mkdirat(w.parent, w.last, mode) < 0 ? -errno : 0;
		}
	}
	where_close(&w);
	return r;
}

static int do_mknod(struct notify *n, struct task *t, int dirfd,
		    const char *path, mode_t mode, dev_t dev)
{
	struct where w;
	int r = locate(t, dirfd, path, &w);

	if (r < 0)
		return r;
	if (w.magic || is_dots(w.last))
		r = -EEXIST;
	else if ((r = check(n, w.parent, w.last)) == 0) {
		if (w.slash)
			r = slash_err(&w);
		else if (task_status(t) < 0)
			r = -EPERM;
		else {
			umask(t->umask);
			r = mknodat(w.parent, w.last, mode, dev) < 0 ? -errno
								     : 0;
		}
	}
	where_close(&w);
	return r;
}

static int do_symlink(struct notify *n, struct task *t, const char *target,
		      int dirfd, const char *path)
{
	struct where w;
	int r = locate(t, dirfd, path, &w);

	if (r < 0)
		return r;
	if (w.magic || is_dots(w.last))
		r = -EEXIST;
	else if ((r = check(n, w.parent, w.last)) == 0) {
		if (w.slash)
			r = slash_err(&w);
		else
			r = symlinkat(target, w.parent, w.last) < 0 ? -errno
								    : 0;
	}
	where_close(&w);
	return r;
}

/* An O_PATH fd on what `old` names, following a final symlink by hand. */
static int open_old_followed(struct task *t, struct where *w)
{
	for (int hop = 0; hop <= 40; hop++) {
		if (is_dots(w->last))
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
		int r = follow(t, w);
		if (r < 0)
			return r;
	}
	return -ELOOP;
}

static int do_link(struct notify *n, struct task *t, int odfd, const char *old,
		   int ndfd, const char *newp, int flags)
{
	struct where o = {.parent = -1}, nw = {.parent = -1};
	char src[64];
	int r, srcfd = -1;

	if (flags & ~(AT_SYMLINK_FOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	r = locate(t, ndfd, newp, &nw);
	if (r < 0)
		return r;
	if (nw.magic || is_dots(nw.last)) {
		r = -EEXIST;
		goto out;
	}
	r = check(n, nw.parent, nw.last);
	if (r < 0)
		goto out;
	if (nw.slash) {
		r = slash_err(&nw);
		goto out;
	}

	if (!*old && (flags & AT_EMPTY_PATH)) {
		/* flink: old is the dirfd itself (O_TMPFILE + linkat). */
		if (odfd == AT_FDCWD)
			snprintf(src, sizeof(src), "/proc/%d/cwd", t->tid);
		else if (odfd < 0) {
			r = -EBADF;
			goto out;
		} else
			snprintf(src, sizeof(src), "/proc/%d/fd/%d", t->tid,
				 odfd);
	} else {
		r = locate(t, odfd, old, &o);
		if (r < 0)
			goto out;
		if (o.magic) {
			if (!(flags & AT_SYMLINK_FOLLOW)) {
				r = -EXDEV; /* linking a proc symlink */
				goto out;
			}
			snprintf(src, sizeof(src), "/proc/%d/%s", t->tid,
				 o.magic);
		} else if (flags & AT_SYMLINK_FOLLOW) {
			srcfd = open_old_followed(t, &o);
			if (srcfd < 0) {
				r = srcfd;
				goto out;
			}
			snprintf(src, sizeof(src), "/proc/thread-self/fd/%d",
				 srcfd);
		} else {
			if (is_dots(o.last)) {
				r = -EPERM;
				goto out;
			}
			r = linkat(o.parent, o.last, nw.parent, nw.last, 0) < 0
				? -errno
				: 0;
			goto out;
		}
	}
	/* The kernel follows only a proc link naming an object the task (or
	 * we, for it) already hold: never a path the task controls. */
	r = linkat(AT_FDCWD, src, nw.parent, nw.last, AT_SYMLINK_FOLLOW) < 0
		? -errno
		: 0;
out:
	if (srcfd >= 0)
		close(srcfd);
	where_close(&o);
	where_close(&nw);
	return r;
}

static int do_rename(struct notify *n, struct task *t, int odfd,
		     const char *old, int ndfd, const char *newp,
		     unsigned flags)
{
	struct where o = {.parent = -1}, nw = {.parent = -1};
	char ol[NAME_MAX + 2], nl[NAME_MAX + 2];
	int r;

	r = locate(t, odfd, old, &o);
	if (r < 0)
		return r;
	r = locate(t, ndfd, newp, &nw);
	if (r < 0)
		goto out;
	if (o.magic || nw.magic) {
		r = -EXDEV;
		goto out;
	}
	if (is_dots(o.last) || is_dots(nw.last)) {
		r = (flags & RENAME_NOREPLACE) ? -EEXIST : -EBUSY;
		goto out;
	}
	/* Mount points: the kernel refuses to rename one (EBUSY) only when it
	 * is a mount point in the CALLER's namespace, and we are not in the
	 * sandbox's. Without this check, the read-only bind of an existing
	 * .envrc or .git (or a --hide over a folder) could be renamed away on
	 * the host through us. Measured: it was. */
	if ((r = mount_point_at(o.parent, o.last)) != 0 ||
	    (r = mount_point_at(nw.parent, nw.last)) != 0) {
		r = r > 0 ? -EBUSY : r;
		goto out;
	}
	/* An existing dot file that is not a mount (a symlink at the top) is
	 * not renamed away either. */
	if (guarded(n, o.parent, o.last)) {
		r = -EBUSY;
		goto out;
	}
	/* The new name is created; with EXCHANGE or WHITEOUT the old name is
	 * (re)created too. */
	r = check(n, nw.parent, nw.last);
	if (r == 0 && (flags & (RENAME_EXCHANGE | RENAME_WHITEOUT)))
		r = check(n, o.parent, o.last);
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
	where_close(&o);
	where_close(&nw);
	return r;
}

#define CAP_BIT(c) (1ULL << (c))

static int do_bind(struct notify *n, struct task *t, int sockfd, uint64_t addr,
		   uint64_t alen)
{
	struct sockaddr_storage ss;
	int r, sfd = -1, pidfd = -1;

	if (alen > sizeof(ss) || alen < sizeof(sa_family_t))
		return -EINVAL;
	memset(&ss, 0, sizeof(ss));
	r = read_mem(t->tid, addr, &ss, (size_t)alen);
	if (r < 0)
		return r;
	if (task_status(t) < 0)
		return -EPERM;
	pidfd = (int)syscall(SYS_pidfd_open, t->tgid, 0);
	if (pidfd < 0)
		return -EPERM;
	sfd = (int)syscall(SYS_pidfd_getfd, pidfd, sockfd, 0);
	close(pidfd);
	if (sfd < 0)
		return errno == EBADF ? -EBADF : -EPERM;

	/* Port checks by hand: our bind would hold CAP_NET_BIND_SERVICE in
	 * the sandbox's network namespace (we own its user namespace). */
	uint16_t port = 0;
	if (ss.ss_family == AF_INET && alen >= sizeof(struct sockaddr_in))
		port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
	else if (ss.ss_family == AF_INET6 &&
		 alen >= sizeof(struct sockaddr_in6))
		port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	if (port && port < 1024 &&
	    !(t->capeff & CAP_BIT(CAP_NET_BIND_SERVICE))) {
		r = -EACCES;
		goto out;
	}

	struct sockaddr_un *un = (struct sockaddr_un *)&ss;
	size_t plen = alen - offsetof(struct sockaddr_un, sun_path);
	if (ss.ss_family != AF_UNIX || plen == 0 || un->sun_path[0] == '\0') {
		/* No path: an address family, abstract or autobind. */
		r = bind(sfd, (struct sockaddr *)&ss, (socklen_t)alen) < 0
			? -errno
			: 0;
		goto out;
	}
	char path[sizeof(un->sun_path) + 1];
	memcpy(path, un->sun_path, plen);
	path[plen] = '\0';
	struct where w;
	r = locate(t, AT_FDCWD, path, &w);
	if (r < 0)
		goto out;
	if (w.magic || is_dots(w.last))
		r = -EADDRINUSE;
	else if ((r = check(n, w.parent, w.last)) == -EEXIST)
		r = -EADDRINUSE;
	else if (r == 0) {
		if (w.slash) {
			r = slash_err(&w) == -EEXIST ? -EADDRINUSE : -ENOENT;
		} else if (strlen(w.last) >= sizeof(un->sun_path)) {
			r = -ENAMETOOLONG;
		} else if (fchdir(w.parent) < 0) {
			r = -EPERM; /* this worker's cwd is its own */
		} else {
			struct sockaddr_un a = {.sun_family = AF_UNIX};
			snprintf(a.sun_path, sizeof(a.sun_path), "%s", w.last);
			umask(t->umask);
			r = bind(sfd, (struct sockaddr *)&a,
				 (socklen_t)(offsetof(struct sockaddr_un,
						      sun_path) +
					     strlen(w.last) + 1)) < 0
				? -errno
				: 0;
			(void)!chdir("/");
		}
	}
	where_close(&w);
out:
	close(sfd);
	return r;
}

/* ---- one notification ---- */

static const struct op *find_op(long nr)
{
	for (size_t i = 0; i < ARRAY_SIZE(ops); i++)
		if (ops[i].nr == nr)
			return &ops[i];
	return NULL;
}

bool nt_handles(long nr, int *flags_arg)
{
	const struct op *op = find_op(nr);

	if (!op)
		return false;
	*flags_arg = op->kind == OP_OPEN && !op->fixed_flags ? op->flags : -1;
	return true;
}

static int arg_fd(const struct seccomp_notif *req, int i)
{
	return i < 0 ? AT_FDCWD : (int)req->data.args[i];
}

static bool id_valid(struct notify *n, uint64_t id)
{
	return ioctl(n->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

static void reply(struct notify *n, uint64_t id, int r)
{
	struct seccomp_notif_resp resp = {.id = id};

	if (r < 0)
		resp.error = r;
	else
		resp.val = r;
	(void)ioctl(n->listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
}

/* Returns the answer: -errno, 0, or for opens an fd of ours (> 0 flagged
 * by *is_fd) to inject. */
static int handle(struct notify *n, const struct seccomp_notif *req,
		  bool *is_fd, int *cloexec)
{
	const struct op *op = find_op(req->data.nr);
	struct task t = {.tid = (pid_t)req->pid,
			 .procfd = -1,
			 .ctx = {.rootfd = -1, .procfd = -1}};
	char p1[PATH_MAX], p2[PATH_MAX];
	char dir[32];
	int r;

	*is_fd = false;
	if (!op)
		return -ENOSYS; /* notified but not ours: never continue */
	snprintf(dir, sizeof(dir), "/proc/%d", t.tid);
	t.procfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (t.procfd < 0)
		return -EPERM;
	/* The task's memory, read once: what we check is what we do. */
	r = 0;
	if (op->kind != OP_BIND) {
		r = read_str(t.tid, req->data.args[op->p1], p1, sizeof(p1));
		if (r == 0 && op->p2 >= 0)
			r = read_str(t.tid, req->data.args[op->p2], p2,
				     sizeof(p2));
	}
	/* Only now is /proc/TID known to be the task that asked. */
	if (!id_valid(n, req->id)) {
		r = -ENOENT;
		goto out;
	}
	if (r < 0)
		goto out;
	t.ctx.procfd = t.procfd; /* its root is opened when needed */

	switch (op->kind) {
	case OP_OPEN: {
		int flags = op->fixed_flags ? op->fixed_flags
					    : (int)req->data.args[op->flags];
		r = do_open(n, &t, arg_fd(req, op->dfd1), p1, flags,
			    (mode_t)req->data.args[op->mode] & 07777);
		if (r >= 0) {
			*is_fd = true;
			*cloexec = flags & O_CLOEXEC;
		}
		break;
	}
	case OP_MKDIR:
		r = do_mkdir(n, &t, arg_fd(req, op->dfd1), p1,
			     (mode_t)req->data.args[op->mode] & 07777);
		break;
	case OP_MKNOD:
		r = do_mknod(n, &t, arg_fd(req, op->dfd1), p1,
			     (mode_t)req->data.args[op->mode],
			     (dev_t)(unsigned)req->data.args[op->dev]);
		break;
	case OP_SYMLINK:
		r = do_symlink(n, &t, p1, arg_fd(req, op->dfd2), p2);
		break;
	case OP_LINK:
		r = do_link(
		    n, &t, arg_fd(req, op->dfd1), p1, arg_fd(req, op->dfd2), p2,
		    op->flags >= 0 ? (int)req->data.args[op->flags] : 0);
		break;
	case OP_RENAME:
		r = do_rename(
		    n, &t, arg_fd(req, op->dfd1), p1, arg_fd(req, op->dfd2), p2,
		    op->flags >= 0 ? (unsigned)req->data.args[op->flags] : 0);
		break;
	case OP_BIND:
		r = do_bind(n, &t, (int)req->data.args[op->p1],
			    req->data.args[op->p2], req->data.args[op->flags]);
		break;
	}
out:
	task_close(&t);
	return r;
}

static void serve(struct notify *n, const struct seccomp_notif *req,
		  bool broken)
{
	bool is_fd = false;
	int cloexec = 0;
	int r = broken ? -EPERM : handle(n, req, &is_fd, &cloexec);

	if (is_fd && r >= 0) {
		struct seccomp_notif_addfd a = {
		    .id = req->id,
		    .flags = SECCOMP_ADDFD_FLAG_SEND,
		    .srcfd = (unsigned)r,
		    .newfd_flags = cloexec ? O_CLOEXEC : 0,
		};
		int fr = ioctl(n->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &a);
		int e = errno;
		close(r);
		if (fr >= 0)
			goto done;
		/* Answer anyway (pitfall 10): EMFILE in the task, or it was
		 * interrupted. The file exists now; natively EMFILE would come
		 * first, a small difference kept because the alternative is
		 * a task that hangs forever. */
		r = e == ENOENT ? -ENOENT : -e;
	}
	reply(n, req->id, r < 0 ? r : 0);
done:
	pthread_mutex_lock(&n->mu);
	n->notifications++;
	pthread_mutex_unlock(&n->mu);
}

/* ---- threads ---- */

static void nt_sig_handler(int sig)
{
	(void)sig; /* only interrupts a blocking open */
}

static int drop_caps(void)
{
	struct __user_cap_header_struct h = {.version =
						 _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	if (syscall(SYS_capset, &h, d) < 0)
		return -errno;
	return 0;
}

struct worker_arg {
	struct notify *n;
	struct worker *w;
};

/* With n->mu held. */
static int spawn_worker(struct notify *n);

/* Each worker receives notifications itself (several threads may wait in
 * NOTIF_RECV; the kernel hands each notification to one): no hand-off
 * between threads on the hot path, which halved the cost per call here. */
static void *worker_main(void *arg)
{
	struct worker_arg *wa = arg;
	struct notify *n = wa->n;
	struct worker *self = wa->w;
	/* umask and cwd become this thread's own; if not, every call it
	 * takes is refused rather than racing another worker's umask. */
	bool broken = unshare(CLONE_FS) < 0;
	struct seccomp_notif req;
	sigset_t ss;

	free(wa);
	sigemptyset(&ss);
	sigaddset(&ss, NT_SIG);
	pthread_sigmask(SIG_UNBLOCK, &ss, NULL);
	while (!atomic_load(&n->finishing)) {
		memset(&req, 0, sizeof(req));
		/* Blocks until a notification comes; notify_stop interrupts
		 * it with NT_SIG (EINTR) once the filter is gone. */
		if (ioctl(n->listener, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0) {
			if (errno == EINTR || errno == ENOENT)
				continue;
			break;
		}
		atomic_store(&self->busy, true);
		/* The last idle worker took this one: start another, so a
		 * FIFO open that waits for its peer never stalls the rest. */
		if (atomic_fetch_sub(&n->idle, 1) == 1) {
			pthread_mutex_lock(&n->mu);
			(void)spawn_worker(n);
			pthread_mutex_unlock(&n->mu);
		}
		serve(n, &req, broken || n->broken);
		atomic_fetch_add(&n->idle, 1);
		atomic_store(&self->busy, false);
	}
	return NULL;
}

static int spawn_worker(struct notify *n)
{
	struct worker *w;
	struct worker_arg *wa;

	if (n->nworkers >= POOL_MAX || atomic_load(&n->finishing))
		return -EAGAIN;
	w = xcalloc(1, sizeof(*w));
	wa = xmalloc(sizeof(*wa));
	*wa = (struct worker_arg){n, w};
	atomic_fetch_add(&n->idle, 1);
	int r = pthread_create(&w->th, NULL, worker_main, wa);
	if (r) {
		atomic_fetch_sub(&n->idle, 1);
		free(w);
		free(wa);
		return -r;
	}
	w->started = true;
	n->workers[n->nworkers++] = w;
	return 0;
}

static int recv_listener(struct notify *n)
{
	struct pollfd p[2] = {{n->sock, POLLIN, 0}, {n->stopfd, POLLIN, 0}};
	char byte;
	int fds[1];
	size_t nfds = 1;

	for (;;) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (p[1].revents)
			return -ECANCELED;
		break;
	}
	ssize_t r = fd_recv(n->sock, fds, &nfds, &byte, 1);
	if (r <= 0 || nfds != 1) {
		if (r > 0)
			for (size_t i = 0; i < nfds; i++)
				close(fds[i]);
		return r < 0 ? (int)r : -EPIPE;
	}
	return fds[0];
}

/* The manager: takes the listener, starts the pool, and watches for the
 * end (the filter gone, or notify_stop). */
static void *receiver_main(void *arg)
{
	struct notify *n = arg;
	sigset_t ss;

	/* Every signal stays with lnk's own threads (its signalfd would
	 * never see a SIGCHLD the kernel handed to one of ours); workers
	 * inherit this and take only NT_SIG. */
	sigfillset(&ss);
	pthread_sigmask(SIG_BLOCK, &ss, NULL);

	/* Before any worker exists: they inherit this thread's (empty)
	 * capability sets. If the drop fails, every call is refused. */
	bool broken = drop_caps() < 0;

	int l = recv_listener(n);
	pthread_mutex_lock(&n->mu);
	n->broken = broken;
	if (l >= 0) {
		n->listener = l;
		/* The woken task runs on our CPU: halves the cost of a
		 * notification on this VM (notes, (e)); absent on old
		 * kernels, which is fine. */
		(void)ioctl(l, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
			    SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
		for (int i = 0; i < POOL_START; i++)
			(void)spawn_worker(n);
	}
	pthread_mutex_unlock(&n->mu);

	if (l >= 0) {
		/* events 0: poll returns only for POLLHUP (every task of the
		 * filter exited) or the stop request. */
		struct pollfd p[2] = {{l, 0, 0}, {n->stopfd, POLLIN, 0}};
		for (;;) {
			if (poll(p, 2, -1) < 0) {
				if (errno == EINTR)
					continue;
				break;
			}
			if (p[1].revents ||
			    (p[0].revents & (POLLHUP | POLLERR | POLLNVAL)))
				break;
		}
	}

	pthread_mutex_lock(&n->mu);
	atomic_store(&n->finishing, true);
	n->receiver_done = true;
	pthread_cond_broadcast(&n->done_cv);
	pthread_mutex_unlock(&n->mu);
	return NULL;
}

static void plan_copy(struct notify_plan *dst, const struct notify_plan *src)
{
	*dst = *src;
	dst->guards = xcalloc(src->n ? src->n : 1, sizeof(*dst->guards));
	for (size_t i = 0; i < src->n; i++) {
		dst->guards[i] = src->guards[i];
		dst->guards[i].dir = xstrdup(src->guards[i].dir);
		dst->guards[i].name =
		    src->guards[i].name ? xstrdup(src->guards[i].name) : NULL;
	}
}

int notify_start(const struct notify_plan *np, int sock, struct notify **out,
		 struct lnk_err *err)
{
	struct notify *n = xcalloc(1, sizeof(*n));
	struct sigaction sa, old;
	int r;

	n->sock = sock;
	n->listener = -1;
	n->stopfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (n->stopfd < 0) {
		r = -errno;
		free(n);
		return err_set(err, r, "cannot start the dot-file guard: %s",
			       strerror(-r));
	}
	plan_copy(&n->plan, np);
	pthread_mutex_init(&n->mu, NULL);
	pthread_cond_init(&n->done_cv, NULL);

	/* A no-op handler without SA_RESTART, so notify_stop can interrupt
	 * a worker stuck opening a FIFO whose peer died. Only installed
	 * over the default (ignore) disposition. */
	if (sigaction(NT_SIG, NULL, &old) == 0 && old.sa_handler == SIG_DFL) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = nt_sig_handler;
		sigemptyset(&sa.sa_mask);
		(void)sigaction(NT_SIG, &sa, NULL);
	}

	r = pthread_create(&n->receiver, NULL, receiver_main, n);
	if (r) {
		notify_plan_free(&n->plan);
		close(n->stopfd);
		free(n);
		return err_set(err, -r, "cannot start the dot-file guard: %s",
			       strerror(r));
	}
	n->receiver_started = true;
	*out = n;
	return 0;
}

void notify_wait(struct notify *n)
{
	if (!n)
		return;
	pthread_mutex_lock(&n->mu);
	while (!n->receiver_done)
		pthread_cond_wait(&n->done_cv, &n->mu);
	pthread_mutex_unlock(&n->mu);
}

void notify_get_stats(struct notify *n, struct notify_stats *st,
		      struct strv *refused_pairs)
{
	pthread_mutex_lock(&n->mu);
	st->notifications = n->notifications;
	st->refused = n->refused;
	if (refused_pairs)
		strv_copy(refused_pairs, &n->refused_pairs);
	pthread_mutex_unlock(&n->mu);
}

void notify_stop(struct notify *n)
{
	uint64_t one = 1;
	bool leak = false;

	if (!n)
		return;
	(void)!write(n->stopfd, &one, sizeof(one));
	if (n->receiver_started)
		pthread_join(n->receiver, NULL);
	atomic_store(&n->finishing, true);

	/* Workers wait in NOTIF_RECV, or sit in a FIFO open whose task is
	 * gone: interrupt them (NT_SIG, no SA_RESTART) until they exit, for
	 * up to two seconds each, then leave a stuck one be. */
	pthread_mutex_lock(&n->mu);
	size_t nw = n->nworkers;
	pthread_mutex_unlock(&n->mu);
	for (size_t i = 0; i < nw; i++) {
		struct worker *w = n->workers[i];
		int tries = 0;
		while (pthread_tryjoin_np(w->th, NULL) != 0) {
			if (++tries > 2000) {
				pthread_detach(w->th);
				leak = true;
				break;
			}
			pthread_kill(w->th, NT_SIG);
			struct timespec ts = {0, 1000 * 1000};
			nanosleep(&ts, NULL);
		}
		if (!leak)
			free(w);
	}
	if (leak)
		return; /* a thread still uses n: never free it under it */
	if (n->listener >= 0)
		close(n->listener);
	close(n->stopfd);
	strv_free(&n->refused_pairs);
	notify_plan_free(&n->plan);
	pthread_mutex_destroy(&n->mu);
	pthread_cond_destroy(&n->done_cv);
	free(n);
}
