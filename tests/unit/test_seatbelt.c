/* The policy -> Seatbelt profile function (src/launch/seatbelt.c), without
 * a Mac: golden profiles byte-compared (tests/golden/seatbelt/, each read
 * by hand once: a change there is a change of the sandbox's walls), an
 * SBPL reader that checks every profile's syntax (balanced forms, strings
 * ended and escaped as SBPL reads them), and a small evaluator of the
 * rules the profile uses (last match wins, as Seatbelt applies them) that
 * checks random policies against the model of bwrap.c's mount table:
 * every --write folder writable, nothing outside the grants, the
 * always-hidden folders closed, the kept dot files not writable in any
 * letter case, whatever characters the paths hold.
 *
 * LNK_UPDATE_GOLDEN=1 rewrites the golden files (then read the diff). */
#include <errno.h>
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/buf.h"
#include "launch/folders.h"
#include "launch/seatbelt.h"
#include "policy/dotfiles.h"
/* The wire's macOS profile: not in the Linux build's libraries. */
#include "../../src/wire/profile_macos.c"

/* ---- the SBPL reader: s-expressions as TinyScheme reads them ---- */

enum node_kind { N_LIST, N_SYM, N_STR, N_REGEX };

struct node {
	enum node_kind kind;
	char *text; /* symbol, string (unescaped) or regex */
	struct node **kid;
	size_t n;
};

static void node_free(struct node *x)
{
	if (!x)
		return;
	for (size_t i = 0; i < x->n; i++)
		node_free(x->kid[i]);
	free(x->kid);
	free(x->text);
	free(x);
}

struct reader {
	const char *s;
	size_t i;
	char why[128];
};

static void skip_space(struct reader *rd)
{
	for (;;) {
		char c = rd->s[rd->i];
		if (c == ' ' || c == '\n' || c == '\t' || c == '\r')
			rd->i++;
		else if (c == ';')
			while (rd->s[rd->i] && rd->s[rd->i] != '\n')
				rd->i++;
		else
			return;
	}
}

static struct node *new_node(enum node_kind k)
{
	struct node *x = calloc(1, sizeof(*x));
	x->kind = k;
	return x;
}

/* A string: only \" \\ \n \t \r are escapes (what sbpl_quote writes and
 * TinyScheme reads); a raw control character or another escape is an
 * error, so a profile passes only when every string is as meant. */
static struct node *read_string(struct reader *rd)
{
	struct buf b = {0};
	rd->i++;
	for (;;) {
		unsigned char c = (unsigned char)rd->s[rd->i++];
		if (c == '\0') {
			snprintf(rd->why, sizeof(rd->why), "unended string");
			buf_free(&b);
			return NULL;
		}
		if (c == '"')
			break;
		if (c < 0x20 || c == 0x7f) {
			snprintf(rd->why, sizeof(rd->why),
				 "raw control character in a string");
			buf_free(&b);
			return NULL;
		}
		if (c == '\\') {
			char e = rd->s[rd->i++];
			char o = e == '"'    ? '"'
				 : e == '\\' ? '\\'
				 : e == 'n'  ? '\n'
				 : e == 't'  ? '\t'
				 : e == 'r'  ? '\r'
					     : 0;
			if (!o) {
				snprintf(rd->why, sizeof(rd->why),
					 "bad escape \\%c", e);
				buf_free(&b);
				return NULL;
			}
			buf_putc(&b, o);
			continue;
		}
		buf_putc(&b, (char)c);
	}
	struct node *x = new_node(N_STR);
	x->text = b.p ? buf_steal(&b) : strdup("");
	return x;
}

static struct node *read_form(struct reader *rd, int depth)
{
	skip_space(rd);
	char c = rd->s[rd->i];
	if (depth > 32) {
		snprintf(rd->why, sizeof(rd->why), "too deep");
		return NULL;
	}
	if (c == '(') {
		rd->i++;
		struct node *x = new_node(N_LIST);
		for (;;) {
			skip_space(rd);
			if (rd->s[rd->i] == ')') {
				rd->i++;
				return x;
			}
			if (!rd->s[rd->i]) {
				snprintf(rd->why, sizeof(rd->why),
					 "unbalanced: a '(' is not closed");
				node_free(x);
				return NULL;
			}
			struct node *k = read_form(rd, depth + 1);
			if (!k) {
				node_free(x);
				return NULL;
			}
			x->kid = realloc(x->kid, (x->n + 1) * sizeof(*x->kid));
			x->kid[x->n++] = k;
		}
	}
	if (c == ')') {
		snprintf(rd->why, sizeof(rd->why), "unbalanced: a stray ')'");
		return NULL;
	}
	if (c == '"')
		return read_string(rd);
	if (c == '#' && rd->s[rd->i + 1] == '"') {
		/* #"..." is SBPL's regex literal; ours never hold '"' or '\'. */
		size_t start = rd->i + 2, e = start;
		while (rd->s[e] && rd->s[e] != '"' && rd->s[e] != '\\' &&
		       rd->s[e] != '\n')
			e++;
		if (rd->s[e] != '"') {
			snprintf(rd->why, sizeof(rd->why), "bad regex literal");
			return NULL;
		}
		struct node *x = new_node(N_REGEX);
		x->text = strndup(rd->s + start, e - start);
		rd->i = e + 1;
		return x;
	}
	size_t start = rd->i;
	while (rd->s[rd->i] && !strchr(" \n\t\r()\";", rd->s[rd->i]))
		rd->i++;
	if (rd->i == start) {
		snprintf(rd->why, sizeof(rd->why), "unexpected '%c'", c);
		return NULL;
	}
	struct node *x = new_node(N_SYM);
	x->text = strndup(rd->s + start, rd->i - start);
	return x;
}

/* The whole profile: top-level lists that start with version, allow or
 * deny. NULL with why set on any error. */
static struct node *read_profile(const char *s, char *why, size_t whylen)
{
	struct reader rd = {.s = s};
	struct node *top = new_node(N_LIST);
	for (;;) {
		skip_space(&rd);
		if (!rd.s[rd.i])
			break;
		struct node *x = read_form(&rd, 0);
		if (!x) {
			snprintf(why, whylen, "at byte %zu: %s", rd.i, rd.why);
			node_free(top);
			return NULL;
		}
		if (x->kind != N_LIST || !x->n || x->kid[0]->kind != N_SYM ||
		    (strcmp(x->kid[0]->text, "version") &&
		     strcmp(x->kid[0]->text, "allow") &&
		     strcmp(x->kid[0]->text, "deny"))) {
			snprintf(why, whylen, "at byte %zu: not a rule", rd.i);
			node_free(x);
			node_free(top);
			return NULL;
		}
		top->kid = realloc(top->kid, (top->n + 1) * sizeof(*top->kid));
		top->kid[top->n++] = x;
	}
	return top;
}

