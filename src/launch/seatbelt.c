/* The policy as a Seatbelt profile (see seatbelt.h).
 *
 * The profile is written in the order Seatbelt needs: deny everything,
 * then what every program needs, then the file grants as one table sorted
 * like bwrap.c's mount table (a parent before its children, at one path
 * the weaker kind first), so that the rule of the deepest grant comes last
 * and wins, as the deepest mount does on Linux. The always-hidden folders
 * come at the very end: no rule can come after them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "launch/folders.h"
#include "launch/sbfold.h"
#include "launch/seatbelt.h"
#include "policy/dotfiles.h"

/* Read-only system folders: macOS' programs and libraries (invariant 1).
 * /System holds the frameworks and the dyld shared cache, /usr the Unix
 * programs (and Homebrew on Intel Macs under /usr/local), the Command Line
 * Tools and Xcode's developer folder the git, clang and make that
 * /usr/bin's shims run, /opt/homebrew Homebrew on Apple silicon. Not
 * /Library as a whole: it holds the machine's keychains and other
 * programs' settings. sys_closed takes back what they hold that is no
 * program: Homebrew's var/ and etc/ (services' databases, keys and
 * settings) and /System/Volumes, where the data volume (every user's
 * files) and the boot volumes show again under other names. */
static const char *const sys_dirs[] = {
    "/System",
    "/usr",
    "/bin",
    "/sbin",
    "/Library/Developer/CommandLineTools",
    "/Library/Frameworks",
    "/Applications/Xcode.app/Contents/Developer",
    "/opt/homebrew",
    NULL,
};
static const char *const sys_closed[] = {
    "/System/Volumes", "/opt/homebrew/var", "/opt/homebrew/etc",
    "/usr/local/var",  "/usr/local/etc",    NULL,
};
/* Of Homebrew's etc/, the TLS roots its OpenSSL and curl read: public. */
static const char *const sys_certs[] = {
    "/opt/homebrew/etc/openssl@3/cert.pem",
    "/opt/homebrew/etc/openssl@3/certs",
    "/opt/homebrew/etc/ca-certificates",
    "/usr/local/etc/openssl@3/cert.pem",
    "/usr/local/etc/openssl@3/certs",
    "/usr/local/etc/ca-certificates",
    NULL,
};

/* The /etc programs need (macOS keeps it at /private/etc), as bwrap.c's
 * list: names resolve (hosts, services, protocols), TLS roots, the time
 * zone, shells' system-wide startup files. Not the rest of /etc: the
 * machine's secrets and identity (master.passwd, sudoers, ssh host keys). */
static const char *const etc_files[] = {
    "/private/etc/hosts",  "/private/etc/services",  "/private/etc/protocols",
    "/private/etc/shells", "/private/etc/profile",   "/private/etc/bashrc",
    "/private/etc/zshrc",  "/private/etc/zprofile",  "/private/etc/zshenv",
    "/private/etc/paths",  "/private/etc/localtime", NULL,
};
static const char *const etc_dirs[] = {
    "/private/etc/ssl",
    "/private/etc/paths.d",
    /* /etc/localtime links into it */
    "/private/var/db/timezone",
    /* /bin/sh reads which shell it is (bash, dash or zsh) from here */
    "/private/var/select",
    NULL,
};

/* System settings programs read with sysctl(3): the machine's kind and
 * size, the system's version. Not kern.hostname (the sandbox has no name
 * of this machine, as on Linux, where it has its own), not kern.proc.*
 * (other processes' arguments and environment) nor anything that writes. */
static const char *const sysctls[] = {
    "hw.activecpu",	    "hw.byteorder",
    "hw.cachelinesize",	    "hw.cpufamily",
    "hw.cputype",	    "hw.logicalcpu",
    "hw.logicalcpu_max",    "hw.machine",
    "hw.memsize",	    "hw.ncpu",
    "hw.pagesize",	    "hw.physicalcpu",
    "hw.physicalcpu_max",   "kern.argmax",
    "kern.maxfilesperproc", "kern.osproductversion",
    "kern.osrelease",	    "kern.ostype",
    "kern.osversion",	    "kern.usrstack64",
    "kern.version",	    "sysctl.proc_cputype",
    "vm.loadavg",	    NULL,
};
static const char *const sysctl_prefixes[] = {
    /* CPU features: what instructions a program may use */
    "hw.optional.",
    "hw.perflevel",
    NULL,
};

/* The Mac's own links at the root (firmlinks and symlinks Apple ships):
 * a path spelled under the first is the second to Seatbelt, which matches
 * the real path. Root's home is /var/root. */
static const char *const mac_links[][2] = {
    {"/var", "/private/var"},
    {"/tmp", "/private/tmp"},
    {"/etc", "/private/etc"},
};

