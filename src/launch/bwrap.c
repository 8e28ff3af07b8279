/* The policy as bubblewrap's arguments (see bwrap.h).
 *
 * The sandbox's root is built from scratch: bwrap starts from an empty
 * tmpfs and we add, one by one, the system folders, a chosen list of /etc,
 * fresh /proc, /dev and /tmp, an empty home, then the grants. Anything not
 * added does not exist inside, so a forgotten grant fails closed.
 *
 * The mounts are collected into one table, sorted so that a parent always
 * comes before its children (a --hide tmpfs before the --write folder
 * re-bound inside it, the /tmp tmpfs before a granted /tmp/x), and then
 * written out. The same table gives the Landlock lists, so the second layer
 * mirrors the first exactly.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launch/bwrap.h"
#include "launch/devnodes.h"
#include "launch/folders.h"

/* The /etc that programs need, and why each. Nothing else of /etc enters:
 * it holds the machine's secrets and identity (shadow, sudoers, ssh host
 * keys, machine-id, hostname, the LAN's resolv.conf, apt and cron
 * configuration) and nothing a sandboxed program should learn or depend on.
 * passwd and group are not read from the host: plan.c generates minimal
 * ones (root, the user, nobody) so the host's list of accounts stays out. */
static const char *const etc_list[] = {
    /* the dynamic loader finds the libraries */
    "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
    /* names resolve: localhost (the wire's proxy), services, protocols;
     * resolv.conf stays out: there is no network inside, the wire resolves
     * names, and it would show the LAN's DNS server */
    "/etc/nsswitch.conf", "/etc/host.conf", "/etc/hosts", "/etc/gai.conf",
    "/etc/services", "/etc/protocols",
    /* TLS certificate roots, for HTTPS through the wire */
    "/etc/ssl", "/etc/ca-certificates", "/etc/ca-certificates.conf", "/etc/pki",
    "/etc/crypto-policies",
    /* Debian's /usr/bin/x -> /etc/alternatives/x links */
    "/etc/alternatives",
    /* the user's time zone, locales and file types */
    "/etc/localtime", "/etc/timezone", "/etc/locale.alias", "/etc/mime.types",
    "/etc/magic", "/etc/magic.mime",
    /* shells and terminals */
    "/etc/bash.bashrc", "/etc/profile", "/etc/profile.d", "/etc/inputrc",
    "/etc/shells", "/etc/terminfo", "/etc/vim", "/etc/nanorc",
    /* tools that check which system they are on */
    "/etc/os-release", "/etc/lsb-release", "/etc/debian_version",
    /* system-wide configuration of common tools and interpreters, which
     * Debian keeps in /etc (python's sitecustomize is a link into it) */
    "/etc/gitconfig", "/etc/manpath.config", "/etc/perl", "/etc/python3*",
    NULL};

/* The system's programs and libraries (invariant 1). */
static const char *const root_list[] = {"/usr",	  "/bin",   "/sbin",   "/lib",
					"/lib32", "/lib64", "/libx32", NULL};

const char *const *bwrap_etc_list(void)
{
	return etc_list;
}

const char *const *bwrap_root_list(void)
{
	return root_list;
}

void bwrap_bind_after_init(struct strv *opts, const char *src, const char *dst)
{
	size_t at = opts->n;
	for (size_t i = 0; i + 2 < opts->n; i++)
		if (strcmp(opts->v[i], "--ro-bind") == 0 &&
		    strcmp(opts->v[i + 2], BWRAP_INIT_PATH) == 0) {
			at = i + 3;
			break;
		}
	strv_push(opts, "--ro-bind");
	strv_push(opts, src);
	strv_push(opts, dst);
	/* Rotate the three new words into place. */
	char *w[3] = {opts->v[opts->n - 3], opts->v[opts->n - 2],
		      opts->v[opts->n - 1]};
	memmove(opts->v + at + 3, opts->v + at,
		(opts->n - 3 - at) * sizeof(char *));
	memcpy(opts->v + at, w, sizeof(w));
}

