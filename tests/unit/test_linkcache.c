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
	assert_false(linkcache_get(lc, "/h/.ssh", &st, &got, NULL));
	linkcache_put(lc, "/h/.ssh", &st, &names, NULL);
	linkcache_close(lc);

	lc = linkcache_open(f->file);
	assert_true(linkcache_get(lc, "/h/.ssh", &st, &got, NULL));
	assert_int_equal(got.n, 2);
	assert_string_equal(got.v[0], "config");
	assert_string_equal(got.v[1], "known_hosts");
	strv_free(&got);
	/* no links is an answer too */
	struct strv none = {0};
	linkcache_put(lc, "/h/.vim", &st, &none, NULL);
	assert_true(linkcache_get(lc, "/h/.vim", &st, &got, NULL));
	assert_int_equal(got.n, 0);
	/* a prefix of a kept folder is another folder */
	assert_false(linkcache_get(lc, "/h/.ss", &st, &got, NULL));
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
	linkcache_put(lc, "/h/.ssh", &st, &none, NULL);
	assert_false(linkcache_get(lc, "/h/.ssh", &touched, &got, NULL));
	assert_false(linkcache_get(lc, "/h/.ssh", &other, &got, NULL));
	assert_false(linkcache_get(lc, "/h/.ssh", &ctime_only, &got, NULL));
	/* listed again: the new listing replaces the old */
	struct strv one = {0};
	strv_push(&one, "config");
	linkcache_put(lc, "/h/.ssh", &touched, &one, NULL);
	assert_false(linkcache_get(lc, "/h/.ssh", &st, &got, NULL));
	assert_true(linkcache_get(lc, "/h/.ssh", &touched, &got, NULL));
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
	linkcache_put(lc, "/h/.x", &st, &odd, NULL);
	assert_false(linkcache_get(lc, "/h/.x", &st, &got, NULL));
	struct strv none = {0};
	linkcache_put(lc, "/h/new\nline", &st, &none, NULL);
	assert_false(linkcache_get(lc, "/h/new\nline", &st, &got, NULL));
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
	assert_false(linkcache_get(lc, "/h/.ssh", &st, &got, NULL));
	linkcache_close(lc);

	w = fopen(f->file, "w");
	assert_non_null(w);
	fprintf(
	    w, "lnk home-links 2\n2049 7 1700000000 1 1700000000 1 l\t/h/.ssh\t"
	       "l../../etc/x\n");
	fclose(w);
	lc = linkcache_open(f->file);
	assert_false(linkcache_get(lc, "/h/.ssh", &st, &got, NULL));
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
	linkcache_put(lc, "/h/.ssh", &st, &none, NULL);
	assert_false(linkcache_get(lc, "/h/.ssh", &st, &got, NULL));
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
	linkcache_put(lc, "/h/.config/nvim", &st, &names, NULL);
	linkcache_close(lc);
	lc = linkcache_open(f->file);
	assert_false(linkcache_get(lc, "/h/.config/nvim", &st, &got, NULL));
	/* a future time (a skewed clock) is not settled either */
	st.st_ctim.tv_sec += 3600;
	linkcache_put(lc, "/h/.config/nvim", &st, &names, NULL);
	assert_false(linkcache_get(lc, "/h/.config/nvim", &st, &got, NULL));
	/* the same folder once settled is kept */
	st.st_mtim.tv_sec = st.st_ctim.tv_sec = now.tv_sec - 10;
	linkcache_put(lc, "/h/.config/nvim", &st, &names, NULL);
	assert_true(linkcache_get(lc, "/h/.config/nvim", &st, &got, NULL));
	linkcache_close(lc);
	strv_free(&got);
}

/* A listing kept with its subfolders answers both questions; one kept
 * without them answers only for the links (a top's subfolders are walked
 * from what the cache says: a listing that never held them says none). */