/* What the file ops of each rule kind cover. A read-only grant denies
 * writes explicitly: an allow of reading alone would leave the write rule
 * of a parent folder in force beneath it. */
#define OPS_READ "file-read* file-map-executable"
#define OPS_ALL "file-read* file-write* file-map-executable process-exec"

enum sb_kind {
	SB_READ,  /* --read: read only */
	SB_WRITE, /* --write */
	SB_HIDE,  /* --hide */
};

struct sb_rule {
	enum sb_kind kind;
	char *path; /* absolute, normalized */
	bool dots;  /* SB_WRITE: its top's kept names are kept */
};

struct sb_table {
	struct sb_rule *r;
	size_t n, cap;
};

/* At one path the later kind wins, as in bwrap.c's rank(): a --write
 * replaces a --read, a --hide closes all. */
static int rank(enum sb_kind k)
{
	switch (k) {
	case SB_READ:
		return 0;
	case SB_WRITE:
		return 1;
	case SB_HIDE:
		return 3;
	}
	return 0;
}

static int cmp_rule(const void *a, const void *b)
{
	const struct sb_rule *x = a, *y = b;
	return folder_order(x->path, rank(x->kind), y->path, rank(y->kind));
}

static void add(struct sb_table *t, enum sb_kind kind, const char *path,
		bool dots)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 16;
		t->r = xrealloc(t->r, t->cap * sizeof(*t->r));
	}
	t->r[t->n++] = (struct sb_rule){
	    .kind = kind,
	    .path = xstrdup(path),
	    .dots = dots,
	};
}

static void table_free(struct sb_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->r[i].path);
	free(t->r);
	*t = (struct sb_table){0};
}

/* One filter: (KIND "PATH"). */
static int filter(struct buf *b, const char *kind, const char *path,
		  struct lnk_err *err)
{
	buf_printf(b, "\n  (%s ", kind);
	int r = sbpl_quote(b, path, err);
	buf_putc(b, ')');
	return r;
}

/* (regex #"^PATH(/|$)"): path and all below it, in any case. */
static void fold_filter(struct buf *b, const char *path)
{
	buf_puts(b, "\n  (regex #\"^");
	sbpl_fold(b, path);
	buf_puts(b, "(/|$)\")");
}

/* ---- the names kept at the top of a write folder ---- */

/* What a program writes under the home folder's ~/Library that runs
 * outside the sandbox on a Mac, beside dotfiles.h's names at its top: each
 * is a folder the system or a program loads code or commands from as the
 * user, or reads as its settings (docs/macos.md lists each with where
 * Apple documents it). Caches, Logs and the rest stay writable. */
static const char *const mac_home_kept[] = {
    "Library/Address Book Plug-Ins",
    "Library/Application Scripts",
    "Library/Application Support",
    "Library/Audio",
    "Library/Automator",
    "Library/ColorPickers",
    "Library/Components",
    "Library/Containers",
    "Library/Contextual Menu Items",
    "Library/Developer",
    "Library/Frameworks",
    "Library/Group Containers",
    "Library/Input Methods",
    "Library/Internet Plug-Ins",
    "Library/Keyboard Layouts",
    "Library/KeyBindings",
    "Library/LaunchAgents",
    "Library/Mail",
    "Library/PreferencePanes",
    "Library/Preferences",
    "Library/Python",
    "Library/QuickLook",
    "Library/Screen Savers",
    "Library/Scripts",
    "Library/Services",
    "Library/Spotlight",
    "Library/Workflows",
    NULL,
};

/* The names kept at a top: dotfiles.h's, and at the home's top the
 * Mac's own. */
static void kept_names(bool home, struct strv *out)
{
	size_t n;
	const struct dot_file *d = dot_files(&n);
	for (size_t i = 0; i < n; i++)
		strv_push(out, d[i].name);
	for (size_t i = 0; home && mac_home_kept[i]; i++)
		strv_push(out, mac_home_kept[i]);
}

/* The kept names at depth components below the root, in any case (see
 * sbpl_fold): one regex of lnk's own names, shared by every top of that
 * depth. Each name is checked to be a plain one (a bug otherwise). */