struct table {
	struct bwrap_mount *m;
	size_t n, cap;
};

static void add(struct table *t, enum bwrap_mount_kind kind, const char *path,
		const char *src, int fd)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 32;
		t->m = xrealloc(t->m, t->cap * sizeof(*t->m));
	}
	t->m[t->n++] = (struct bwrap_mount){
	    .kind = kind,
	    .path = xstrdup(path),
	    .src = src ? xstrdup(src) : NULL,
	    .fd = fd,
	};
}

/* At one path, the later kind wins: a grant replaces the empty home, a
 * --write replaces a --read, a --hide of exactly that folder closes it. */
static int rank(enum bwrap_mount_kind k)
{
	switch (k) {
	case BM_RO_TRY:
	case BM_PROC:
	case BM_DEV:
	case BM_SYMLINK:
	case BM_DATA:
	case BM_FILE:
	case BM_DIR:
	case BM_INIT:
	case BM_MASK:
	case BM_DEVNODE:
		return 0;
	case BM_TMPFS:
		return 1;
	case BM_RO:
		return 2;
	case BM_RW:
		return 3;
	case BM_HIDE:
		return 4;
	}
	return 0;
}

/* A parent before its children, at one path the weaker kind first. */
static int cmp_mount(const void *a, const void *b)
{
	const struct bwrap_mount *x = a, *y = b;
	return folder_order(x->path, rank(x->kind), y->path, rank(y->kind));
}

static void mount_free(struct bwrap_mount *m)
{
	free(m->path);
	free(m->src);
}

/* Does host content show at path? The deepest mount covering it decides:
 * sorted, a later cover is deeper, so the last one that covers it, found
 * from the end (most often a few steps back, where a walk from the start
 * compared every mount with every other). */
static const struct bwrap_mount *deepest(const struct table *t, size_t upto,
					 const char *path)
{
	for (size_t i = upto; i-- > 0;)
		if (path_within(path, t->m[i].path))
			return &t->m[i];
	return NULL;
}

static bool shows_host(const struct bwrap_mount *m)
{
	if (!m)
		return false;
	switch (m->kind) {
	case BM_RO:
	case BM_RO_TRY:
	case BM_RW:
		return true;
	case BM_TMPFS:
	case BM_HIDE:
	case BM_PROC:
	case BM_DEV:
	case BM_SYMLINK:
	case BM_DATA:
	case BM_FILE:
	case BM_DIR:
	case BM_INIT:
	case BM_MASK:
	case BM_DEVNODE:
		return false;
	}
	return false;
}

/* p is inside (below) one of the /etc folders made again. */
static bool in_tree(const struct strv *trees, const char *p)
{
	for (size_t i = 0; trees && i < trees->n; i++)
		if (strcmp(trees->v[i], p) != 0 && path_within(p, trees->v[i]))
			return true;
	return false;
}

/* p's own folder is one of those made (so far, in table order). */
static bool in_made(const struct strv *made, const char *p)
{
	const char *slash = strrchr(p, '/');
	size_t n = slash ? (size_t)(slash - p) : 0;
	for (size_t i = 0; i < made->n; i++)
		if (strlen(made->v[i]) == n && strncmp(made->v[i], p, n) == 0)
			return true;
	return false;
}

