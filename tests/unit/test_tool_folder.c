/* Whether a tool may act in a folder (tools/folder.h): real folders under
 * a private /tmp folder, judged by (device, inode), refused at every
 * level where the program could plant a repository or settings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/util.h"
#include "tools/folder.h"

struct fx {
	char dir[64];
};

static const char *const folders[] = {
    "w",   "w/sub", "w/sub/deep", "w/inner",	   "w/inner/src",
    "out", "home",  "home/proj",  "home/proj/src", "w/a\nb\x1b[2J",
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	char p[256];

	snprintf(f->dir, sizeof(f->dir), "/tmp/lnk-folder-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	for (size_t i = 0; i < sizeof(folders) / sizeof(folders[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", f->dir, folders[i]);
		if (mkdir(p, 0755) < 0)
			return -1;
	}
	snprintf(p, sizeof(p), "%s/link", f->dir);
	if (symlink("w", p) < 0)
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		return -1;
	free(f);
	return 0;
}

/* writes and dots: names under the fixture's folder, NULL ended. */
static void tops(const struct fx *f, const char *const *writes,
		 const char *const *dots, struct tools_tops *out)
{
	struct strv w = {0}, d = {0};
	struct lnk_err e = {0};

	for (; writes && *writes; writes++)
		strv_pushf(&w, "%s/%s", f->dir, *writes);
	for (; dots && *dots; dots++)
		strv_pushf(&d, "%s/%s", f->dir, *dots);
	assert_int_equal(tools_tops_make(&w, &d, out, &e), 0);
	strv_free(&w);
	strv_free(&d);
}

/* The check of the folder name (under the fixture's folder; "" is the
 * fixture's folder itself), with why in out. */
static int check(const struct fx *f, const char *name,
		 const struct tools_tops *t, char *why, size_t cap)
{
	char p[256];

	snprintf(p, sizeof(p), "%s%s%s", f->dir, *name ? "/" : "", name);
	int fd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	int r = tools_folder_check(fd, t, "git", why, cap);
	close(fd);
	return r;
}

static void test_outside_every_write_folder_is_safe(void **state)
{
	struct fx *f = *state;
	struct tools_tops t;
	char why[4096];

	tops(f, (const char *[]){"w", NULL}, NULL, &t);
	assert_int_equal(check(f, "out", &t, why, sizeof(why)), 0);
	assert_int_equal(check(f, "", &t, why, sizeof(why)), 0);
	assert_string_equal(why, "");
	tools_tops_free(&t);
}

static void test_guarded_top_is_safe_and_below_it_is_not(void **state)
{
	struct fx *f = *state;
	struct tools_tops t;
	char why[4096], want[512];

	tops(f, (const char *[]){"w", NULL}, NULL, &t);
	assert_int_equal(check(f, "w", &t, why, sizeof(why)), 0);
	assert_int_equal(check(f, "w/sub", &t, why, sizeof(why)), -EPERM);
	snprintf(want, sizeof(want),
		 "'%s/w/sub' lies inside the write folder '%s/w'", f->dir,
		 f->dir);
	assert_non_null(strstr(why, want));
	snprintf(want, sizeof(want),
		 "run the tool from the top of the write folder '%s/w', or "
		 "grant the project folder itself with --write",
		 f->dir);
	assert_non_null(strstr(why, want));
	assert_int_equal(check(f, "w/sub/deep", &t, why, sizeof(why)), -EPERM);
	tools_tops_free(&t);
}

/* A tool that obeys the project's own files never acts at a guarded top:
 * make, npm, cargo or pytest would read the Makefile, package.json,
 * build.rs or conftest.py the program wrote there, and run the program's
 * code outside; so would ctest (CTestTestfile.cmake), the autotools
 * (configure.ac's esyscmd), a shell (its script) and a wrapper (env make).
 * git and the like (dot names only) still may. */
static void test_guarded_top_is_never_for_build_tools(void **state)
{
	struct fx *f = *state;
	struct tools_tops t;
	char p[256], why[4096];

	tops(f, (const char *[]){"w", NULL}, NULL, &t);
	snprintf(p, sizeof(p), "%s/w", f->dir);
	int fd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	for (const char *const *ok =
		 (const char *const[]){"git", "gh", "/usr/bin/git", "kubectl",
				       NULL};
	     *ok; ok++)
		assert_int_equal(
		    tools_folder_check(fd, &t, *ok, why, sizeof(why)), 0);
	for (const char *const *no =
		 (const char *const[]){
		     "make", "npm", "cargo", "pytest", "/usr/bin/python3.11",
		     "ctest", "autoreconf", "m4", "yarnpkg", "pytest-3", "sh",
		     "/bin/bash", "env", "xargs", "timeout", NULL};
	     *no; no++) {
		assert_int_equal(
		    tools_folder_check(fd, &t, *no, why, sizeof(why)), -EPERM);
		assert_non_null(strstr(why, "run the program's code outside"));
		assert_non_null(strstr(why, *no));
	}
	/* outside every write folder, any tool */
	close(fd);
	snprintf(p, sizeof(p), "%s/out", f->dir);
	fd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(tools_folder_check(fd, &t, "make", why, sizeof(why)),
			 0);
	close(fd);
	tools_tops_free(&t);
}

/* A write top inside another write folder: the program can make a
 * repository in the outer one, above the inner top. The outermost top is
 * named, the one place in there the tool may act. */
