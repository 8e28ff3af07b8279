/* What a run left (src/changes): the git config's program keys, the
 * table of flags, and the walk (links not followed, bounds said). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "changes/changes.h"
#include "changes/flags.h"
#include "changes/hooks.h"
#include "common/buf.h"
#include "common/util.h"

static size_t programs(const char *cfg, char ***keys)
{
	size_t n = 0;
	*keys = NULL;
	gitcfg_programs(cfg, strlen(cfg), keys, &n, 16);
	return n;
}

static void free_keys(char **k, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(k[i]);
	free(k);
}

static void git_config_keys(void **state)
{
	(void)state;
	char **k;
	size_t n = programs("[core]\n\tfsmonitor = sh -c evil\n"
			    "\tbare = false\n[alias]\n\tl = log\n\tx = !sh\n"
			    "[filter \"lfs\"]\n\tclean = x %f\n"
			    "[includeIf \"gitdir:/x/\"]\n\tpath = /tmp/c\n"
			    "[core]\n  fsmonitor = true\n  PAGER = less\n",
			    &k);
	assert_int_equal(n, 5);
	assert_non_null(strstr(k[0], "core.fsmonitor runs when git reads"));
	assert_non_null(strstr(k[1], "alias.x runs a shell command"));
	assert_non_null(strstr(k[2], "filter.lfs.clean"));
	assert_non_null(strstr(k[3], "includeif.gitdir:/x/.path"));
	assert_non_null(strstr(k[4], "core.pager"));
	free_keys(k, n);
	/* [section.sub], garbage, no newline at the end, a bound */
	n = programs("[[[\n=\n\x01\x02\n[diff.pdf]\ntextconv=x", &k);
	assert_int_equal(n, 1);
	assert_non_null(strstr(k[0], "diff.pdf.textconv"));
	free_keys(k, n);
	/* what git reads too: a variable on the header's line, a byte order
	 * mark, a long subsection, CRLF */
	n = programs(
	    "\xef\xbb\xbf[core] fsmonitor = x\r\n"
	    "[filter \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"] smudge = y\n"
	    "[core]\tpager=z # c\n",
	    &k);
	assert_int_equal(n, 3);
	assert_non_null(strstr(k[0], "core.fsmonitor"));
	assert_non_null(strstr(k[1], "filter.aaaa"));
	assert_non_null(strstr(k[1], ".smudge runs"));
	assert_non_null(strstr(k[2], "core.pager"));
	free_keys(k, n);
	/* two headers on one line: git reads the keys after the second
	 * under it */
	n = programs("[x][core]\n\tfsmonitor = \"touch /tmp/PWN; false\"\n"
		     "[x] [core]\n\tpager = p\n"
		     "[a \"b\"][core] editor = e\n",
		     &k);
	assert_int_equal(n, 3);
	assert_non_null(strstr(k[0], "core.fsmonitor"));
	assert_non_null(strstr(k[1], "core.pager"));
	assert_non_null(strstr(k[2], "core.editor"));
	free_keys(k, n);
	n = programs("[alias]\n\ty = \\\n!sh\n", &k);
	assert_int_equal(n, 1);
	free_keys(k, n);
	/* ext:: URLs are commands once the ext protocol is allowed: the
	 * allowing key, a URL rewritten to one, a remote's URL that is one;
	 * and a trailer's command (git commit --trailer) */
	n = programs("[protocol \"ext\"]\n\tallow = always\n"
		     "[protocol]\n\tallow = never\n"
		     "[url \"ext::sh -c id \"]\n\tinsteadOf = https://x/\n"
		     "[url \"https://mirror/\"]\n\tinsteadOf = https://x/\n"
		     "[remote \"o\"]\n\turl = EXT::sh -c id\n"
		     "\tpushurl = https://x/\n"
		     "[trailer \"sign\"]\n\tcmd = ./sign.sh\n",
		     &k);
	assert_int_equal(n, 4);
	assert_non_null(strstr(k[0], "protocol.ext.allow"));
	assert_non_null(strstr(k[1], "url.ext::sh -c id .insteadof"));
	assert_non_null(strstr(k[2], "remote.o.url"));
	assert_non_null(strstr(k[3], "trailer.sign.cmd"));
	free_keys(k, n);
	/* an alias whose first word is a global option: -c and
	 * --config-env set any key (a fsmonitor, a pager), --exec-path,
	 * -C, --git-dir and --work-tree pick another git or repository */
	n = programs("[alias]\n\tst = -c core.fsmonitor=\"touch /tmp/x\" "
		     "status\n\tl = log --oneline\n"
		     "\te = \"--exec-path=/tmp/x\" status\n"
		     "\tc =   -C /tmp/x status\n\td = \"\" -c a.b=c x\n"
		     "\tg = --git-dir=/tmp/r log\n\tm = log -c\n"
		     "\tw = \"\\\\-c\" a.b=c x\n"
		     "\tz = \"\\\"-c\\\"\" a.b=c x\n",
		     &k);
	assert_int_equal(n, 7);
	assert_non_null(strstr(k[0], "alias.st "));
	assert_non_null(strstr(k[0], "option"));
	assert_non_null(strstr(k[1], "alias.e "));
	assert_non_null(strstr(k[2], "alias.c "));
	/* git drops the blank after an empty "" (the value starts at
	 * -c), then removes the alias's own quotes and backslashes */
	assert_non_null(strstr(k[3], "alias.d "));
	assert_non_null(strstr(k[4], "alias.g "));
	assert_non_null(strstr(k[5], "alias.w "));
	assert_non_null(strstr(k[6], "alias.z "));
	free_keys(k, n);
	struct buf many = {0};
	buf_puts(&many, "[alias]\n");
	for (int i = 0; i < 100; i++)
		buf_printf(&many, "a%d = !x\n", i);
	n = programs(many.p, &k);
	assert_int_equal(n, 16);
	free_keys(k, n);
	buf_free(&many);
}

