/* The tries of lnk sandbox check: for each promise of the sandbox
 * (docs/design.md, invariants 1-5; lnk-sandbox(1), COMMANDS, check), what
 * the probe does inside and what the grants say should happen (check.h).
 *
 * Over 1000 lines: check's tries are tables, one row per promise tried; the
 * length is rows, not logic.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "changes/changes.h"
#include "check/check.h"
#ifdef __linux__
#include "init/seccomp_policy.h"
#endif
#include "launch/commands.h"
#include "launch/env.h"
#include "net/grammar.h"
#include "policy/dotfiles.h"
#include "store/paths.h"
#include "tools/allow.h"
#include "tools/store.h"

static const struct check_gap gaps[] = {
    {"datagrams to unix sockets in a granted folder",
     "lnk connects a program's unix sockets only to sockets bound inside "
     "the sandbox, but a datagram sent with sendto or sendmsg straight to "
     "a host daemon's datagram socket in a folder you grant is not "
     "checked. check reports it as open"},
    {"[commands] is a guard, not containment",
     "the execute list stops launching the wrong program by name; the "
     "dynamic loader (ld.so FILE), memfd execution and any allowed "
     "interpreter run code the list does not name"},
    {"what an allowed host receives",
     "a host, LAN machine or port you allow can receive anything the "
     "program can read: grants are the boundary, not the data"},
    {"one kernel",
     "the sandbox shares the host's kernel: a kernel bug reachable from "
     "the calls it allows can break out; the seccomp filter only narrows "
     "that surface"},
    {"32-bit programs",
     "32-bit (int 0x80) and x32 system calls kill the program: they "
     "cannot run in the sandbox"},
    {"what a program leaves that runs later",
     "a repository below the top of a write folder, a build file, a "
     "configuration file that is a program: the program may write them "
     "(they are the project's), and the end of a run names each with what "
     "will run it (lnk-sandbox(1), WHAT A RUN LEFT). check reports it as "
     "open when that report names it, as leaked when it does not"},
};

const struct check_gap *check_gaps(size_t *n)
{
	*n = ARRAY_SIZE(gaps);
	return gaps;
}

/* What the mounts show at path: as in bwrap.c, the deepest mount wins.
 * 0 nothing, 1 read, 2 write. */
static int shown(const struct policy *p, const char *home, const char *path)
{
	size_t best = 0;
	int what = 0;
	struct {
		enum key_id id;
		int v;
	} keys[] = {{K_FILES_READ, 1}, {K_FILES_WRITE, 2}, {K_FILES_HIDE, 0}};
	for (size_t k = 0; k < ARRAY_SIZE(keys); k++) {
		const struct strv *l = policy_list(p, keys[k].id);
		for (size_t i = 0; i < l->n; i++) {
			size_t n = strlen(l->v[i]);
			if (path_within(path, l->v[i]) && n >= best) {
				best = n;
				what = keys[k].v;
			}
		}
	}
	struct strv hidden = {0};
	strv_copy(&hidden, &p->always_hidden);
	paths_always_hidden(home, &hidden);
	for (size_t i = 0; i < hidden.n; i++)
		if (path_within(path, hidden.v[i]) &&
		    strlen(hidden.v[i]) >= best) {
			best = strlen(hidden.v[i]);
			what = 0;
		}
	strv_free(&hidden);
	return what;
}

/* ~/x for people. */
/* Whether path is a new name at the top of the home folder that a write
 * grant holding the home folder keeps from being created (every dot name
 * there runs or is trusted outside: src/guard/protect.c). */
static bool home_top_kept(const struct policy *p, const char *home,
			  const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t n = strlen(home);
	if (!slash || (size_t)(slash - path) != n ||
	    strncmp(path, home, n) != 0 || slash[1] != '.')
		return false;
	const struct strv *wr = policy_list(p, K_FILES_WRITE);
	const struct strv *wdf = policy_list(p, K_FILES_WRITE_DOT_FILES);
	for (size_t i = 0; i < wr->n; i++)
		if (path_within(home, wr->v[i]) &&
		    !strv_contains(wdf, wr->v[i]))
			return true;
	return false;
}

static char *pretty(const char *home, const char *path)
{
	size_t n = strlen(home);
	if (strncmp(path, home, n) == 0 && path[n] == '/')
		return xasprintf("~%s", path + n);
	return xstrdup(path);
}

static struct check_try *add(struct check_list *l, const char *area,
			     enum check_expect e, const char *what,
			     const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static struct check_try *add(struct check_list *l, const char *area,
			     enum check_expect e, const char *what,
			     const char *fmt, ...)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->t = xrealloc(l->t, l->cap * sizeof(*l->t));
	}
	struct check_try *t = &l->t[l->n];
	*t = (struct check_try){.area = area, .expect = e};
	if (l->batches < 1)
		l->batches = 1;
	t->batch = l->batches - 1;
	snprintf(t->id, sizeof(t->id), "t%zu", l->n);
	t->what = xstrdup(what);
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&t->probe, fmt, ap) < 0)
		abort();
	va_end(ap);
	l->n++;
	return t;
}

static void add_read(struct check_list *l, const struct policy *p,
		     const char *home, const char *area, const char *where,
		     const char *path)
{
	enum check_expect e = shown(p, home, path) ? CHECK_ALLOW : CHECK_DENY;
	_cleanup_free_ char *pp = pretty(home, path);
	_cleanup_free_ char *what = xasprintf("read %s (%s)", pp, where);
	add(l, area, e, what, "read\t%s", path);
}

/* A file the probe creates: it must appear on the host only where a
 * write grant allows. */
static void add_create(struct check_list *l, struct bait *b,
		       const struct policy *p, const char *home,
		       const char *area, const char *where, const char *path,
		       bool dot_guarded)
{
	int s = shown(p, home, path);
	dot_guarded = dot_guarded || home_top_kept(p, home, path);
	enum check_expect e = s == 2 && !dot_guarded ? CHECK_ALLOW : CHECK_DENY;
	_cleanup_free_ char *pp = pretty(home, path);
	_cleanup_free_ char *what = xasprintf("create %s (%s)", pp, where);
	bait_expect(b, path);
	struct check_try *t = add(
	    l, area, e, what, "create\t%s\t" BAIT_MARK "%s", path, b->secret);
	if (e == CHECK_DENY) {
		t->host = CH_ABSENT;
		t->host_path = xstrdup(path);
	}
}

