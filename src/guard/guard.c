/* The pure parts of the dot-file guard: magic-link rewriting, path
 * splitting, the decision; and the plan (which folders, which dot-file
 * entries to ro-bind). */
#include "guard/internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/dents.h"
#include "common/esc.h"
#include "policy/dotfiles.h"

/* Next component of *p (skipping slashes and "."), or false at the end. */
static bool next_comp(const char **p, const char **start, size_t *len)
{
	for (;;) {
		while (**p == '/')
			(*p)++;
		if (!**p)
			return false;
		const char *s = *p;
		while (**p && **p != '/')
			(*p)++;
		if (*p - s == 1 && s[0] == '.')
			continue;
		*start = s;
		*len = (size_t)(*p - s);
		return true;
	}
}

static bool comp_is(const char *s, size_t len, const char *word)
{
	return strlen(word) == len && memcmp(s, word, len) == 0;
}

/* A decimal fd number without sign or leading zeros beyond "0"; the
 * kernel's proc lookup accepts exactly these. */
static bool comp_fd(const char *s, size_t len, int *fd)
{
	long v = 0;

	if (len == 0 || len > 10 || (len > 1 && s[0] == '0'))
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (s[i] - '0');
	}
	if (v > INT_MAX)
		return false;
	*fd = (int)v;
	return true;
}

static const char *skip_slashes(const char *p)
{
	while (*p == '/')
		p++;
	return p;
}

void guard_rewrite(const char *path, struct guard_path *out)
{
	const char *p = path, *c[4];
	size_t l[4];
	int fd;

	out->fd = -1;
	out->rest = path;
	out->proc_self = false;
	if (path[0] != '/') {
		out->base = GUARD_BASE_DIRFD;
		return;
	}
	out->base = GUARD_BASE_ROOT;
	out->rest = skip_slashes(path);

	if (!next_comp(&p, &c[0], &l[0]) || !next_comp(&p, &c[1], &l[1]))
		return;
	if (comp_is(c[0], l[0], "dev")) {
		static const char *const std[] = {"stdin", "stdout", "stderr"};
		for (int i = 0; i < 3; i++) {
			if (comp_is(c[1], l[1], std[i])) {
				out->base = GUARD_BASE_FD;
				out->fd = i;
				out->rest = skip_slashes(p);
				return;
			}
		}
		if (comp_is(c[1], l[1], "fd") && next_comp(&p, &c[2], &l[2]) &&
		    comp_fd(c[2], l[2], &fd)) {
			out->base = GUARD_BASE_FD;
			out->fd = fd;
			out->rest = skip_slashes(p);
		}
		return;
	}
	if (!comp_is(c[0], l[0], "proc") ||
	    !(comp_is(c[1], l[1], "self") ||
	      comp_is(c[1], l[1], "thread-self")))
		return;
	out->proc_self = true;
	if (!next_comp(&p, &c[2], &l[2]))
		return;
	if (comp_is(c[2], l[2], "cwd")) {
		out->base = GUARD_BASE_CWD;
		out->rest = skip_slashes(p);
	} else if (comp_is(c[2], l[2], "root")) {
		out->base = GUARD_BASE_ROOT;
		out->rest = skip_slashes(p);
	} else if (comp_is(c[2], l[2], "fd") && next_comp(&p, &c[3], &l[3]) &&
		   comp_fd(c[3], l[3], &fd)) {
		out->base = GUARD_BASE_FD;
		out->fd = fd;
		out->rest = skip_slashes(p);
	}
	out->proc_self =
	    out->base == GUARD_BASE_ROOT && out->rest == skip_slashes(path);
	/* Anything else under /proc/self resolves to nothing for the
	 * supervisor (or hits a magic link: ELOOP): it fails closed. */
}

int guard_split(const char *path, char *dirbuf, size_t dircap, char *lastbuf,
		size_t lastcap, bool *slash)
{
	size_t len = strlen(path), end, start;

	if (len == 0)
		return -ENOENT;
	end = len;
	while (end > 0 && path[end - 1] == '/')
		end--;
	*slash = end < len;
	if (end == 0) {
		/* "/" or "///": the root itself */
		if (dircap < 2 || lastcap < 2)
			return -ENAMETOOLONG;
		strcpy(dirbuf, "/");
		strcpy(lastbuf, ".");
		return 0;
	}
	start = end;
	while (start > 0 && path[start - 1] != '/')
		start--;
	if (end - start >= lastcap || start >= dircap)
		return -ENAMETOOLONG;
	memcpy(lastbuf, path + start, end - start);
	lastbuf[end - start] = '\0';
	memcpy(dirbuf, path, start);
	dirbuf[start] = '\0';
	return 0;
}

