/* One notification: which call it is, the worker's half (prep), the
 * call (execute), and the answer. */
#include "guard/supervisor.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

enum op_kind {
	OP_OPEN,
	OP_MKDIR,
	OP_MKNOD,
	OP_SYMLINK,
	OP_LINK,
	OP_RENAME,
	OP_BIND,
	OP_CONNECT,
	OP_ATTR, /* mode, owner, xattrs: see attr.c */
	OP_TRUNCATE,
	OP_UNLINK /* only seen: see unlink_note */
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
    /* truncate: p1 the path; the length is argument 1 */
    {__NR_truncate, OP_TRUNCATE, -1, 0, -1, -1, -1, -1, -1, 0},
/* removals: only seen, to name a kept entry (unlink_note) */
#ifdef __NR_unlink
    {__NR_unlink, OP_UNLINK, -1, 0, -1, -1, -1, -1, -1, 0},
#endif
#ifdef __NR_rmdir
    {__NR_rmdir, OP_UNLINK, -1, 0, -1, -1, -1, -1, -1, 0},
#endif
    {__NR_unlinkat, OP_UNLINK, 0, 1, -1, -1, 2, -1, -1, 0},
    /* bind: p1 is the socket fd, p2 the address, flags its length */
    {__NR_bind, OP_BIND, -1, 0, -1, 1, 2, -1, -1, 0},
    /* connect: as bind */
    {__NR_connect, OP_CONNECT, -1, 0, -1, 1, 2, -1, -1, 0},
/* metadata: arguments in attr.c's table */
#ifdef __NR_chmod
    {__NR_chmod, OP_ATTR, -1, -1, -1, -1, -1, -1, -1, 0},
#endif
    {__NR_fchmod, OP_ATTR, -1, -1, -1, -1, -1, -1, -1, 0},
    {__NR_fchmodat, OP_ATTR, -1, -1, -1, -1, -1, -1, -1, 0},
    {NR_FCHMODAT2, OP_ATTR, -1, -1, -1, -1, -1, -1, -1, 0},
#ifdef __NR_chown
    {__NR_chown, OP_ATTR, -1, -1, -1, -1, -1, -1, -1, 0},
#endif
#ifdef __NR_lchown
    {__NR_lchown, OP_ATTR, -1, -1, -1, -1, -1, -1, -1, 0},
#endif
    {__NR_fchown, OP_ATTR, -1, -1, -1, -1, -1, -1, -1, 0},
    {__NR_fchownat, OP_ATTR, -1, -1, -1, -1, -1, -1, -1, 0},
    {__NR_setxattr, OP_ATTR, -1, -1, -1, -1, -1, -1, -1, 0},
    {__NR_lsetxattr, OP_ATTR, -1, -1, -1, -1, -1, -1, -1, 0},
    {__NR_fsetxattr, OP_ATTR, -1, -1, -1, -1, -1, -1, -1, 0},
    {__NR_removexattr, OP_ATTR, -1, -1, -1, -1, -1, -1, -1, 0},
    {__NR_lremovexattr, OP_ATTR, -1, -1, -1, -1, -1, -1, -1, 0},
    {__NR_fremovexattr, OP_ATTR, -1, -1, -1, -1, -1, -1, -1, 0},
};

static const struct op *find_op(long nr)
{
	for (size_t i = 0; i < ARRAY_SIZE(ops); i++)
		if (ops[i].nr == nr)
			return &ops[i];
	return NULL;
}

bool guard_handles(long nr, int *flags_arg)
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

