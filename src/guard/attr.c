/* Metadata: mode, owner and extended attributes (OP_ATTR). */
#include "guard/supervisor.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

/* The largest extended attribute value (XATTR_SIZE_MAX). */
#define XATTR_MAX 65536

/* The calls that change an object's mode, owner or extended attributes
 * (a POSIX ACL is one). On the top of a write folder and on the folders
 * and entries the guard protects they are refused: `chmod 0777 .` or an
 * ACL would let any local account plant, after the run, what the guard
 * keeps the program from planting. Elsewhere we perform them on the
 * object we resolved (never CONTINUE: the path could change between our
 * check and the kernel's use). */
enum attr_kind { ATTR_MODE, ATTR_OWNER, ATTR_XSET, ATTR_XREMOVE };

struct attr_op {
	long nr;
	enum attr_kind kind;
	signed char fd;		/* the object's fd (f* calls), else -1 */
	signed char dfd, path;	/* the dirfd (-1: AT_FDCWD) and path */
	signed char flags;	/* AT_* flags, -1 for none */
	bool nofollow;		/* lchown, lsetxattr, lremovexattr */
	signed char a, b, c, d; /* mode | uid, gid | name, value, size,
				 * xattr flags | name */
};

static const struct attr_op attr_ops[] = {
#ifdef __NR_chmod
    {__NR_chmod, ATTR_MODE, -1, -1, 0, -1, false, 1, -1, -1, -1},
#endif
    {__NR_fchmod, ATTR_MODE, 0, -1, -1, -1, false, 1, -1, -1, -1},
    {__NR_fchmodat, ATTR_MODE, -1, 0, 1, -1, false, 2, -1, -1, -1},
    {NR_FCHMODAT2, ATTR_MODE, -1, 0, 1, 3, false, 2, -1, -1, -1},
#ifdef __NR_chown
    {__NR_chown, ATTR_OWNER, -1, -1, 0, -1, false, 1, 2, -1, -1},
#endif
#ifdef __NR_lchown
    {__NR_lchown, ATTR_OWNER, -1, -1, 0, -1, true, 1, 2, -1, -1},
#endif
    {__NR_fchown, ATTR_OWNER, 0, -1, -1, -1, false, 1, 2, -1, -1},
    {__NR_fchownat, ATTR_OWNER, -1, 0, 1, 4, false, 2, 3, -1, -1},
    {__NR_setxattr, ATTR_XSET, -1, -1, 0, -1, false, 1, 2, 3, 4},
    {__NR_lsetxattr, ATTR_XSET, -1, -1, 0, -1, true, 1, 2, 3, 4},
    {__NR_fsetxattr, ATTR_XSET, 0, -1, -1, -1, false, 1, 2, 3, 4},
    {__NR_removexattr, ATTR_XREMOVE, -1, -1, 0, -1, false, 1, -1, -1, -1},
    {__NR_lremovexattr, ATTR_XREMOVE, -1, -1, 0, -1, true, 1, -1, -1, -1},
    {__NR_fremovexattr, ATTR_XREMOVE, 0, -1, -1, -1, false, 1, -1, -1, -1},
};

static const struct attr_op *find_attr_op(long nr)
{
	for (size_t i = 0; i < ARRAY_SIZE(attr_ops); i++)
		if (attr_ops[i].nr == nr)
			return &attr_ops[i];
	return NULL;
}

/* The worker's half of a metadata call: reads the path, the attribute's
 * name and value once, and opens where the path starts (or takes the
 * task's descriptor). */
