/* The links of the home's folders kept between runs (guard/linkcache.h):
 * a folder is known again only while its stat is the one it was listed
 * with; names the file cannot hold plainly are never kept; a damaged or
 * foreign file is no cache at all. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "guard/linkcache.h"

struct fix {
	char dir[64];
	char file[96];
};

static int setup(void **state)
{
	struct fix *f = calloc(1, sizeof(*f));
	snprintf(f->dir, sizeof(f->dir), "/tmp/lnk-linkcache-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->file, sizeof(f->file), "%s/home-links", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fix *f = *state;
	unlink(f->file);
	rmdir(f->dir);
	free(f);
	return 0;
}

static struct stat stat_of(long ino, long mtime_ns)
{
	struct stat st;
	memset(&st, 0, sizeof(st));
	st.st_dev = 2049;
	st.st_ino = (ino_t)ino;
	st.st_mtim.tv_sec = 1700000000;
	st.st_mtim.tv_nsec = mtime_ns;
	st.st_ctim = st.st_mtim;
	return st;
}

static void kept_and_found_while_unchanged(void **state)
{
	struct fix *f = *state;
	struct stat st = stat_of(7, 1);
	struct strv names = {0}, got = {0};
	strv_push(&names, "config");
	strv_push(&names, "known_hosts");

	struct linkcache *lc = linkcache_open(f->file);
	assert_false(linkcache_get(lc, "/h/.ssh", &st, &got));
	linkcache_put(lc, "/h/.ssh", &st, &names);
	linkcache_close(lc);

	lc = linkcache_open(f->file);
	assert_true(linkcache_get(lc, "/h/.ssh", &st, &got));
	assert_int_equal(got.n, 2);
	assert_string_equal(got.v[0], "config");
	assert_string_equal(got.v[1], "known_hosts");
	strv_free(&got);
	/* no links is an answer too */
	struct strv none = {0};
	linkcache_put(lc, "/h/.vim", &st, &none);
	assert_true(linkcache_get(lc, "/h/.vim", &st, &got));
	assert_int_equal(got.n, 0);
	/* a prefix of a kept folder is another folder */
	assert_false(linkcache_get(lc, "/h/.ss", &st, &got));
	linkcache_close(lc);
	strv_free(&names);
}

/* Any change to the folder (an entry made, removed, renamed: mtime and
 * ctime; another folder in its place: inode) and it is listed again. */
static void a_changed_folder_is_not_known(void **state)
{
	struct fix *f = *state;
	struct stat st = stat_of(7, 1), touched = stat_of(7, 2);
	struct stat other = stat_of(8, 1), ctime_only = stat_of(7, 1);
	ctime_only.st_ctim.tv_nsec = 5;
	struct strv none = {0}, got = {0};

	struct linkcache *lc = linkcache_open(f->file);
	linkcache_put(lc, "/h/.ssh", &st, &none);
	assert_false(linkcache_get(lc, "/h/.ssh", &touched, &got));
	assert_false(linkcache_get(lc, "/h/.ssh", &other, &got));
	assert_false(linkcache_get(lc, "/h/.ssh", &ctime_only, &got));
	/* listed again: the new listing replaces the old */
	struct strv one = {0};
	strv_push(&one, "config");
	linkcache_put(lc, "/h/.ssh", &touched, &one);
	assert_false(linkcache_get(lc, "/h/.ssh", &st, &got));
	assert_true(linkcache_get(lc, "/h/.ssh", &touched, &got));
	assert_int_equal(got.n, 1);
	linkcache_close(lc);
	strv_free(&got);
	strv_free(&one);
}

/* A name with a tab, a newline or a backslash is never kept: its folder
 * is listed every time, nothing is misread. */