bool guard_id_valid(struct guard *n, uint64_t id)
{
	return ioctl(n->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

static void reply(struct guard *n, uint64_t id, int r)
{
	struct seccomp_notif_resp resp = {.id = id};

	if (r < 0)
		resp.error = r;
	else
		resp.val = r;
	(void)ioctl(n->listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
}

/* The worker's half: everything that needs ptrace rights over the task,
 * done before the executor (which has none) runs. Reads the task's memory
 * once (what we check is what we do), checks the notification is still
 * live (so /proc/TID is the task that asked), and opens O_PATH its root
 * and where each path starts. 0 or -errno (the answer). */
static int prep(struct guard *n, struct job *j)
{
	const struct seccomp_notif *req = j->req;
	const struct op *op = j->op;
	struct task *t = &j->t;
	char dir[32];
	int r = 0;

	snprintf(dir, sizeof(dir), "/proc/%d", t->tid);
	t->procfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (t->procfd < 0)
		return -EPERM;
	if (op->kind == OP_ATTR)
		return guard_prep_attr(n, j);
	if (op->kind != OP_BIND && op->kind != OP_CONNECT) {
		r = guard_read_str(t->tid, req->data.args[op->p1], j->p1,
				   sizeof(j->p1));
		if (r == 0 && op->p2 >= 0)
			r = guard_read_str(t->tid, req->data.args[op->p2],
					   j->p2, sizeof(j->p2));
	} else {
		/* an int to the kernel: only the low 32 bits count */
		int alen = (int)(uint32_t)req->data.args[op->flags];
		if (alen > (int)sizeof(j->ss) ||
		    alen < (int)sizeof(sa_family_t))
			r = -EINVAL;
		else
			r = guard_read_mem(t->tid, req->data.args[op->p2],
					   &j->ss, (size_t)alen);
		j->alen = (size_t)alen;
	}
	if (!guard_id_valid(n, req->id))
		return -ENOENT;
	if (r < 0)
		return r;
	t->ctx.rootfd =
	    openat(t->procfd, "root", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (t->ctx.rootfd < 0)
		return -EPERM;

	switch (op->kind) {
	case OP_OPEN:
	case OP_TRUNCATE:
	case OP_MKDIR:
	case OP_MKNOD:
		if (guard_task_status(t) < 0)
			return -EPERM;
		t->base[0] = guard_base_prepare(t, arg_fd(req, op->dfd1), j->p1,
						&t->base_acc[0]);
		break;
	case OP_UNLINK:
		t->base[0] = guard_base_prepare(t, arg_fd(req, op->dfd1), j->p1,
						&t->base_acc[0]);
		break;
	case OP_SYMLINK:
		t->base[1] = guard_base_prepare(t, arg_fd(req, op->dfd2), j->p2,
						&t->base_acc[1]);
		break;
	case OP_LINK:
	case OP_RENAME:
		t->base[0] = guard_base_prepare(t, arg_fd(req, op->dfd1), j->p1,
						&t->base_acc[0]);
		t->base[1] = guard_base_prepare(t, arg_fd(req, op->dfd2), j->p2,
						&t->base_acc[1]);
		break;
	case OP_ATTR:
		break; /* guard_prep_attr */
	case OP_BIND:
	case OP_CONNECT: {
		if (guard_task_status(t) < 0)
			return -EPERM;
		t->sfd = guard_task_getfd(t, (int)req->data.args[op->p1]);
		if (t->sfd < 0)
			return t->sfd;
		socklen_t sl = sizeof(int);
		if (getsockopt(t->sfd, SOL_SOCKET, SO_DOMAIN, &t->sdomain,
			       &sl) < 0)
			return errno == ENOTSOCK ? -ENOTSOCK : -EPERM;
		sl = sizeof(int);
		if (getsockopt(t->sfd, SOL_SOCKET, SO_PROTOCOL, &t->sproto,
			       &sl) < 0)
			return -EPERM;
		/* the address read by the socket's family, as the kernel
		 * will read the same bytes */
		r = guard_sockaddr_parse(t->sdomain, &j->ss, j->alen, &j->sa);
		if (r < 0)
			return r;
		if (j->sa.kind == GUARD_SA_PATH)
			t->base[0] = guard_base_prepare(t, AT_FDCWD, j->sa.path,
							&t->base_acc[0]);
		break;
	}
	}
	return 0;
}

/* truncate(2) as an open for writing (which gives a file with other names
 * one of its own: shared.c), then ftruncate. Without blocking: a FIFO with
 * no reader is not waited for; what is not a regular file is EINVAL, as
 * truncate says. */
static int do_truncate(struct guard *n, struct task *t, const char *path,
		       off_t len)
{
	if (len < 0)
		return -EINVAL;
	int fd = guard_do_open(n, t, t->base[0], t->base_acc[0], path,
			       O_WRONLY | O_NONBLOCK, 0);
	if (fd == -ENXIO)
		return -EINVAL;
	if (fd < 0)
		return fd;
	struct stat st;
	int r = fstat(fd, &st) < 0	 ? -errno
		: !S_ISREG(st.st_mode)	 ? -EINVAL
		: ftruncate(fd, len) < 0 ? -errno
					 : 0;
	close(fd);
	return r;
}

/* The call itself, on what prep opened. Returns -errno, 0, or an fd to
 * inject (opens). */
static int execute(struct guard *n, struct job *j)
{
	const struct seccomp_notif *req = j->req;
	const struct op *op = j->op;
	struct task *t = &j->t;

	switch (op->kind) {
	case OP_OPEN: {
		int flags = op->fixed_flags ? op->fixed_flags
					    : (int)req->data.args[op->flags];
		return guard_do_open(n, t, t->base[0], t->base_acc[0], j->p1,
				     flags,
				     (mode_t)req->data.args[op->mode] & 07777);
	}
	case OP_MKDIR:
		return guard_do_mkdir(n, t, t->base[0], j->p1,
				      (mode_t)req->data.args[op->mode] & 07777);
	case OP_MKNOD:
		return guard_do_mknod(n, t, t->base[0], j->p1,
				      (mode_t)req->data.args[op->mode],
				      (dev_t)(unsigned)req->data.args[op->dev]);
	case OP_SYMLINK:
		return guard_do_symlink(n, t, j->p1, t->base[1], j->p2);
	case OP_LINK:
		return guard_do_link(
		    n, t, t->base[0], j->p1, t->base[1], j->p2,
		    op->flags >= 0 ? (int)req->data.args[op->flags] : 0);
	case OP_RENAME:
		return guard_do_rename(
		    n, t, t->base[0], j->p1, t->base[1], j->p2,
		    op->flags >= 0 ? (unsigned)req->data.args[op->flags] : 0);
	case OP_BIND:
		return guard_do_bind(n, t, t->base[0], &j->sa, &j->ss, j->alen);
	case OP_CONNECT:
		return guard_do_connect(n, t, t->base[0], &j->sa, &j->ss,
					j->alen);
	case OP_ATTR:
		return guard_do_attr(n, j);
	case OP_TRUNCATE:
		return do_truncate(n, t, j->p1, (off_t)req->data.args[1]);
	case OP_UNLINK:
		break; /* never performed (guard_serve) */
	}
	return -ENOSYS;
}

/* path (from base) located again, and the kept entry it is or lies in
 * named. A second resolution, for the message only: the call was
 * answered from the first. */
static void name_path(struct guard *n, struct task *t, int base,
		      const char *path, const char *verb)
{
	struct where w;

	if (base < -1 || guard_locate(t, base, path, &w) < 0)
		return;
	if (w.magic >= 0)
		guard_name_kept(n, w.magic, NULL, verb);
	else
		guard_name_kept(n, w.parent, w.last, verb);
	guard_where_close(&w);
}

/* The kernel refused the call in a read-only mount (EROFS) or a mount
 * point (EBUSY): when that is an entry the guard keeps read only, it
 * names it (kept.c) instead of leaving the person the kernel's words. */
static void name_refused(struct guard *n, struct job *j)
{
	struct task *t = &j->t;

	switch (j->op->kind) {
	case OP_OPEN:
	case OP_TRUNCATE:
		name_path(n, t, t->base[0], j->p1, "write");
		break;
	case OP_MKDIR:
	case OP_MKNOD:
		name_path(n, t, t->base[0], j->p1, "create");
		break;
	case OP_SYMLINK:
	case OP_LINK:
		name_path(n, t, t->base[1], j->p2, "create");
		break;
	case OP_RENAME:
		name_path(n, t, t->base[0], j->p1, "rename");
		name_path(n, t, t->base[1], j->p2, "rename over");
		break;
	case OP_ATTR:
		if (t->sfd >= 0)
			guard_name_kept(n, t->sfd, NULL,
					"change the mode, owner or attributes "
					"of");
		else if (*j->p1)
			name_path(n, t, t->base[0], j->p1,
				  "change the mode, owner or attributes of");
		else
			guard_name_kept(n, t->base[0], NULL,
					"change the mode, owner or attributes "
					"of");
		break;
	case OP_BIND:
	case OP_CONNECT:
	case OP_UNLINK:
		break;
	}
}

/* The removal req asks for, of wh.last in the folder the guard resolved
 * (never the path again): 0 or -errno. */
static int remove_here(const struct seccomp_notif *req, const struct where *wh)
{
	int flags = 0;
	if (req->data.nr == __NR_rmdir)
		flags = AT_REMOVEDIR;
	else if (req->data.nr == __NR_unlinkat)
		flags = (int)req->data.args[2];
	if (flags & ~AT_REMOVEDIR)
		return -EINVAL;
	if (wh->slash && !(flags & AT_REMOVEDIR)) {
		struct stat st;
		if (fstatat(wh->parent, wh->last, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return -errno;
		return S_ISDIR(st.st_mode) ? -EISDIR : -ENOTDIR;
	}
	return unlinkat(wh->parent, wh->last, flags) < 0 ? -errno : 0;
}

/* A removal (unlink, unlinkat, rmdir). While nothing is made outside
 * during the run, the kernel decides it, with the program's own rights
 * and Landlock domain: it is let through (CONTINUE, *answered false),
 * after a removal the kernel will refuse because of an entry kept read
 * only (the entry itself, a mount point: EBUSY; a name inside one, on its
 * read-only mount: EROFS) is named. Once an entry is made outside (late.c),
 * whose refusal depends on the path, the guard decides on the folder it
 * resolved and removes the name there itself (*answered true, the result
 * returned): a kernel resolving the path again could follow a link the
 * program swapped meanwhile into that entry. Nothing is read of the task
 * when no entry is kept or made during the run. */
static int unlink_note(struct guard *n, struct worker *w,
		       const struct seccomp_notif *req, const struct op *op,
		       bool *answered)
{
	struct job *j = w->jb;
	struct where wh;
	struct statfs sf;
	int r = 0;

	*answered = false;
	if (!n->plan.nkept && !n->late_wanted)
		return 0;
	bool late = guard_late_any(n);
	j->req = req;
	j->op = op;
	j->xval = NULL;
	j->t = guard_task_new(req, w);
	if ((r = prep(n, j)) == 0 &&
	    (r = guard_locate(&j->t, j->t.base[0], j->p1, &wh)) == 0) {
		bool named = wh.magic < 0 && !guard_is_dots(wh.last);
		if (named)
			r = guard_late_check(n, wh.parent, wh.last);
		if (r == 0 && n->plan.nkept && named &&
		    (guard_mount_point_at(wh.parent, wh.last) == 1 ||
		     (fstatfs(wh.parent, &sf) == 0 &&
		      (sf.f_flags & ST_RDONLY))))
			guard_name_kept(n, wh.parent, wh.last, "remove");
		if (r == 0 && late && named)
			r = remove_here(req, &wh);
		*answered = r < 0 || (late && named);
		guard_where_close(&wh);
	} else {
		/* not resolved: the kernel's own answer, unless an entry was
		 * made outside (then no call is let through on a path) */
		*answered = late;
		if (!late)
			r = 0;
	}
	guard_task_close(&j->t);
	return r;
}

/* Returns the answer: -errno, 0, or for opens an fd of ours (>= 0 flagged
 * by *is_fd) to inject. */
static int handle(struct guard *n, struct worker *w,
		  const struct seccomp_notif *req, bool *is_fd, int *cloexec)
{
	const struct op *op = find_op(req->data.nr);
	struct job *j = w->jb;
	int r;

	*is_fd = false;
	if (!op)
		return -ENOSYS; /* notified but not ours: never continue */
	j->req = req;
	j->op = op;
	j->xval = NULL;
	j->xlen = 0;
	j->t = guard_task_new(req, w);
	r = prep(n, j);
	if (r == 0)
		r = execute(n, j);
	if ((r == -EROFS || r == -EBUSY) && n->plan.nkept)
		name_refused(n, j);
	if (r >= 0 && op->kind == OP_OPEN) {
		int flags = op->fixed_flags ? op->fixed_flags
					    : (int)req->data.args[op->flags];
		*is_fd = true;
		*cloexec = flags & O_CLOEXEC;
	}
	guard_task_close(&j->t);
	free(j->xval);
	j->xval = NULL;
	return r;
}

void guard_serve(struct guard *n, struct worker *w,
		 const struct seccomp_notif *req, bool broken)
{
	bool is_fd = false;
	int cloexec = 0;

	const struct op *op = find_op(req->data.nr);
	bool removal = op && op->kind == OP_UNLINK;
	if (guard_is_exec(req->data.nr) || removal) {
		/* Seen, never decided here (exec.c, unlink_note): the kernel
		 * runs it and Landlock decides, even when the guard is
		 * broken. */
		int lr = 0;
		bool answered = false;
		if (!broken && removal)
			lr = unlink_note(n, w, req, op, &answered);
		else if (!broken && n->plan.exec_note)
			guard_exec_note(n, w, req);
		if (answered) {
			reply(n, req->id, lr);
			goto done;
		}
		struct seccomp_notif_resp resp = {
		    .id = req->id, .flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE};
		(void)ioctl(n->listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
		goto done;
	}
	int r = broken ? -EPERM : handle(n, w, req, &is_fd, &cloexec);

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
		/* Answer anyway (docs/kernel-facts.md,
		 * answer-every-notification): EMFILE in the task, or it was
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