static int kept_regex(struct buf *b, size_t depth, bool home,
		      struct lnk_err *err)
{
	struct strv names = {0};
	kept_names(home, &names);
	buf_puts(b, "\n    (regex #\"^");
	for (size_t i = 0; i < depth; i++)
		buf_puts(b, "/[^/]+");
	buf_puts(b, "/(");
	int r = 0;
	for (size_t i = 0; i < names.n && r == 0; i++) {
		const char *nm = names.v[i];
		if (strspn(
			nm,
			"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			"0123456789._- /") != strlen(nm))
			r = err_set(err, -EINVAL,
				    "the kept name '%s' holds more than "
				    "letters, digits, '.', '_', '-', ' ' and "
				    "'/'; this is a bug in lnk, please report "
				    "it",
				    nm);
		if (i)
			buf_putc(b, '|');
		sbpl_fold(b, nm);
	}
	buf_puts(b, ")(/|$)\")");
	strv_free(&names);
	return r;
}

static size_t depth_of(const char *path)
{
	size_t n = 0;
	for (const char *c = path; *c; c++)
		n += *c == '/';
	return n;
}

/* A top whose kept names are kept: a write folder, or the home folder
 * when a write folder above it shows it; home: its ~/Library names too. */
struct sb_top {
	const char *path;
	bool home;
};

/* The kept-name rules of tops[0..n): one rule per depth and kind, each
 * naming every top of that depth. */
static int emit_kept(struct buf *b, const struct sb_top *tops, size_t n,
		     struct lnk_err *err)
{
	size_t maxd = 0;
	for (size_t i = 0; i < n; i++)
		if (depth_of(tops[i].path) > maxd)
			maxd = depth_of(tops[i].path);
	for (int home = 0; home <= 1; home++)
		for (size_t d = 1; d <= maxd; d++) {
			bool any = false;
			for (size_t i = 0; i < n; i++) {
				if (depth_of(tops[i].path) != d ||
				    tops[i].home != (bool)home)
					continue;
				if (!any)
					buf_puts(b, "(deny file-write*\n  "
						    "(require-all\n    "
						    "(require-any");
				any = true;
				buf_puts(b, "\n      (subpath ");
				int r = sbpl_quote(b, tops[i].path, err);
				buf_putc(b, ')');
				if (r < 0)
					return r;
			}
			if (!any)
				continue;
			buf_putc(b, ')');
			int r = kept_regex(b, d, home, err);
			buf_puts(b, "))\n");
			if (r < 0)
				return r;
		}
	return 0;
}

/* path is at or below a kept name of top (in any ASCII case). */
static bool in_kept(const struct sb_top *top, const char *path)
{
	size_t n = strlen(top->path);
	if (strncmp(top->path, path, n) != 0 || path[n] != '/')
		return false;
	struct strv names = {0};
	kept_names(top->home, &names);
	bool hit = false;
	for (size_t i = 0; i < names.n && !hit; i++) {
		size_t len = strlen(names.v[i]);
		const char *rest = path + n + 1;
		hit = strncasecmp(rest, names.v[i], len) == 0 &&
		      (rest[len] == '\0' || rest[len] == '/');
	}
	strv_free(&names);
	return hit;
}

static int emit_rule(struct buf *b, const struct sb_rule *m,
		     struct lnk_err *err)
{
	int r = 0;
	switch (m->kind) {
	case SB_READ:
		buf_puts(b, "\n;; --read: the folder and all below it, read "
			    "only, even inside a --write folder;\n;; not "
			    "written in any letter case.\n"
			    "(allow " OPS_READ);
		if ((r = filter(b, "subpath", m->path, err)) < 0)
			return r;
		buf_puts(b, ")\n(deny file-write*");
		r = filter(b, "subpath", m->path, err);
		fold_filter(b, m->path);
		buf_puts(b, ")\n");
		return r;
	case SB_WRITE:
		buf_puts(b,
			 "\n;; --write: the folder and all below it, read and "
			 "written.\n(allow " OPS_READ " file-write*");
		r = filter(b, "subpath", m->path, err);
		buf_puts(b, ")\n");
		return r;
	case SB_HIDE:
		buf_puts(b,
			 "\n;; --hide: closed in any letter case, even under "
			 "a granted folder; a grant\n;; inside it comes "
			 "later and opens again.\n"
			 "(deny " OPS_ALL);
		r = filter(b, "subpath", m->path, err);
		fold_filter(b, m->path);
		buf_puts(b, ")\n");
		return r;
	}
	return 0;
}

int seatbelt_refusals(const struct policy *p, struct lnk_err *err)
{
	/* Every key, by id: a new key fails the build here until someone
	 * says what it is on macOS (-Werror=switch-enum). */
	for (int id = 0; id < K__COUNT; id++) {
		const char *why = NULL;
		switch ((enum key_id)id) {
		case K_NAME:
		case K_VERSION:
		case K_FILES_WRITE:
		case K_FILES_READ:
		case K_FILES_HIDE:
		case K_FILES_WRITE_DOT_FILES:
		case K_FILES_CHANGES:	/* the launcher's, after the end */
		case K_LOCALHOST_PORTS: /* network-outbound */
		case K_TOOLS_ALLOW:	/* the wire's, where served */
		case K_TOOLS_ASK_WAIT:	/* the broker's */
		case K_BROWSER_OPEN:	/* the wire's, where served */
		case K_COMMANDS_ALLOW:	/* process-exec */
		case K_COMMANDS_ENV:	/* the launcher's environment */
		case K_TRIP_CALLS:	/* the wire */
		case K_TRIP_TARGETS:	/* the wire */
			break;
		case K_INTERNET_HOSTS:
		case K_INTERNET_MODELS:
		case K_LAN_HOSTS:
			/* Never a fixed loopback port instead: whatever
			 * listens there (ssh -D, a local proxy) would carry
			 * the program to any host, unlogged. */
			why = "it needs the wire, lnk's proxy that lets "
			      "through and logs each network call, and the "
			      "wire does not run on macOS (its keeper makes "
			      "the wire's connects through Linux's seccomp)";
			break;
		case K_LIMITS_MEMORY:
			why = "macOS has no memory limit for a group of "
			      "processes (Linux uses a cgroup)";
			break;
		case K_LIMITS_TASKS:
			why = "macOS counts processes per user, not per "
			      "sandbox, so the limit would count the user's "
			      "other programs";
			break;
		case K_LIMITS_TMP_SIZE:
			why = "the sandbox's temporary folder on macOS is a "
			      "folder of the disk, not a memory file system "
			      "with a size";
			break;
		case K__COUNT:
			break;
		}
		if (!why || !policy_has(p, (enum key_id)id))
			continue;
		const struct key_def *d = key_def((enum key_id)id);
		return err_set(err, -EOPNOTSUPP,
			       "[%s] %s (%s) cannot be enforced on macOS: %s; "
			       "remove it to run there",
			       d->section, d->key, d->flag, why);
	}
	return 0;
}

static void list_rule(struct buf *b, const char *head, const char *kind,
		      const char *const *v, struct lnk_err *err)
{
	buf_puts(b, head);
	for (size_t i = 0; v[i]; i++)
		(void)filter(b, kind, v[i],
			     err); /* our own, no control chars */
	buf_puts(b, ")\n");
}

/* Every folder above each path, for stat and realpath: bwrap makes them
 * in the sandbox's root; here they exist and only their metadata is
 * opened, not their listing. */
static void ancestors(const char *path, struct strv *out)
{
	_cleanup_free_ char *p = xstrdup(path);
	for (char *s = strrchr(p, '/'); s; s = strrchr(p, '/')) {
		*s = '\0';
		const char *a = s == p ? "/" : p;
		if (!strv_contains(out, a))
			strv_push(out, a);
		if (s == p)
			break;
	}
}

/* The folders above what a rule keeps read only, kept or closed, where a
 * write grant (or the sandbox's own folder) would let the program move or
 * remove them: Seatbelt's rules are by path, so renaming ~/Link would
 * carry ~/Link/Agents out from under its rule, and renaming a write folder
 * its .git. On Linux the mount moves with its folder; here the folders
 * themselves are pinned (what is inside them is not). */
static void pin(const char *path, const struct strv *wr, const char *scratch,
		struct strv *out)
{
	struct strv a = {0};
	ancestors(path, &a);
	for (size_t i = 0; i < a.n; i++) {
		bool open = scratch && path_within(a.v[i], scratch);
		for (size_t j = 0; j < wr->n && !open; j++)
			open = path_within(a.v[i], wr->v[j]);
		if (open && !strv_contains(out, a.v[i]))
			strv_push(out, a.v[i]);
	}
	strv_free(&a);
}

/* The home's spellings: as given, its real path, and each of them under
 * the Mac's own links at the root (/var/root is /private/var/root). */
static void home_variants(const struct seatbelt_in *in, struct strv *out)
{
	strv_push(out, in->home);
	if (in->home_real && !strv_contains(out, in->home_real))
		strv_push(out, in->home_real);
	for (size_t i = 0, n = out->n; i < n; i++)
		for (size_t j = 0; j < ARRAY_SIZE(mac_links); j++) {
			const char *h = out->v[i];
			size_t len = strlen(mac_links[j][0]);
			if (strncmp(h, mac_links[j][0], len) != 0 ||
			    (h[len] != '/' && h[len] != '\0'))
				continue;
			_cleanup_free_ char *x =
			    xasprintf("%s%s", mac_links[j][1], h + len);
			if (!strv_contains(out, x))
				strv_push(out, x);
		}
}

/* path, and the same path below each other spelling of the home when it
 * is below one. */
static void spellings(const char *path, const struct strv *homes,
		      struct strv *out)
{
	if (!strv_contains(out, path))
		strv_push(out, path);
	for (size_t i = 0; i < homes->n; i++) {
		if (!path_within(path, homes->v[i]))
			continue;
		const char *rest = path + strlen(homes->v[i]);
		for (size_t j = 0; j < homes->n; j++) {
			_cleanup_free_ char *x =
			    xasprintf("%s%s", homes->v[j], rest);
			if (!strv_contains(out, x))
				strv_push(out, x);
		}
	}
}

static void add_top(struct sb_top **tops, size_t *n, const char *path,
		    bool home)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*tops)[i].path, path) == 0)
			return;
	*tops = xrealloc(*tops, (*n + 1) * sizeof(**tops));
	(*tops)[(*n)++] = (struct sb_top){.path = path, .home = home};
}