/* A write of a new file in each folder of dirs (where: which grant they
 * are), named by the bait's tag, mark and the folder's index. */
static void add_create_each(struct check_list *l, struct bait *b,
			    const struct policy *p, const char *home,
			    const struct strv *dirs, char mark,
			    const char *where)
{
	for (size_t i = 0; i < dirs->n; i++) {
		_cleanup_free_ char *f = xasprintf("%s/.lnk-check-%s-%c%zu",
						   dirs->v[i], b->tag, mark, i);
		add_create(l, b, p, home, "writes", where, f, false);
	}
}

static void plan_files(const struct policy *p, struct bait *b, const char *home,
		       struct check_list *l)
{
	add_read(l, p, home, "files", "a secret in the home folder",
		 b->home_file);
	add_read(l, p, home, "settings", "lnk's settings", b->lnk_file);
	for (size_t i = 0; i < b->hidden_files.n; i++)
		add_read(l, p, home, "hidden", "a hidden folder",
			 b->hidden_files.v[i]);
	add_read(l, p, home, "files", "the host's /tmp", b->tmp_file);
	for (size_t i = 0; i + 1 < b->granted_files.n; i += 2)
		add_read(l, p, home, "files", "a granted folder",
			 b->granted_files.v[i + 1]);

	/* Writes outside: the home, lnk's settings, /tmp, each --read folder,
	 * the system. */
	_cleanup_free_ char *hw = xasprintf("%s/.lnk-check-%s-w", home, b->tag);
	add_create(l, b, p, home, "writes", "the home folder", hw, false);
	_cleanup_free_ char *lnkdir = paths_lnk_dir(home);
	_cleanup_free_ char *lw =
	    xasprintf("%s/lnk-check-%s-w", lnkdir, b->tag);
	add_create(l, b, p, home, "settings", "lnk's settings", lw, false);
	_cleanup_free_ char *tw = xasprintf("/tmp/lnk-check-%s-w", b->tag);
	add_create(l, b, p, home, "writes", "/tmp, private inside", tw, false);
	add_create_each(l, b, p, home, policy_list(p, K_FILES_READ), 'w',
			"a --read folder");
	_cleanup_free_ char *uw = xasprintf("/usr/lnk-check-%s-w", b->tag);
	add_create(l, b, p, home, "writes", "the system", uw, false);
	add_create_each(l, b, p, home, policy_list(p, K_FILES_WRITE), 'n',
			"a --write folder");
}

/* The dot-file list at the top of each write folder: write, create,
 * rename (docs/design.md, invariant 2). */
static void plan_dot_files(const struct policy *p, struct bait *b,
			   const char *home, struct check_list *l)
{
	const struct strv *wr = policy_list(p, K_FILES_WRITE);
	const struct strv *wdf = policy_list(p, K_FILES_WRITE_DOT_FILES);
	size_t nd;
	const struct dot_file *df = dot_files(&nd);
	for (size_t i = 0; i < wr->n; i++) {
		const char *w = wr->v[i];
		bool guarded = !strv_contains(wdf, w);
		enum check_expect e = guarded ? CHECK_DENY : CHECK_ALLOW;
		const char *planted = NULL;
		for (size_t j = 0; j + 1 < b->dot_planted.n; j += 2)
			if (strcmp(b->dot_planted.v[j], w) == 0)
				planted = b->dot_planted.v[j + 1];
		/* A listed name that does not exist, to try creating. */
		_cleanup_free_ char *missing = NULL;
		for (size_t j = 0; j < nd && !missing; j++) {
			if (strchr(df[j].name, '/'))
				continue;
			char *c = xasprintf("%s/%s", w, df[j].name);
			struct stat st;
			if ((!planted || strcmp(planted, c) != 0) &&
			    lstat(c, &st) < 0 && errno == ENOENT)
				missing = c;
			else
				free(c);
		}
		if (planted) {
			_cleanup_free_ char *pp = pretty(home, planted);
			_cleanup_free_ char *what =
			    xasprintf("write %s, which runs outside", pp);
			struct check_try *t =
			    add(l, "runs outside", e, what, "append\t%s\t%s",
				planted, "echo lnk-check-leaked\n");
			if (guarded) {
				t->host = CH_UNCHANGED;
				t->host_path = xstrdup(planted);
				t->host_content =
				    xasprintf(BAIT_MARK "%s\n", b->secret);
			}
		}
		if (missing) {
			add_create(l, b, p, home, "runs outside",
				   "a file that runs outside, at the top of a "
				   "--write folder",
				   missing, guarded);
			/* A file of its own, renamed onto the dot name. */
			_cleanup_free_ char *src = xasprintf(
			    "%s/%slnk-check-%s-r%zu", w,
			    home_top_kept(p, home, missing) ? "" : ".", b->tag,
			    i);
			bait_expect(b, src);
			add(l, "runs outside", CHECK_ALLOW,
			    "create a file to rename",
			    "create\t%s\t" BAIT_MARK "%s", src, b->secret);
			_cleanup_free_ char *pm = pretty(home, missing);
			_cleanup_free_ char *what =
			    xasprintf("rename a file onto %s", pm);
			struct check_try *t =
			    add(l, "runs outside", e, what, "rename\t%s\t%s",
				src, missing);
			if (guarded) {
				t->host = CH_ABSENT;
				t->host_path = xstrdup(missing);
			}
		}
		if (planted) {
			_cleanup_free_ char *to = xasprintf(
			    "%s/%slnk-check-%s-m%zu", w,
			    home_top_kept(p, home, planted) ? "" : ".", b->tag,
			    i);
			bait_expect(b, to);
			_cleanup_free_ char *pp = pretty(home, planted);
			_cleanup_free_ char *what = xasprintf(
			    "rename %s, which runs outside, away", pp);
			struct check_try *t =
			    add(l, "runs outside", e, what, "rename\t%s\t%s",
				planted, to);
			if (guarded) {
				t->host = CH_UNCHANGED;
				t->host_path = xstrdup(planted);
				t->host_content =
				    xasprintf(BAIT_MARK "%s\n", b->secret);
			}
		}
	}
}

/* What runs outside beyond the listed names (docs/runs-outside.md): the
 * top of a write folder never becomes a git repository, and its mode
 * (so who else may write there) cannot change; nor can the mode of a
 * folder that holds a hidden one, even under --write-dot-files. The mode
 * try sets the mode the folder already has: refused under the guard,
 * harmless if not. */
