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

#include "launch/folders.h"
#include "launch/seatbelt.h"
#include "policy/dotfiles.h"

/* Read-only system folders: macOS' programs and libraries (invariant 1).
 * /System holds the frameworks and the dyld shared cache, /usr the Unix
 * programs (and Homebrew on Intel Macs under /usr/local), the Command Line
 * Tools and Xcode's developer folder the git, clang and make that
 * /usr/bin's shims run, /opt/homebrew Homebrew on Apple silicon. Not
 * /Library as a whole: it holds the machine's keychains and other
 * programs' settings. */
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

/* What the file ops of each rule kind cover. A read-only grant denies
 * writes explicitly: an allow of reading alone would leave the write rule
 * of a parent folder in force beneath it. */
#define OPS_READ "file-read* file-map-executable"
#define OPS_ALL "file-read* file-write* file-map-executable process-exec"

enum sb_kind {
	SB_READ,  /* --read: read only */
	SB_WRITE, /* --write */
	SB_DOT,	  /* the names of dotfiles.h at the top of a write folder */
	SB_KEPT,  /* one of the Mac's own kept names under the home's top */
	SB_HIDE,  /* --hide */
};

struct sb_rule {
	enum sb_kind kind;
	char *path;	  /* absolute, normalized; SB_DOT: the write folder */
	char *top;	  /* SB_KEPT: the home folder (path is top/name) */
	const char *name; /* SB_KEPT: the name */
};

struct sb_table {
	struct sb_rule *r;
	size_t n, cap;
};

/* At one path the later kind wins, as in bwrap.c's rank(): a --write
 * replaces a --read, a --hide closes all. The kept names of a write folder
 * come right after its own rule and before any grant inside it: they are
 * all its children, and a grant deeper than one of them (a --write of
 * .git/x) must come after, as its mount does. */
static int rank(enum sb_kind k)
{
	switch (k) {
	case SB_READ:
	case SB_KEPT:
		return 0;
	case SB_WRITE:
		return 1;
	case SB_DOT:
		return 2;
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

static void add(struct sb_table *t, enum sb_kind kind, const char *path)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 16;
		t->r = xrealloc(t->r, t->cap * sizeof(*t->r));
	}
	t->r[t->n++] = (struct sb_rule){
	    .kind = kind,
	    .path = xstrdup(path),
	};
}

static void table_free(struct sb_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->r[i].path);
		free(t->r[i].top);
	}
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

/* What a program writes under the home folder's top that runs outside on
 * a Mac, beside dotfiles.h's names: launchd starts the LaunchAgents at the
 * next login, and programs read Preferences and Application Support as
 * their settings (the Mac's ~/.config). Caches and Logs stay writable. */
static const char *const mac_home_kept[] = {
    "Library/LaunchAgents",
    "Library/Preferences",
    "Library/Application Support",
    NULL,
};

/* The names kept at the top of a write folder: dotfiles.h's. */
static void kept_names(struct strv *out)
{
	size_t n;
	const struct dot_file *d = dot_files(&n);
	for (size_t i = 0; i < n; i++)
		strv_push(out, d[i].name);
}

/* The kept names at depth components below the root, in any letter case:
 * APFS and HFS+ ignore case by default, so ".GIT" is ".git" to git, and a
 * rule by exact name alone would let a program create it. The regex holds
 * no user text: a count, and lnk's own names, whose every character is a
 * letter, a digit, '.', '_', '-', ' ' or '/' (anything else is refused: a
 * bug), each written as a bracket of its cases. */
static int ci_regex(struct buf *b, size_t depth, const struct strv *names,
		    struct lnk_err *err)
{
	buf_puts(b, "#\"^");
	for (size_t i = 0; i < depth; i++)
		buf_puts(b, "/[^/]+");
	buf_puts(b, "/(");
	for (size_t i = 0; i < names->n; i++) {
		if (i)
			buf_putc(b, '|');
		for (const char *c = names->v[i]; *c; c++) {
			char lo = *c, up = *c;
			if (*c >= 'a' && *c <= 'z')
				up = (char)(*c - 'a' + 'A');
			else if (*c >= 'A' && *c <= 'Z')
				lo = (char)(*c - 'A' + 'a');
			else if (!(*c >= '0' && *c <= '9') &&
				 !strchr("._- /", *c))
				return err_set(err, -EINVAL,
					       "the kept name '%s' holds '%c'; "
					       "this is a bug in lnk, please "
					       "report it",
					       names->v[i], *c);
			if (lo != up)
				buf_printf(b, "[%c%c]", lo, up);
			else
				buf_printf(b, "[%c]", *c);
		}
	}
	buf_puts(b, ")(/|$)\"");
	return 0;
}