static bool any_in(const struct strv *l, const struct strv *of)
{
	for (size_t i = 0; i < of->n; i++)
		if (strv_contains(l, of->v[i]))
			return true;
	return false;
}

int seatbelt_build(const struct seatbelt_in *in, char **out,
		   struct lnk_err *err)
{
	const struct policy *p = in->pol;
	struct sb_table t = {0};
	struct strv anc = {0}, pinned = {0}, homes = {0}, hidden = {0};
	struct sb_top *tops = NULL, *now = NULL;
	size_t ntops = 0, nnow = 0;
	struct buf b = {0};
	int r;

	*out = NULL;
	if (!p || !p->resolved)
		return err_set(err, -EINVAL,
			       "the policy is not resolved; this is a bug in "
			       "lnk, please report it");
	if ((r = seatbelt_refusals(p, err)) < 0)
		return r;
	if ((r = folder_check_exact("home", in->home, err)) < 0)
		return r;
	if (in->home_real &&
	    (r = folder_check_exact("home", in->home_real, err)) < 0)
		return r;
	if (strcmp(in->home, "/") == 0 ||
	    (in->home_real && strcmp(in->home_real, "/") == 0))
		return err_set(err, -EINVAL,
			       "the home folder is '/'; set HOME to your own "
			       "folder");
	if (in->scratch && (r = folder_check_exact("the sandbox's folder",
						   in->scratch, err)) < 0)
		return r;
	if (in->tty &&
	    (r = folder_check_exact("the terminal", in->tty, err)) < 0)
		return r;
	home_variants(in, &homes);

