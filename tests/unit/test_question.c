/* A question's words (src/tools/question.c): each argument escaped on its
 * own numbered line, a long call folded with what is not shown counted,
 * the tool and first argument always first, every line and the whole
 * bounded; and ID.q (src/tools/asks.c) holding such a question so that no
 * argument can make a field or a line of its own. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/util.h"
#include "tools/asks.h"
#include "tools/question.h"

static size_t count_lines(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* Every line: ended by '\n', no control character, at most QUESTION_COLS
 * columns. */
static void check_bounded(const char *q)
{
	assert_true(count_lines(q) <= QUESTION_LINES);
	assert_true(strlen(q) > 0 && q[strlen(q) - 1] == '\n');
	for (const char *l = q; *l;) {
		size_t k = strcspn(l, "\n");
		assert_true(question_cols(l, k) <= QUESTION_COLS);
		for (size_t i = 0; i < k; i++)
			assert_true((unsigned char)l[i] >= 0x20 &&
				    l[i] != 0x7f);
		l += k + 1;
	}
}

static void test_each_argument_on_a_numbered_line(void **state)
{
	(void)state;
	struct strv a = {0};
	strv_push(&a, "log");
	strv_push(&a, "-1");
	strv_push(&a, "--output=/home/me/.bashrc");
	_cleanup_free_ char *q = question_text("git", &a, "/home/me/proj");
	assert_string_equal(q, "git log ... (3 arguments), in /home/me/proj\n"
			       "  1  log\n"
			       "  2  -1\n"
			       "  3  '--output=/home/me/.bashrc'\n");
	_cleanup_free_ char *s = question_summary("git", &a, "/home/me/proj");
	assert_string_equal(s, "git log ... (3 arguments), in /home/me/proj");
	strv_free(&a);

	/* a page: no folder; no arguments said as such */
	strv_push(&a, "https://example.org/p");
	_cleanup_free_ char *p = question_text("open page", &a, NULL);
	assert_string_equal(p, "open page https://example.org/p (1 argument)\n"
			       "  1  https://example.org/p\n");
	strv_free(&a);
	_cleanup_free_ char *z = question_text("git", &a, "/x y");
	assert_string_equal(z, "git (no arguments), in '/x y'\n");
}

/* An argument holding a newline, an escape or a quote stays one line of
 * its own, one shell word: it cannot start a row that reads as lnk's, nor
 * two arguments read as one. */
static void test_escapes(void **state)
{
	(void)state;
	struct strv a = {0};
	strv_push(&a, "status");
	strv_push(&a, "x\nlnk: type the code abcd");
	strv_push(&a, "\x1b[2J\x1b[H");
	strv_push(&a, "two words");
	strv_push(&a, "");
	strv_push(&a, "it's");
	strv_push(&a, "\xe2\x80\xae"
		      "evil"); /* right-to-left override */
	/* a no-break space reads as a space: one argument, never two */
	strv_push(&a, "origin\xc2\xa0--force");
	_cleanup_free_ char *q = question_text("git", &a, "/w");
	check_bounded(q);
	assert_int_equal(count_lines(q), 9);
	assert_non_null(strstr(q, "\n  2  'x\\x0alnk: type the code abcd'\n"));
	assert_non_null(strstr(q, "\n  3  '\\x1b[2J\\x1b[H'\n"));
	assert_non_null(strstr(q, "\n  4  'two words'\n"));
	assert_non_null(strstr(q, "\n  5  ''\n"));
	assert_non_null(strstr(q, "\n  6  'it'\\''s'\n"));
	assert_non_null(strstr(q, "\n  7  '\\u{202e}evil'\n"));
	assert_non_null(strstr(q, "\n  8  'origin\\u{a0}--force'\n"));
	/* no line but the first starts with anything but blanks and a
	 * number */
	for (const char *l = strchr(q, '\n') + 1; *l; l = strchr(l, '\n') + 1)
		assert_true(l[0] == ' ' && l[1] == ' ' && l[2] >= '1' &&
			    l[2] <= '9');
	strv_free(&a);
}