int guard_prep_attr(struct guard *n, struct job *j)
{
	const struct seccomp_notif *req = j->req;
	const struct attr_op *a = find_attr_op(req->data.nr);
	struct task *t = &j->t;
	int r = 0;

	if (!a)
		return -ENOSYS;
	if (a->path >= 0)
		r = guard_read_str(t->tid, req->data.args[a->path], j->p1,
				   sizeof(j->p1));
	if (r == 0 && (a->kind == ATTR_XSET || a->kind == ATTR_XREMOVE))
		r = guard_read_str(t->tid, req->data.args[a->a], j->p2,
				   sizeof(j->p2));
	if (r == 0 && a->kind == ATTR_XSET) {
		uint64_t len = req->data.args[a->c];
		if (len > XATTR_MAX)
			r = -E2BIG;
		else {
			j->xlen = (size_t)len;
			j->xval = xmalloc(len ? (size_t)len : 1);
			if (len)
				r = guard_read_mem(t->tid, req->data.args[a->b],
						   j->xval, (size_t)len);
		}
	}
	if (!guard_id_valid(n, req->id))
		return -ENOENT;
	if (r < 0)
		return r;
	if (guard_task_status(t) < 0)
		return -EPERM;
	t->ctx.rootfd =
	    openat(t->procfd, "root", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (t->ctx.rootfd < 0)
		return -EPERM;
	if (a->fd >= 0) {
		t->sfd = guard_task_getfd(t, (int)req->data.args[a->fd]);
		return t->sfd < 0 ? t->sfd : 0;
	}
	t->base[0] = guard_base_prepare(
	    t, a->dfd >= 0 ? (int)req->data.args[a->dfd] : AT_FDCWD, j->p1,
	    &t->base_acc[0]);
	return 0;
}

/* An O_PATH fd on the object path names, following a final symlink by
 * hand unless nofollow. 0 or -errno. */
static int attr_object(struct guard *n, struct task *t, int base,
		       const char *path, bool nofollow, bool own, int *out)
{
	struct where w;
	int r = guard_locate(t, base, path, &w);

	if (r < 0)
		return r;
	if (w.magic >= 0) {
		*out = fcntl(w.magic, F_DUPFD_CLOEXEC, 3);
		return *out < 0 ? -EPERM : 0;
	}
	r = -ELOOP;
	for (int hop = 0; hop <= 40; hop++) {
		if (guard_is_dots(w.last)) {
			/* "." or "..": a folder, resolved inside the root */
			r = guard_open_dir(&t->ctx, w.parent, w.last, out);
			break;
		}
		int o =
		    openat(w.parent, w.last, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		struct stat st;
		if (o < 0) {
			r = -errno;
			break;
		}
		if (fstat(o, &st) < 0) {
			close(o);
			r = -EPERM;
			break;
		}
		if (S_ISLNK(st.st_mode) && (!nofollow || w.slash)) {
			close(o);
			if ((r = guard_follow(t, &w)) < 0)
				break;
			r = -ELOOP;
			continue;
		}
		if (w.slash && !S_ISDIR(st.st_mode)) {
			close(o);
			r = -ENOTDIR;
			break;
		}
		/* A new mode for a file with other names, which its owner
		 * may give: this name gets a file of its own first (shared.c);
		 * another's is refused in attr_apply, as natively. */
		if (own && guard_is_shared(&st) && st.st_uid == geteuid()) {
			int mine;
			r = guard_own_copy(n, w.parent, w.last, o, &st, false,
					   &mine);
			close(o);
			if (r < 0)
				break;
			o = mine;
		}
		*out = o;
		r = 0;
		break;
	}
	guard_where_close(&w);
	return r;
}

/* The guard whose folder st is (the top of a write folder, a folder on
 * the way to a protected entry), or NULL. */
static const struct guard_rule *attr_guard(struct guard *n,
					   const struct stat *st)
{
	for (size_t i = 0; i < n->plan.n; i++)
		if (n->plan.guards[i].dev == st->st_dev &&
		    n->plan.guards[i].ino == st->st_ino)
			return &n->plan.guards[i];
	return NULL;
}

/* Performs the metadata call on obj, unless obj is protected. */
static int attr_apply(struct guard *n, struct job *j, const struct attr_op *a,
		      int obj)
{
	const struct seccomp_notif *req = j->req;
	struct stat st;
	struct statfs sf;
	char p[64];
	int r;

	if (fstat(obj, &st) < 0 || fstatfs(obj, &sf) < 0)
		return -EPERM;
	if (!guard_fs_ok((unsigned long)sf.f_type, true))
		return -EPERM;
	/* Only what lies on the sandbox's mounts (its grants, its own /tmp)
	 * is the program's to change. A descriptor of a file outside them
	 * (`lnk sandbox run ... < ~/bin/deploy.sh`, the user's terminal),
	 * named by its number, /dev/stdin or /proc/self/fd/N, gives the
	 * program what the descriptor's access allows, never the file's mode,
	 * owner or attributes: a deploy.sh made writable by every account is
	 * one any local user rewrites before the user runs it. An anonymous
	 * pipe has no name anywhere. */
	if ((unsigned long)sf.f_type != PIPEFS_MAGIC) {
		r = guard_on_sandbox_mounts(&j->t, obj);
		if (r == 0)
			guard_refuse_object(
			    n, obj, "mode, owner or attributes",
			    "it is outside the folders this sandbox may write "
			    "(a descriptor it was given)");
		if (r <= 0)
			return r < 0 ? r : -EPERM;
	}
	const struct guard_rule *g = attr_guard(n, &st);
	if (g) {
		guard_refuse_attr(n, g);
		return -EPERM;
	}
	/* in (or of) an entry made outside during the run, which no
	 * read-only mount keeps (late.c) */
	if ((r = guard_late_object(n, &j->t, obj)) < 0)
		return r;
	/* Every name's, maybe one outside (shared.c). */
	if (guard_is_shared(&st)) {
		guard_refuse_shared(n, obj);
		return -EPERM;
	}
	snprintf(p, sizeof(p), "/proc/thread-self/fd/%d", obj);
	bool fdcall = a->fd >= 0;
	switch (a->kind) {
	case ATTR_MODE: {
		mode_t mode = (mode_t)req->data.args[a->a] & 07777;
		if (mode & (S_ISUID | S_ISGID))
			return -EPERM; /* see lnk-init's filter */
		if (fdcall)
			r = fchmod(obj, mode);
		else if (S_ISLNK(st.st_mode))
			return -EOPNOTSUPP;
		else
			r = chmod(p, mode);
		break;
	}
	case ATTR_OWNER: {
		uid_t uid = (uid_t)req->data.args[a->a];
		gid_t gid = (gid_t)req->data.args[a->b];
		r = fdcall ? fchown(obj, uid, gid)
			   : fchownat(obj, "", uid, gid, AT_EMPTY_PATH);
		break;
	}
	case ATTR_XSET: {
		int xf = (int)req->data.args[a->d];
		if (fdcall)
			r = fsetxattr(obj, j->p2, j->xval, j->xlen, xf);
		else if (S_ISLNK(st.st_mode))
			return -EPERM; /* no user attributes on links */
		else
			r = setxattr(p, j->p2, j->xval, j->xlen, xf);
		break;
	}
	case ATTR_XREMOVE:
		if (fdcall)
			r = fremovexattr(obj, j->p2);
		else if (S_ISLNK(st.st_mode))
			return -EPERM;
		else
			r = removexattr(p, j->p2);
		break;
	default:
		return -ENOSYS;
	}
	return r < 0 ? -errno : 0;
}

int guard_do_attr(struct guard *n, struct job *j)
{
	const struct attr_op *a = find_attr_op(j->req->data.nr);
	struct task *t = &j->t;
	int obj, r;

	if (!a)
		return -ENOSYS;
	if (a->fd >= 0)
		return t->sfd < 0 ? -EBADF : attr_apply(n, j, a, t->sfd);
	int flags = a->flags >= 0 ? (int)j->req->data.args[a->flags] : 0;
	if (!*j->p1) {
		if (!(flags & AT_EMPTY_PATH))
			return -ENOENT;
		if (t->base[0] < 0)
			return t->base[0] == -1 ? -EBADF : t->base[0];
		return attr_apply(n, j, a, t->base[0]);
	}
	r = attr_object(n, t, t->base[0], j->p1,
			a->nofollow || (flags & AT_SYMLINK_NOFOLLOW),
			a->kind == ATTR_MODE, &obj);
	if (r < 0)
		return r;
	r = attr_apply(n, j, a, obj);
	close(obj);
	return r;
}