const struct guard_rule *guard_decide(const struct guard_rule *g, size_t n,
				      dev_t dev, ino_t ino, const char *last)
{
	for (size_t i = 0; i < n; i++) {
		if (g[i].dev != dev || g[i].ino != ino)
			continue;
		if (g[i].name ? strcasecmp(g[i].name, last) == 0
			      : (g[i].any_dot && last[0] == '.') ||
				    guard_dot_file_nocase(last))
			return &g[i];
	}
	return NULL;
}

/* is_dot_file, ignoring case (see guard_decide). */
bool guard_dot_file_nocase(const char *name)
{
	size_t n;
	const struct dot_file *d = dot_files(&n);

	for (size_t i = 0; i < n; i++)
		if (strcasecmp(d[i].name, name) == 0)
			return true;
	return false;
}

/* ---- the plan ---- */

/* Follows a chain of symlinks starting at path (which is one) by hand, at
 * most 40 hops. On return, *real is the resolved path of the final target
 * when it exists (1), or *real is the realpath of the missing target's
 * folder plus its name (0); -errno when neither can be told (a loop, a
 * missing folder). The caller frees *real. */
static int follow_chain(const char *path, char **real)
{
	_cleanup_free_ char *cur = xstrdup(path);

	for (int hop = 0; hop < 40; hop++) {
		char target[PATH_MAX];
		ssize_t r = readlink(cur, target, sizeof(target) - 1);
		if (r < 0)
			return -errno;
		target[r] = '\0';
		char *next;
		if (target[0] == '/') {
			next = xstrdup(target);
		} else {
			char *slash = strrchr(cur, '/');
			next = xasprintf("%.*s/%s", (int)(slash - cur), cur,
					 target);
		}
		free(cur);
		cur = next;

		struct stat st;
		if (lstat(cur, &st) == 0) {
			if (S_ISLNK(st.st_mode))
				continue;
			char *rp = realpath(cur, NULL);
			if (!rp)
				return -errno;
			*real = rp;
			return 1;
		}
		if (errno != ENOENT)
			return -errno;
		/* missing: resolve its folder, keep its name */
		char *slash = strrchr(cur, '/');
		_cleanup_free_ char *dir =
		    slash == cur ? xstrdup("/")
				 : xstrndup(cur, (size_t)(slash - cur));
		char *rd = realpath(dir, NULL);
		if (!rd)
			return -errno;
		const char *base = slash + 1;
		if (!*base || strcmp(base, ".") == 0 ||
		    strcmp(base, "..") == 0) {
			free(rd);
			return -EINVAL;
		}
		*real =
		    xasprintf("%s/%s", strcmp(rd, "/") == 0 ? "" : rd, base);
		free(rd);
		return 0;
	}
	return -ELOOP;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(((const struct dot_file *const *)a)[0]->name,
		      ((const struct dot_file *const *)b)[0]->name);
}

/* How much of a folder is listed before its names are looked up one by
 * one instead: a folder of a few thousand entries still lists in a few
 * reads, a huge one costs no more than the hundred lookups. */
#define DOT_LIST_BYTES (4 * 32768)

/* types[] from one listing of dfd: a project folder holds tens of
 * entries, and reading them (one or two getdents) costs far less than a
 * lookup of each of the hundred names (measured: 0.1 to 0.2 ms of every
 * start). The names are matched exactly, as a lookup would: a folder
 * whose file system folds names is refused before any of this matters
 * (fold.c). An entry whose type the listing does not give is looked up.
 * false when the folder is larger than DOT_LIST_BYTES or cannot be read:
 * the caller looks each name up. */