static void odd_names_are_never_kept(void **state)
{
	struct fix *f = *state;
	struct stat st = stat_of(9, 1);
	struct strv odd = {0}, got = {0};
	strv_push(&odd, "a\tb");
	struct linkcache *lc = linkcache_open(f->file);
	linkcache_put(lc, "/h/.x", &st, &odd);
	assert_false(linkcache_get(lc, "/h/.x", &st, &got));
	struct strv none = {0};
	linkcache_put(lc, "/h/new\nline", &st, &none);
	assert_false(linkcache_get(lc, "/h/new\nline", &st, &got));
	linkcache_close(lc);
	strv_free(&odd);
}

/* Anything but the cache's own first line, and a line naming a path in
 * place of a name: no answer from it. */
static void a_damaged_file_answers_nothing(void **state)
{
	struct fix *f = *state;
	struct stat st = stat_of(7, 1);
	struct strv got = {0};
	FILE *w = fopen(f->file, "w");
	assert_non_null(w);
	fprintf(w, "not a cache\n2049 7 1700000000 1 1700000000 1\t/h/.ssh\t"
		   "config\n");
	fclose(w);
	struct linkcache *lc = linkcache_open(f->file);
	assert_false(linkcache_get(lc, "/h/.ssh", &st, &got));
	linkcache_close(lc);

	w = fopen(f->file, "w");
	assert_non_null(w);
	fprintf(w,
		"lnk home-links 1\n2049 7 1700000000 1 1700000000 1\t/h/.ssh\t"
		"../../etc/x\n");
	fclose(w);
	lc = linkcache_open(f->file);
	assert_false(linkcache_get(lc, "/h/.ssh", &st, &got));
	linkcache_close(lc);
	assert_int_equal(got.n, 0);
}

/* Without a file name nothing is kept, and nothing is answered. */
static void no_path_no_cache(void **state)
{
	(void)state;
	struct stat st = stat_of(7, 1);
	struct strv none = {0}, got = {0};
	struct linkcache *lc = linkcache_open(NULL);
	linkcache_put(lc, "/h/.ssh", &st, &none);
	assert_false(linkcache_get(lc, "/h/.ssh", &st, &got));
	linkcache_close(lc);
	linkcache_close(NULL);
}

/* A folder changed within the last seconds can change again within the
 * same tick of a coarse file system clock, its times unchanged: its
 * listing is not kept (a program making a link just after lnk listed). */
static void a_folder_changed_just_now_is_not_kept(void **state)
{
	struct fix *f = *state;
	struct stat st = stat_of(9, 0);
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	st.st_mtim = st.st_ctim = now;
	struct strv names = {0}, got = {0};
	struct linkcache *lc = linkcache_open(f->file);
	linkcache_put(lc, "/h/.config/nvim", &st, &names);
	linkcache_close(lc);
	lc = linkcache_open(f->file);
	assert_false(linkcache_get(lc, "/h/.config/nvim", &st, &got));
	/* a future time (a skewed clock) is not settled either */
	st.st_ctim.tv_sec += 3600;
	linkcache_put(lc, "/h/.config/nvim", &st, &names);
	assert_false(linkcache_get(lc, "/h/.config/nvim", &st, &got));
	/* the same folder once settled is kept */
	st.st_mtim.tv_sec = st.st_ctim.tv_sec = now.tv_sec - 10;
	linkcache_put(lc, "/h/.config/nvim", &st, &names);
	assert_true(linkcache_get(lc, "/h/.config/nvim", &st, &got));
	linkcache_close(lc);
	strv_free(&got);
}

int main(void)
{
	const struct CMUnitTest t[] = {
	    cmocka_unit_test_setup_teardown(kept_and_found_while_unchanged,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(a_changed_folder_is_not_known,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(odd_names_are_never_kept, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(a_damaged_file_answers_nothing,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(
		a_folder_changed_just_now_is_not_kept, setup, teardown),
	    cmocka_unit_test(no_path_no_cache),
	};
	return cmocka_run_group_tests(t, NULL, NULL);
}
