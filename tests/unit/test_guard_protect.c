/* What a run protects by class (src/guard/protect.c), on real folders:
 * git's config, .gitmodules and index read as data (hostile ones too), the
 * home folder's top, link chains, holders of hidden folders. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/buf.h"
#include "guard/envconf.h"
#include "guard/gitkeys.h"
#include "guard/internal.h"
#include "guard/toolconf.h"
#include "policy/dotfiles.h"

static char top[PATH_MAX];

static void put(const char *rel, const void *data, size_t len)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/%s", top, rel);
	/* parents */
	for (char *s = p + strlen(top) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		(void)mkdir(p, 0755);
		*s = '/';
	}
	if (!data) {
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			fail_msg("mkdir %s: %s", p, strerror(errno));
		return;
	}
	int fd = open(p, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, data, len) != (ssize_t)len)
		fail_msg("write %s: %s", p, strerror(errno));
	close(fd);
}

static void puts_(const char *rel, const char *text)
{
	put(rel, text, strlen(text));
}

static int setup(void **state)
{
	(void)state;
	char tmpl[] = "/tmp/lnk-protect-XXXXXX";
	if (!mkdtemp(tmpl))
		return -1;
	char *rp = realpath(tmpl, NULL);
	snprintf(top, sizeof(top), "%s", rp);
	free(rp);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	return system(cmd) == 0 ? 0 : -1;
}

struct result {
	struct guard_plan np;
	struct strv ro;
};

static void plan(const char *home, const char *const *write,
		 const char *const *hidden, struct result *r)
{
	struct strv w = {0}, h = {0}, lifted = {0};
	for (size_t i = 0; write[i]; i++)
		if (*write[i])
			strv_pushf(&w, "%s/%s", top, write[i]);
		else
			strv_push(&w, top);
	for (size_t i = 0; hidden && hidden[i]; i++)
		strv_pushf(&h, "%s/%s", top, hidden[i]);
	_cleanup_free_ char *hp = xasprintf("%s/%s", top, home);
	struct protect_in in = {
	    .write = &w, .lifted = &lifted, .hidden = &h, .home = hp};
	struct lnk_err err = {0};
	*r = (struct result){0};
	assert_true(guard_protect(&in, &r->np, &r->ro, &err) >= 0);
	strv_free(&w);
	strv_free(&h);
}

static void result_free(struct result *r)
{
	guard_plan_free(&r->np);
	strv_free(&r->ro);
}

/* Whether creating name in folder rel (under top) is refused. */
static bool refused(const struct result *r, const char *rel, const char *name)
{
	char p[PATH_MAX];
	struct stat st;
	snprintf(p, sizeof(p), "%s/%s", top, rel);
	if (stat(p, &st) < 0)
		fail_msg("stat %s: %s", p, strerror(errno));
	return guard_decide(r->np.guards, r->np.n, st.st_dev, st.st_ino,
			    name) != NULL;
}

static bool bound(const struct result *r, const char *rel)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/%s", top, rel);
	return strv_contains(&r->ro, p);
}

static void git_classes(void **state)
{
	(void)state;
	struct result r;
	puts_("h/w/.git/HEAD", "ref: refs/heads/main\n");
	put("h/w/.git/objects", NULL, 0);
	put("h/w/.git/refs", NULL, 0);
	puts_("h/w/.git/config",
	      "[core]\n\thooksPath = \"hooks dir\" ; a comment\n"
	      "[include]\n  path = ../inc.cfg\n"
	      "[includeIf \"onbranch:main\"]\n\tPATH=../conf/x.cfg\n"
	      "[core \"odd\"\n"
	      "\tnovalue\n");
	puts_("h/w/inc.cfg", "[core]\n\thookspath = ignored-later\n");
	puts_("h/w/.gitmodules", "[submodule \"a\"]\n\tpath = lib/sub\n"
				 "\tpath = /etc\n\tpath =\n");
	put("h/w/lib/sub", NULL, 0);
	const char *const w[] = {"h/w", NULL};
	plan("h", w, NULL, &r);
	/* no HEAD at a top that is not a repository */
	assert_true(refused(&r, "h/w", "HEAD"));
	assert_true(refused(&r, "h/w", "head"));
	assert_false(refused(&r, "h/w", "objects"));
	assert_false(refused(&r, "h/w", "README"));
	/* hooksPath (quoted, with a space), the includes */
	assert_true(refused(&r, "h/w", "hooks dir"));
	assert_true(refused(&r, "h/w", "ignored-later"));
	assert_true(bound(&r, "h/w/inc.cfg"));
	assert_true(refused(&r, "h/w", "conf"));
	/* the submodule's missing .git */
	assert_true(refused(&r, "h/w", "lib"));
	assert_true(refused(&r, "h/w/lib", "sub"));
	assert_true(refused(&r, "h/w/lib/sub", ".git"));
	assert_false(refused(&r, "h/w/lib/sub", "x"));
	result_free(&r);
}