/* ---- the evaluator: the operations and filters the profile uses ---- */

enum op { OP_READ, OP_META, OP_WRITE, OP_EXEC, OP_NET, OP_IOCTL, OP_SEM };

static bool op_matches(const char *sym, enum op op)
{
	if (!strcmp(sym, "default"))
		return true;
	switch (op) {
	case OP_READ:
		return !strcmp(sym, "file-read*");
	case OP_META:
		return !strcmp(sym, "file-read*") ||
		       !strcmp(sym, "file-read-metadata");
	case OP_WRITE:
		return !strcmp(sym, "file-write*");
	case OP_EXEC:
		return !strcmp(sym, "process-exec");
	case OP_NET:
		return !strcmp(sym, "network-outbound");
	case OP_IOCTL:
		return !strcmp(sym, "file-ioctl");
	case OP_SEM:
		return !strcmp(sym, "ipc-posix-sem");
	}
	return false;
}

static bool covers(const char *a, const char *p)
{
	size_t n = strlen(a);
	return strncmp(a, p, n) == 0 && (p[n] == '\0' || p[n] == '/');
}

static bool filter_matches(const struct node *f, const char *path, int port)
{
	if (f->kind != N_LIST || !f->n || f->kid[0]->kind != N_SYM)
		fail_msg("a filter that is not a form");
	const char *k = f->kid[0]->text;
	if (!strcmp(k, "require-all")) {
		for (size_t i = 1; i < f->n; i++)
			if (!filter_matches(f->kid[i], path, port))
				return false;
		return true;
	}
	if (!strcmp(k, "require-any")) {
		for (size_t i = 1; i < f->n; i++)
			if (filter_matches(f->kid[i], path, port))
				return true;
		return false;
	}
	if (!strcmp(k, "ipc-posix-name-prefix")) {
		/* path is the semaphore's name here */
		const char *a = f->kid[1]->text;
		return path && strncmp(path, a, strlen(a)) == 0;
	}
	if (!strcmp(k, "literal") || !strcmp(k, "subpath") ||
	    !strcmp(k, "regex")) {
		if (f->n != 2)
			fail_msg("%s takes one argument", k);
		if (!path)
			return false;
		const struct node *a = f->kid[1];
		if (!strcmp(k, "regex")) {
			/* Our regexes hold no user text: ERE as written. */
			if (a->kind != N_REGEX)
				fail_msg("regex without a regex literal");
			regex_t re;
			if (regcomp(&re, a->text, REG_EXTENDED | REG_NOSUB))
				fail_msg("bad regex %s", a->text);
			bool m = regexec(&re, path, 0, NULL, 0) == 0;
			regfree(&re);
			return m;
		}
		if (a->kind != N_STR)
			fail_msg("%s of something not a string", k);
		return !strcmp(k, "literal") ? !strcmp(a->text, path)
					     : covers(a->text, path);
	}
	if (!strcmp(k, "remote")) {
		if (port < 0 || f->n != 3 || f->kid[2]->kind != N_STR)
			return false;
		char want[32];
		snprintf(want, sizeof(want), "localhost:%d", port);
		return !strcmp(f->kid[1]->text, "tcp") &&
		       !strcmp(f->kid[2]->text, want);
	}
	/* target, global-name, sysctl-name...: never a file or a port */
	return false;
}

/* Whether the profile allows op on path (or port): the last rule whose
 * operation and one of whose filters match decides. */
static bool allowed(const struct node *prof, enum op op, const char *path,
		    int port)
{
	bool verdict = false, decided = false;
	for (size_t i = 0; i < prof->n; i++) {
		const struct node *r = prof->kid[i];
		const char *act = r->kid[0]->text;
		if (!strcmp(act, "version"))
			continue;
		bool op_hit = false;
		size_t j = 1;
		for (; j < r->n && r->kid[j]->kind == N_SYM; j++)
			op_hit |= op_matches(r->kid[j]->text, op);
		if (!op_hit)
			continue;
		bool hit = j == r->n; /* no filter: every object */
		for (; j < r->n && !hit; j++)
			hit = filter_matches(r->kid[j], path, port);
		if (hit) {
			verdict = !strcmp(act, "allow");
			decided = true;
		}
	}
	if (!decided)
		fail_msg("no rule decided, not even (deny default)");
	return verdict;
}

/* ---- fixtures ---- */

struct fixture {
	struct policy p;
	struct strv files, folders;
	struct seatbelt_in in;
	char *out;
};

static void setup(struct fixture *f, const char *home)
{
	memset(f, 0, sizeof(*f));
	policy_init(&f->p);
	f->p.resolved = true;
	strv_pushf(&f->p.always_hidden, "%s/.lnk", home);
	strv_pushf(&f->p.always_hidden, "%s/Link/Agents", home);
	strv_pushf(&f->p.always_hidden, "%s/Link/History", home);
	f->in = (struct seatbelt_in){
	    .pol = &f->p,
	    .home = home,
	    .exec_files = &f->files,
	    .exec_folders = &f->folders,
	};
}

static void grant(struct fixture *f, enum key_id id, const char *v)
{
	f->p.k[id].set = true;
	strv_push(&f->p.k[id].list, v);
}

static void teardown(struct fixture *f)
{
	free(f->out);
	policy_free(&f->p);
	strv_free(&f->files);
	strv_free(&f->folders);
}

static struct node *build_and_read(struct fixture *f)
{
	struct lnk_err err = {0};
	free(f->out);
	f->out = NULL;
	int r = seatbelt_build(&f->in, &f->out, &err);
	if (r < 0)
		fail_msg("seatbelt_build: %s", err.msg);
	char why[256];
	struct node *prof = read_profile(f->out, why, sizeof(why));
	if (!prof)
		fail_msg("the profile does not parse: %s\n%s", why, f->out);
	return prof;
}

static void golden(struct fixture *f, const char *name)
{
	struct node *prof = build_and_read(f);
	node_free(prof);
	char path[256];
	snprintf(path, sizeof(path), "tests/golden/seatbelt/%s.sb", name);
	if (getenv("LNK_UPDATE_GOLDEN")) {
		FILE *o = fopen(path, "we");
		assert_non_null(o);
		fputs(f->out, o);
		fclose(o);
		return;
	}
	char *want = NULL;
	size_t len = 0;
	if (read_file(path, 1 << 22, &want, &len) < 0)
		fail_msg("cannot read %s (LNK_UPDATE_GOLDEN=1 writes it)",
			 path);
	if (strcmp(want, f->out) != 0) {
		fprintf(stderr, "--- %s differs; got:\n%s", path, f->out);
		fail();
	}
	free(want);
}