static void plan_runs_outside(const struct policy *p, struct bait *b,
			      const char *home, struct check_list *l)
{
	const struct strv *wr = policy_list(p, K_FILES_WRITE);
	const struct strv *wdf = policy_list(p, K_FILES_WRITE_DOT_FILES);
	for (size_t i = 0; i < wr->n; i++) {
		const char *w = wr->v[i];
		bool guarded = !strv_contains(wdf, w);
		_cleanup_free_ char *pw = pretty(home, w);
		struct stat st;
		if (stat(w, &st) == 0) {
			_cleanup_free_ char *what =
			    xasprintf("change the mode of %s", pw);
			bool kept = guarded || bait_holds_hidden(p, home, w);
			add(l, "runs outside", kept ? CHECK_DENY : CHECK_ALLOW,
			    what, "chmod\t%s\t%o", w,
			    (unsigned)(st.st_mode & 07777));
		}
		_cleanup_free_ char *objects = xasprintf("%s/objects", w);
		_cleanup_free_ char *head = xasprintf("%s/HEAD", w);
		if (lstat(head, &st) < 0 && errno == ENOENT &&
		    !(stat(objects, &st) == 0 && S_ISDIR(st.st_mode)))
			add_create(l, b, p, home, "runs outside",
				   "a git HEAD that makes the folder a "
				   "repository",
				   head, guarded);
	}
}

/* The way to what a protected link names (.envrc -> lnk-check-…/envrc,
 * planted by check): the target stays read only and the folder on its
 * way cannot move, unless --write-dot-files names the folder. */
static void plan_chains(const struct policy *p, struct bait *b,
			const char *home, struct check_list *l)
{
	const struct strv *wdf = policy_list(p, K_FILES_WRITE_DOT_FILES);
	for (size_t i = 0; i + 3 < b->chains.n; i += 4) {
		const char *w = b->chains.v[i], *link = b->chains.v[i + 1];
		const char *dir = b->chains.v[i + 2];
		const char *target = b->chains.v[i + 3];
		bool guarded = !strv_contains(wdf, w);
		enum check_expect e = guarded ? CHECK_DENY : CHECK_ALLOW;
		_cleanup_free_ char *pl = pretty(home, link);
		_cleanup_free_ char *pt = pretty(home, target);
		_cleanup_free_ char *content =
		    xasprintf(BAIT_MARK "%s\n", b->secret);

		_cleanup_free_ char *w1 = xasprintf(
		    "write %s, the target of %s (a link that runs outside)", pt,
		    pl);
		struct check_try *t =
		    add(l, "runs outside", e, w1, "append\t%s\t%s", target,
			"echo lnk-check-leaked\n");
		if (guarded) {
			t->host = CH_UNCHANGED;
			t->host_path = xstrdup(target);
			t->host_content = xstrdup(content);
		}

		_cleanup_free_ char *to = xasprintf("%s-moved", dir);
		_cleanup_free_ char *to_file = xasprintf("%s/envrc", to);
		bait_expect_dir(b, to);
		bait_expect(b, to_file);
		_cleanup_free_ char *pd = pretty(home, dir);
		_cleanup_free_ char *w2 = xasprintf(
		    "rename %s, on the way to the target of %s", pd, pl);
		t = add(l, "runs outside", e, w2, "rename\t%s\t%s", dir, to);
		if (guarded) {
			t->host = CH_UNCHANGED;
			t->host_path = xstrdup(link); /* read through it */
			t->host_content = xstrdup(content);
		}
	}
}

/* A folder that holds a hidden one (check's own, hidden as --hide would)
 * cannot move, whatever --write-dot-files says: the next sandbox would
 * show the hidden content at the new path. */
static void plan_hide_holders(struct bait *b, const char *home,
			      struct check_list *l)
{
	for (size_t i = 0; i + 2 < b->hide_holders.n; i += 3) {
		const char *holder = b->hide_holders.v[i + 1];
		const char *file = b->hide_holders.v[i + 2];
		_cleanup_free_ char *to = xasprintf("%s-moved", holder);
		_cleanup_free_ char *to_in = xasprintf("%s/lnk-check-in", to);
		_cleanup_free_ char *to_file =
		    xasprintf("%s/%s", to_in, strrchr(file, '/') + 1);
		bait_expect_dir(b, to);
		bait_expect_dir(b, to_in);
		bait_expect(b, to_file);
		_cleanup_free_ char *ph = pretty(home, holder);
		_cleanup_free_ char *what =
		    xasprintf("rename %s, which holds a hidden folder", ph);
		struct check_try *t = add(l, "hidden", CHECK_DENY, what,
					  "rename\t%s\t%s", holder, to);
		t->host = CH_UNCHANGED;
		t->host_path = xstrdup(file);
		t->host_content = xasprintf(BAIT_MARK "%s\n", b->secret);
	}
}

/* What uid 0 inside would own of the host's kernel: settings in /proc/sys
 * (kernel.core_pattern runs a program as root at the next crash), the
 * sysrq trigger, a device node's mode. Each is opened for writing and
 * written nothing, or set to the mode it has: harmless where it goes
 * through; tried as any user. */
static const char *const kernel_files[] = {
    "/proc/sys/kernel/core_pattern",
    "/proc/sys/vm/drop_caches",
    "/proc/sys/fs/binfmt_misc/register",
    "/proc/sysrq-trigger",
};

static void plan_kernel(struct check_list *l)
{
	for (size_t i = 0; i < ARRAY_SIZE(kernel_files); i++) {
		struct stat st;
		if (stat(kernel_files[i], &st) < 0)
			continue; /* not on this kernel: nothing to try */
		_cleanup_free_ char *what = xasprintf(
		    "open %s for writing (a setting of the host's kernel)",
		    kernel_files[i]);
		add(l, "kernel", CHECK_DENY, what, "openw\t%s",
		    kernel_files[i]);
	}
	struct stat st;
	if (stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode)) {
		struct check_try *t =
		    add(l, "devices", CHECK_DENY,
			"change the mode of /dev/null (to the one it has)",
			"chmod\t/dev/null\t%o", (unsigned)(st.st_mode & 07777));
		t->host = CH_CTIME;
		t->host_path = xstrdup("/dev/null");
		t->host_ctime = st.st_ctim;
	}
}

/* The probe's stdin is a file of check's outside the grants, opened read
 * only: named through /dev/stdin with O_CREAT (which the guard, not the
 * kernel, performs) it must stay read only. */