/* The program pads its call so that the lines before the code read as a
 * harmless `git status --short`: the question still starts with the tool
 * and the first argument, the middle is folded and counted. */
/* A call shown whole: at most 11 arguments, none cut; one more argument,
 * or one argument longer than its line, and it is not (never asked). */
static void test_whole_or_not(void **state)
{
	(void)state;
	struct strv a = {0};
	for (int i = 0; i < QUESTION_ARGS_MAX; i++)
		strv_push(&a, "--flag");
	assert_true(question_whole(&a));
	strv_push(&a, "x");
	assert_false(question_whole(&a));
	strv_free(&a);
	char longer[QUESTION_COLS + 1];
	memset(longer, 'a', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	strv_push(&a, "log");
	strv_push(&a, longer);
	assert_false(question_whole(&a));
	strv_free(&a);
	strv_push(&a, "log");
	strv_push(&a, "--output=/home/me/.bashrc");
	assert_true(question_whole(&a));
	strv_free(&a);
}

static void test_long_call_folded(void **state)
{
	(void)state;
	struct strv a = {0};
	strv_push(&a, "log");
	strv_push(&a, "--output=/home/me/.bashrc");
	for (int i = 0; i < 40; i++)
		strv_push(&a, "");
	strv_push(&a, "git");
	strv_push(&a, "status");
	strv_push(&a, "--short");
	_cleanup_free_ char *q = question_text("git", &a, "/w");
	check_bounded(q);
	assert_int_equal(count_lines(q), 1 + QUESTION_HEAD + 1 + QUESTION_TAIL);
	assert_true(strncmp(q, "git log ... (45 arguments), in /w\n", 34) == 0);
	assert_non_null(
	    strstr(q, "\n   1  log\n   2  '--output=/home/me/.bashrc'\n"));
	/* 45 - 6 - 4 = 35 not shown, all empty: 0 bytes */
	assert_non_null(
	    strstr(q, "\n      ... 35 arguments (0 bytes) not shown ...\n"));
	assert_non_null(
	    strstr(q, "\n  43  git\n  44  status\n  45  --short\n"));
	strv_free(&a);
}

static void test_ten_thousand_arguments(void **state)
{
	(void)state;
	struct strv a = {0};
	strv_push(&a, "log");
	for (int i = 1; i < 10000; i++)
		strv_pushf(&a, "arg%05d", i);
	_cleanup_free_ char *q = question_text("git", &a, "/w");
	check_bounded(q);
	assert_true(strncmp(q, "git log ... (10000 arguments), in /w\n", 37) ==
		    0);
	assert_non_null(strstr(q, "\n      1  log\n"));
	/* 9990 arguments of 8 bytes */
	assert_non_null(strstr(
	    q, "\n         ... 9990 arguments (79920 bytes) not shown ...\n"));
	assert_non_null(strstr(q, "\n  10000  arg09999\n"));
	strv_free(&a);
}

/* An argument longer than a line is cut and says its length; a long tool,
 * first argument or folder keep the first line within its bound. */
static void test_long_words_cut(void **state)
{
	(void)state;
	struct strv a = {0};
	char *big = xmalloc(100001);
	memset(big, 'x', 100000);
	big[100000] = '\0';
	strv_push(&a, big);
	strv_push(&a, "\xe6\x97\xa5\xe6\x9c\xac"); /* wide letters */
	for (int i = 0; i < 400; i++)
		big[i] = (char)(i % 2 ? 0xe6 : 0x97); /* not UTF-8 */
	strv_push(&a, big);
	char dir[600];
	memset(dir, 'd', sizeof(dir) - 1);
	dir[0] = '/';
	dir[sizeof(dir) - 1] = '\0';
	_cleanup_free_ char *q = question_text(big, &a, dir);
	check_bounded(q);
	assert_non_null(strstr(q, "... (100000 bytes in all)\n"));
	assert_non_null(strstr(q, "[...]"));
	_cleanup_free_ char *s = question_summary(big, &a, dir);
	assert_null(strchr(s, '\n'));
	assert_true(question_cols(s, strlen(s)) <= QUESTION_COLS);
	free(big);
	strv_free(&a);
}

/* A question stored and read back: the same lines; a line of the file
 * cannot be added by an argument, and a file that breaks the format is no
 * question. */
static void test_stored_safely(void **state)
{
	(void)state;
	char dir[] = "/tmp/lnk-question-XXXXXX";
	assert_non_null(mkdtemp(dir));
	struct strv a = {0};
	strv_push(&a, "status");
	strv_push(&a, "x\nline evil\nend");
	_cleanup_free_ char *q = question_text("git", &a, "/w");
	_cleanup_free_ char *s = question_summary("git", &a, "/w");
	struct ask put = {.sandbox = "box", .summary = s, .question = q};
	struct lnk_err e = {0};
	snprintf(put.id, sizeof(put.id), "abc234");
	put.expires_ms = asks_now_ms() + 60000;
	assert_int_equal(asks_put(dir, &put, &e), 0);
	struct ask got;
	assert_int_equal(asks_get(dir, "abc234", &got), 0);
	assert_string_equal(got.sandbox, "box");
	assert_string_equal(got.summary, s);
	assert_string_equal(got.question, q);
	ask_clear(&got);

	/* a line smuggled in by a newline of a summary is escaped */
	put.summary = "sum\nline injected";
	assert_int_equal(asks_put(dir, &put, &e), 0);
	assert_int_equal(asks_get(dir, "abc234", &got), 0);
	assert_string_equal(got.summary, "sum\\x0aline injected");
	assert_string_equal(got.question, q);
	ask_clear(&got);

	/* a sandbox name that is none is refused */
	put.sandbox = "../x";
	assert_int_equal(asks_put(dir, &put, &e), -EINVAL);

	/* files not of the format are no question */
	static const char *const bad[] = {
	    "box\n123\nquestion\n",
	    "lnk-ask 2\nsandbox box\nexpires 1\nsummary s\nline l\n",
	    ("lnk-ask 2\nsandbox box\nsandbox other\nexpires 1\nsummary s\n"
	     "line l\nend\n"),
	    "lnk-ask 2\nsandbox ../x\nexpires 1\nsummary s\nline l\nend\n",
	    "lnk-ask 2\nsandbox box\nexpires 1x\nsummary s\nline l\nend\n",
	    "lnk-ask 2\nsandbox box\nexpires 1\nsummary s\nend\n",
	    "lnk-ask 2\nsandbox box\nexpires 1\nsummary s\nline l\nwhat\nend\n",
	};
	_cleanup_free_ char *path = xasprintf("%s/abc234.q", dir);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		FILE *f = fopen(path, "w");
		assert_non_null(f);
		fputs(bad[i], f);
		fclose(f);
		assert_int_equal(asks_get(dir, "abc234", &got), -EINVAL);
	}
	/* a control character in a file written by someone else shows
	 * escaped */
	FILE *f = fopen(path, "w");
	fputs("lnk-ask 2\nsandbox box\nexpires 1\nsummary s\x1b[2J\n"
	      "line l\x07\nend\n",
	      f);
	fclose(f);
	assert_int_equal(asks_get(dir, "abc234", &got), 0);
	assert_string_equal(got.summary, "s\\x1b[2J");
	assert_string_equal(got.question, "l\\x07\n");
	ask_clear(&got);
	asks_withdraw(dir, "abc234");
	assert_int_equal(rmdir(dir), 0);
	strv_free(&a);
}

int main(void)
{
	const struct CMUnitTest t[] = {
	    cmocka_unit_test(test_each_argument_on_a_numbered_line),
	    cmocka_unit_test(test_escapes),
	    cmocka_unit_test(test_whole_or_not),
	    cmocka_unit_test(test_long_call_folded),
	    cmocka_unit_test(test_ten_thousand_arguments),
	    cmocka_unit_test(test_long_words_cut),
	    cmocka_unit_test(test_stored_safely),
	};
	return cmocka_run_group_tests(t, NULL, NULL);
}