/* ---- golden profiles: each key alone, and together ---- */

#define HOME "/Users/u"

static void g_bare(void **state)
{
	(void)state;
	struct fixture f;
	setup(&f, HOME);
	grant(&f, K_COMMANDS_ALLOW, "*");
	golden(&f, "bare");
	teardown(&f);
}

static void g_write(void **state)
{
	(void)state;
	struct fixture f;
	setup(&f, HOME);
	grant(&f, K_COMMANDS_ALLOW, "*");
	grant(&f, K_FILES_WRITE, HOME "/proj");
	golden(&f, "write");
	teardown(&f);
}

static void g_write_dot_files(void **state)
{
	(void)state;
	struct fixture f;
	setup(&f, HOME);
	grant(&f, K_COMMANDS_ALLOW, "*");
	grant(&f, K_FILES_WRITE, HOME "/proj");
	grant(&f, K_FILES_WRITE_DOT_FILES, HOME "/proj");
	golden(&f, "write_dot_files");
	teardown(&f);
}

static void g_read(void **state)
{
	(void)state;
	struct fixture f;
	setup(&f, HOME);
	grant(&f, K_COMMANDS_ALLOW, "*");
	grant(&f, K_FILES_READ, HOME "/Documents/reports");
	golden(&f, "read");
	teardown(&f);
}

/* --read '~' with a --hide and the always-hidden folders under it; a
 * --write inside the hidden folder opens again. */
static void g_read_home_hide(void **state)
{
	(void)state;
	struct fixture f;
	setup(&f, HOME);
	grant(&f, K_COMMANDS_ALLOW, "*");
	grant(&f, K_FILES_READ, HOME);
	grant(&f, K_FILES_HIDE, HOME "/secret");
	grant(&f, K_FILES_WRITE, HOME "/secret/open");
	golden(&f, "read_home_hide");
	teardown(&f);
}

/* --write '~': its top's startup files kept too, as on Linux. */
static void g_write_above_home(void **state)
{
	(void)state;
	struct fixture f;
	setup(&f, HOME);
	grant(&f, K_COMMANDS_ALLOW, "*");
	grant(&f, K_FILES_WRITE, "/Users");
	golden(&f, "write_above_home");
	teardown(&f);
}

/* Root's home through the Mac's link (/var/root is /private/var/root):
 * the kept names under both spellings. */
static void g_linked_home(void **state)
{
	(void)state;
	struct fixture f;
	setup(&f, "/var/root");
	grant(&f, K_COMMANDS_ALLOW, "*");
	grant(&f, K_FILES_WRITE, "/private/var/root");
	golden(&f, "linked_home");
	teardown(&f);
}

static void g_ports(void **state)
{
	(void)state;
	struct fixture f;
	setup(&f, HOME);
	grant(&f, K_COMMANDS_ALLOW, "*");
	grant(&f, K_LOCALHOST_PORTS, "5432");
	grant(&f, K_LOCALHOST_PORTS, "8080");
	golden(&f, "ports");
	teardown(&f);
}

static void g_commands(void **state)
{
	(void)state;
	struct fixture f;
	setup(&f, HOME);
	grant(&f, K_COMMANDS_ALLOW, "sh");
	grant(&f, K_COMMANDS_ALLOW, "node");
	grant(&f, K_COMMANDS_ALLOW, "/opt/tools/");
	strv_push(&f.files, "/bin/sh");
	strv_push(&f.files, "/opt/homebrew/Cellar/node/22.1.0/bin/node");
	strv_push(&f.folders, "/opt/tools");
	golden(&f, "commands");
	teardown(&f);
}

static void g_commands_none_found(void **state)
{
	(void)state;
	struct fixture f;
	setup(&f, HOME);
	grant(&f, K_COMMANDS_ALLOW, "nosuchprogram");
	golden(&f, "commands_none_found");
	teardown(&f);
}

/* What the launcher adds: its own folder (TMPDIR, empty home) and the
 * program's terminal. */
static void g_launch(void **state)
{
	(void)state;
	struct fixture f;
	setup(&f, HOME);
	grant(&f, K_COMMANDS_ALLOW, "*");
	grant(&f, K_FILES_WRITE, HOME "/proj");
	f.in.scratch = "/private/var/folders/xy/T/lnk-run-42";
	f.in.tty = "/dev/ttys003";
	golden(&f, "launch");
	teardown(&f);
}

/* Everything together, a --read inside the --write folder and a --write
 * inside its .git (which opens .git/x again, as its mount does). */
static void g_combined(void **state)
{
	(void)state;
	struct fixture f;
	setup(&f, HOME);
	grant(&f, K_NAME, "app");
	grant(&f, K_FILES_WRITE, HOME "/code/app");
	grant(&f, K_FILES_WRITE, HOME "/code/app/.git/x");
	grant(&f, K_FILES_READ, HOME "/code/app/vendor");
	grant(&f, K_FILES_READ, HOME "/Documents");
	grant(&f, K_FILES_HIDE, HOME "/Documents/private");
	grant(&f, K_LOCALHOST_PORTS, "5432");
	grant(&f, K_COMMANDS_ALLOW, "node");
	grant(&f, K_COMMANDS_ENV, "NODE_ENV");
	strv_push(&f.files, "/opt/homebrew/Cellar/node/22.1.0/bin/node");
	golden(&f, "combined");
	teardown(&f);
}

/* A path holding a quote, a backslash, a newline, a tab and regex
 * metacharacters: escaped, and read back as the same path. */
static void g_hostile_path(void **state)
{
	(void)state;
	struct fixture f;
	setup(&f, HOME);
	grant(&f, K_COMMANDS_ALLOW, "*");
	const char *w = HOME "/a\"b\\c\nd\te.*[x](y)|^$;z #\"w";
	grant(&f, K_FILES_WRITE, w);
	golden(&f, "hostile_path");
	struct node *prof = build_and_read(&f);
	/* The string read back is the path, whole: it writes there ... */
	_cleanup_free_ char *in = xasprintf("%s/file", w);
	assert_true(allowed(prof, OP_WRITE, in, -1));
	/* ... and nowhere its pieces would name if a quote ended it. */
	assert_false(allowed(prof, OP_WRITE, HOME "/a", -1));
	assert_false(allowed(prof, OP_WRITE, HOME "/a\"b", -1));
	assert_false(allowed(prof, OP_READ, "/etc/master.passwd", -1));
	node_free(prof);
	teardown(&f);
}

/* ---- the holes an audit of the profile found, each by the policy that
 * showed it ---- */