static void plan_stdin(const struct policy *p, const struct bait *b,
		       const char *home, struct check_list *l)
{
	static const char *const names[] = {"/dev/stdin", "/proc/self/fd/0"};
	bool writable = shown(p, home, b->stdin_file) == 2;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		_cleanup_free_ char *what = xasprintf(
		    "write the host's file given as stdin (read only), "
		    "opened as %s with O_CREAT",
		    names[i]);
		struct check_try *t = add(
		    l, "descriptors", writable ? CHECK_ALLOW : CHECK_DENY, what,
		    "appendc\t%s\t%s", names[i], "echo lnk-check-leaked\n");
		if (!writable) {
			t->host = CH_UNCHANGED;
			t->host_path = xstrdup(b->stdin_file);
			t->host_content =
			    xasprintf(BAIT_MARK "%s\n", b->secret);
		}
	}
}

/* The bounds on the host's memory and processes: a write one page past
 * each file system in memory (a fallocate the tmpfs refuses before it
 * takes a page), and the task limit as the program sees it (read, never
 * a fork past it). */
static void plan_limits(const struct policy *p, const char *home,
			const struct check_limits *lim, struct check_list *l)
{
	if (!lim)
		return;
	if (lim->line)
		l->limits_line = xstrdup(lim->line);
	/* Each is the sandbox's own, in memory, unless a grant shows the
	 * host's folder there. */
	const char *mem[] = {"/tmp", "/var/tmp", "/dev/shm", home};
	for (size_t i = 0; i < ARRAY_SIZE(mem); i++) {
		if (shown(p, home, mem[i]))
			continue;
		_cleanup_free_ char *pm =
		    i == 3 ? xstrdup("the empty home folder") : xstrdup(mem[i]);
		_cleanup_free_ char *what =
		    lim->tmp_bound % (1u << 20)
			? xasprintf("write past the %" PRIu64 " bytes %s holds",
				    lim->tmp_bound, pm)
			: xasprintf("write past the %" PRIu64 " MiB %s holds",
				    lim->tmp_bound >> 20, pm);
		add(l, "limits", CHECK_REFUSE, what, "fill\t%s\t%" PRIu64,
		    mem[i], lim->tmp_bound);
	}
	if (lim->tasks && !lim->root) {
		_cleanup_free_ char *what = xasprintf(
		    "run more than %" PRIu64
		    " tasks (RLIMIT_NPROC, read: no fork past it is tried)",
		    lim->tasks);
		add(l, "limits", CHECK_REFUSE, what, "tasks\t%" PRIu64,
		    lim->tasks);
	}
}

/* The repositories the top one knows: each submodule .gitmodules names
 * under a write folder. Its gitfile is opened for writing, nothing
 * written; into a git directory a bait file is created. */
static void plan_submodules(const struct policy *p, struct bait *b,
			    const char *home, struct check_list *l)
{
	const struct strv *wr = policy_list(p, K_FILES_WRITE);
	const struct strv *wdf = policy_list(p, K_FILES_WRITE_DOT_FILES);
	for (size_t i = 0; i < wr->n; i++) {
		const char *w = wr->v[i];
		bool guarded = !strv_contains(wdf, w);
		_cleanup_free_ char *gm = xasprintf("%s/.gitmodules", w);
		_cleanup_free_ char *top = xasprintf("%s/.git", w);
		struct stat st;
		if (lstat(top, &st) < 0)
			continue;
		FILE *f = fopen(gm, "re");
		char line[PATH_MAX];
		int n = 0;
		while (f && n < 4 && fgets(line, sizeof(line), f)) {
			char *k = line + strspn(line, " \t");
			if (strncmp(k, "path", 4) != 0)
				continue;
			k += 4 + strspn(k + 4, " \t");
			if (*k != '=')
				continue;
			k++;
			k += strspn(k, " \t");
			k[strcspn(k, "\r\n")] = '\0';
			size_t kl = strlen(k);
			while (kl && (k[kl - 1] == ' ' || k[kl - 1] == '\t'))
				k[--kl] = '\0';
			if (!kl || k[0] == '/' || strstr(k, ".."))
				continue;
			_cleanup_free_ char *g = xasprintf("%s/%s/.git", w, k);
			if (lstat(g, &st) < 0)
				continue;
			_cleanup_free_ char *pg = pretty(home, g);
			enum check_expect e =
			    guarded ? CHECK_DENY : CHECK_ALLOW;
			if (S_ISREG(st.st_mode)) {
				_cleanup_free_ char *what = xasprintf(
				    "open %s, a submodule's gitfile, for "
				    "writing",
				    pg);
				add(l, "runs outside", e, what, "openw\t%s", g);
				n++;
			} else if (S_ISDIR(st.st_mode)) {
				_cleanup_free_ char *c = xasprintf(
				    "%s/lnk-check-%s-s%d", g, b->tag, n);
				_cleanup_free_ char *where =
				    xasprintf("a submodule's git directory");
				add_create(l, b, p, home, "runs outside", where,
					   c, guarded);
				n++;
			}
		}
		if (f)
			fclose(f);
	}
}

static void plan_process(const struct policy *p, const struct bait *b,
			 struct check_list *l)
{
	_cleanup_free_ char *w = xasprintf(
	    "read the secret variable %s lnk was started with", b->env_name);
	add(l, "environment", CHECK_DENY, w, "env\t%s", b->env_name);
	const struct strv *pass = policy_list(p, K_COMMANDS_ENV);
	for (size_t i = 0; i < pass->n; i++) {
		if (!getenv(pass->v[i]))
			continue;
		_cleanup_free_ char *what =
		    xasprintf("read %s, passed by --env", pass->v[i]);
		add(l, "environment", CHECK_ALLOW, what, "env\t%s", pass->v[i]);
	}
	add(l, "descriptors", CHECK_DENY,
	    "use a descriptor lnk inherited (a file holding a secret)", "fds");
	add(l, "processes", CHECK_DENY,
	    "see or read a process outside in /proc", "procs\t%s\t%s", b->comm,
	    b->secret);
	add(l, "terminal", CHECK_DENY, "push input into a terminal (TIOCSTI)",
	    "tiocsti");
	add(l, "terminal", CHECK_DENY,
	    "push input with TIOCSTI and high bits set in the request",
	    "tiocsti\t100000000");
#ifdef __linux__
	/* Every refusal the seccomp policy lists, as its own try (the call
	 * and arguments come from the policy: lnk-probe has no list). macOS
	 * has no seccomp: its profile's refusals are files and ports. */
	struct seccomp_try t;
	for (size_t i = 0; seccomp_try_get(i, &t) == 0; i++) {
		_cleanup_free_ char *what = xasprintf("call %s", t.name);
		add(l, "system calls", CHECK_DENY, what,
		    "sys\t%s\t%ld\t%ld,%ld,%ld,%ld,%ld,%ld", t.name, t.nr,
		    t.args[0], t.args[1], t.args[2], t.args[3], t.args[4],
		    t.args[5]);
	}
#endif
}