	const struct strv *wr = policy_list(p, K_FILES_WRITE);
	const struct strv *lift = policy_list(p, K_FILES_WRITE_DOT_FILES);

	struct folder *g = NULL;
	size_t ng;
	if ((r = folder_grants(p, &g, &ng, err)) < 0)
		goto out;
	for (size_t i = 0; i < ng; i++) {
		const char *path = g[i].path;
		switch (g[i].kind) {
		case FOLDER_READ:
			add(&t, SB_READ, path, false);
			ancestors(path, &anc);
			break;
		case FOLDER_WRITE:
			add(&t, SB_WRITE, path, !strv_contains(lift, path));
			ancestors(path, &anc);
			break;
		case FOLDER_HIDE:
			add(&t, SB_HIDE, path, false);
			break;
		}
	}
	free(g);
	for (size_t i = 0; i < p->always_hidden.n; i++) {
		if ((r = folder_check_exact("a hidden folder",
					    p->always_hidden.v[i], err)) < 0)
			goto out;
		spellings(p->always_hidden.v[i], &homes, &hidden);
	}
	if (in->scratch)
		ancestors(in->scratch, &anc);
	if (t.n)
		qsort(t.r, t.n, sizeof(*t.r), cmp_rule);
	if (anc.n)
		strv_sort(&anc);

	/* The tops whose kept names are kept: each write folder (a home one
	 * under each of its spellings, with the Mac's own names), and the
	 * home when a write folder above it shows it (as the guard does on
	 * Linux, guard/protect.c), unless --write-dot-files names it. */
	bool home_lifted = any_in(lift, &homes);
	for (size_t i = 0; i < t.n; i++) {
		if (t.r[i].kind != SB_WRITE || !t.r[i].dots)
			continue;
		if (!strv_contains(&homes, t.r[i].path)) {
			add_top(&tops, &ntops, t.r[i].path, false);
			continue;
		}
		for (size_t h = 0; h < homes.n; h++)
			add_top(&tops, &ntops, homes.v[h], true);
	}
	for (size_t i = 0; i < wr->n && !home_lifted; i++) {
		bool above = false;
		for (size_t h = 0; h < homes.n; h++)
			above |= strcmp(wr->v[i], homes.v[h]) != 0 &&
				 path_within(homes.v[h], wr->v[i]);
		if (!above)
			continue;
		for (size_t h = 0; h < homes.n; h++)
			add_top(&tops, &ntops, homes.v[h], true);
		break;
	}