/* As printed (no terminal of lnk's), no ioctl reaches a terminal: used
 * with sandbox-exec in the user's session, TIOCSTI on /dev/tty would type
 * into the user's shell. The header says what the profile relies on. */
static void hole_tty_ioctl(void **state)
{
	(void)state;
	struct fixture f;
	setup(&f, HOME);
	grant(&f, K_COMMANDS_ALLOW, "*");
	struct node *prof = build_and_read(&f);
	assert_false(allowed(prof, OP_IOCTL, "/dev/tty", -1));
	assert_false(allowed(prof, OP_IOCTL, "/dev/ttys001", -1));
	assert_false(allowed(prof, OP_IOCTL, "/dev/fd/0", -1));
	assert_false(allowed(prof, OP_READ, "/dev/tty", -1));
	assert_non_null(strstr(f.out, "new session"));
	assert_non_null(strstr(f.out, "pseudo-terminal"));
	node_free(prof);
	/* Run by lnk: the pty it made, which is the session's terminal. */
	f.in.tty = "/dev/ttys003";
	prof = build_and_read(&f);
	assert_true(allowed(prof, OP_IOCTL, "/dev/ttys003", -1));
	assert_true(allowed(prof, OP_IOCTL, "/dev/tty", -1));
	assert_true(allowed(prof, OP_READ, "/dev/tty", -1));
	assert_false(allowed(prof, OP_IOCTL, "/dev/ttys001", -1));
	assert_false(allowed(prof, OP_READ, "/dev/ttys001", -1));
	node_free(prof);
	teardown(&f);
}

/* No wire runs on macOS: a network grant is refused, never a loopback
 * port the sandbox does not own. */
static void hole_network_grant_refused(void **state)
{
	(void)state;
	static const enum key_id ids[] = {K_INTERNET_HOSTS, K_LAN_HOSTS,
					  K_INTERNET_MODELS};
	for (size_t i = 0; i < ARRAY_SIZE(ids); i++) {
		struct fixture f;
		struct lnk_err err = {0};
		setup(&f, HOME);
		grant(&f, K_COMMANDS_ALLOW, "*");
		grant(&f, ids[i], "registry.npmjs.org");
		assert_int_equal(seatbelt_build(&f.in, &f.out, &err),
				 -EOPNOTSUPP);
		assert_null(f.out);
		assert_non_null(strstr(err.msg, "the wire"));
		assert_non_null(strstr(err.msg, "macOS"));
		teardown(&f);
	}
}

/* A home reached through a link (root's /var/root is
 * /private/var/root): the kept names are written under the real path,
 * the one Seatbelt sees, and the spelled one. */
static void hole_linked_home(void **state)
{
	(void)state;
	struct fixture f;
	setup(&f, "/var/root");
	grant(&f, K_COMMANDS_ALLOW, "*");
	grant(&f, K_FILES_WRITE, "/private/var/root");
	struct node *prof = build_and_read(&f);
	static const char *const kept[] = {
	    ".zshrc", ".ssh/authorized_keys", "Library/LaunchAgents/x.plist",
	    "Library/Preferences/com.apple.Terminal.plist"};
	for (size_t i = 0; i < ARRAY_SIZE(kept); i++) {
		char p[256];
		snprintf(p, sizeof(p), "/private/var/root/%s", kept[i]);
		if (allowed(prof, OP_WRITE, p, -1))
			fail_msg("%s is writable\n%s", p, f.out);
		snprintf(p, sizeof(p), "/var/root/%s", kept[i]);
		if (allowed(prof, OP_WRITE, p, -1))
			fail_msg("%s is writable\n%s", p, f.out);
	}
	assert_true(allowed(prof, OP_WRITE, "/private/var/root/notes", -1));
	node_free(prof);
	teardown(&f);
	/* Any other link: the launcher gives the real path. */
	setup(&f, "/Users/u");
	f.in.home_real = "/Volumes/Disk/u";
	grant(&f, K_COMMANDS_ALLOW, "*");
	grant(&f, K_FILES_WRITE, "/Volumes/Disk/u");
	prof = build_and_read(&f);
	assert_false(allowed(prof, OP_WRITE, "/Volumes/Disk/u/.zshrc", -1));
	assert_false(allowed(prof, OP_WRITE,
			     "/Volumes/Disk/u/Library/LaunchAgents/x", -1));
	assert_true(allowed(prof, OP_WRITE, "/Volumes/Disk/u/notes", -1));
	node_free(prof);
	teardown(&f);
}

/* The ~/Library folders whose files run as the user outside the sandbox
 * (docs/macos.md names each and where it comes from) are kept under
 * --write '~'; its caches are not. */
static void hole_library_folders(void **state)
{
	(void)state;
	static const char *const kept[] = {
	    "Library/Python/3.12/lib/python/site-packages/x.pth",
	    "Library/Input Methods/x.app/Contents/MacOS/x",
	    "Library/ColorPickers/x.colorPicker",
	    "Library/Audio/Plug-Ins/HAL/x.driver",
	    "Library/Audio/Plug-Ins/Components/x.component",
	    "Library/Components/x.component",
	    "Library/Spotlight/x.mdimporter",
	    "Library/QuickLook/x.qlgenerator",
	    "Library/Services/x.workflow",
	    "Library/Scripts/Folder Action Scripts/x.scpt",
	    "Library/Developer/Xcode/Templates/x",
	    "Library/LaunchAgents/x.plist",
	    "Library/Frameworks/X.framework/X",
	    "Library/PreferencePanes/x.prefPane",
	    "Library/Screen Savers/x.saver",
	    "Library/Internet Plug-Ins/x.plugin",
	    "Library/Keyboard Layouts/x.bundle",
	    "Library/Application Scripts/x",
	    "Library/Workflows/Applications/Folder Actions/x",
	    "Library/Mail/Bundles/x.mailbundle",
	    "Library/Containers/com.x/Data/Library/Preferences/x.plist",
	    "Library/Group Containers/x/y",
	    "LIBRARY/python/x.pth",
	};
	struct fixture f;
	setup(&f, HOME);
	grant(&f, K_COMMANDS_ALLOW, "*");
	grant(&f, K_FILES_WRITE, HOME);
	struct node *prof = build_and_read(&f);
	for (size_t i = 0; i < ARRAY_SIZE(kept); i++) {
		char p[256];
		snprintf(p, sizeof(p), HOME "/%s", kept[i]);
		if (allowed(prof, OP_WRITE, p, -1))
			fail_msg("%s is writable", p);
	}
	assert_true(allowed(prof, OP_WRITE, HOME "/Library/Caches/x", -1));
	assert_true(allowed(prof, OP_WRITE, HOME "/Library/Logs/x", -1));
	node_free(prof);
	teardown(&f);
}