static void bare_top(void **state)
{
	(void)state;
	struct result r;
	puts_("b/HEAD", "ref: refs/heads/main\n");
	put("b/objects", NULL, 0);
	put("b/refs", NULL, 0);
	puts_("b/config", "[core]\n\tbare = true\n");
	put("b/hooks", NULL, 0);
	const char *const w[] = {"b", NULL};
	plan("nohome", w, NULL, &r);
	assert_true(bound(&r, "b/HEAD"));
	assert_true(bound(&r, "b/config"));
	assert_true(bound(&r, "b/hooks"));
	assert_false(bound(&r, "b/objects"));
	assert_true(refused(&r, "b", "info"));
	result_free(&r);
}

static void home_top(void **state)
{
	(void)state;
	struct result r;
	puts_("home/.bash_aliases", "alias x=y\n");
	put("home/.lnk", NULL, 0);
	put("home/Link/Agents", NULL, 0);
	put("home/project", NULL, 0);
	const char *const w[] = {"", NULL}; /* a folder holding the home */
	const char *const hid[] = {"home/.lnk", "home/Link/Agents", NULL};
	plan("home", w, hid, &r);
	assert_true(refused(&r, "home", ".new-rc"));
	assert_true(refused(&r, "home", "bin"));
	assert_false(refused(&r, "home", "notes"));
	assert_true(bound(&r, "home/.bash_aliases"));
	assert_false(bound(&r, "home/.lnk")); /* hidden, not bound */
	/* the holders of hidden folders, and the home itself */
	assert_true(refused(&r, "home", "Link"));
	assert_true(refused(&r, "home/Link", "Agents"));
	assert_true(refused(&r, "", "home"));
	result_free(&r);
}

static void link_chain(void **state)
{
	(void)state;
	struct result r;
	char p[PATH_MAX];
	put("c/real", NULL, 0);
	puts_("c/real/envrc", "x\n");
	snprintf(p, sizeof(p), "%s/c/config", top);
	assert_int_equal(symlink("real", p), 0);
	snprintf(p, sizeof(p), "%s/c/.envrc", top);
	assert_int_equal(symlink("config/envrc", p), 0);
	snprintf(p, sizeof(p), "%s/c/.mise.toml", top);
	assert_int_equal(symlink("gone/mise.toml", p), 0);
	const char *const w[] = {"c", NULL};
	plan("nohome", w, NULL, &r);
	assert_true(refused(&r, "c", "config"));
	assert_true(refused(&r, "c", "real"));
	assert_true(refused(&r, "c/real", "envrc"));
	assert_true(bound(&r, "c/real/envrc"));
	assert_true(refused(&r, "c", "gone"));
	result_free(&r);
}

/* Hostile files: truncated, binary, huge counts, deep includes. Never a
 * crash; whatever is parsed is only ever protected, never opened up. */
static void hostile_input(void **state)
{
	(void)state;
	struct result r;
	unsigned char idx[64] = "DIRC\0\0\0\2\xff\xff\xff\xff";
	puts_("x/.git/HEAD", "ref: refs/heads/main\n");
	put("x/.git/objects", NULL, 0);
	put("x/.git/refs", NULL, 0);
	put("x/.git/index", idx, sizeof(idx));
	puts_("x/.git/config", "[include]\npath = ../.git/config\n"
			       "[core]\nhooksPath = \"\\\n[\n=\n\"\"\"\n"
			       "worktree = \\\n");
	unsigned char junk[4096];
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (unsigned char)(i * 131 + 7);
	put("x/.gitmodules", junk, sizeof(junk));
	put("x/.git/modules/m/HEAD", "x", 1);
	put("x/.git/modules/m/objects", NULL, 0);
	put("x/.git/modules/m/refs", NULL, 0);
	put("x/.git/modules/m/config", junk, sizeof(junk));
	/* an index whose v4 prefix drops more than there is */
	unsigned char v4[128] = "DIRC\0\0\0\4\0\0\0\1";
	put("x/.git/worktrees/wt/index", v4, sizeof(v4));
	const char *const w[] = {"x", NULL};
	plan("nohome", w, NULL, &r);
	assert_true(refused(&r, "x", ".git"));
	result_free(&r);
}