static void emit(struct strv *o, const struct bwrap_mount *m,
		 unsigned long long tmp_size)
{
	switch (m->kind) {
	case BM_RO:
	case BM_RO_TRY:
	case BM_RW:
		/* A folder or file of the host, at the same path inside. */
		strv_push(o, m->kind == BM_RW	    ? "--bind"
			     : m->kind == BM_RO_TRY ? "--ro-bind-try"
						    : "--ro-bind");
		strv_push(o, m->path);
		strv_push(o, m->path);
		break;
	case BM_TMPFS:
	case BM_HIDE:
		/* A hide is empty and read only: its size does not matter. */
		if (m->kind == BM_TMPFS && tmp_size) {
			strv_push(o, "--size");
			strv_pushf(o, "%llu", tmp_size);
		}
		strv_push(o, "--tmpfs");
		strv_push(o, m->path);
		break;
	case BM_PROC:
		strv_push(o, "--proc");
		strv_push(o, m->path);
		break;
	case BM_DEV:
		strv_push(o, "--dev");
		strv_push(o, m->path);
		break;
	case BM_SYMLINK:
		strv_push(o, "--symlink");
		strv_push(o, m->src);
		strv_push(o, m->path);
		break;
	case BM_DATA:
	case BM_FILE:
		/* --file writes into the root, which ends read only. */
		strv_push(o, "--perms");
		strv_pushf(o, "%04o", m->kind == BM_FILE ? m->mode : 0444);
		strv_push(o, m->bind ? "--ro-bind-data" : "--file");
		strv_pushf(o, "%d", m->fd);
		strv_push(o, m->path);
		break;
	case BM_DIR:
		strv_push(o, "--perms");
		strv_push(o, "0755");
		strv_push(o, "--dir");
		strv_push(o, m->path);
		break;
	case BM_INIT:
		strv_push(o, "--ro-bind");
		strv_push(o, m->src);
		strv_push(o, m->path);
		break;
	case BM_MASK:
		/* bwrap binds read only without devices (nodev): the node
		 * cannot even be opened, and its mode cannot be changed. */
		strv_push(o, "--ro-bind");
		strv_push(o, "/dev/null");
		strv_push(o, m->path);
		break;
	case BM_DEVNODE:
		strv_push(o, "--dev-bind");
		strv_push(o, m->src);
		strv_push(o, m->path);
		break;
	}
}

/* Landlock, the second layer: the same folders, by the same mounts. */
static void mirror(struct bwrap_out *out, const struct bwrap_mount *m)
{
	switch (m->kind) {
	case BM_RO:
	case BM_RO_TRY:
	case BM_PROC:
	case BM_DATA:
	case BM_FILE:
	case BM_DIR:
		strv_push(&out->ll_read, m->path);
		break;
	case BM_RW:
	case BM_TMPFS:
		strv_push(&out->ll_write, m->path);
		break;
	/* /dev: lnk-init's own rule, its nodes written and nothing made.
	 * Threat: bwrap's /dev is a tmpfs without a size, and a write rule
	 * here let a program fill memory there past every --tmp-size. */
	case BM_DEV:
	case BM_HIDE:	 /* empty and read only: nothing to allow */
	case BM_SYMLINK: /* its target is a system folder already */
	case BM_INIT:	 /* init is already running when Landlock starts */
	case BM_MASK:	 /* unreadable, under /proc's own rule */
	case BM_DEVNODE: /* under /dev's own rule */
		break;
	}
}

int bwrap_build(const struct bwrap_in *in, struct bwrap_out *out,
		struct lnk_err *err)
{
	const struct policy *p = in->pol;
	struct table t = {0};
	int r;

	*out = (struct bwrap_out){0};
	if (!p || !p->resolved)
		return err_set(err, -EINVAL,
			       "the policy is not resolved; this is a bug in "
			       "lnk, please report it");
	if ((r = folder_check("home", in->home, err)) < 0 ||
	    (r = folder_check("lnk-init", in->init_path, err)) < 0 ||
	    (r = folder_check("the current folder", in->cwd, err)) < 0)
		return r;
	if (strcmp(in->home, "/") == 0)
		return err_set(err, -EINVAL,
			       "the home folder is '/'; set HOME to your own "
			       "folder");