/* The system's read list: programs and libraries, not Homebrew's data and
 * settings (var/, etc/: databases, keys, services' configs) nor the
 * volumes behind /System/Volumes (the whole data volume is there). */
static void hole_system_reads(void **state)
{
	(void)state;
	static const char *const closed[] = {
	    "/opt/homebrew/var/postgresql@16/pg_hba.conf",
	    "/opt/homebrew/etc/redis.conf",
	    "/usr/local/var/mysql/ibdata1",
	    "/usr/local/etc/nginx/nginx.conf",
	    "/System/Volumes/Data/Users/u/.ssh/id_ed25519",
	    "/System/Volumes/Preboot/x",
	};
	static const char *const open[] = {
	    "/opt/homebrew/bin/git",
	    "/opt/homebrew/Cellar/node/22/bin/node",
	    "/usr/local/bin/x",
	    "/usr/bin/env",
	    "/System/Library/Frameworks/Security.framework/Security",
	    "/opt/homebrew/etc/openssl@3/cert.pem",
	};
	struct fixture f;
	setup(&f, HOME);
	grant(&f, K_COMMANDS_ALLOW, "*");
	struct node *prof = build_and_read(&f);
	for (size_t i = 0; i < ARRAY_SIZE(closed); i++)
		if (allowed(prof, OP_READ, closed[i], -1))
			fail_msg("%s is readable", closed[i]);
	for (size_t i = 0; i < ARRAY_SIZE(open); i++)
		if (!allowed(prof, OP_READ, open[i], -1))
			fail_msg("%s is not readable", open[i]);
	node_free(prof);
	teardown(&f);
}

/* Other processes (their files, folders, arguments), the IOKit registry's
 * properties (serial number, hardware UUID) and NVRAM are denied in so
 * many words: a process sees itself. */
static void hole_process_info(void **state)
{
	(void)state;
	struct fixture f;
	setup(&f, HOME);
	grant(&f, K_COMMANDS_ALLOW, "*");
	struct node *prof = build_and_read(&f);
	assert_non_null(strstr(f.out, "\n(deny process-info*)\n"));
	assert_non_null(
	    strstr(f.out, "\n(allow process-info* (target self))\n"));
	assert_non_null(strstr(f.out, "\n(deny iokit-get-properties)\n"));
	assert_non_null(strstr(f.out, "\n(deny nvram*)\n"));
	assert_null(strstr(f.out, "process-info* (target same-sandbox)"));
	/* nothing allows them after the denials */
	assert_null(strstr(strstr(f.out, "(deny nvram*)"), "(allow nvram"));
	assert_null(strstr(f.out, "(allow iokit"));
	node_free(prof);
	teardown(&f);
}

/* APFS folds Unicode as well as ASCII case: ".vſcode" (long s),
 * ".\u212Aube" (Kelvin sign), ".ßh" and the ligatures name the kept files.
 * --hide, read-only folders and ~/.lnk are matched in any case too. */
static void hole_unicode_case(void **state)
{
	(void)state;
	static const char *const kept[] = {
	    ("/.v\xc5\xbf"
	     "code/settings.json"), /* ſ */
	    "/.z\xc5\xbfhenv",
	    "/.\xe2\x84\xaaube/config", /* K (Kelvin) */
	    "/.\xc3\x9fh/config",	/* ß: ss */
	    "/.\xe1\xba\x9eH/config",	/* ẞ */
	    "/.gitcon\xef\xac\x81g",	/* ﬁ */
	    "/.pro\xef\xac\x81le",
	    "/ru\xef\xac\x86-toolchain", /* ﬆ */
	    "/.VSCODE/x",
	};
	struct fixture f;
	setup(&f, HOME);
	grant(&f, K_COMMANDS_ALLOW, "*");
	grant(&f, K_FILES_WRITE, HOME "/proj");
	struct node *prof = build_and_read(&f);
	for (size_t i = 0; i < ARRAY_SIZE(kept); i++) {
		char p[256];
		snprintf(p, sizeof(p), HOME "/proj%s", kept[i]);
		if (allowed(prof, OP_WRITE, p, -1))
			fail_msg("%s is writable\n", p);
	}
	assert_true(allowed(prof, OP_WRITE, HOME "/proj/src/x.c", -1));
	node_free(prof);
	teardown(&f);

	setup(&f, HOME);
	grant(&f, K_COMMANDS_ALLOW, "*");
	grant(&f, K_FILES_WRITE, HOME);
	grant(&f, K_FILES_READ, HOME "/docs");
	grant(&f, K_FILES_HIDE, HOME "/Secret");
	prof = build_and_read(&f);
	assert_false(allowed(prof, OP_READ, HOME "/SECRET/x", -1));
	assert_false(allowed(prof, OP_READ,
			     HOME "/\xc5\xbf"
				  "ecret/x",
			     -1));
	assert_false(allowed(prof, OP_READ, HOME "/.LNK/policy.toml", -1));
	assert_false(allowed(prof, OP_WRITE, HOME "/.Lnk/x", -1));
	assert_false(allowed(prof, OP_READ, HOME "/link/AGENTS/x", -1));
	assert_false(allowed(prof, OP_WRITE, HOME "/DOCS/x", -1));
	assert_true(allowed(prof, OP_READ, HOME "/DOCS/x", -1));
	assert_true(allowed(prof, OP_WRITE, HOME "/proj/x", -1));
	node_free(prof);
	teardown(&f);
}

/* Named POSIX semaphores: the names Python's multiprocessing makes, not
 * another program's. */
static void hole_semaphores(void **state)
{
	(void)state;
	struct fixture f;
	setup(&f, HOME);
	grant(&f, K_COMMANDS_ALLOW, "*");
	struct node *prof = build_and_read(&f);
	assert_true(allowed(prof, OP_SEM, "/mp-x1y2z3", -1));
	assert_false(allowed(prof, OP_SEM, "/com.apple.x", -1));
	assert_false(allowed(prof, OP_SEM, "/other", -1));
	node_free(prof);
	teardown(&f);
}

/* The kept names are one case-folding regex per depth, not a literal and
 * a subpath per name per folder: 20 write folders stay small. */
static void size_twenty_write_folders(void **state)
{
	(void)state;
	struct fixture f;
	setup(&f, HOME);
	grant(&f, K_COMMANDS_ALLOW, "*");
	for (int i = 0; i < 20; i++) {
		char p[64];
		snprintf(p, sizeof(p), HOME "/code/project-%02d", i);
		grant(&f, K_FILES_WRITE, p);
	}
	grant(&f, K_FILES_WRITE, HOME "/code/project-00/sub/deeper");
	struct node *prof = build_and_read(&f);
	size_t len = strlen(f.out);
	if (len >= 64 * 1024)
		fail_msg("20 write folders make %zu bytes", len);
	assert_false(
	    allowed(prof, OP_WRITE, HOME "/code/project-19/.git/config", -1));
	assert_false(allowed(prof, OP_WRITE,
			     HOME "/code/project-00/sub/deeper/.envrc", -1));
	node_free(prof);
	teardown(&f);
}