/* Other tools' configuration (rule O), hostile: an ssh config that
 * includes itself and a folder of 200 files that each include it again,
 * junk bytes and a line of no end: the scan ends, bounded, and still keeps
 * what the readable lines name (the wildcard's folder whole, a
 * kubeconfig's relative command from its folder). */
static void other_tools_hostile(void **state)
{
	(void)state;
	struct result r;
	char text[PATH_MAX * 2];
	snprintf(text, sizeof(text),
		 "Include config\nInclude ~/.ssh/d/*\n"
		 "Host x\n ProxyCommand %s/w/jump %%h\n",
		 top);
	puts_("h/.ssh/config", text);
	for (int i = 0; i < 200; i++) {
		char rel[64];
		snprintf(rel, sizeof(rel), "h/.ssh/d/f%03d", i);
		puts_(rel, "Include ~/.ssh/config\nInclude d/*\n");
	}
	unsigned char junk[8192];
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (unsigned char)(i * 131 + 7);
	put("h/.npmrc", junk, sizeof(junk));
	put("h/.aws/config", "credential_process", 18);
	snprintf(text, sizeof(text),
		 "users:\n- user:\n    exec:\n      command: \"../../w/tok\"\n"
		 "      args: [\"-x\", '%s/w/a.py']\n",
		 top);
	puts_("h/.kube/config", text);
	/* values left open at the end, a flow mapping never closed, a lone
	 * quote, a block scalar with nothing below it */
	puts_("h/.cargo/config.toml",
	      "runner = [\n\"x\",\nlinker = \"\"\"\n'''\n\"\n= \"\"\"");
	puts_("h/.config/gh/config.yml",
	      "a: |\n{b: c, d\n\"\n- {\n  - \"e\": >-\n'");
	snprintf(text, sizeof(text),
		 "echo \"$( '\nx=$((\\\n[ -f a ] && . \"%s/w/s.sh\" ; fi\n"
		 "__c=\"$('%s/w/bin/tool' hook)\"\n. ~/.bashrc\n",
		 top, top);
	puts_("h/.bashrc", text);
	put("w/d", NULL, 0);
	const char *const w[] = {"w", "h/.ssh/d", NULL};
	plan("h", w, NULL, &r);
	assert_true(refused(&r, "w", "jump"));
	assert_true(refused(&r, "w", "tok"));
	assert_true(refused(&r, "w", "a.py"));
	assert_true(refused(&r, "w", "s.sh"));
	assert_true(refused(&r, "w", "bin"));
	assert_false(refused(&r, "w", "other"));
	result_free(&r);
	/* more files than are read: what is left could name anything, so
	 * the run is refused, naming the file */
	for (int i = 200; i < 300; i++) {
		char rel[64];
		snprintf(rel, sizeof(rel), "h/.ssh/d/f%03d", i);
		puts_(rel, "Host y\n");
	}
	struct strv wv = {0}, none = {0};
	strv_pushf(&wv, "%s/w", top);
	_cleanup_free_ char *hp = xasprintf("%s/h", top);
	struct protect_in in = {
	    .write = &wv, .lifted = &none, .hidden = &none, .home = hp};
	struct lnk_err err = {0};
	r = (struct result){0};
	assert_int_equal(guard_protect(&in, &r.np, &r.ro, &err), -E2BIG);
	assert_non_null(strstr(err.msg, "include fewer or smaller files"));
	result_free(&r);
	strv_free(&wv);
}

/* A .gitmodules naming more submodules than can be guarded: a clear
 * refusal to run, not a crawl. */
static void too_many(void **state)
{
	(void)state;
	struct buf b = {0};
	put("t/.git/objects", NULL, 0);
	for (int i = 0; i < 10000; i++)
		buf_printf(&b, "[submodule \"s%d\"]\n\tpath = s%d\n", i, i);
	put("t/.gitmodules", b.p, b.len);
	buf_free(&b);
	struct strv w = {0}, none = {0};
	strv_pushf(&w, "%s/t", top);
	struct protect_in in = {
	    .write = &w, .lifted = &none, .hidden = &none, .home = "/none"};
	struct guard_plan np = {0};
	struct strv ro = {0};
	struct lnk_err err = {0};
	assert_int_equal(guard_protect(&in, &np, &ro, &err), -E2BIG);
	assert_non_null(strstr(err.msg, "more than"));
	guard_plan_free(&np);
	strv_free(&ro);
	strv_free(&w);
}

/* The type of the listed dot name, from guard_dot_types on dir. */
static mode_t type_of(const char *dir, const char *name)
{
	size_t n;
	const struct dot_file *d = dot_files(&n);
	mode_t *t = guard_dot_types(dir);
	mode_t r = (mode_t)-1;
	for (size_t i = 0; i < n; i++)
		if (strcmp(d[i].name, name) == 0)
			r = t[i];
	free(t);
	if (r == (mode_t)-1)
		fail_msg("%s is not a listed name", name);
	return r;
}