	buf_puts(&b, ";; lnk sandbox: a Seatbelt profile, generated from the "
		     "policy.\n"
		     ";; Seatbelt applies the last rule that matches: a later "
		     "rule wins.\n;;\n"
		     ";; It relies on being started in a new session "
		     "(setsid) with a pseudo-terminal\n"
		     ";; of its own as that session's terminal, as `lnk "
		     "sandbox run` starts it: a\n"
		     ";; process that left the session then holds nothing "
		     "of yours to read. What it\n"
		     ";; cannot rely on it denies: as printed, it allows no "
		     "ioctl on any terminal,\n"
		     ";; so that run in your session (sandbox-exec) it "
		     "cannot type into your shell\n"
		     ";; (TIOCSTI), and a program in it sees no terminal.\n"
		     "(version 1)\n\n"
		     ";; Nothing is allowed but what the rules below allow: "
		     "files, network,\n"
		     ";; services, devices, system settings.\n"
		     "(deny default)\n");

	buf_puts(&b, "\n;; The program starts programs and signals its own; "
		     "nothing outside the\n;; sandbox. It sees itself: not "
		     "other processes (their files, folders,\n;; "
		     "arguments), not the IOKit registry's properties (the "
		     "serial number, the\n;; hardware UUID), not NVRAM, each "
		     "denied in so many words.\n"
		     "(allow process-fork)\n"
		     "(allow signal (target same-sandbox))\n"
		     "(deny process-info*)\n"
		     "(allow process-info* (target self))\n"
		     "(deny iokit-get-properties)\n"
		     "(deny nvram*)\n");

	if (policy_any_command(p)) {
		buf_puts(&b, "\n;; [commands] allow \"*\": every program it "
			     "can read may run.\n(allow process-exec)\n");
	} else {
		const struct strv *ef = in->exec_files, *ed = in->exec_folders;
		if ((!ef || !ef->n) && (!ed || !ed->n)) {
			buf_puts(&b, "\n;; [commands] allow lists no program "
				     "found here: none may run.\n");
		} else {
			buf_puts(&b, "\n;; [commands] allow: only these "
				     "programs (and their interpreters) run;"
				     "\n;; a folder's programs run when the "
				     "entry ends in a slash.\n"
				     "(allow process-exec");
			for (size_t i = 0; ef && i < ef->n; i++)
				if ((r = folder_check_exact(
					 "a command", ef->v[i], err)) < 0 ||
				    (r = filter(&b, "literal", ef->v[i], err)) <
					0)
					goto out;
			for (size_t i = 0; ed && i < ed->n; i++)
				if ((r = folder_check_exact("a command folder",
							    ed->v[i], err)) <
					0 ||
				    (r = filter(&b, "subpath", ed->v[i], err)) <
					0)
					goto out;
			buf_puts(&b, ")\n");
		}
	}

	list_rule(&b,
		  "\n;; The system's programs and libraries, read only "
		  "(not /Library: the\n;; machine's keychains and other "
		  "programs' settings).\n(allow " OPS_READ,
		  "subpath", sys_dirs, err);
	list_rule(&b,
		  ";; Not what they hold that is no program: Homebrew's "
		  "var/ and etc/ (services'\n;; databases, keys, settings), "
		  "/System/Volumes (the data volume, every user's\n;; "
		  "files, under another name). A grant below comes later "
		  "and opens again.\n(deny file-read*",
		  "subpath", sys_closed, err);
	list_rule(&b,
		  ";; Of Homebrew's etc/, the TLS roots its OpenSSL reads.\n"
		  "(allow file-read*",
		  "subpath", sys_certs, err);
	list_rule(&b,
		  "\n;; The /etc programs need: names, TLS roots, the time "
		  "zone, the shells'\n;; startup files; not the machine's "
		  "secrets and identity.\n(allow file-read*",
		  "literal", etc_files, err);
	list_rule(&b, "(allow file-read*", "subpath", etc_dirs, err);
	/* The root itself: programs stat "/" (getcwd, realpath). */
	buf_puts(&b, "(allow file-read-metadata (literal \"/\"))\n");