	/* The system: read only. */
	for (size_t i = 0; in->root_dirs && i < in->root_dirs->n; i++)
		add(&t, BM_RO, in->root_dirs->v[i], NULL, -1);
	for (size_t i = 0; in->root_links && i + 1 < in->root_links->n; i += 2)
		add(&t, BM_SYMLINK, in->root_links->v[i],
		    in->root_links->v[i + 1], -1);
	for (size_t i = 0; in->etc && i < in->etc->n; i++)
		add(&t, BM_RO_TRY, in->etc->v[i], NULL, -1);
	for (size_t i = 0; in->etc_files && i < in->etc_files->n; i++) {
		add(&t, BM_FILE, in->etc_files->v[i], NULL, -1);
		t.m[t.n - 1].mode = in->etc_modes ? in->etc_modes[i] : 0444;
	}
	for (size_t i = 0; in->etc_trees && i < in->etc_trees->n; i++)
		add(&t, BM_DIR, in->etc_trees->v[i], NULL, -1);
	if (in->passwd_fd >= 0)
		add(&t, BM_DATA, "/etc/passwd", NULL, in->passwd_fd);
	if (in->group_fd >= 0)
		add(&t, BM_DATA, "/etc/group", NULL, in->group_fd);

	/* Fresh kernel views and private scratch space: the host's /tmp,
	 * /dev/shm and /var/tmp hold other programs' sockets and files. */
	add(&t, BM_PROC, "/proc", NULL, -1);
	for (size_t i = 0; in->proc_masks && i < in->proc_masks->n; i++) {
		const char *m = in->proc_masks->v[i];
		if ((r = folder_check("a /proc file", m, err)) < 0)
			goto fail;
		if (!path_within(m, "/proc") || strcmp(m, "/proc") == 0) {
			r = err_set(err, -EINVAL,
				    "'%s' is not a file in /proc; this is a "
				    "bug in lnk, please report it",
				    m);
			goto fail;
		}
		add(&t, BM_MASK, m, NULL, -1);
	}
	add(&t, BM_DEV, "/dev", NULL, -1);
	if (in->dev_nodes_dir) {
		if ((r = folder_check("the device nodes' folder",
				      in->dev_nodes_dir, err)) < 0)
			goto fail;
		for (const char *const *n = devnodes_names(); *n; n++) {
			_cleanup_free_ char *src =
			    xasprintf("%s/%s", in->dev_nodes_dir, *n);
			_cleanup_free_ char *dst = xasprintf("/dev/%s", *n);
			add(&t, BM_DEVNODE, dst, src, -1);
		}
	}
	add(&t, BM_TMPFS, "/dev/shm", NULL, -1);
	add(&t, BM_TMPFS, "/tmp", NULL, -1);
	add(&t, BM_TMPFS, "/var/tmp", NULL, -1);
	add(&t, BM_INIT, BWRAP_INIT_PATH, in->init_path, -1);

	const struct strv *rd = policy_list(p, K_FILES_READ);
	const struct strv *wr = policy_list(p, K_FILES_WRITE);

	/* An empty, private home unless a grant brings the real one. */
	bool home_granted = false;
	for (size_t i = 0; i < rd->n; i++)
		home_granted |= path_within(in->home, rd->v[i]);
	for (size_t i = 0; i < wr->n; i++)
		home_granted |= path_within(in->home, wr->v[i]);
	if (!home_granted)
		add(&t, BM_TMPFS, in->home, NULL, -1);
	out->home_temporary = !home_granted;
	static const enum bwrap_mount_kind grant_mount[] = {
	    [FOLDER_READ] = BM_RO,
	    [FOLDER_WRITE] = BM_RW,
	    [FOLDER_HIDE] = BM_HIDE,
	};
	struct folder *g = NULL;
	size_t ng;
	if ((r = folder_grants(p, &g, &ng, err)) < 0)
		goto fail;
	for (size_t i = 0; i < ng; i++) {
		add(&t, grant_mount[g[i].kind], g[i].path, NULL, -1);
		t.m[t.n - 1].pin = g[i].kind != FOLDER_HIDE;
	}
	free(g);
	for (size_t i = 0; in->ro_over && i < in->ro_over->n; i++) {
		if ((r = folder_check("a dot file", in->ro_over->v[i], err)) <
		    0)
			goto fail;
		add(&t, BM_RO, in->ro_over->v[i], NULL, -1);
		t.m[t.n - 1].pin = true;
	}
	/* ~/.lnk holds the log, the accepted specs and the control sockets;
	 * a program that could read or change them could change its own
	 * policy (invariant 6). Hidden even inside a granted folder. */
	for (size_t i = 0; in->hidden && i < in->hidden->n; i++) {
		if ((r = folder_check("a hidden folder", in->hidden->v[i],
				      err)) < 0)
			goto fail;
		add(&t, BM_HIDE, in->hidden->v[i], NULL, -1);
	}