/* guard_dot_types reads a folder's listing (d_type) and looks each name
 * up only when the folder is too big to list: both give the same types,
 * a missing name is 0, and a name in another case is not the name. */
static void dot_types(void **state)
{
	(void)state;
	char small[PATH_MAX + 8], big[PATH_MAX + 8], p[PATH_MAX + 64];
	snprintf(small, sizeof(small), "%s/small", top);
	snprintf(big, sizeof(big), "%s/big", top);
	for (int k = 0; k < 2; k++) {
		const char *dir = k ? big : small;
		const char *base = k ? "big" : "small";
		char rel[64];
		snprintf(rel, sizeof(rel), "%s/.git/objects", base);
		put(rel, NULL, 0);
		snprintf(rel, sizeof(rel), "%s/.envrc", base);
		puts_(rel, "echo hi\n");
		snprintf(rel, sizeof(rel), "%s/.VSCODE", base);
		put(rel, NULL, 0);
		snprintf(p, sizeof(p), "%s/.npmrc", dir);
		assert_int_equal(symlink("/etc/hostname", p), 0);
		snprintf(p, sizeof(p), "%s/.bashrc", dir);
		assert_int_equal(mkfifo(p, 0600), 0);
		/* the big one lists more than guard_dot_types reads at once */
		for (int i = 0; i < (k ? 6000 : 40); i++) {
			snprintf(p, sizeof(p),
				 "%s/an-ordinary-file-with-a-long-name-%05d",
				 dir, i);
			int fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
			assert_true(fd >= 0);
			close(fd);
		}
		assert_int_equal(type_of(dir, ".git"), S_IFDIR);
		assert_int_equal(type_of(dir, ".envrc"), S_IFREG);
		assert_int_equal(type_of(dir, ".npmrc"), S_IFLNK);
		assert_int_equal(type_of(dir, ".bashrc"), S_IFIFO);
		assert_int_equal(type_of(dir, ".vscode"), 0);
		assert_int_equal(type_of(dir, ".gitmodules"), 0);
	}
	/* A folder that cannot be listed, only searched: looked up. */
	assert_int_equal(chmod(small, 0311), 0);
	if (geteuid() != 0)
		assert_int_equal(type_of(small, ".envrc"), S_IFREG);
	assert_int_equal(chmod(small, 0755), 0);
}

/* Rules C, E and O are one table each: docs/runs-outside.md names each of
 * their keys and variables, so the inventory cannot fall behind what the
 * guard protects. */
static void tables_documented(void **state)
{
	(void)state;
	char *doc = NULL;
	size_t len = 0, n;
	const struct git_key *k = git_keys(&n);

	assert_int_equal(read_file("docs/runs-outside.md", 1 << 20, &doc, &len),
			 0);
	for (size_t i = 0; i < n; i++) {
		char want[128];
		snprintf(want, sizeof(want), "`%s`", k[i].name);
		if (!strstr(doc, want))
			fail_msg("docs/runs-outside.md does not name %s", want);
		assert_non_null(
		    git_key_find(k[i].section, k[i].key ? k[i].key : "x"));
	}
	const struct env_conf *e = env_confs(&n);
	for (size_t i = 0; i < n; i++) {
		char want[128];
		snprintf(want, sizeof(want), "`%s`", e[i].name);
		if (!strstr(doc, want))
			fail_msg("docs/runs-outside.md does not name %s", want);
		if (e[i].kind == ENV_PARTS)
			assert_non_null(e[i].parts);
	}
	const char *files[128];
	n = toolconf_files(files, ARRAY_SIZE(files));
	assert_true(n > 0 && n <= ARRAY_SIZE(files));
	for (size_t i = 0; i < n; i++) {
		char want[128];
		snprintf(want, sizeof(want), "`%s`", files[i]);
		if (!strstr(doc, want))
			fail_msg("docs/runs-outside.md does not name %s", want);
	}
	free(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(git_classes, setup, teardown),
	    cmocka_unit_test(tables_documented),
	    cmocka_unit_test_setup_teardown(bare_top, setup, teardown),
	    cmocka_unit_test_setup_teardown(home_top, setup, teardown),
	    cmocka_unit_test_setup_teardown(link_chain, setup, teardown),
	    cmocka_unit_test_setup_teardown(hostile_input, setup, teardown),
	    cmocka_unit_test_setup_teardown(other_tools_hostile, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(too_many, setup, teardown),
	    cmocka_unit_test_setup_teardown(dot_types, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