/* The wire's own profile starts from nothing too: its database and the
 * resolver's files, no other file, no program. */
static void wire_profile_denies_by_default(void **state)
{
	(void)state;
	struct confine_plan cp = {.db_path = "/Users/u/.lnk/lnk.db"};
	struct buf b = {0};
	struct lnk_err err = {0};
	assert_int_equal(wire_profile_macos(&cp, &b, &err), 0);
	char why[256];
	struct node *prof = read_profile(b.p, why, sizeof(why));
	if (!prof)
		fail_msg("the wire's profile does not parse: %s\n%s", why, b.p);
	assert_non_null(strstr(b.p, "\n(deny default)\n"));
	assert_null(strstr(b.p, "(allow default)"));
	assert_true(allowed(prof, OP_WRITE, "/Users/u/.lnk/lnk.db", -1));
	assert_true(allowed(prof, OP_WRITE, "/Users/u/.lnk/lnk.db-wal", -1));
	assert_true(allowed(prof, OP_READ, "/private/etc/hosts", -1));
	assert_false(allowed(prof, OP_WRITE, "/private/etc/hosts", -1));
	assert_false(allowed(prof, OP_READ, "/Users/u/.ssh/id_ed25519", -1));
	assert_false(allowed(prof, OP_WRITE, "/Users/u/.zshrc", -1));
	assert_false(allowed(prof, OP_READ, "/Users/u/.lnk/policy.toml", -1));
	assert_false(allowed(prof, OP_EXEC, "/bin/sh", -1));
	node_free(prof);
	buf_free(&b);
	/* A path SBPL cannot say is refused, not written. */
	cp.db_path = "/Users/u/x\x1b[2J/lnk.db";
	assert_int_equal(wire_profile_macos(&cp, &b, &err), -EINVAL);
	buf_free(&b);
}

/* ---- refusals ---- */

static void refuses_limits(void **state)
{
	(void)state;
	static const struct {
		enum key_id id;
		const char *v, *msg;
	} t[] = {
	    {K_LIMITS_MEMORY, "1G",
	     "[limits] memory (--memory) cannot be enforced on macOS: macOS "
	     "has no memory limit for a group of processes (Linux uses a "
	     "cgroup); remove it to run there"},
	    {K_LIMITS_TASKS, "100",
	     "[limits] tasks (--tasks) cannot be enforced on macOS"},
	    {K_LIMITS_TMP_SIZE, "1G",
	     "[limits] tmp_size (--tmp-size) cannot be enforced on macOS"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct fixture f;
		struct lnk_err err = {0};
		setup(&f, HOME);
		grant(&f, K_COMMANDS_ALLOW, "*");
		grant(&f, t[i].id, t[i].v);
		assert_int_equal(seatbelt_build(&f.in, &f.out, &err),
				 -EOPNOTSUPP);
		assert_null(f.out);
		assert_true(strncmp(err.msg, t[i].msg, strlen(t[i].msg)) == 0);
		teardown(&f);
	}
}

/* Every other key maps: a profile for a policy that sets each (the
 * network grants are refused: hole_network_grant_refused). */
static void maps_every_other_key(void **state)
{
	(void)state;
	struct fixture f;
	setup(&f, HOME);
	for (int id = 0; id < K__COUNT; id++)
		if (id != K_LIMITS_MEMORY && id != K_LIMITS_TASKS &&
		    id != K_LIMITS_TMP_SIZE && id != K_INTERNET_HOSTS &&
		    id != K_INTERNET_MODELS && id != K_LAN_HOSTS)
			f.p.k[id].set = true;
	struct lnk_err err = {0};
	assert_int_equal(seatbelt_build(&f.in, &f.out, &err), 0);
	teardown(&f);
}

static void refuses_control_characters(void **state)
{
	(void)state;
	struct fixture f;
	struct lnk_err err = {0};
	setup(&f, HOME);
	grant(&f, K_FILES_READ,
	      HOME "/a\x01"
		   "b");
	assert_int_equal(seatbelt_build(&f.in, &f.out, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "control character"));
	teardown(&f);
	setup(&f, HOME);
	grant(&f, K_FILES_READ, HOME "/a/../b");
	assert_int_equal(seatbelt_build(&f.in, &f.out, &err), -EINVAL);
	teardown(&f);
}

static void quote_escapes(void **state)
{
	(void)state;
	struct buf b = {0};
	struct lnk_err err = {0};
	assert_int_equal(sbpl_quote(&b, "a\"b\\c\nd\te\rf", &err), 0);
	assert_string_equal(b.p, "\"a\\\"b\\\\c\\nd\\te\\rf\"");
	buf_free(&b);
	assert_int_equal(sbpl_quote(&b, "x\x1b[2J", &err), -EINVAL);
	assert_int_equal(sbpl_quote(&b, "x\x7f", &err), -EINVAL);
	buf_free(&b);
}

/* The reader itself fails on what a broken escaper would write. */
static void reader_rejects_broken_profiles(void **state)
{
	(void)state;
	static const char *const bad[] = {
	    "(allow file-read* (literal \"/a\"b\"))",  /* stray quote */
	    "(allow file-read* (literal \"/a\\qb\"))", /* unknown escape */
	    "(allow file-read* (literal \"/a\nb\"))",  /* raw newline */
	    "(allow file-read* (literal \"/a\")",      /* unclosed */
	    "(allow file-read*))",		       /* stray ) */
	    "(allow file-read* (literal \"/a",	       /* unended string */
	    "foo",				       /* not a rule */
	};
	char why[256];
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct node *x = read_profile(bad[i], why, sizeof(why));
		if (x)
			fail_msg("read: %s", bad[i]);
	}
}

/* ---- properties over random policies ---- */

static uint64_t rng_state;
static uint32_t rnd(uint32_t n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state % n);
}

/* Path pieces, the hostile ones among them. */
static const char *const pieces[] = {
    "a",	   "b",		"sub",	".git",	   "x\"y",
    "back\\slash", "new\nline", ".*",	"[ab]",	   "(p)|q",
    "^$",	   "; c",	"#\"r", "é",	   "tab\there",
    "Link",	   "Agents",	".lnk", "Library", "LaunchAgents",
    "Preferences",
};