	qsort(t.m, t.n, sizeof(*t.m), cmp_mount);

	/* One mount per path: the strongest. */
	size_t k = 0;
	for (size_t i = 0; i < t.n; i++) {
		if (k && strcmp(t.m[k - 1].path, t.m[i].path) == 0) {
			mount_free(&t.m[k - 1]);
			t.m[k - 1] = t.m[i];
			continue;
		}
		t.m[k++] = t.m[i];
	}
	t.n = k;

	/* A hide over nothing (no grant shows host content there) would only
	 * create empty folders: leave it out. */
	k = 0;
	for (size_t i = 0; i < t.n; i++) {
		if (t.m[i].kind == BM_HIDE &&
		    !shows_host(deepest(&t, k, t.m[i].path))) {
			mount_free(&t.m[i]);
			continue;
		}
		t.m[k++] = t.m[i];
	}
	t.n = k;

	/* A copy is written where its path is, so under a grant that shows
	 * the host (a --write of /etc) it would overwrite the host's file:
	 * there, bind the host's file itself. Elsewhere each copy takes the next
	 * descriptor slot. A system link (/etc/localtime) under such a grant
	 * is already there, as the host has it: making it again fails
	 * ("File exists"), so it is left out. */
	int next_fd = in->files_fd;
	struct strv made = {0}; /* the /etc folders made again, kept */
	k = 0;
	for (size_t i = 0; i < t.n; i++) {
		struct bwrap_mount *m = &t.m[i];
		bool host = shows_host(deepest(&t, k, m->path));
		if (in_tree(in->etc_trees, m->path) &&
		    !in_made(&made, m->path)) {
			/* Its folder was replaced (a grant, a --hide) or is
			 * bound: what it holds is the host's, or hidden. */
			mount_free(m);
			continue;
		}
		if (m->kind == BM_SYMLINK && host) {
			mount_free(m);
			continue;
		}
		if (m->kind == BM_DATA) {
			m->bind = host;
		} else if ((m->kind == BM_FILE || m->kind == BM_DIR) && host) {
			m->kind = BM_RO_TRY;
		} else if (m->kind == BM_DIR) {
			strv_push(&made, m->path);
		} else if (m->kind == BM_FILE) {
			m->fd = next_fd++;
			strv_push(&out->files, m->path);
		}
		t.m[k++] = *m;
	}
	t.n = k;
	strv_free(&made);
	/* Whether bwrap must see the host's /sys to make these mounts. */
	for (size_t i = 0; i < t.n; i++)
		if (shows_host(&t.m[i]) && (path_within(t.m[i].path, "/sys") ||
					    path_within("/sys", t.m[i].path)))
			out->shows_sys = true;