static void test_top_inside_another_write_folder_is_refused(void **state)
{
	struct fx *f = *state;
	struct tools_tops t;
	char why[4096], want[512];

	tops(f, (const char *[]){"w/inner", "w", NULL}, NULL, &t);
	assert_int_equal(check(f, "w/inner", &t, why, sizeof(why)), -EPERM);
	snprintf(want, sizeof(want), "top of the write folder '%s/w',", f->dir);
	assert_non_null(strstr(why, want));
	assert_int_equal(check(f, "w/inner/src", &t, why, sizeof(why)), -EPERM);
	assert_int_equal(check(f, "w", &t, why, sizeof(why)), 0);
	tools_tops_free(&t);
}

static void test_write_dot_files_leaves_the_top_unsafe(void **state)
{
	struct fx *f = *state;
	struct tools_tops t;
	char why[4096];

	/* named through a link: the same folder, judged by its inode */
	tops(f, (const char *[]){"w", "home", NULL},
	     (const char *[]){"link", NULL}, &t);
	assert_int_equal(check(f, "w", &t, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "--write-dot-files"));
	assert_non_null(strstr(why, "run the tool from a folder outside"));
	assert_int_equal(check(f, "w/sub", &t, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "--write-dot-files"));
	/* the other top keeps its guard */
	assert_int_equal(check(f, "home", &t, why, sizeof(why)), 0);
	assert_int_equal(check(f, "out", &t, why, sizeof(why)), 0);
	tools_tops_free(&t);
}

/* The home as a write folder with a project granted inside: only the
 * home's top is safe, the project (strictly inside the home) is not. */
static void test_home_write_folder_with_a_project_inside(void **state)
{
	struct fx *f = *state;
	struct tools_tops t;
	char why[4096], want[512];

	tops(f, (const char *[]){"home", "home/proj", NULL}, NULL, &t);
	assert_int_equal(check(f, "home", &t, why, sizeof(why)), 0);
	assert_int_equal(check(f, "home/proj", &t, why, sizeof(why)), -EPERM);
	snprintf(want, sizeof(want), "the write folder '%s/home'", f->dir);
	assert_non_null(strstr(why, want));
	assert_int_equal(check(f, "home/proj/src", &t, why, sizeof(why)),
			 -EPERM);
	tools_tops_free(&t);
}

/* A write folder spelled through a link is the same folder. */
static void test_tops_are_folders_not_spellings(void **state)
{
	struct fx *f = *state;
	struct tools_tops t;
	char why[4096];

	tops(f, (const char *[]){"link", NULL}, NULL, &t);
	assert_int_equal(check(f, "w/sub", &t, why, sizeof(why)), -EPERM);
	assert_int_equal(check(f, "w", &t, why, sizeof(why)), 0);
	tools_tops_free(&t);
}

/* A folder name the program chose is said escaped: no newline, no
 * terminal escape reaches the message. */
static void test_reason_is_escaped(void **state)
{
	struct fx *f = *state;
	struct tools_tops t;
	char why[4096];

	tops(f, (const char *[]){"w", NULL}, NULL, &t);
	assert_int_equal(check(f, "w/a\nb\x1b[2J", &t, why, sizeof(why)),
			 -EPERM);
	assert_null(strchr(why, '\n'));
	assert_null(strchr(why, '\x1b'));
	tools_tops_free(&t);
}

static void test_no_tops_and_bad_input(void **state)
{
	struct fx *f = *state;
	struct tools_tops t;
	struct strv w = {0};
	struct lnk_err e = {0};
	char why[64];

	assert_int_equal(tools_tops_make(NULL, NULL, &t, &e), 0);
	assert_int_equal(check(f, "w/sub", &t, why, sizeof(why)), 0);
	assert_int_equal(check(f, "w/sub", NULL, why, sizeof(why)), 0);
	tools_tops_free(&t);
	strv_pushf(&w, "%s/missing", f->dir);
	assert_int_equal(tools_tops_make(&w, NULL, &t, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "missing"));
	strv_free(&w);
	/* a small buffer is cut, never overrun */
	tops(f, (const char *[]){"w", NULL}, NULL, &t);
	assert_int_equal(check(f, "w/sub", &t, why, sizeof(why)), -EPERM);
	assert_true(strlen(why) < sizeof(why));
	tools_tops_free(&t);
}

/* / itself as a write folder: the tool may act only there. */
static void test_root_as_write_folder(void **state)
{
	struct fx *f = *state;
	struct tools_tops t;
	struct strv w = {0};
	struct lnk_err e = {0};
	char why[4096];

	strv_push(&w, "/");
	assert_int_equal(tools_tops_make(&w, NULL, &t, &e), 0);
	int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_int_equal(tools_folder_check(fd, &t, "git", why, sizeof(why)),
			 0);
	close(fd);
	assert_int_equal(check(f, "out", &t, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "the write folder '/'"));
	tools_tops_free(&t);
	strv_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_outside_every_write_folder_is_safe),
	    cmocka_unit_test(test_guarded_top_is_never_for_build_tools),
	    cmocka_unit_test(test_guarded_top_is_safe_and_below_it_is_not),
	    cmocka_unit_test(test_top_inside_another_write_folder_is_refused),
	    cmocka_unit_test(test_write_dot_files_leaves_the_top_unsafe),
	    cmocka_unit_test(test_home_write_folder_with_a_project_inside),
	    cmocka_unit_test(test_tops_are_folders_not_spellings),
	    cmocka_unit_test(test_reason_is_escaped),
	    cmocka_unit_test(test_no_tops_and_bad_input),
	    cmocka_unit_test(test_root_as_write_folder),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