	buf_puts(&b, "\n;; The devices a program expects: null, zero, random, "
		     "its terminal and its\n;; own descriptors. No other "
		     "device of this machine; as printed, no\n;; terminal "
		     "opened by name either (/dev/tty is whatever terminal "
		     "the session\n;; has, yours when run in your session).\n"
		     "(allow file-read* file-write-data\n"
		     "  (literal \"/dev/null\")\n  (literal \"/dev/zero\"))\n"
		     "(allow file-read*\n  (literal \"/dev/random\")\n"
		     "  (literal \"/dev/urandom\"))\n"
		     "(allow file-read* file-write-data\n"
		     "  (subpath \"/dev/fd\"))\n");
	if (in->tty) {
		buf_puts(&b, ";; The program's terminal, the pty lnk made for "
			     "it and made the terminal of\n;; its new session "
			     "(so /dev/tty is this pty too): its ioctls, "
			     "TIOCSTI\n;; among them, reach only the program's "
			     "own input.\n(allow file-read* file-write-data "
			     "file-ioctl\n  (literal \"/dev/tty\")");
		if ((r = filter(&b, "literal", in->tty, err)) < 0)
			goto out;
		buf_puts(&b, ")\n");
	}

	buf_puts(&b, "\n;; Services: only the account lookup (getpwuid: git, "
		     "ssh and shells ask who\n;; they run as; on a Mac bound "
		     "to a directory it asks the directory's\n;; server: "
		     "lnk-sandbox(1), GAPS AND LIMITS). Not DNS "
		     "(mDNSResponder resolves and\n;; reaches the network), "
		     "not trustd (it fetches certificate URLs itself),\n;; "
		     "not preferences, notifications, the pasteboard or the "
		     "window server.\n"
		     "(allow mach-lookup\n"
		     "  (global-name "
		     "\"com.apple.system.opendirectoryd.libinfo\"))\n"
		     "\n;; POSIX semaphores: only the names Python's "
		     "multiprocessing makes for its\n;; locks, not another "
		     "program's. No shared memory, no System V IPC, no\n;; "
		     "IOKit device (none is opened).\n"
		     "(allow ipc-posix-sem\n"
		     "  (ipc-posix-name-prefix \"/mp-\")\n"
		     "  (ipc-posix-name-prefix \"mp-\"))\n");
	buf_puts(&b, "\n;; System settings read with sysctl: the machine's "
		     "kind and size, the\n;; system's version. Not the host "
		     "name, not other processes, no writes.\n"
		     "(allow sysctl-read");
	for (size_t i = 0; sysctls[i]; i++)
		buf_printf(&b, "\n  (sysctl-name \"%s\")", sysctls[i]);
	for (size_t i = 0; sysctl_prefixes[i]; i++)
		buf_printf(&b, "\n  (sysctl-name-prefix \"%s\")",
			   sysctl_prefixes[i]);
	buf_puts(&b, ")\n");

	const struct strv *ports = policy_list(p, K_LOCALHOST_PORTS);
	buf_puts(&b, "\n;; Network: no socket is bound, accepts or connects "
		     "but to the --port ports\n;; of this machine's loopback "
		     "(no inbound, no other outbound). No wire runs\n;; on "
		     "macOS: a network grant is refused, never a port of "
		     "someone else's.\n");
	if (ports->n) {
		buf_puts(&b, ";; --port: a port of this machine's loopback.\n"
			     "(allow network-outbound");
		for (size_t i = 0; i < ports->n; i++) {
			/* Normalized by keys.c: digits only, 1..65535. */
			if (!ports->v[i][0] ||
			    strspn(ports->v[i], "0123456789") !=
				strlen(ports->v[i]) ||
			    strlen(ports->v[i]) > 5) {
				r = err_set(err, -EINVAL,
					    "--port '%s' is not a port; this "
					    "is a bug in lnk, please report it",
					    ports->v[i]);
				goto out;
			}
			buf_printf(&b, "\n  (remote tcp \"localhost:%s\")",
				   ports->v[i]);
		}
		buf_puts(&b, ")\n");
	}

	for (size_t i = 0; i < t.n; i++)
		if ((r = emit_rule(&b, &t.r[i], err)) < 0)
			goto out;

