/* Rule P's walk of the home's configuration (src/guard/homelinks.c), on
 * real folders: which links it finds (one level below each dot folder and
 * each entry of the configuration and data folders, not deeper, not in
 * lnk's own ~/.lnk), and that a bound reached is a refusal naming the
 * folder, never a folder passed over. */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "guard/homelinks.h"

static char home[PATH_MAX];

/* Makes the folders of rel, and a link at rel when target is set. */
static void make(const char *rel, const char *target)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/%s", home, rel);
	for (char *s = p + strlen(home) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		(void)mkdir(p, 0755);
		*s = '/';
	}
	if (target) {
		if (symlink(target, p) < 0)
			fail_msg("symlink %s: %s", p, strerror(errno));
	} else if (mkdir(p, 0755) < 0 && errno != EEXIST) {
		fail_msg("mkdir %s: %s", p, strerror(errno));
	}
}

static int setup(void **state)
{
	(void)state;
	char tmpl[] = "/tmp/lnk-homelinks-XXXXXX";
	if (!mkdtemp(tmpl))
		return -1;
	char *rp = realpath(tmpl, NULL);
	snprintf(home, sizeof(home), "%s", rp);
	free(rp);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", home);
	return system(cmd) == 0 ? 0 : -1;
}

static void found(void *ctx, const char *link, const char *why)
{
	(void)why;
	strv_push(ctx, link + strlen(home) + 1);
}

static int walk(struct strv *links, struct lnk_err *err, const char *xdg)
{
	struct home_links_in in = {
	    .home = home,
	    .xdg_data = xdg,
	    .cache = linkcache_open(NULL),
	    .found = found,
	    .ctx = links,
	};
	int r = home_links_walk(&in, err);
	linkcache_close(in.cache);
	return r;
}

static void links_two_folders_down_are_found(void **state)
{
	(void)state;
	make(".bashrc", "dotfiles/bashrc");
	make(".ssh/config", "../dotfiles/ssh/config");
	make(".ssh/config.d/work", "../../dotfiles/work");
	make(".config/nvim", "../dotfiles/nvim");
	make(".config/fish/functions/fish_prompt.fish", "/d/f");
	make(".local/bin/backup", "/d/b");
	make(".local/share/applications/editor.desktop", "/d/e");
	make(".local/share/bash-completion/completions/tool", "/d/c");
	make("data/applications/x.desktop", "/d/x");
	/* not looked into: deeper, lnk's own, not a dot folder */
	make(".config/nvim2/lua/user/init.lua", "/d/i");
	make(".ssh/a/b/deep", "/d/deep");
	make(".lnk/sandbox/x", "/d/own");
	make("project/.envrc", "/d/p");
	struct strv l = {0};
	struct lnk_err err = {0};
	assert_int_equal(walk(&l, &err, NULL), 0);
	const char *want[] = {
	    ".bashrc",
	    ".ssh/config",
	    ".ssh/config.d/work",
	    ".config/nvim",
	    ".config/fish/functions/fish_prompt.fish",
	    ".local/bin/backup",
	    ".local/share/applications/editor.desktop",
	    ".local/share/bash-completion/completions/tool",
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(*want); i++)
		if (!strv_contains(&l, want[i]))
			fail_msg("not found: %s", want[i]);
	assert_int_equal(l.n, sizeof(want) / sizeof(*want));
	strv_free(&l);
	/* XDG_DATA_HOME's entries are looked into like ~/.local/share's */
	char xdg[PATH_MAX + 8];
	snprintf(xdg, sizeof(xdg), "%s/data", home);
	assert_int_equal(walk(&l, &err, xdg), 0);
	assert_true(strv_contains(&l, "data/applications/x.desktop"));
	strv_free(&l);
}

/* A padded folder reaches its own bound first, and the run is refused
 * naming it: it never spends a shared bound so that another folder's
 * link is passed over in silence. */
static void a_padded_folder_is_refused_by_name(void **state)
{
	(void)state;
	char p[64];
	for (int i = 0; i <= HOME_LINKS_BELOW; i++) {
		snprintf(p, sizeof(p), ".config/app/%d", i);
		make(p, NULL);
	}
	make(".ssh/config.d/work", "/d/work");
	struct strv l = {0};
	struct lnk_err err = {0};
	assert_int_equal(walk(&l, &err, NULL), -E2BIG);
	assert_non_null(strstr(err.msg, "/.config/app holds more than 512"));
	assert_non_null(strstr(err.msg, "remove the folders not needed"));
	strv_free(&l);
	/* one folder fewer is walked whole */
	snprintf(p, sizeof(p), "%s/.config/app/0", home);
	assert_int_equal(rmdir(p), 0);
	assert_int_equal(walk(&l, &err, NULL), 0);
	assert_true(strv_contains(&l, ".ssh/config.d/work"));
	strv_free(&l);
}

/* Many folders, each under its own bound, still meet the bound in all:
 * refused, naming where the count ran out. */
static void the_bound_in_all_is_a_refusal(void **state)
{
	(void)state;
	char p[64];
	for (int i = 0; i < HOME_LINKS_TOTAL / 256 + 1; i++)
		for (int j = 0; j < 256; j++) {
			snprintf(p, sizeof(p), ".d%d/%d", i, j);
			make(p, NULL);
		}
	struct strv l = {0};
	struct lnk_err err = {0};
	assert_int_equal(walk(&l, &err, NULL), -E2BIG);
	assert_non_null(strstr(err.msg, "more than 8192 folders in all"));
	strv_free(&l);
}

int main(void)
{
	const struct CMUnitTest t[] = {
	    cmocka_unit_test_setup_teardown(links_two_folders_down_are_found,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(a_padded_folder_is_refused_by_name,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(the_bound_in_all_is_a_refusal,
					    setup, teardown),
	};
	return cmocka_run_group_tests(t, NULL, NULL);
}