static char *check(const char *name, mode_t mode, struct flag_where w)
{
	return flags_check(AT_FDCWD, name, mode, &w, NULL);
}

static void table_rows(void **state)
{
	(void)state;
	struct flag_where top = {0}, deep = {.depth = 2},
			  vend = {.depth = 2, .vendored = true},
			  site = {.depth = 4, .vendored = true, .site = true},
			  bin = {.depth = 2, .venv_bin = true};
	char *r;
	assert_non_null(r = check("readline.py", S_IFREG | 0644, top));
	assert_non_null(strstr(r, "readline"));
	free(r);
	assert_null(check("readline.py", S_IFREG | 0644, deep));
	assert_non_null(r = check("pip", S_IFDIR | 0755, top));
	free(r);
	assert_non_null(r = check("Makefile", S_IFREG | 0644, deep));
	free(r);
	assert_null(check("Makefile", S_IFREG | 0644, vend));
	assert_non_null(r = check("eslint.config.mjs", S_IFREG | 0644, deep));
	free(r);
	assert_null(check("eslint.config.json", S_IFREG | 0644, deep));
	assert_non_null(r = check("x.pth", S_IFREG | 0644, site));
	free(r);
	assert_null(check("x.pth", S_IFREG | 0644, deep));
	assert_non_null(r = check("black", S_IFLNK | 0777, bin));
	free(r);
	assert_non_null(r = check("run", S_IFREG | 04755, vend));
	assert_non_null(strstr(r, "set-ID"));
	free(r);
	assert_non_null(r = check(".git", S_IFDIR | 0755, deep));
	assert_non_null(strstr(r, "repository"));
	free(r);
	assert_null(check(".git", S_IFDIR | 0755, top));
	assert_null(check("notes.txt", S_IFREG | 0644, deep));
	struct flag_where w = {.depth = 1};
	r = flags_check(AT_FDCWD, "l", S_IFLNK | 0777, &w, "/etc");
	assert_non_null(strstr(r, "to /etc"));
	free(r);
	/* the table's folders */
	struct flag_where child;
	flags_enter(&deep, ".git", false, &child);
	assert_true(child.in_git && child.below_top);
	struct flag_where hooks;
	flags_enter(&child, "hooks", false, &hooks);
	assert_non_null(r = check("pre-commit", S_IFREG | 0755, hooks));
	free(r);
	assert_null(check("pre-commit.sample", S_IFREG | 0755, hooks));
	/* the dot-file list below the top, and inside its folders */
	assert_non_null(r = check(".npmrc", S_IFREG | 0644, deep));
	assert_non_null(strstr(r, ".npmrc: npm reads"));
	free(r);
	flags_enter(&deep, ".vscode", false, &child);
	assert_non_null(r = check("tasks.json", S_IFREG | 0644, child));
	assert_non_null(strstr(r, "in .vscode"));
	free(r);
	assert_null(check(".npmrc", S_IFREG | 0644, vend));
	flags_enter(&top, "node_modules", false, &child);
	assert_true(child.vendored);
	flags_enter(&top, "bin", true, &child);
	assert_true(child.venv_bin);
	/* a folder on PATH says so first, before a link out or a dot
	 * folder's reason */
	struct flag_where path = {.depth = 2, .on_path = true};
	flags_enter(&deep, ".local", false, &child);
	path.dot = child.dot;
	assert_non_null(path.dot);
	r = flags_check(AT_FDCWD, "ls", S_IFLNK | 0777, &path, "/tmp/x");
	assert_non_null(strstr(r, "on your PATH"));
	assert_ptr_equal(strstr(r, "a new program or link"), r);
	assert_non_null(strstr(r, "to /tmp/x"));
	free(r);
	assert_non_null(r = check("mv", S_IFREG | 0755, path));
	assert_ptr_equal(strstr(r, "a new program or link"), r);
	free(r);
	assert_null(check("notes", S_IFREG | 0644,
			  (struct flag_where){.depth = 2, .on_path = true}));
}