static size_t depth_of(const char *path)
{
	size_t n = 0;
	for (const char *c = path; *c; c++)
		n += *c == '/';
	return n;
}

static int emit_rule(struct buf *b, const struct sb_rule *m,
		     struct lnk_err *err)
{
	int r = 0;
	switch (m->kind) {
	case SB_READ:
		buf_puts(b, "\n;; --read: the folder and all below it, read "
			    "only, even inside a --write folder.\n"
			    "(allow " OPS_READ);
		if ((r = filter(b, "subpath", m->path, err)) < 0)
			return r;
		buf_puts(b, ")\n(deny file-write*");
		r = filter(b, "subpath", m->path, err);
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
		buf_puts(b, "\n;; --hide: closed, even under a granted folder; "
			    "a grant inside it comes later and opens again.\n"
			    "(deny " OPS_ALL);
		r = filter(b, "subpath", m->path, err);
		buf_puts(b, ")\n");
		return r;
	case SB_DOT:
	case SB_KEPT: {
		/* The names are lnk's own (kept_names, mac_home_kept): no
		 * user text. */
		struct strv names = {0};
		const char *top = m->kind == SB_KEPT ? m->top : m->path;
		if (m->kind == SB_KEPT) {
			strv_push(&names, m->name);
			buf_puts(b,
				 "\n;; At the home folder's top, not written, "
				 "created or moved: launchd runs\n;; "
				 "LaunchAgents at login, programs read "
				 "Preferences and Application Support\n;; "
				 "as settings. Its own rule, after any grant "
				 "above it. In any letter case.\n");
		} else {
			kept_names(&names);
			buf_puts(b, "\n;; Kept at the top of this folder, not "
				    "written, created or moved: what is\n;; "
				    "written there runs outside the sandbox "
				    "(git's hooks, direnv, editors;\n;; "
				    "lnk-sandbox(1), FILES THAT RUN OUTSIDE). "
				    "By exact name, then in any letter\n;; "
				    "case (the Mac's disks ignore case).\n");
		}
		buf_puts(b, "(deny file-write*");
		for (size_t i = 0; i < names.n && r == 0; i++) {
			_cleanup_free_ char *q =
			    xasprintf("%s/%s", top, names.v[i]);
			if ((r = filter(b, "literal", q, err)) < 0)
				break;
			buf_puts(b, " (subpath ");
			if ((r = sbpl_quote(b, q, err)) < 0)
				break;
			buf_putc(b, ')');
		}
		if (r == 0) {
			buf_puts(b, "\n  (require-all\n    (subpath ");
			r = sbpl_quote(b, top, err);
		}
		if (r == 0) {
			buf_puts(b, ")\n    (regex ");
			r = ci_regex(b, depth_of(top), &names, err);
			buf_puts(b, ")))\n");
		}
		strv_free(&names);
		return r;
	}
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
		case K_INTERNET_HOSTS:	/* the wire */
		case K_INTERNET_MODELS: /* the wire's routes */
		case K_LAN_HOSTS:	/* the wire */
		case K_LOCALHOST_PORTS: /* network-outbound */
		case K_TOOLS_ALLOW:	/* the wire's, where served */
		case K_TOOLS_ASK_WAIT:	/* the broker's */
		case K_BROWSER_OPEN:	/* the wire's, where served */
		case K_COMMANDS_ALLOW:	/* process-exec */
		case K_COMMANDS_ENV:	/* the launcher's environment */
		case K_TRIP_CALLS:	/* the wire */
		case K_TRIP_TARGETS:	/* the wire */
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

/* The kept names of a write folder's top; at the home folder's top also
 * the Mac's own, each at its own path, so that a grant between the top and
 * it (a --write of ~/Library) comes before it, as its mount would. */
static void add_dots(struct sb_table *t, const char *top, const char *home)
{
	add(t, SB_DOT, top);
	if (strcmp(top, home) != 0)
		return;
	for (size_t i = 0; mac_home_kept[i]; i++) {
		_cleanup_free_ char *p =
		    xasprintf("%s/%s", top, mac_home_kept[i]);
		add(t, SB_KEPT, p);
		t->r[t->n - 1].top = xstrdup(top);
		t->r[t->n - 1].name = mac_home_kept[i];
	}
}

int seatbelt_build(const struct seatbelt_in *in, char **out,
		   struct lnk_err *err)
{
	const struct policy *p = in->pol;
	struct sb_table t = {0};
	struct strv anc = {0}, pinned = {0};
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
	if (strcmp(in->home, "/") == 0)
		return err_set(err, -EINVAL,
			       "the home folder is '/'; set HOME to your own "
			       "folder");
	if (in->scratch && (r = folder_check_exact("the sandbox's folder",
						   in->scratch, err)) < 0)
		return r;
	if (in->tty &&
	    (r = folder_check_exact("the terminal", in->tty, err)) < 0)
		return r;

	const struct strv *wr = policy_list(p, K_FILES_WRITE);
	const struct strv *lift = policy_list(p, K_FILES_WRITE_DOT_FILES);
	const struct strv *hidden = &p->always_hidden;

	struct folder *g = NULL;
	size_t ng;
	if ((r = folder_grants(p, &g, &ng, err)) < 0)
		goto out;
	for (size_t i = 0; i < ng; i++) {
		const char *path = g[i].path;
		switch (g[i].kind) {
		case FOLDER_READ:
			add(&t, SB_READ, path);
			ancestors(path, &anc);
			break;
		case FOLDER_WRITE:
			add(&t, SB_WRITE, path);
			ancestors(path, &anc);
			if (!strv_contains(lift, path))
				add_dots(&t, path, in->home);
			break;
		case FOLDER_HIDE:
			add(&t, SB_HIDE, path);
			break;
		}
	}
	free(g);
	/* The home folder's top holds the shells' and tools' startup files:
	 * kept when a --write folder above it shows it (as the guard does on
	 * Linux, guard/protect.c), unless --write-dot-files names it. */
	for (size_t i = 0; i < wr->n; i++)
		if (strcmp(wr->v[i], in->home) != 0 &&
		    path_within(in->home, wr->v[i]) &&
		    !strv_contains(lift, in->home)) {
			add_dots(&t, in->home, in->home);
			break;
		}
	for (size_t i = 0; i < hidden->n; i++)
		if ((r = folder_check_exact("a hidden folder", hidden->v[i],
					    err)) < 0)
			goto out;
	if (in->scratch)
		ancestors(in->scratch, &anc);
	if (t.n)
		qsort(t.r, t.n, sizeof(*t.r), cmp_rule);
	if (anc.n)
		strv_sort(&anc);

	buf_puts(&b, ";; lnk sandbox: a Seatbelt profile, generated from the "
		     "policy.\n"
		     ";; Seatbelt applies the last rule that matches: a later "
		     "rule wins.\n"
		     "(version 1)\n\n"
		     ";; Nothing is allowed but what the rules below allow: "
		     "files, network,\n"
		     ";; services, devices, system settings.\n"
		     "(deny default)\n");

	buf_puts(&b, "\n;; The program starts programs and signals its own; "
		     "nothing outside the\n;; sandbox.\n"
		     "(allow process-fork)\n"
		     "(allow signal (target same-sandbox))\n"
		     "(allow process-info* (target same-sandbox))\n");

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
		  "\n;; The /etc programs need: names, TLS roots, the time "
		  "zone, the shells'\n;; startup files; not the machine's "
		  "secrets and identity.\n(allow file-read*",
		  "literal", etc_files, err);
	list_rule(&b, "(allow file-read*", "subpath", etc_dirs, err);
	/* The root itself: programs stat "/" (getcwd, realpath). */
	buf_puts(&b, "(allow file-read-metadata (literal \"/\"))\n");

	buf_puts(&b, "\n;; The devices a program expects: null, zero, random, "
		     "its terminal and its\n;; own descriptors. No other "
		     "device of this machine.\n"
		     "(allow file-read* file-write-data\n"
		     "  (literal \"/dev/null\")\n  (literal \"/dev/zero\"))\n"
		     "(allow file-read*\n  (literal \"/dev/random\")\n"
		     "  (literal \"/dev/urandom\"))\n"
		     "(allow file-read* file-write-data file-ioctl\n"
		     "  (literal \"/dev/tty\")\n  (subpath \"/dev/fd\"))\n");
	if (in->tty) {
		buf_puts(&b, ";; The program's terminal, the one lnk opened "
			     "for it.\n(allow file-read* file-write-data "
			     "file-ioctl");
		if ((r = filter(&b, "literal", in->tty, err)) < 0)
			goto out;
		buf_puts(&b, ")\n");
	}

	buf_puts(&b, "\n;; Services: only the account lookup (getpwuid: git, "
		     "ssh and shells ask who\n;; they run as). Not DNS "
		     "(mDNSResponder resolves and reaches the network\n;; "
		     "outside the wire), not trustd (it fetches certificate "
		     "URLs itself),\n;; not preferences, notifications, the "
		     "pasteboard or the window server.\n"
		     "(allow mach-lookup\n"
		     "  (global-name "
		     "\"com.apple.system.opendirectoryd.libinfo\"))\n"
		     "\n;; POSIX semaphores: Python's multiprocessing locks. "
		     "No shared memory, no\n;; System V IPC, no IOKit device "
		     "(none is opened).\n(allow ipc-posix-sem)\n");
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
		     "but to the ports below\n;; on this machine's loopback "
		     "(no inbound, no other outbound).\n");
	if (in->wire_http_port || in->wire_socks_port) {
		buf_puts(&b,
			 ";; The wire, the sandbox's proxy: it lets through "
			 "only the hosts granted.\n"
			 "(allow network-outbound");
		if (in->wire_http_port)
			buf_printf(&b, "\n  (remote tcp \"localhost:%u\")",
				   (unsigned)in->wire_http_port);
		if (in->wire_socks_port)
			buf_printf(&b, "\n  (remote tcp \"localhost:%u\")",
				   (unsigned)in->wire_socks_port);
		buf_puts(&b, ")\n");
	}
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