static char *rand_path(const char *base)
{
	struct buf b = {0};
	buf_puts(&b, base);
	for (uint32_t i = 0, n = 1 + rnd(3); i < n; i++) {
		buf_putc(&b, '/');
		buf_puts(&b, pieces[rnd(ARRAY_SIZE(pieces))]);
	}
	return buf_steal(&b);
}

/* The model: bwrap.c's mount table. The deepest grant covering a path
 * decides; at one path a --hide beats a --write beats a --read. */
enum mk { MK_NONE, MK_READ, MK_WRITE, MK_HIDE };

static enum mk model_kind(const struct policy *p, const char *path,
			  const char **top)
{
	static const enum key_id ids[] = {K_FILES_READ, K_FILES_WRITE,
					  K_FILES_HIDE};
	static const enum mk kinds[] = {MK_READ, MK_WRITE, MK_HIDE};
	size_t best = 0;
	enum mk k = MK_NONE;
	*top = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(ids); i++) {
		const struct strv *l = policy_list(p, ids[i]);
		for (size_t j = 0; j < l->n; j++) {
			size_t n = strlen(l->v[j]);
			if (!covers(l->v[j], path))
				continue;
			if (n > best || (n == best && kinds[i] > k)) {
				best = n;
				k = kinds[i];
				*top = l->v[j];
			}
		}
	}
	return k;
}

/* The Mac's own kept names at the home folder's top (seatbelt.c). */
static const char *const mac_home[] = {
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
};

/* path is name (any case) at the top of top, or below it. */
static bool at_top(const char *top, const char *name, const char *path)
{
	size_t n = strlen(top), len = strlen(name);
	return strncmp(top, path, n) == 0 && path[n] == '/' &&
	       strncasecmp(path + n + 1, name, len) == 0 &&
	       (path[n + 1 + len] == '\0' || path[n + 1 + len] == '/');
}

/* path is a kept name at the top of a write folder whose dot files are
 * not lifted (or of the home folder, when a write folder above shows it),
 * and no write grant at or inside that name opens it again (its rule
 * comes later, as its mount does). */
static bool model_kept(const struct policy *p, const char *home,
		       const char *path)
{
	const struct strv *wr = policy_list(p, K_FILES_WRITE);
	const struct strv *lift = policy_list(p, K_FILES_WRITE_DOT_FILES);
	struct strv tops = {0};
	size_t nd;
	const struct dot_file *d = dot_files(&nd);
	bool kept = false;

	for (size_t i = 0; i < wr->n; i++) {
		if (!strv_contains(lift, wr->v[i]))
			strv_push(&tops, wr->v[i]);
		if (covers(wr->v[i], home) && strcmp(wr->v[i], home) != 0 &&
		    !strv_contains(lift, home) && !strv_contains(&tops, home))
			strv_push(&tops, home);
	}
	for (size_t i = 0; i < tops.n && !kept; i++) {
		const char *t = tops.v[i];
		size_t hit = 0;
		for (size_t j = 0; j < nd && !hit; j++)
			if (at_top(t, d[j].name, path))
				hit = strlen(d[j].name);
		for (size_t j = 0; !strcmp(t, home) && j < ARRAY_SIZE(mac_home);
		     j++)
			if (!hit && at_top(t, mac_home[j], path))
				hit = strlen(mac_home[j]);
		if (!hit)
			continue;
		const char *top;
		enum mk k = model_kind(p, path, &top);
		kept = !(k == MK_WRITE && strlen(top) >= strlen(t) + 1 + hit);
	}
	strv_free(&tops);
	return kept;
}

/* a covers p in any ASCII letter case (the profile folds case). */
static bool ci_covers(const char *a, const char *p)
{
	size_t n = strlen(a);
	return strncasecmp(a, p, n) == 0 && (p[n] == '\0' || p[n] == '/');
}

static bool in_hidden(const struct policy *p, const char *path)
{
	for (size_t i = 0; i < p->always_hidden.n; i++)
		if (ci_covers(p->always_hidden.v[i], path))
			return true;
	return false;
}

/* A --hide (or, for writes, a --read) that names path in another letter
 * case closes it too, unless a grant that names it exactly comes after
 * it in the profile's order (folders.h). */
static bool fold_closed(const struct policy *p, enum key_id id, int rk,
			const char *path)
{
	static const enum key_id opens[] = {K_FILES_READ, K_FILES_WRITE};
	static const int ranks[] = {0, 1};
	const struct strv *l = policy_list(p, id);
	for (size_t i = 0; i < l->n; i++) {
		if (!ci_covers(l->v[i], path) || covers(l->v[i], path))
			continue;
		bool reopened = false;
		for (size_t k = id == K_FILES_READ ? 1 : 0;
		     k < ARRAY_SIZE(opens) && !reopened; k++) {
			const struct strv *o = policy_list(p, opens[k]);
			for (size_t j = 0; j < o->n && !reopened; j++)
				reopened = covers(o->v[j], path) &&
					   folder_order(o->v[j], ranks[k],
							l->v[i], rk) > 0;
		}
		if (!reopened)
			return true;
	}
	return false;
}

/* path is a folder above something a rule keeps read only, kept or
 * closed: pinned, not itself written (moved, removed). */
static bool model_pinned(const struct policy *p, const char *home,
			 const char *path)
{
	struct strv prot = {0};
	const struct strv *wr = policy_list(p, K_FILES_WRITE);
	const struct strv *lift = policy_list(p, K_FILES_WRITE_DOT_FILES);
	strv_copy(&prot, policy_list(p, K_FILES_READ));
	strv_copy(&prot, policy_list(p, K_FILES_HIDE));
	strv_copy(&prot, &p->always_hidden);
	for (size_t i = 0; i < wr->n; i++) {
		if (!strv_contains(lift, wr->v[i]))
			strv_pushf(&prot, "%s/.git", wr->v[i]);
		if (covers(wr->v[i], home) && !strv_contains(lift, home))
			strv_pushf(&prot, "%s/Library/Preferences", home);
	}
	bool pinned = false;
	for (size_t i = 0; i < prot.n && !pinned; i++)
		pinned = ci_covers(path, prot.v[i]) &&
			 strlen(path) < strlen(prot.v[i]);
	strv_free(&prot);
	return pinned;
}

static void check_path(const struct node *prof, const struct policy *p,
		       const char *home, const char *path, const char *profile)
{
	const char *top;
	enum mk k = model_kind(p, path, &top);
	bool hidden =
	    in_hidden(p, path) || fold_closed(p, K_FILES_HIDE, 3, path);
	bool want_w = k == MK_WRITE && !hidden && !model_kept(p, home, path) &&
		      !model_pinned(p, home, path) &&
		      !fold_closed(p, K_FILES_READ, 0, path);
	bool want_r = (k == MK_WRITE || k == MK_READ) && !hidden;
	bool got_w = allowed(prof, OP_WRITE, path, -1);
	bool got_r = allowed(prof, OP_READ, path, -1);
	if (got_w != want_w || got_r != want_r)
		fail_msg("path '%s': write %d (want %d), read %d (want %d)\n%s",
			 path, got_w, want_w, got_r, want_r, profile);
}