/* The folder rel below the configuration folder (data: the data
 * folder), and the reason for name there. */
static char *xdg_check(bool data, const char *rel, const char *name)
{
	struct flag_where w = {.depth = 1};
	if (data)
		flags_data_folder("", &w);
	else
		flags_config_folder("", &w);
	while (*rel) {
		char comp[64];
		size_t n = strcspn(rel, "/");
		memcpy(comp, rel, n);
		comp[n] = '\0';
		struct flag_where c;
		flags_enter(&w, comp, false, &c);
		w = c;
		rel += n + (rel[n] == '/');
	}
	return flags_check(AT_FDCWD, name, S_IFREG | 0644, &w, NULL);
}

static void xdg_rows(void **state)
{
	(void)state;
	static const struct {
		bool data;
		const char *dir, *name, *word;
	} runs[] = {
	    {false, "tmux", "tmux.conf", "tmux"},
	    {false, "tmux", "theme.conf", "tmux"},
	    {false, "fish/completions", "git.fish", "fish"},
	    {false, "nvim/after/plugin", "x.lua", "Neovim"},
	    {false, "nvim/ftplugin", "python.vim", "Neovim"},
	    {false, "Code/User", "settings.json", "VS Code"},
	    {false, "Code/User", "tasks.json", "VS Code"},
	    {false, "", "starship.toml", "starship"},
	    {false, "gh", "config.yml", "gh"},
	    {false, "", "mimeapps.list", "opens"},
	    {true, "applications", "x.desktop", "Exec"},
	    {true, "applications/kde", "x.desktop", "Exec"},
	    {true, "applications", "mimeapps.list", "opens"},
	    {true, "nvim/site/pack/p/start/x/plugin", "x.lua", "Neovim"},
	    {true, "fish/vendor_conf.d", "x.fish", "fish"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(runs); i++) {
		char *r = xdg_check(runs[i].data, runs[i].dir, runs[i].name);
		if (!r || !strstr(r, runs[i].word))
			fail_msg("%s/%s: %s", runs[i].dir, runs[i].name,
				 r ? r : "(none)");
		free(r);
	}
	static const struct {
		bool data;
		const char *dir, *name;
	} quiet[] = {
	    {false, "tmux", "notes.txt"},
	    {false, "Code/User", "keybindings.json"},
	    {false, "", "user-dirs.dirs"},
	    {true, "applications", "notes.txt"},
	    {true, "", "starship.toml"},
	    {false, "applications", "x.desktop"},
	    {true, "nvim", "notes.txt"},
	    {true, "fish", "fish_history"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(quiet); i++) {
		char *r = xdg_check(quiet[i].data, quiet[i].dir, quiet[i].name);
		if (r)
			fail_msg("%s/%s: %s", quiet[i].dir, quiet[i].name, r);
	}
}

static void put(int dir, const char *name, const char *text)
{
	int fd = openat(dir, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* Until the clock file systems stamp from has moved past name's change
 * time: a change in the same tick as the start counts as changed (the
 * safe side of a clock's granularity), which is not what is tested. */
static void past(int dir, const char *name)
{
	struct stat st;
	assert_int_equal(fstatat(dir, name, &st, 0), 0);
	struct timespec now;
	do
		clock_gettime(CLOCK_REALTIME_COARSE, &now);
	while (now.tv_sec < st.st_ctim.tv_sec ||
	       (now.tv_sec == st.st_ctim.tv_sec &&
		now.tv_nsec <= st.st_ctim.tv_nsec));
}

static void walk_tree(void **state)
{
	(void)state;
	char tmpl[] = "/tmp/lnk-changes-XXXXXX";
	char out_tmpl[] = "/tmp/lnk-changes-out-XXXXXX";
	assert_non_null(mkdtemp(tmpl));
	assert_non_null(mkdtemp(out_tmpl));
	char *top = realpath(tmpl, NULL);
	int d = open(top, O_RDONLY | O_DIRECTORY);
	assert_true(d >= 0);
	/* before the start: not changed */
	put(d, "old.txt", "x");
	past(d, "old.txt");
	struct timespec since;
	changes_stamp(top, &since);
	/* after it */
	assert_int_equal(mkdirat(d, "node_modules", 0755), 0);
	put(d, "node_modules/a.js", "x");
	put(d, "node_modules/Makefile", "x");
	put(d, "Makefile", "all:\n");
	put(d, "new.txt", "x");
	assert_int_equal(symlinkat(out_tmpl, d, "out"), 0);
	/* a link into node_modules brings a package's files (counted only)
	 * where pytest and make look (tests/conftest.py, build/Makefile);
	 * one to a file of the project's does not */
	assert_int_equal(
	    symlinkat("./node_modules/../node_modules", d, "tests"), 0);
	assert_int_equal(symlinkat("new.txt", d, "readme"), 0);
	/* a Makefile behind the link: never walked */
	int o = open(out_tmpl, O_RDONLY | O_DIRECTORY);
	put(o, "Makefile", "x");
	close(o);
	struct changes_bounds b;
	changes_bounds_default(&b);
	struct changes_where in = {0};
	struct changes_folder f;
	struct lnk_err err = {0};
	assert_int_equal(changes_walk(top, since, &in, &b, &f, &err), 0);
	assert_int_equal(f.changed, 7);
	assert_int_equal(f.bulky[0], 2); /* node_modules */
	assert_false(f.cut);
	assert_int_equal(f.nflags, 3);
	bool makefile = false, link = false, into = false;
	for (size_t i = 0; i < f.nflags; i++) {
		makefile |= strcmp(f.flags[i].path, "Makefile") == 0;
		link |= strcmp(f.flags[i].path, "out") == 0;
		into |= strcmp(f.flags[i].path, "tests") == 0 &&
			strstr(f.flags[i].reason, "node_modules");
	}
	assert_true(makefile && link && into);
	struct buf t = {0};
	changes_text(&t, &f, 1, CHANGES_SUMMARY, NULL, 0, NULL);
	assert_non_null(strstr(t.p, "changed 7 files in "));
	assert_non_null(strstr(t.p, "(2 in node_modules)"));
	buf_free(&t);
	changes_folder_free(&f);
	/* a bound says so */
	b.max_entries = 2;
	assert_int_equal(changes_walk(top, since, &in, &b, &f, &err), 0);
	assert_true(f.cut);
	changes_text(&t, &f, 1, CHANGES_SUMMARY, NULL, 0, NULL);
	assert_non_null(strstr(t.p, "not all looked at"));
	/* what it counted is a floor, and says so */
	assert_non_null(strstr(t.p, "changed at least "));
	buf_free(&t);
	changes_folder_free(&f);
	/* a ^C pending (lnk's signals are blocked then) ends the walk */
	b.max_entries = 1000;
	sigset_t set, old;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, &old);
	raise(SIGINT);
	assert_int_equal(changes_walk(top, since, &in, &b, &f, &err), 0);
	assert_true(f.cut);
	assert_string_equal(f.cut_why, "stopped by a signal");
	changes_folder_free(&f);
	int sig;
	sigwait(&set, &sig);
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(d);
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", top, out_tmpl);
	assert_int_equal(system(cmd), 0);
	free(top);
}

/* Past the bound on flags, plain executables give way: a program that
 * makes scripts first (their names choose the walk's order) cannot push
 * a build file or a repository's config out of the report. */
static void plain_executables_give_way(void **state)
{
	(void)state;
	char tmpl[] = "/tmp/lnk-changes-XXXXXX";
	assert_non_null(mkdtemp(tmpl));
	char *top = realpath(tmpl, NULL);
	int d = open(top, O_RDONLY | O_DIRECTORY);
	assert_true(d >= 0);
	struct timespec since;
	changes_stamp(top, &since);
	/* the Makefile first, then many scripts: in creation order (tmpfs
	 * lists the newest first) or a hash's, it is seldom among the
	 * first three found */
	put(d, "Makefile", "all:\n");
	for (int i = 0; i < 60; i++) {
		char name[16];
		snprintf(name, sizeof(name), "s%d.sh", i);
		put(d, name, "#!/bin/sh\n");
		assert_int_equal(fchmodat(d, name, 0755, 0), 0);
	}
	struct changes_bounds b;
	changes_bounds_default(&b);
	b.max_flags = 3;
	struct changes_where in = {0};
	struct changes_folder f;
	struct lnk_err err = {0};
	assert_int_equal(changes_walk(top, since, &in, &b, &f, &err), 0);
	assert_true(f.cut);
	assert_int_equal(f.nflags, 3);
	bool makefile = false;
	for (size_t i = 0; i < f.nflags; i++)
		makefile |= strcmp(f.flags[i].path, "Makefile") == 0;
	assert_true(makefile);
	changes_folder_free(&f);
	close(d);
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	assert_int_equal(system(cmd), 0);
	free(top);
}

/* The home's .local/bin and bin are on PATH at the next login (Debian's
 * ~/.profile adds them when they exist), whatever PATH lnk had: a link
 * made there is a program on PATH, by identity, whether the walk starts
 * at the home, at ~/.local or at the folder itself. */
static void home_bin_folders_are_on_path(void **state)
{
	(void)state;
	char tmpl[] = "/tmp/lnk-changes-home-XXXXXX";
	assert_non_null(mkdtemp(tmpl));
	char *home = realpath(tmpl, NULL);
	char *old = getenv("HOME") ? xstrdup(getenv("HOME")) : NULL;
	setenv("HOME", home, 1);
	int d = open(home, O_RDONLY | O_DIRECTORY);
	assert_true(d >= 0);
	assert_int_equal(mkdirat(d, ".local", 0755), 0);
	assert_int_equal(mkdirat(d, ".local/bin", 0755), 0);
	assert_int_equal(mkdirat(d, "bin", 0755), 0);
	assert_int_equal(mkdirat(d, ".cache", 0755), 0);
	put(d, ".cache/run", "x");
	past(d, ".cache/run");
	struct timespec since;
	changes_stamp(home, &since);
	assert_int_equal(symlinkat("../../.cache/run", d, ".local/bin/ls"), 0);
	assert_int_equal(symlinkat("../.cache/run", d, "bin/cat"), 0);
	struct changes_bounds b;
	changes_bounds_default(&b);
	struct changes_where in = {0};
	const char *tops[] = {"", "/.local", "/.local/bin", "/bin"};
	for (size_t t = 0; t < ARRAY_SIZE(tops); t++) {
		char *top = xasprintf("%s%s", home, tops[t]);
		struct changes_folder f;
		struct lnk_err err = {0};
		assert_int_equal(changes_walk(top, since, &in, &b, &f, &err),
				 0);
		size_t want = t == 0 ? 2 : 1;
		assert_int_equal(f.nflags, want);
		for (size_t i = 0; i < f.nflags; i++)
			if (strncmp(f.flags[i].reason, "a new program or link",
				    21) != 0)
				fail_msg("%s in %s: %s", f.flags[i].path, top,
					 f.flags[i].reason);
		changes_folder_free(&f);
		free(top);
	}
	close(d);
	if (old)
		setenv("HOME", old, 1);
	else
		unsetenv("HOME");
	free(old);
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", home);
	assert_int_equal(system(cmd), 0);
	free(home);
}

/* A mode others may use: a file or a folder every account may write
 * (not a sticky folder, not group write alone), a FIFO, a socket, a
 * device node; and the plain executable's rank under FLAG_MOVED. */
static void modes_others_may_use(void **state)
{
	(void)state;
	struct flag_where deep = {.depth = 2},
			  vend = {.depth = 2, .vendored = true};
	char *r;
	assert_non_null(r = check("build.sh", S_IFREG | 0666, deep));
	assert_non_null(strstr(r, "writable by every account"));
	free(r);
	assert_non_null(r = check("scripts", S_IFDIR | 0777, deep));
	assert_non_null(strstr(r, "writable by every account"));
	free(r);
	/* in a folder of packages too: another account changes a package */
	assert_non_null(r = check("index.js", S_IFREG | 0666, vend));
	free(r);
	/* what else it is follows */
	assert_non_null(r = check("Makefile", S_IFREG | 0666, deep));
	assert_non_null(strstr(r, "a build file"));
	free(r);
	assert_null(check("shared", S_IFDIR | 01777, deep));
	assert_null(check("group", S_IFDIR | 0775, deep));
	assert_null(check("notes.txt", S_IFREG | 0664, deep));
	assert_null(check("l", S_IFLNK | 0777, deep));
	assert_non_null(r = check("Makefile", S_IFIFO | 0644, deep));
	assert_non_null(strstr(r, "FIFO"));
	free(r);
	assert_non_null(r = check("s", S_IFSOCK | 0755, vend));
	assert_non_null(strstr(r, "socket"));
	free(r);
	assert_non_null(r = check("sda", S_IFBLK | 0600, deep));
	assert_non_null(strstr(r, "device node"));
	free(r);
	assert_true(flags_plain(FLAG_EXECUTABLE " x"));
	assert_true(flags_plain(FLAG_MOVED FLAG_EXECUTABLE " x"));
	assert_false(flags_plain(FLAG_MOVED "a build file"));
	/* the folders whose place decides: PATH, a git directory below the
	 * top, the top's hooks, ...; not the top's own git directory (every
	 * commit writes it), a project folder, nor site-packages (a pip
	 * install adds there) */
	struct flag_where path = {.on_path = true},
			  git = {.in_git = true, .below_top = true},
			  top_git = {.in_git = true},
			  hooks = {.in_git = true, .git_hooks = true},
			  site = {.site = true, .vendored = true};
	assert_true(flags_place_decides(&path));
	assert_true(flags_place_decides(&git));
	assert_false(flags_place_decides(&top_git));
	assert_true(flags_place_decides(&hooks));
	assert_false(flags_place_decides(&deep));
	assert_false(flags_place_decides(&site));
}

static void nothing_changed_says_nothing(void **state)
{
	(void)state;
	struct changes_folder f = {.top = (char *)"/w"};
	struct buf t = {0};
	changes_text(&t, &f, 1, CHANGES_FULL, NULL, 0, NULL);
	assert_int_equal(t.len, 0);
	enum changes_mode m;
	assert_int_equal(changes_mode_parse("full", &m), 0);
	assert_int_equal(m, CHANGES_FULL);
	assert_int_equal(changes_mode_parse("FULL", &m), -EINVAL);
}

/* The scripts a repository's hooks name: a path held whole in a hook's
 * text, after "./", a "/", a quote or a space, before an end of the same
 * kind; a longer name, a name with more before it, git's examples and
 * husky's own folder are not. */
static void hooks_name_whole_paths(void **state)
{
	(void)state;
	char tmpl[] = "/tmp/lnk-hooks-XXXXXX";
	assert_non_null(mkdtemp(tmpl));
	int d = open(tmpl, O_RDONLY | O_DIRECTORY);
	assert_true(d >= 0);
	assert_null(hooks_read(d)); /* no repository */
	assert_int_equal(mkdirat(d, ".git", 0755), 0);
	assert_int_equal(mkdirat(d, ".git/hooks", 0755), 0);
	put(d, ".git/hooks/pre-commit",
	    "#!/bin/sh\n./scripts/lint.sh --all && \"$ROOT/ci/a b.sh\"\n"
	    "x=tools/fmt.sh; run(bin/t)\nnode js/fmt && python3 -m "
	    "py.check\n");
	put(d, ".git/hooks/pre-push.sample", "exec never/run.sh\n");
	put(d, ".git/config", "[core]\n\thooksPath = ../outside\n");
	struct hooks *h = hooks_read(d);
	assert_non_null(h);
	static const char *const named[] = {
	    "scripts/lint.sh", "ci/a b.sh", "tools/fmt.sh", "bin/t",
	    "lint.sh",	       "js/fmt.js", "py/check.py"};
	for (size_t i = 0; i < ARRAY_SIZE(named); i++)
		assert_string_equal(hooks_naming(h, named[i], strlen(named[i])),
				    ".git/hooks/pre-commit");
	static const char *const not_named[] = {
	    "scripts/lint.s", "cripts/lint.sh", "never/run.sh", "bin", ""};
	for (size_t i = 0; i < ARRAY_SIZE(not_named); i++)
		assert_null(
		    hooks_naming(h, not_named[i], strlen(not_named[i])));
	hooks_free(h);
	close(d);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpl);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(hooks_name_whole_paths),
	    cmocka_unit_test(git_config_keys),
	    cmocka_unit_test(table_rows),
	    cmocka_unit_test(xdg_rows),
	    cmocka_unit_test(walk_tree),
	    cmocka_unit_test(plain_executables_give_way),
	    cmocka_unit_test(home_bin_folders_are_on_path),
	    cmocka_unit_test(modes_others_may_use),
	    cmocka_unit_test(nothing_changed_says_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