static bool dot_types_listed(int dfd, const struct dot_file *d, size_t n,
			     mode_t *types)
{
	_cleanup_free_ const struct dot_file **by = xcalloc(n, sizeof(*by));
	for (size_t i = 0; i < n; i++)
		by[i] = &d[i];
	qsort(by, n, sizeof(*by), name_cmp);
	DENTS_BUF(buf, 32768);
	struct dents ls = DENTS_INIT(dfd, buf.b);
	const struct dirent64 *de;
	while ((de = dents_next(&ls))) {
		if (ls.total > DOT_LIST_BYTES)
			return false;
		struct dot_file key = {.name = de->d_name};
		const struct dot_file *kp = &key;
		const struct dot_file **hit =
		    bsearch(&kp, by, n, sizeof(*by), name_cmp);
		if (!hit)
			continue;
		size_t i = (size_t)(*hit - d);
		struct stat st;
		types[i] = dents_mode(de->d_type);
		if (!types[i] &&
		    fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			types[i] = st.st_mode & S_IFMT;
	}
	return ls.err == 0;
}

mode_t *guard_dot_types(const char *dir)
{
	size_t n;
	const struct dot_file *d = dot_files(&n);
	mode_t *types = xcalloc(n ? n : 1, sizeof(*types));
	_cleanup_close_ int dfd =
	    open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK);

	if (dfd >= 0 && dot_types_listed(dfd, d, n, types))
		return types;
	memset(types, 0, (n ? n : 1) * sizeof(*types));
	if (dfd < 0) /* a folder it may search but not list */
		dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	/* Each name looked up from the folder, not from the root: the same
	 * lookup of its last component (not followed), without walking the
	 * folder's path a hundred times. */
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		int r;
		if (dfd >= 0) {
			r = fstatat(dfd, d[i].name, &st, AT_SYMLINK_NOFOLLOW);
		} else {
			_cleanup_free_ char *p =
			    xasprintf("%s/%s", dir, d[i].name);
			r = lstat(p, &st);
		}
		if (r == 0)
			types[i] = st.st_mode & S_IFMT;
	}
	return types;
}

void guard_mounts_seen(const char *write_dir, const struct strv *write_dirs,
		       const mode_t *types, struct strv *ro_paths)
{
	size_t n;
	const struct dot_file *d = dot_files(&n);

	for (size_t i = 0; i < n; i++) {
		if (!types[i])
			continue; /* missing: the supervisor's job */
		_cleanup_free_ char *p =
		    xasprintf("%s/%s", write_dir, d[i].name);
		if (types[i] != S_IFLNK) {
			if (!strv_contains(ro_paths, p))
				strv_push(ro_paths, p);
			continue;
		}
		/* A symlink: bind its resolved target, never the link (mount
		 * would follow it, and bwrap would create the target's path
		 * inside the sandbox and expose a host file there). Only a
		 * target inside a write folder needs protecting. */
		_cleanup_free_ char *real = NULL;
		if (follow_chain(p, &real) != 1)
			continue;
		bool inside = path_within(real, write_dir);
		for (size_t j = 0; write_dirs && !inside && j < write_dirs->n;
		     j++)
			inside = path_within(real, write_dirs->v[j]);
		if (inside && strcmp(real, write_dir) != 0 &&
		    !strv_contains(ro_paths, real))
			strv_push(ro_paths, real);
	}
}

void guard_mounts_in(const char *write_dir, const struct strv *write_dirs,
		     struct strv *ro_paths)
{
	_cleanup_free_ mode_t *types = guard_dot_types(write_dir);
	guard_mounts_seen(write_dir, write_dirs, types, ro_paths);
}

void guard_mounts(const char *write_dir, struct strv *ro_paths)
{
	guard_mounts_in(write_dir, NULL, ro_paths);
}

void guard_plan_push(struct guard_plan *np, const struct guard_rule *ng)
{
	for (size_t i = 0; i < np->n; i++) {
		const struct guard_rule *g = &np->guards[i];
		if (g->dev == ng->dev && g->ino == ng->ino &&
		    g->any_dot == ng->any_dot &&
		    ((!g->name && !ng->name) ||
		     (g->name && ng->name && strcmp(g->name, ng->name) == 0)))
			return;
	}
	np->guards = xrealloc(np->guards, (np->n + 1) * sizeof(*np->guards));
	np->guards[np->n] = *ng;
	np->guards[np->n].dir = xstrdup(ng->dir);
	np->guards[np->n].name = ng->name ? xstrdup(ng->name) : NULL;
	np->n++;
}

static void plan_push(struct guard_plan *np, dev_t dev, ino_t ino,
		      const char *dir, const char *name)
{
	struct guard_rule g = {
	    .dev = dev,
	    .ino = ino,
	    .dir = (char *)dir,
	    .name = (char *)name,
	    .why = name ? "a dot-file link at the top of a --write folder "
			  "names it"
			: NULL,
	};
	guard_plan_push(np, &g);
}

int guard_plan_add(struct guard_plan *np, const char *dir, struct lnk_err *err)
{
	if (dir[0] != '/')
		return err_set(err, -EINVAL,
			       "write folder '%s' is not an absolute path",
			       dir);
	_cleanup_free_ mode_t *types = guard_dot_types(dir);
	return guard_plan_add_seen(np, dir, types, err);
}