static void properties(void **state)
{
	(void)state;
	const char *home = "/Users/q\"u\\e";
	rng_state = 0x9e3779b97f4a7c15ull;
	size_t nd;
	const struct dot_file *d = dot_files(&nd);

	for (int iter = 0; iter < 400; iter++) {
		struct fixture f;
		setup(&f, home);
		grant(&f, K_COMMANDS_ALLOW, "*");
		struct strv probes = {0};
		for (uint32_t i = 0, n = rnd(4); i < n; i++) {
			static const enum key_id ids[] = {
			    K_FILES_READ, K_FILES_WRITE, K_FILES_HIDE};
			enum key_id id = ids[rnd(3)];
			_cleanup_free_ char *g =
			    rand_path(rnd(4) ? home : "/Volumes/x");
			if (in_hidden(&f.p, g))
				continue; /* policy_resolve refuses it */
			grant(&f, id, g);
			if (id == K_FILES_WRITE && rnd(3) == 0)
				grant(&f, K_FILES_WRITE_DOT_FILES, g);
			strv_push(&probes, g);
			strv_pushf(&probes, "%s/f", g);
			/* a kept name in a random case, and below it */
			const char *nm = d[rnd((uint32_t)nd)].name;
			_cleanup_free_ char *c = xstrdup(nm);
			for (char *x = c; *x; x++)
				if (rnd(2) && *x >= 'a' && *x <= 'z')
					*x = (char)(*x - 'a' + 'A');
			strv_pushf(&probes, "%s/%s", g, c);
			strv_pushf(&probes, "%s/%s/hooks/pre-commit", g, c);
			strv_pushf(&probes, "%s/sub/%s", g, c);
		}
		/* sometimes the home folder itself, or the folder above */
		if (rnd(4) == 0) {
			const char *h = rnd(2) ? home : "/Users";
			grant(&f, K_FILES_WRITE, h);
			if (rnd(3) == 0)
				grant(&f, K_FILES_WRITE_DOT_FILES,
				      rnd(2) ? h : home);
		}
		strv_pushf(&probes, "%s/.zshrc", home);
		strv_pushf(&probes, "%s/library/launchagents/x.plist", home);
		strv_pushf(&probes, "%s/Library/Caches/x", home);
		strv_pushf(&probes, "%s/Library/Application Support/x", home);
		for (size_t i = 0; i < 6; i++) {
			strv_push_take(&probes, rand_path(home));
			strv_push_take(&probes, rand_path("/Users"));
		}
		for (size_t i = 0; i < f.p.always_hidden.n; i++)
			strv_pushf(&probes, "%s/secret",
				   f.p.always_hidden.v[i]);
		strv_push(&probes, "/private/etc/master.passwd");
		strv_push(&probes, "/private/tmp/x");

		struct node *prof = build_and_read(&f);
		for (size_t i = 0; i < probes.n; i++)
			check_path(prof, &f.p, home, probes.v[i], f.out);
		/* The system is read, never written. */
		assert_true(allowed(prof, OP_READ, "/usr/bin/env", -1));
		assert_false(allowed(prof, OP_WRITE, "/usr/bin/env", -1));
		/* No network without a grant. */
		assert_false(allowed(prof, OP_NET, NULL, 443));
		node_free(prof);
		strv_free(&probes);
		teardown(&f);
	}
}

/* Network: exactly --port's ports, nothing else (no fixed port of a
 * wire that does not run on macOS: 3128 and 1080 are someone else's). */
static void network_only_granted_ports(void **state)
{
	(void)state;
	struct fixture f;
	setup(&f, HOME);
	grant(&f, K_COMMANDS_ALLOW, "*");
	grant(&f, K_LOCALHOST_PORTS, "5432");
	struct node *prof = build_and_read(&f);
	for (int port = 1; port < 65536; port++) {
		bool want = port == 5432;
		if (allowed(prof, OP_NET, NULL, port) != want)
			fail_msg("port %d: want %d", port, want);
	}
	node_free(prof);
	teardown(&f);
}

/* [commands]: only the listed files and folders run. */
static void exec_only_listed(void **state)
{
	(void)state;
	struct fixture f;
	setup(&f, HOME);
	grant(&f, K_COMMANDS_ALLOW, "sh");
	strv_push(&f.files, "/bin/sh");
	strv_push(&f.folders, "/opt/tools");
	struct node *prof = build_and_read(&f);
	assert_true(allowed(prof, OP_EXEC, "/bin/sh", -1));
	assert_true(allowed(prof, OP_EXEC, "/opt/tools/x", -1));
	assert_false(allowed(prof, OP_EXEC, "/bin/bash", -1));
	assert_false(allowed(prof, OP_EXEC, "/opt/toolsx", -1));
	node_free(prof);
	teardown(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(g_bare),
	    cmocka_unit_test(g_write),
	    cmocka_unit_test(g_write_dot_files),
	    cmocka_unit_test(g_read),
	    cmocka_unit_test(g_read_home_hide),
	    cmocka_unit_test(g_write_above_home),
	    cmocka_unit_test(g_linked_home),
	    cmocka_unit_test(g_ports),
	    cmocka_unit_test(g_commands),
	    cmocka_unit_test(g_commands_none_found),
	    cmocka_unit_test(g_launch),
	    cmocka_unit_test(g_combined),
	    cmocka_unit_test(g_hostile_path),
	    cmocka_unit_test(refuses_limits),
	    cmocka_unit_test(maps_every_other_key),
	    cmocka_unit_test(refuses_control_characters),
	    cmocka_unit_test(quote_escapes),
	    cmocka_unit_test(reader_rejects_broken_profiles),
	    cmocka_unit_test(properties),
	    cmocka_unit_test(network_only_granted_ports),
	    cmocka_unit_test(exec_only_listed),
	    cmocka_unit_test(hole_tty_ioctl),
	    cmocka_unit_test(hole_network_grant_refused),
	    cmocka_unit_test(hole_linked_home),
	    cmocka_unit_test(hole_library_folders),
	    cmocka_unit_test(hole_system_reads),
	    cmocka_unit_test(hole_process_info),
	    cmocka_unit_test(hole_unicode_case),
	    cmocka_unit_test(hole_semaphores),
	    cmocka_unit_test(size_twenty_write_folders),
	    cmocka_unit_test(wire_profile_denies_by_default),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