/* The commands list: an unlisted system program must not run; a listed
 * one must. */
static void plan_commands(const struct policy *p, struct check_list *l)
{
	if (policy_any_command(p))
		return;
	struct strv exec = {0};
	struct lnk_err err = {0};
	const struct strv *allow = policy_list(p, K_COMMANDS_ALLOW);
	char *prog = NULL;
	_cleanup_free_ char *listed = NULL;
	for (size_t i = 0; i < allow->n && !listed; i++) {
		if (commands_resolve(allow, false, ENV_SANDBOX_PATH,
				     allow->v[i], &exec, &prog, &err) == 0)
			listed = prog;
		else
			free(prog);
		prog = NULL;
	}
	const char *cands[] = {"/usr/bin/true", "/bin/true", "/usr/bin/id",
			       "/usr/bin/env", "/bin/ls"};
	for (size_t i = 0; i < ARRAY_SIZE(cands); i++) {
		char real[PATH_MAX];
		if (!realpath(cands[i], real) || access(real, X_OK) < 0 ||
		    strv_contains(&exec, real))
			continue;
		_cleanup_free_ char *what = xasprintf(
		    "run %s, which [commands] does not list", cands[i]);
		add(l, "commands", CHECK_DENY, what, "exec\t%s", cands[i]);
		break;
	}
	if (listed) {
		_cleanup_free_ char *what = xasprintf(
		    "run %s --version, which [commands] lists", listed);
		add(l, "commands", CHECK_ALLOW, what, "exec\t%s\t--version",
		    listed);
	}
	strv_free(&exec);
}

static bool is_name(const char *h)
{
	return h[0] != '*' && !strchr(h, ':');
}

/* Loopback in every spelling a filter could miss (docs/design.md, invariant 3:
 * no 127.1, no decimal or hex forms, no IPv4-mapped IPv6). */
static const char *const loop_http[] = {
    "127.0.0.1",
    "127.1",
    "2130706433",
    "0x7f000001",
    "0177.0.0.1",
    "127.0.0.2",
    "[::1]",
    "[::ffff:127.0.0.1]",
    "[0:0:0:0:0:0:0:1]",
    "localhost",
    "LOCALHOST.",
    "0.0.0.0",
    "[::]",
};

/* A refused call through the proxy: a new sandbox every
 * CHECK_REFUSED_PER_BATCH of them, or for each one when alone is set (a
 * metadata call pauses its wire at once). */
static struct check_try *proxy_deny(struct check_list *l, bool alone,
				    const char *what, const char *probe)
{
	if (alone || l->refused_in_batch >= CHECK_REFUSED_PER_BATCH) {
		l->batches++;
		l->refused_in_batch = 0;
	}
	struct check_try *t = add(l, "proxy", CHECK_DENY, what, "%s", probe);
	l->refused_in_batch++;
	return t;
}

/* A CONNECT through the wire to hostport ("host:port", an IPv6 host in
 * brackets) that must be denied; why says what the address is. */
static struct check_try *connect_deny(struct check_list *l, bool alone,
				      const char *hostport, const char *why)
{
	char what[300], pr[200];
	snprintf(what, sizeof(what), "CONNECT %s (%s)", hostport, why);
	snprintf(pr, sizeof(pr), "http\t%s", hostport);
	return proxy_deny(l, alone, what, pr);
}

/* "host:port", an IPv6 host in brackets. */
static void host_port(char *out, size_t n, const char *host, const char *port)
{
	bool v6 = strchr(host, ':') != NULL;
	snprintf(out, n, "%s%s%s:%s", v6 ? "[" : "", host, v6 ? "]" : "", port);
}