	/* What a rule keeps (each path of the table but the write grants,
	 * a kept name's folder, the hidden ones): its folders pinned. */
	for (size_t i = 0; i < t.n; i++) {
		const struct sb_rule *m = &t.r[i];
		if (m->kind == SB_WRITE)
			continue;
		if (m->kind == SB_DOT) {
			_cleanup_free_ char *x = xasprintf("%s/x", m->path);
			pin(x, wr, in->scratch, &pinned);
		} else {
			pin(m->path, wr, in->scratch, &pinned);
		}
	}
	for (size_t i = 0; i < hidden->n; i++)
		pin(hidden->v[i], wr, in->scratch, &pinned);
	if (pinned.n) {
		strv_sort(&pinned);
		buf_puts(&b,
			 "\n;; The folders above what is kept, read only or "
			 "closed are not moved, removed\n;; or changed "
			 "themselves: the rules are by path, and a moved "
			 "folder would carry\n;; what is below it out from "
			 "under its rule (on Linux the mount moves with\n"
			 ";; it). What is inside them is not affected.\n"
			 "(deny file-write*");
		for (size_t i = 0; i < pinned.n; i++)
			if ((r = filter(&b, "literal", pinned.v[i], err)) < 0)
				goto out;
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

	if (hidden->n) {
		buf_puts(&b, "\n;; ~/.lnk (the sandbox's own policy and log), "
			     "~/Link/Agents and ~/Link/History\n;; (agents' "
			     "folders): closed even under a granted folder, "
			     "and last, so no\n;; rule can open them again.\n"
			     "(deny " OPS_ALL);
		for (size_t i = 0; i < hidden->n; i++)
			if ((r = filter(&b, "subpath", hidden->v[i], err)) < 0)
				goto out;
		buf_puts(&b, ")\n");
	}
	*out = buf_steal(&b);
	r = 0;
out:
	buf_free(&b);
	table_free(&t);
	strv_free(&anc);
	strv_free(&pinned);
	return r;
}