	if (ntops) {
		buf_puts(&b, "\n;; Kept at the top of each folder below, not "
			     "written, created or moved:\n;; what is written "
			     "there runs outside the sandbox (git's hooks, "
			     "direnv,\n;; editors; lnk-sandbox(1), FILES THAT "
			     "RUN OUTSIDE), and at the home's top\n;; also "
			     "the ~/Library folders the Mac runs or reads as "
			     "settings. In any\n;; letter case, Unicode's "
			     "too (the Mac's disks fold names).\n");
		if ((r = emit_kept(&b, tops, ntops, err)) < 0)
			goto out;
	}
	/* A grant inside a kept name comes after it, as its mount, deeper,
	 * does on Linux; and then its own kept names, again after it. */
	now = xmalloc(ntops * sizeof(*now) + 1);
	memcpy(now, tops, ntops * sizeof(*now));
	nnow = ntops;
	for (size_t round = 0; nnow && round <= t.n; round++) {
		struct sb_top *next = NULL;
		size_t nnext = 0;
		bool said = false;
		for (size_t i = 0; i < t.n; i++) {
			bool inside = false;
			for (size_t j = 0; j < nnow && !inside; j++)
				inside = in_kept(&now[j], t.r[i].path);
			if (!inside)
				continue;
			if (!said)
				buf_puts(&b, "\n;; A grant inside a kept name: "
					     "after the kept names, as its "
					     "mount comes\n;; after (deeper) "
					     "on Linux.");
			said = true;
			if ((r = emit_rule(&b, &t.r[i], err)) < 0) {
				free(next);
				goto out;
			}
			if (t.r[i].kind == SB_WRITE && t.r[i].dots)
				add_top(&next, &nnext, t.r[i].path,
					strv_contains(&homes, t.r[i].path));
		}
		if (nnext && (r = emit_kept(&b, next, nnext, err)) < 0) {
			free(next);
			goto out;
		}
		free(now);
		now = next;
		nnow = nnext;
	}

	if (in->scratch) {
		buf_puts(&b,
			 "\n;; The sandbox's own folder: its TMPDIR and its "
			 "empty home, removed at its\n;; end (the host's "
			 "/tmp is every program's, so it stays closed); after "
			 "the grants,\n;; so none closes it.\n"
			 "(allow " OPS_READ " file-write*");
		if ((r = filter(&b, "subpath", in->scratch, err)) < 0)
			goto out;
		buf_puts(&b, ")\n");
	}

	/* What a rule keeps (a read-only or hidden folder, a kept name's
	 * folder, ~/Library, the always-hidden ones): its folders pinned. */
	for (size_t i = 0; i < t.n; i++)
		if (t.r[i].kind != SB_WRITE)
			pin(t.r[i].path, wr, in->scratch, &pinned);
	for (size_t i = 0; i < ntops; i++) {
		_cleanup_free_ char *x = xasprintf("%s/x", tops[i].path);
		_cleanup_free_ char *l =
		    xasprintf("%s/Library/x", tops[i].path);
		pin(x, wr, in->scratch, &pinned);
		if (tops[i].home)
			pin(l, wr, in->scratch, &pinned);
	}
	for (size_t i = 0; i < hidden.n; i++)
		pin(hidden.v[i], wr, in->scratch, &pinned);
	if (pinned.n) {
		strv_sort(&pinned);
		buf_puts(&b,
			 "\n;; The folders above what is kept, read only or "
			 "closed are not moved, removed\n;; or changed "
			 "themselves, in any letter case: the rules are by "
			 "path, and a moved\n;; folder would carry what is "
			 "below it out from under its rule (on Linux the\n"
			 ";; mount moves with it). What is inside them is not "
			 "affected.\n"
			 "(deny file-write*");
		for (size_t i = 0; i < pinned.n; i++)
			if ((r = filter(&b, "literal", pinned.v[i], err)) < 0)
				goto out;
		for (size_t i = 0; i < pinned.n; i++) {
			buf_puts(&b, "\n  (regex #\"^");
			sbpl_fold(&b, pinned.v[i]);
			buf_puts(&b, "$\")");
		}
		buf_puts(&b, ")\n");
	}

	if (anc.n) {
		buf_puts(&b,
			 "\n;; The folders above each grant, their metadata "
			 "only (stat, realpath):\n;; on Linux the sandbox "
			 "has them, empty. A hidden one shows as a "
			 "folder, no more.\n(allow file-read-metadata");
		for (size_t i = 0; i < anc.n; i++)
			if ((r = filter(&b, "literal", anc.v[i], err)) < 0)
				goto out;
		buf_puts(&b, ")\n");
	}

	if (hidden.n) {
		buf_puts(&b, "\n;; ~/.lnk (the sandbox's own policy and log), "
			     "~/Link/Agents and ~/Link/History\n;; (agents' "
			     "folders), under each spelling of the home: "
			     "closed in any letter\n;; case, even under a "
			     "granted folder, and last, so no rule can open "
			     "them again.\n"
			     "(deny " OPS_ALL);
		for (size_t i = 0; i < hidden.n; i++)
			if ((r = filter(&b, "subpath", hidden.v[i], err)) < 0)
				goto out;
		for (size_t i = 0; i < hidden.n; i++)
			fold_filter(&b, hidden.v[i]);
		buf_puts(&b, ")\n");
	}
	*out = buf_steal(&b);
	r = 0;
out:
	buf_free(&b);
	table_free(&t);
	strv_free(&anc);
	strv_free(&pinned);
	strv_free(&homes);
	strv_free(&hidden);
	free(tops);
	free(now);
	return r;
}