/* This machine's addresses (every interface's). */
static void own_addrs(struct strv *out)
{
	struct ifaddrs *ifa = NULL;
	if (getifaddrs(&ifa) < 0)
		return;
	for (struct ifaddrs *i = ifa; i; i = i->ifa_next) {
		char a[INET6_ADDRSTRLEN];
		if (!i->ifa_addr)
			continue;
		if (i->ifa_addr->sa_family == AF_INET)
			inet_ntop(
			    AF_INET,
			    &((struct sockaddr_in *)i->ifa_addr)->sin_addr, a,
			    sizeof(a));
		else if (i->ifa_addr->sa_family == AF_INET6)
			inet_ntop(
			    AF_INET6,
			    &((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr, a,
			    sizeof(a));
		else
			continue;
		strv_push(out, a);
	}
	freeifaddrs(ifa);
}

#define NEIGHBOURS_MAX 4
#define RT_GATEWAY 0x0002    /* RTF_GATEWAY */
#define RT_REJECT 0x0200     /* RTF_REJECT */
#define RT_LOCAL 0x80000000u /* RTF_LOCAL: an address of this machine */

static void neighbour_push(struct strv *out, const struct strv *own,
			   const char *a)
{
	if (out->n < NEIGHBOURS_MAX && !strv_contains(own, a) &&
	    !strv_contains(out, a))
		strv_push(out, a);
}

/* Machines of this machine's network that a sandbox could name: each
 * gateway, and the first address of each network on a link (a route
 * without a gateway) that is not this machine's own. A live neighbour
 * cannot be known, so one that does not answer proves nothing. */
static void neighbours(struct strv *out)
{
	struct strv own = {0};
	own_addrs(&own);
	FILE *f = fopen("/proc/net/route", "re");
	char line[512];
	while (f && fgets(line, sizeof(line), f)) {
		char ifn[32];
		unsigned dst, gw, flags, mask;
		if (sscanf(line, "%31s %x %x %x %*d %*d %*d %x", ifn, &dst, &gw,
			   &flags, &mask) != 5 ||
		    strcmp(ifn, "lo") == 0 || strcmp(ifn, "*") == 0 ||
		    (flags & RT_REJECT))
			continue;
		char a[INET_ADDRSTRLEN];
		struct in_addr ia;
		if (flags & RT_GATEWAY) {
			ia.s_addr = gw;
			inet_ntop(AF_INET, &ia, a, sizeof(a));
			neighbour_push(out, &own, a);
			continue;
		}
		uint32_t m = ntohl(mask), net = ntohl(dst) & m;
		if (!m)
			continue;
		uint32_t last = net | ~m;
		for (uint32_t x = m == 0xffffffffu ? net : net + 1;
		     x <= last && x <= net + 2; x++) {
			ia.s_addr = htonl(x);
			inet_ntop(AF_INET, &ia, a, sizeof(a));
			if (!strv_contains(&own, a)) {
				neighbour_push(out, &own, a);
				break;
			}
		}
	}
	if (f)
		fclose(f);
	f = fopen("/proc/net/ipv6_route", "re");
	while (f && fgets(line, sizeof(line), f)) {
		char dst[33], nh[33], ifn[32];
		unsigned plen, flags;
		if (sscanf(line, "%32s %x %*s %*x %32s %*x %*x %*x %x %31s",
			   dst, &plen, nh, &flags, ifn) != 5 ||
		    strcmp(ifn, "lo") == 0 || (flags & (RT_REJECT | RT_LOCAL)))
			continue;
		struct in6_addr d, g;
		for (int k = 0; k < 16; k++) {
			unsigned x, y;
			sscanf(dst + 2 * k, "%2x", &x);
			sscanf(nh + 2 * k, "%2x", &y);
			d.s6_addr[k] = (uint8_t)x;
			g.s6_addr[k] = (uint8_t)y;
		}
		char a[INET6_ADDRSTRLEN];
		if (flags & RT_GATEWAY) {
			if (IN6_IS_ADDR_LINKLOCAL(&g))
				continue; /* needs an interface to name */
			inet_ntop(AF_INET6, &g, a, sizeof(a));
			neighbour_push(out, &own, a);
			continue;
		}
		if (plen == 0 || plen > 128 || IN6_IS_ADDR_LINKLOCAL(&d) ||
		    IN6_IS_ADDR_MULTICAST(&d))
			continue;
		if (plen < 128)
			d.s6_addr[15] |= 1;
		inet_ntop(AF_INET6, &d, a, sizeof(a));
		neighbour_push(out, &own, a);
	}
	if (f)
		fclose(f);
	strv_free(&own);
}

/* Whether an internet grant names host (a name or pattern). */
static bool granted_name(const struct policy *p, const char *host)
{
	const struct strv *h = policy_list(p, K_INTERNET_HOSTS);
	for (size_t i = 0; i < h->n; i++)
		if (host_pattern_match(h->v[i], host))
			return true;
	return false;
}

static void plan_network(const struct policy *p, const struct bait *b,
			 bool wire, struct check_list *l)
{
	unsigned port = b->port;
	char what[300];

	/* Allowed first: a wire pauses itself after many refusals. */
	if (wire) {
		const struct strv *h = policy_list(p, K_INTERNET_HOSTS);
		for (size_t i = 0; i < h->n; i++) {
			if (!is_name(h->v[i]))
				continue;
			snprintf(
			    what, sizeof(what),
			    "reach %s:443 through the proxy (--internet-host)",
			    h->v[i]);
			add(l, "proxy", CHECK_ALLOW, what, "http\t%s:443",
			    h->v[i]);
			/* and without: a raw client, the wire's resolver
			 * and the transparent path */
			snprintf(what, sizeof(what),
				 "connect to %s:443 without proxy settings "
				 "(--internet-host)",
				 h->v[i]);
			add(l, "network", CHECK_ALLOW, what, "tcpname\t%s\t443",
			    h->v[i]);
		}
		const struct strv *lan = policy_list(p, K_LAN_HOSTS);
		for (size_t i = 0; i < lan->n; i++) {
			struct lan_rule r;
			if (lan_rule_parse(lan->v[i], strlen(lan->v[i]), &r,
					   NULL) < 0 ||
			    (r.is_net &&
			     r.prefix !=
				 (r.net.family == AF_INET ? 32u : 128u)))
				continue; /* a range: no one machine to try */
			char a[INET6_ADDRSTRLEN];
			if (r.is_net)
				addr_format(&r.net, a, sizeof(a));
			snprintf(what, sizeof(what),
				 "reach %s through the proxy (--lan-host)",
				 lan->v[i]);
			add(l, "proxy", CHECK_ALLOW, what, "http\t%s%s%s:%u",
			    r.is_net && r.net.family == AF_INET6 ? "[" : "",
			    r.is_net ? a : r.name,
			    r.is_net && r.net.family == AF_INET6 ? "]" : "",
			    r.port ? r.port : 80u);
		}
		const struct strv *ports = policy_list(p, K_LOCALHOST_PORTS);
		for (size_t i = 0; i < ports->n; i++) {
			snprintf(what, sizeof(what),
				 "connect to 127.0.0.1:%s (--port)",
				 ports->v[i]);
			add(l, "network", CHECK_ALLOW, what,
			    "tcp\t127.0.0.1\t%s", ports->v[i]);
		}
	}

	/* Direct: the sandbox's network namespace has only its loopback. */
	snprintf(what, sizeof(what),
		 "connect directly to a server on this machine (127.0.0.1:%u)",
		 port);
	add(l, "network", CHECK_DENY, what, "tcp\t127.0.0.1\t%u", port);
	snprintf(what, sizeof(what), "connect directly to [::1]:%u", port);
	add(l, "network", CHECK_DENY, what, "tcp\t::1\t%u", port);
	/* Without proxy settings. With a wire, a TCP connect goes through it
	 * (the transparent path) and names come from its resolver: what no
	 * grant names is refused there. '*' names every internet host. */
	bool star = strv_contains(policy_list(p, K_INTERNET_HOSTS), "*");
	if (!wire)
		add(l, "network", CHECK_DENY,
		    "connect directly to the internet (198.18.0.10:80, a "
		    "test address)",
		    "tcp\t198.18.0.10\t80");
	else if (!star)
		add(l, "network", CHECK_DENY,
		    "connect without proxy settings to a host no grant names "
		    "(198.18.0.10:80, a test address)",
		    "tcp\t198.18.0.10\t80");
	if (!wire)
		add(l, "network", CHECK_DENY,
		    "resolve a name without the proxy (DNS)",
		    "dns\texample.com");
	else if (!star && !granted_name(p, "example.com"))
		add(l, "network", CHECK_DENY,
		    "resolve a name no grant names (example.com)",
		    "dns\texample.com");
	if (wire && policy_list(p, K_LAN_HOSTS)->n == 0)
		add(l, "network", CHECK_DENY,
		    "connect without proxy settings to the LAN "
		    "(192.168.0.1:80)",
		    "tcp\t192.168.0.1\t80");
	/* never sent: connect() is refused, or there is no route */
	add(l, "network", CHECK_DENY,
	    "send DNS to another server (8.8.8.8:53, UDP)", "udp\t8.8.8.8\t53");
	snprintf(what, sizeof(what), "connect to a unix socket outside (%s)",
		 b->unix_path);
	add(l, "network", CHECK_DENY, what, "unix\t%s", b->unix_path);
	add(l, "network", CHECK_DENY,
	    "connect to an abstract unix socket outside", "unix\t%s",
	    b->abstract);
	for (size_t i = 0; i + 1 < b->host_addrs.n; i += 2) {
		snprintf(what, sizeof(what),
			 "connect directly to this machine's address %s, port "
			 "%s",
			 b->host_addrs.v[i], b->host_addrs.v[i + 1]);
		add(l, "network", CHECK_DENY, what, "tcp\t%s\t%s",
		    b->host_addrs.v[i], b->host_addrs.v[i + 1]);
	}
	/* A port below 1024, in every address form the kernel accepts:
	 * the guard, when it performs a bind, must read the address as the
	 * kernel does (its own bind is privileged in the sandbox). */
	static const char *const low[][3] = {
	    {"127.0.0.1", "16", "an IPv4 address"},
	    {"::1", "28", "a 28-byte IPv6 address"},
	    {"::1", "24", "a 24-byte IPv6 address (no scope id)"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(low); i++) {
		snprintf(what, sizeof(what),
			 "bind port 80 inside with %s (below 1024)", low[i][2]);
		add(l, "network", CHECK_DENY, what, "bind\t%s\t80\t%s",
		    low[i][0], low[i][1]);
	}
	{
		bool home_shown = false;
		const char *hs = b->home_socket;
		/* A host daemon's socket in a folder a grant shows: the
		 * mount lets connect() through, the guard refuses it (only
		 * sockets bound inside answer). */
		const struct strv *rd = policy_list(p, K_FILES_READ);
		const struct strv *wr = policy_list(p, K_FILES_WRITE);
		for (size_t i = 0; i < rd->n; i++)
			home_shown |= path_within(hs, rd->v[i]);
		for (size_t i = 0; i < wr->n; i++)
			home_shown |= path_within(hs, wr->v[i]);
		add(l, "network", CHECK_DENY,
		    home_shown ? "connect to a host's unix socket in a granted "
				 "folder (the home folder)"
			       : "connect to a unix socket in the home folder",
		    "unix\t%s", hs);
		if (b->home_dgram) {
			struct check_try *t = add(
			    l, "network", home_shown ? CHECK_GAP : CHECK_DENY,
			    "send a datagram to a unix socket in the home "
			    "folder",
			    "unixdg\t%s", b->home_dgram);
			if (home_shown)
				t->gap = gaps[0].name;
		}
	}

	if (!wire) {
		add(l, "proxy", CHECK_DENY,
		    "reach a proxy (there is none: no network grant)",
		    "tcp\t127.0.0.1\t3128");
		return;
	}

	char pr[200], hp[200];
	/* The refused calls start in a sandbox of their own. */
	l->refused_in_batch = CHECK_REFUSED_PER_BATCH;
	/* Through the proxy toward this machine, every spelling, both
	 * protocols. */
	for (size_t i = 0; i < ARRAY_SIZE(loop_http); i++) {
		snprintf(hp, sizeof(hp), "%s:%u", loop_http[i], port);
		connect_deny(l, false, hp, "loopback");
	}
	snprintf(what, sizeof(what), "GET http://127.0.0.1:%u/ (loopback)",
		 port);
	snprintf(pr, sizeof(pr), "httpget\t127.0.0.1:%u", port);
	proxy_deny(l, false, what, pr);
	snprintf(what, sizeof(what), "GET http://localhost:%u/ (loopback)",
		 port);
	snprintf(pr, sizeof(pr), "httpget\tlocalhost:%u", port);
	proxy_deny(l, false, what, pr);
	static const char *const socks_loop[][2] = {
	    {"ip4", "127.0.0.1"},	 {"ip6", "::1"},
	    {"ip6", "::ffff:127.0.0.1"}, {"name", "127.0.0.1"},
	    {"name", "127.1"},		 {"name", "2130706433"},
	    {"name", "localhost"},	 {"name", "::1"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(socks_loop); i++) {
		snprintf(what, sizeof(what), "SOCKS5 %s %s:%u (loopback)",
			 strcmp(socks_loop[i][0], "name") ? "address" : "name",
			 socks_loop[i][1], port);
		snprintf(pr, sizeof(pr), "socks\t%s\t%s\t%u", socks_loop[i][0],
			 socks_loop[i][1], port);
		proxy_deny(l, false, what, pr);
	}

	/* The LAN, unless a grant names machines there. */
	if (!policy_list(p, K_LAN_HOSTS)->n) {
		static const char *const lan[] = {
		    "10.0.0.1:80",
		    "172.16.0.1:80",
		    "192.168.0.1:80",
		    "100.64.0.1:80",
		    "[fd00::1]:80",
		    "[fe80::1]:80",
		    "[::ffff:192.168.0.1]:80",
		};
		for (size_t i = 0; i < ARRAY_SIZE(lan); i++)
			connect_deny(l, false, lan[i], "LAN");
		proxy_deny(l, false, "SOCKS5 address 192.168.0.1:80 (LAN)",
			   "socks\tip4\t192.168.0.1\t80");

		/* This machine by another address than loopback, where
		 * check serves the secret: never reached, whatever '*'
		 * allows. */
		for (size_t i = 0; i + 1 < b->host_addrs.n; i += 2) {
			host_port(hp, sizeof(hp), b->host_addrs.v[i],
				  b->host_addrs.v[i + 1]);
			connect_deny(l, false, hp, "this machine's address");
		}
		/* Its network: the gateways and a machine on each link.
		 * Only the wire's refusal proves it (a neighbour that is
		 * not there answers nothing either). */
		struct strv nb = {0};
		neighbours(&nb);
		for (size_t i = 0; i < nb.n; i++) {
			host_port(hp, sizeof(hp), nb.v[i], "80");
			connect_deny(l, false, hp,
				     "this machine's network: a gateway or a "
				     "machine on a link")
			    ->expect = CHECK_REFUSE;
		}
		strv_free(&nb);
	}

	/* A cloud's metadata service, last: any call to it pauses the wire
	 * (lnk-sandbox(1), COMMANDS, paused: tripwires). */
	static const char *const meta[] = {
	    "169.254.169.254:80",
	    "[::ffff:169.254.169.254]:80",
	    "2852039166:80",
	    "metadata.google.internal:80",
	};
	for (size_t i = 0; i < ARRAY_SIZE(meta); i++)
		connect_deny(l, true, meta[i], "cloud metadata");
	proxy_deny(l, true,
		   "SOCKS5 address 169.254.169.254:80 (cloud metadata)",
		   "socks\tip4\t169.254.169.254\t80");
	proxy_deny(l, true,
		   "connect without proxy settings to 169.254.169.254:80 "
		   "(cloud metadata)",
		   "tcp\t169.254.169.254\t80")
	    ->area = "network";
}

/* Tools (lnk-sandbox(1), TOOLS AND ASKING): a tool no grant names does
 * not exist, and check has no one to ask, so a granted tool's call that
 * none of its patterns allows is refused, naming the command that allows
 * it. A tool whose patterns allow the probe's call ('*') is not tried:
 * the try would run the tool outside. */
static void plan_tools(const struct policy *p, const char *home,
		       struct check_list *l)
{
	const struct strv *t = policy_list(p, K_TOOLS_ALLOW);
	struct tools_store st;
	struct lnk_err ignored = {0};
	_cleanup_free_ char *sp_path = tools_store_path(home);
	char what[200];

	/* A store lnk cannot read stops the sandbox itself, and says so. */
	if (tools_store_load(sp_path, &st, &ignored) < 0)
		memset(&st, 0, sizeof(st));
	add(l, "tools", CHECK_DENY,
	    "call a tool no grant names (lnk-check-tool)",
	    "tool\tlnk-check-tool\tx");
	/* A page of another scheme is refused whatever [browser] grants. */
	add(l, "tools", CHECK_DENY, "open a file: URL in the browser",
	    "tool\txdg-open\tfile:///etc/passwd");
	for (size_t i = 0; i < t->n; i++) {
		size_t nl = strcspn(t->v[i], " ");
		bool dup = false;
		for (size_t j = 0; j < i; j++)
			dup = dup || (strncmp(t->v[j], t->v[i], nl) == 0 &&
				      (t->v[j][nl] == ' ' || !t->v[j][nl]));
		if (dup)
			continue;
		_cleanup_free_ char *name = xstrndup(t->v[i], nl);
		struct tool_grant g = {.name = name};
		for (size_t j = i; j < t->n; j++)
			if (strncmp(t->v[j], name, nl) == 0 &&
			    t->v[j][nl] == ' ')
				strv_push(&g.allow, t->v[j] + nl + 1);
		const struct strv *stored = tools_store_calls(&st, name);
		for (size_t j = 0; stored && j < stored->n; j++)
			strv_push(&g.allow, stored->v[j]);
		struct strv probe = {0};
		strv_push(&probe, "lnk-check-call");
		bool runs = tools_allowed(&g, &probe);
		strv_free(&probe);
		strv_free(&g.allow);
		if (runs)
			continue;
		snprintf(what, sizeof(what),
			 "call %s outside its allow list, with no one to ask",
			 name);
		add(l, "tools", CHECK_DENY, what, "tool\t%s\tlnk-check-call",
		    name);
	}
	tools_store_free(&st);
}

static bool needs_wire(const struct policy *p)
{
	return policy_list(p, K_INTERNET_HOSTS)->n ||
	       policy_list(p, K_INTERNET_MODELS)->n ||
	       policy_list(p, K_LAN_HOSTS)->n ||
	       policy_list(p, K_LOCALHOST_PORTS)->n;
}

/* What a program may leave in a write folder that runs later: check
 * makes a repository's folder below the top, the probe writes its config,
 * and the report the end of a run gives (src/changes) must name it. */
static void plan_later(const struct policy *p, struct bait *b, const char *home,
		       struct check_list *l)
{
	const struct strv *wr = policy_list(p, K_FILES_WRITE);
	for (size_t i = 0; i < wr->n; i++) {
		_cleanup_free_ char *git = bait_repo_below(b, wr->v[i], i);
		if (!git)
			continue;
		/* the start, on the folder's clock, after check's own
		 * folders were made */
		struct timespec since;
		changes_stamp(wr->v[i], &since);
		_cleanup_free_ char *cfg = xasprintf("%s/config", git);
		_cleanup_free_ char *pp = pretty(home, cfg);
		_cleanup_free_ char *what =
		    xasprintf("leave a repository below the top: write %s", pp);
		bait_expect(b, cfg);
		struct check_try *t =
		    add(l, "later", CHECK_GAP, what,
			"create\t%s\t" BAIT_MARK "%s", cfg, b->secret);
		t->gap = gaps[ARRAY_SIZE(gaps) - 1].name;
		t->host = CH_FLAGGED;
		t->host_path = xstrdup(git);
		t->host_root = xstrdup(wr->v[i]);
		t->host_ctime = since;
	}
}

void check_plan(const struct policy *p, struct bait *b, const char *home,
		const struct check_limits *lim, struct check_list *out)
{
	*out = (struct check_list){0};
	plan_files(p, b, home, out);
	plan_dot_files(p, b, home, out);
	plan_runs_outside(p, b, home, out);
	plan_chains(p, b, home, out);
	plan_submodules(p, b, home, out);
	plan_later(p, b, home, out);
	plan_hide_holders(b, home, out);
	plan_kernel(out);
	plan_process(p, b, out);
	plan_stdin(p, b, home, out);
	plan_limits(p, home, lim, out);
	plan_commands(p, out);
	plan_network(p, b, needs_wire(p), out);
	plan_tools(p, home, out);
}

void check_list_free(struct check_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->t[i].what);
		free(l->t[i].probe);
		free(l->t[i].host_path);
		free(l->t[i].host_root);
		free(l->t[i].host_content);
		free(l->t[i].detail);
	}
	free(l->t);
	free(l->limits_line);
	*l = (struct check_list){0};
}