	/* Namespaces: all of them, the user namespace always (also as root:
	 * root inside holds no capability over the host); no capability
	 * inside, no nested user namespace (a kernel attack surface and a way
	 * around our mounts). */
	struct strv *o = &out->opts;
	strv_push(o, "--unshare-all");
	strv_push(o, "--unshare-user");
	if (in->disable_userns)
		strv_push(o, "--disable-userns");
	strv_push(o, "--cap-drop");
	strv_push(o, "ALL");
	/* No --die-with-parent: lnk-init's lifeline ends the sandbox when lnk
	 * dies (invariant 5; launch/spawn.c). --die-with-parent would kill
	 * bwrap with a lnk SIGKILLed during bwrap's setup, before bwrap's
	 * go-ahead to its child: that child then waits for it forever, in its
	 * own namespaces, or (killed just after) runs the program bound to
	 * nothing, as it binds itself only just before its exec
	 * (docs/kernel-facts.md, die-with-parent-misses-setup). Without it,
	 * bwrap finishes the setup, lnk-init finds the lifeline hung up and
	 * exits, and bwrap exits with it. */
	/* lnk-init is the sandbox's pid 1, not bwrap's reaper: then no
	 * process inside runs without seccomp and Landlock (src/init/
	 * reaper.c). It reaps, and when the program exits it exits and the
	 * kernel kills the rest of the namespace (invariant 5). bwrap still
	 * reports it on --info-fd. */
	strv_push(o, "--as-pid-1");
	/* Without a pty the program must not share lnk's terminal session,
	 * or TIOCSTI on an inherited terminal could type into the user's
	 * shell. With one, the program's controlling terminal is lnk's pty,
	 * which reaches nothing else. */
	if (!in->pty)
		strv_push(o, "--new-session");
	/* init gets its environment from its config, never from bwrap's. */
	strv_push(o, "--clearenv");
	if (in->info_fd >= 0) {
		strv_push(o, "--info-fd");
		strv_pushf(o, "%d", in->info_fd);
	}

	for (size_t i = 0; i < t.n; i++) {
		emit(o, &t.m[i], in->tmp_size);
		mirror(out, &t.m[i]);
		if (t.m[i].pin &&
		    (t.m[i].kind == BM_RO || t.m[i].kind == BM_RW))
			strv_push(&out->pins, t.m[i].path);
	}
	/* Read only from here on: the hidden folders' tmpfs (made writable so
	 * nested grants could be mounted inside) and the root itself, so a
	 * write outside the granted folders fails instead of vanishing. And
	 * /proc: outside the sandbox's own processes it is the host kernel's,
	 * and as root the program is the host's root to it. Its /proc/sys
	 * (kernel.core_pattern runs a program as root at the next crash) is
	 * writable to uid 0, and bwrap leaves it so: it covers /proc/sys only
	 * when access(W_OK) on the folder succeeds, which the kernel refuses
	 * to everyone. And chmod or chown on a /proc file changes the one
	 * entry every /proc of the machine shares (a root-only file becomes
	 * readable to every user). Read only, all of that fails with EROFS.
	 * The sandbox's processes then cannot write their own /proc files
	 * either (oom_score_adj, a thread's comm): nothing they need. A
	 * reopen through /proc/self/fd/N is not affected: it writes on the
	 * file's own mount. */
	for (size_t i = 0; i < t.n; i++)
		if (t.m[i].kind == BM_HIDE || t.m[i].kind == BM_PROC) {
			strv_push(o, "--remount-ro");
			strv_push(o, t.m[i].path);
		}
	strv_push(o, "--remount-ro");
	strv_push(o, "/");

	/* The folder lnk was started in if the sandbox shows it, else the
	 * first --write folder, else the empty home. */
	const struct bwrap_mount *c = deepest(&t, t.n, in->cwd);
	if (shows_host(c))
		out->chdir = xstrdup(in->cwd);
	else if (wr->n)
		out->chdir = xstrdup(wr->v[0]);
	else
		out->chdir = xstrdup(in->home);
	strv_push(o, "--chdir");
	strv_push(o, out->chdir);

	out->mounts = t.m;
	out->nmounts = t.n;
	return 0;
fail:
	for (size_t i = 0; i < t.n; i++)
		mount_free(&t.m[i]);
	free(t.m);
	bwrap_out_free(out);
	return r;
}

void bwrap_out_free(struct bwrap_out *out)
{
	strv_free(&out->opts);
	for (size_t i = 0; i < out->nmounts; i++)
		mount_free(&out->mounts[i]);
	free(out->mounts);
	free(out->chdir);
	strv_free(&out->files);
	strv_free(&out->pins);
	strv_free(&out->ll_read);
	strv_free(&out->ll_write);
	*out = (struct bwrap_out){0};
}