int guard_plan_add_seen(struct guard_plan *np, const char *dir,
			const mode_t *types, struct lnk_err *err)
{
	struct stat st;
	size_t n;
	const struct dot_file *d = dot_files(&n);

	if (dir[0] != '/')
		return err_set(err, -EINVAL,
			       "write folder '%s' is not an absolute path",
			       dir);
	if (stat(dir, &st) < 0)
		return err_set(err, -errno,
			       "cannot protect the dot files of '%s': %s", dir,
			       strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return err_set(err, -ENOTDIR,
			       "cannot protect the files of '%s': not a folder",
			       dir);
	const char *fold = NULL;
	if (guard_dir_folds(dir, &fold) > 0) {
		/* The flag's value is pasted into a shell: one word. */
		_cleanup_free_ char *word = esc_word_dup(dir);
		return err_set(err, -EOPNOTSUPP,
			       "cannot keep the dot files at the top of '%s' "
			       "read only: its file system (%s) takes other "
			       "spellings for the same name; use a folder on "
			       "another file system, or --write-dot-files %s",
			       dir, fold, word);
	}
	plan_push(np, st.st_dev, st.st_ino, dir, NULL);

	/* A dangling dot-file symlink (.envrc -> envrc.local, missing): the
	 * program must not create its target either, or the next `cd` runs
	 * it. Guard the target's name in its folder. */
	for (size_t i = 0; i < n; i++) {
		if (types[i] != S_IFLNK)
			continue;
		_cleanup_free_ char *p = xasprintf("%s/%s", dir, d[i].name);
		_cleanup_free_ char *real = NULL;
		struct stat ds;
		int r = follow_chain(p, &real);
		if (r != 0)
			continue;
		char *slash = strrchr(real, '/');
		_cleanup_free_ char *rd =
		    slash == real ? xstrdup("/")
				  : xstrndup(real, (size_t)(slash - real));
		if (stat(rd, &ds) == 0)
			plan_push(np, ds.st_dev, ds.st_ino, dir, slash + 1);
	}
	return 0;
}

void guard_plan_free(struct guard_plan *np)
{
	for (size_t i = 0; i < np->n; i++) {
		free(np->guards[i].dir);
		free(np->guards[i].name);
	}
	free(np->guards);
	np->guards = NULL;
	np->n = 0;
	for (size_t i = 0; i < np->nkept; i++) {
		free(np->kept[i].path);
		free(np->kept[i].top);
	}
	free(np->kept);
	np->kept = NULL;
	np->nkept = 0;
	free(np->exec_ids);
	np->exec_ids = NULL;
	np->nexec = 0;
	np->exec_note = false;
}

void guard_plan_exec(struct guard_plan *np, const struct strv *allowed)
{
	np->exec_note = true;
	np->exec_ids =
	    xcalloc(allowed->n ? allowed->n : 1, sizeof(*np->exec_ids));
	np->nexec = 0;
	for (size_t i = 0; i < allowed->n; i++) {
		struct stat st;
		if (stat(allowed->v[i], &st) < 0)
			continue;
		np->exec_ids[np->nexec++] = (struct guard_exec_id){
		    .dev = st.st_dev,
		    .ino = st.st_ino,
		    .dir = S_ISDIR(st.st_mode),
		};
	}
}

int guard_plan(const struct policy *p, struct guard_plan *np,
	       struct lnk_err *err)
{
	const struct strv *w = policy_list(p, K_FILES_WRITE);
	const struct strv *wd = policy_list(p, K_FILES_WRITE_DOT_FILES);

	for (size_t i = 0; i < w->n; i++) {
		bool lifted = false;
		struct stat a, b;
		for (size_t j = 0; j < wd->n && !lifted; j++)
			lifted = strcmp(w->v[i], wd->v[j]) == 0 ||
				 (stat(w->v[i], &a) == 0 &&
				  stat(wd->v[j], &b) == 0 &&
				  a.st_dev == b.st_dev && a.st_ino == b.st_ino);
		if (lifted)
			continue;
		int r = guard_plan_add(np, w->v[i], err);
		if (r < 0)
			return r;
	}
	return np->n > 0;
}

/* ---- what the supervisor may touch (pure) ---- */

/* statfs f_type values (linux/magic.h and the file systems' own sources;
 * spelled out so an old header cannot drop one). */
static const unsigned long fs_ok_any[] = {
    /* on disk */
    0xEF53UL,	  /* ext2, ext3, ext4 */
    0x58465342UL, /* xfs */
    0x9123683EUL, /* btrfs */
    0xF2F52010UL, /* f2fs */
    0x2FC12FC1UL, /* zfs */
    0xCA451A4EUL, /* bcachefs */
    0x52654973UL, /* reiserfs */
    0x3153464AUL, /* jfs */
    0x3434UL,	  /* nilfs2 */
    0x4D44UL,	  /* vfat, msdos */
    0x2011BAB0UL, /* exfat */
    0x5346544EUL, /* ntfs */
    0x7366746EUL, /* ntfs3 */
    0x482BUL,	  /* hfs+ */
    0x15013346UL, /* udf */
    0x4244UL,	  /* hfs */
    0x24051905UL, /* ubifs */
    0x72B6UL,	  /* jffs2 */
    0x73717368UL, /* squashfs (read only) */
    0x9660UL,	  /* iso9660 (read only) */
    0xE0F5E1E2UL, /* erofs (read only) */
    /* memory */
    0x01021994UL, /* tmpfs, also devtmpfs (/dev/null) and memfd */
    0x858458F6UL, /* ramfs */
    /* stacked */
    0x794C7630UL, /* overlayfs (containers) */
    0xF15FUL,	  /* ecryptfs */
    /* network and shared folders */
    0x6969UL,	  /* nfs */
    0xFF534D42UL, /* cifs */
    0xFE534D42UL, /* smb2 */
    0x01021997UL, /* 9p (VMs, WSL) */
    0x65735546UL, /* fuse (sshfs, virtiofs) */
    0x00C36400UL, /* ceph */
    0x01161970UL, /* gfs2 */
    0x7461636FUL, /* ocfs2 */
    0x5346414FUL, /* afs */
    0x786F4256UL, /* vboxsf (VirtualBox shared folders) */
    0x0BD00BD0UL, /* lustre */
    0x47504653UL, /* gpfs */
};

/* Objects only: what /dev/stdout, /dev/fd/N and /dev/pts/N name. */
static const unsigned long fs_ok_object[] = {
    0x1CD1UL,	  /* devpts: the program's pty */
    0x50495045UL, /* pipefs: `echo > /dev/stdout` into a pipe */
};

bool guard_fs_ok(unsigned long f_type, bool object)
{
	for (size_t i = 0; i < ARRAY_SIZE(fs_ok_any); i++)
		if (fs_ok_any[i] == f_type)
			return true;
	for (size_t i = 0; object && i < ARRAY_SIZE(fs_ok_object); i++)
		if (fs_ok_object[i] == f_type)
			return true;
	return false;
}

enum guard_dev guard_chardev(dev_t rdev)
{
	unsigned ma = major(rdev), mi = minor(rdev);

	if (ma == 1 && (mi == 3 || mi == 5 || mi == 7 || mi == 8 || mi == 9))
		return GUARD_DEV_OPEN; /* null zero full random urandom */
	if (ma == 5 && mi == 0)
		return GUARD_DEV_CTTY;
	if (ma == 5 && mi == 2)
		return GUARD_DEV_OPEN; /* ptmx: a new pty of the sandbox's own */
	if (ma >= 136 && ma <= 143)
		return GUARD_DEV_OPEN; /* pty slaves (/dev/pts/N) */
	return GUARD_DEV_REFUSE;
}

bool guard_access_within(int flags, int have)
{
	int want = flags & O_ACCMODE;

	if (flags & O_PATH)
		return true; /* a path reference: no access at all */
	if (have == O_PATH)
		return false;
	/* O_ACCMODE itself (3) needs both, as the kernel asks; O_TRUNC
	 * writes whatever the access mode says. */
	bool rd = want != O_WRONLY;
	bool wr = want != O_RDONLY || (flags & O_TRUNC);
	bool hrd = have == O_RDONLY || have == O_RDWR;
	bool hwr = have == O_WRONLY || have == O_RDWR;
	return (!rd || hrd) && (!wr || hwr);
}

int guard_stat_tty_nr(const char *stat, unsigned long *tty_nr)
{
	const char *p = strrchr(stat, ')');

	if (!p)
		return -EINVAL;
	p++;
	/* state, ppid, pgrp, session, then tty_nr */
	for (int field = 3; field <= 7; field++) {
		if (*p != ' ')
			return -EINVAL;
		p++;
		const char *start = p;
		while (*p && *p != ' ')
			p++;
		if (p == start)
			return -EINVAL;
		if (field == 7) {
			char *end;
			long long v = strtoll(start, &end, 10);
			if (end != p || v < 0 || v > 0xffffffffLL)
				return -EINVAL;
			*tty_nr = (unsigned long)v;
		}
	}
	return 0;
}

dev_t guard_tty_dev(unsigned long nr)
{
	return makedev((unsigned)((nr >> 8) & 0xfff),
		       (unsigned)((nr & 0xff) | ((nr >> 12) & 0xfff00)));
}