static void subfolders_kept_by_kind(void **state)
{
	struct fix *f = *state;
	struct stat st = stat_of(11, 1);
	struct strv links = {0}, dirs = {0}, got = {0}, gotd = {0};
	strv_push(&links, "config");
	strv_push(&dirs, "config.d");
	strv_push(&dirs, "sockets");

	struct linkcache *lc = linkcache_open(f->file);
	linkcache_put(lc, "/h/.ssh", &st, &links, &dirs);
	linkcache_put(lc, "/h/.vim", &st, &links, NULL);
	linkcache_close(lc);
	lc = linkcache_open(f->file);
	assert_true(linkcache_get(lc, "/h/.ssh", &st, &got, &gotd));
	assert_int_equal(got.n, 1);
	assert_string_equal(got.v[0], "config");
	assert_int_equal(gotd.n, 2);
	assert_string_equal(gotd.v[0], "config.d");
	assert_string_equal(gotd.v[1], "sockets");
	strv_free(&got);
	assert_true(linkcache_get(lc, "/h/.ssh", &st, &got, NULL));
	assert_int_equal(got.n, 1);
	strv_free(&got);
	strv_free(&gotd);
	assert_false(linkcache_get(lc, "/h/.vim", &st, &got, &gotd));
	assert_int_equal(gotd.n, 0);
	assert_true(linkcache_get(lc, "/h/.vim", &st, &got, NULL));
	assert_int_equal(got.n, 1);
	linkcache_close(lc);
	strv_free(&got);
	strv_free(&links);
	strv_free(&dirs);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Many folders (rule P's bound is 8192; here five times that) are each
 * found by a lookup that does not scan: 40000 lookups over 40000 lines
 * take milliseconds by hash, seconds by a scan (some 8e8 comparisons):
 * a bound of 2 s keeps a margin of both on a busy machine. Paths that
 * are prefixes of each other stay apart. */
static void many_folders_found_without_a_scan(void **state)
{
	struct fix *f = *state;
	enum { N = 40000 };
	struct strv none = {0}, one = {0}, got = {0};
	strv_push(&one, "link");
	double t0 = now_s();
	struct linkcache *lc = linkcache_open(f->file);
	for (long i = 0; i < N; i++) {
		char d[64];
		struct stat st = stat_of(100 + i, 1);
		snprintf(d, sizeof(d), "/h/.config/f%ld", i);
		linkcache_put(lc, d, &st, i % 2 ? &one : &none, NULL);
	}
	linkcache_close(lc);
	lc = linkcache_open(f->file);
	for (long i = N - 1; i >= 0; i--) {
		char d[64];
		struct stat st = stat_of(100 + i, 1);
		snprintf(d, sizeof(d), "/h/.config/f%ld", i);
		assert_true(linkcache_get(lc, d, &st, &got, NULL));
		assert_int_equal(got.n, i % 2 ? 1 : 0);
		strv_free(&got);
		/* a prefix ("f1" of "f10") and a longer path are others */
		snprintf(d, sizeof(d), "/h/.config/f%ld/x", i);
		assert_false(linkcache_get(lc, d, &st, &got, NULL));
	}
	double took = now_s() - t0;
	assert_true(took < 2.0);
	linkcache_close(lc);
	strv_free(&one);
}

/* A run that asked about folders drops the lines of those it did not ask
 * about (removed, or past a bound): the file does not grow forever. A run
 * that asked nothing (no write folder) keeps the file as it was. */
static void folders_not_asked_about_are_dropped(void **state)
{
	struct fix *f = *state;
	struct stat st = stat_of(7, 1);
	struct strv none = {0}, got = {0};
	struct linkcache *lc = linkcache_open(f->file);
	linkcache_put(lc, "/h/.a", &st, &none, NULL);
	linkcache_put(lc, "/h/.b", &st, &none, NULL);
	linkcache_close(lc);
	lc = linkcache_open(f->file);
	linkcache_close(lc);
	lc = linkcache_open(f->file);
	assert_true(linkcache_get(lc, "/h/.a", &st, &got, NULL));
	linkcache_close(lc);
	lc = linkcache_open(f->file);
	assert_true(linkcache_get(lc, "/h/.a", &st, &got, NULL));
	assert_false(linkcache_get(lc, "/h/.b", &st, &got, NULL));
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
	    cmocka_unit_test_setup_teardown(subfolders_kept_by_kind, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(many_folders_found_without_a_scan,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(folders_not_asked_about_are_dropped,
					    setup, teardown),
	};
	return cmocka_run_group_tests(t, NULL, NULL);
}
