/* The terminal's prompt (src/launch/askterm.c), with pipes for the broker
 * and the terminal: the code answers yes, anything else no, each answer a
 * line on the answer pipe to the broker (never a file); a long question
 * fits the terminal whole, no row wider than it; the program's
 * output is held, bounded, and shown whole after; an ending from the
 * broker takes the prompt down; lines that are not the broker's are
 * ignored; the code is written nowhere but the terminal. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/util.h"
#include "launch/askterm.h"
#include "tools/asks.h"
#include "tools/question.h"

struct fix {
	char dir[64];
	int broker[2]; /* the broker writes [1] */
	int ans[2];    /* the answers: askterm writes [1], the broker reads */
	int term;      /* the terminal: a file askterm writes */
	off_t seen;    /* what screen() showed already */
	struct askterm *a;
};

static int setup(void **state)
{
	struct fix *f = calloc(1, sizeof(*f));
	snprintf(f->dir, sizeof(f->dir), "/tmp/lnk-askterm-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	assert_int_equal(pipe2(f->broker, O_CLOEXEC | O_NONBLOCK), 0);
	assert_int_equal(pipe2(f->ans, O_CLOEXEC | O_NONBLOCK), 0);
	f->term = memfd_create("terminal", MFD_CLOEXEC);
	assert_true(f->term >= 0);
	f->a = askterm_new(f->broker[0], f->dir, f->term, f->ans[1]);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fix *f = *state;
	askterm_free(f->a);
	close(f->broker[1]);
	close(f->ans[0]);
	close(f->term);
	_cleanup_free_ char *cmd = xasprintf("rm -rf '%s'", f->dir);
	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

/* lnk's loop reading the pipe: it is read on the second turn that finds
 * it readable, after the pty's output of the first. */
static void turn(struct fix *f)
{
	askterm_readable(f->a);
	askterm_readable(f->a);
}

/* A question recorded as the broker records one, and told: the call is
 * the words of question. */
static void ask_call(struct fix *f, const char *id, const struct strv *args)
{
	struct lnk_err e = {0};
	_cleanup_free_ char *text = question_text("mytool", args, "/w");
	_cleanup_free_ char *sum = question_summary("mytool", args, "/w");
	_cleanup_free_ char *dir = question_folder("/w");
	struct ask a = {
	    .sandbox = "box", .summary = sum, .folder = dir, .question = text};
	snprintf(a.id, sizeof(a.id), "%s", id);
	a.expires_ms = asks_now_ms() + 60000;
	assert_int_equal(asks_put(f->dir, &a, &e), 0);
	char line[32];
	int n = snprintf(line, sizeof(line), "a %s\n", id);
	assert_int_equal(write(f->broker[1], line, (size_t)n), n);
	turn(f);
}

static void ask(struct fix *f, const char *id, const char *words)
{
	struct strv args = {0};
	_cleanup_free_ char *w = xstrdup(words);
	for (char *sp, *t = strtok_r(w, " ", &sp); t;
	     t = strtok_r(NULL, " ", &sp))
		strv_push(&args, t);
	ask_call(f, id, &args);
	strv_free(&args);
}

static void tell(struct fix *f, const char *line)
{
	assert_int_equal(write(f->broker[1], line, strlen(line)),
			 (ssize_t)strlen(line));
	turn(f);
}

/* What the terminal shows since last asked. */
static char *screen(struct fix *f)
{
	static char b[1 << 22];
	ssize_t n = pread(f->term, b, sizeof(b) - 1, f->seen);
	assert_true(n >= 0);
	b[n] = '\0';
	f->seen += n;
	return b;
}

static void code_of(const char *s, char code[5])
{
	const char *p = strstr(s, "type the code ");
	assert_non_null(p);
	memcpy(code, p + strlen("type the code "), 4);
	code[4] = '\0';
}

/* The answer the broker got on its pipe for id: 1 yes, 0 no, -1 none. */
static int answered(struct fix *f, const char *id)
{
	static char got[4096];
	static size_t n;
	ssize_t r = read(f->ans[0], got + n, sizeof(got) - 1 - n);
	if (r > 0)
		n += (size_t)r;
	got[n] = '\0';
	char y[16], no[16];
	snprintf(y, sizeof(y), "y %s\n", id);
	snprintf(no, sizeof(no), "n %s\n", id);
	return strstr(got, y) ? 1 : strstr(got, no) ? 0 : -1;
}

static void test_code_allows_once(void **state)
{
	struct fix *f = *state;
	char code[5];

	ask(f, "abc234", "issue close 7");
	assert_true(askterm_asking(f->a));
	char *s = screen(f);
	assert_non_null(strstr(s, "asks to run, outside, as you:\r\n"
				  "mytool issue ... (3 arguments), in /w\r\n"
				  "  1  issue\r\n  2  close\r\n  3  7\r\n"));
	assert_non_null(strstr(s, "lnk: run mytool issue ... (3 arguments)\r\n"
				  "lnk:   in /w\r\n"));
	code_of(s, code);
	for (size_t i = 0; i < 4; i++)
		assert_non_null(strchr("acdefhjkmnprtwxy", code[i]));
	/* the code is in no file the asks folder holds */
	_cleanup_free_ char *q = xasprintf("%s/abc234.q", f->dir);
	_cleanup_free_ char *text = NULL;
	size_t len;
	assert_int_equal(read_file(q, 1 << 16, &text, &len), 0);
	assert_null(strstr(text, code));
	/* typed with a slip mended, in capitals */
	char keys[16];
	snprintf(keys, sizeof(keys), "x\x7f%c%c%c%c\r", code[0] - 32,
		 code[1] - 32, code[2], code[3]);
	askterm_keys(f->a, keys, strlen(keys));
	assert_false(askterm_asking(f->a));
	assert_int_equal(answered(f, "abc234"), 1);
	assert_non_null(strstr(screen(f), "allowed once (question abc234)"));
}

static void test_anything_else_refuses(void **state)
{
	struct fix *f = *state;
	char code[5];

	ask(f, "abc235", "t x");
	code_of(screen(f), code);
	char keys[8];
	snprintf(keys, sizeof(keys), "%.3s\r", code); /* three of four */
	askterm_keys(f->a, keys, strlen(keys));
	assert_int_equal(answered(f, "abc235"), 0);
	assert_non_null(strstr(screen(f), "not the code"));

	ask(f, "abc236", "t y");
	code_of(screen(f), code);
	snprintf(keys, sizeof(keys), "%.2s\x1b", code); /* Esc: at once */
	askterm_keys(f->a, keys, strlen(keys));
	assert_false(askterm_asking(f->a));
	assert_int_equal(answered(f, "abc236"), 0);
	/* the code of one question does not answer the next */
	ask(f, "abc237", "t z");
	char old[5];
	memcpy(old, code, 5);
	code_of(screen(f), code);
	if (strcmp(old, code) != 0) {
		snprintf(keys, sizeof(keys), "%s\r", old);
		askterm_keys(f->a, keys, strlen(keys));
		assert_int_equal(answered(f, "abc237"), 0);
	}
}

static void test_output_held_bounded_and_shown_after(void **state)
{
	struct fix *f = *state;
	char chunk[4096];

	assert_int_equal(askterm_hold_room(f->a), 0); /* nothing up */
	ask(f, "abc238", "t x");
	(void)screen(f);
	memset(chunk, 'Z', sizeof(chunk));
	size_t held = 0;
	while (askterm_hold_room(f->a)) {
		size_t n = askterm_hold_room(f->a) < sizeof(chunk)
			       ? askterm_hold_room(f->a)
			       : sizeof(chunk);
		askterm_hold(f->a, chunk, n);
		held += n;
	}
	assert_int_equal(held, ASKTERM_HOLD_MAX);
	assert_int_equal(askterm_hold_room(f->a), 0);
	tell(f, "e abc238 y\n"); /* answered elsewhere */
	assert_false(askterm_asking(f->a));
	char *s = screen(f);
	char *after = strstr(s, "answered elsewhere: allowed once");
	assert_non_null(after);
	size_t z = 0;
	for (char *p = after; *p; p++)
		z += *p == 'Z';
	assert_int_equal(z, ASKTERM_HOLD_MAX);
}

static void test_one_at_a_time_and_endings(void **state)
{
	struct fix *f = *state;

	ask(f, "abc239", "first");
	ask(f, "abc23a", "second");
	ask(f, "abc23b", "third");
	char *s = screen(f);
	assert_non_null(strstr(s, "first"));
	assert_null(strstr(s, "second"));
	/* the one waiting its turn ends: it is never shown */
	tell(f, "e abc23a g\n");
	tell(f, "e abc239 t\n");
	s = screen(f);
	assert_non_null(strstr(s, "no answer in time"));
	assert_null(strstr(s, "second"));
	assert_non_null(strstr(s, "third"));
	assert_true(askterm_asking(f->a));
	/* lines that are not the broker's are ignored */
	tell(f, "e abc23b\n");
	tell(f, "e ../../x y\n");
	tell(f, "x abc23b y\n");
	tell(f, "a abc23b extra\n");
	char lng[300];
	memset(lng, 'a', sizeof(lng) - 1);
	lng[sizeof(lng) - 1] = '\n';
	assert_int_equal(write(f->broker[1], lng, sizeof(lng)),
			 (ssize_t)sizeof(lng));
	turn(f);
	assert_true(askterm_asking(f->a));
	/* the broker gone: its questions with it */
	close(f->broker[1]);
	f->broker[1] = open("/dev/null", O_WRONLY | O_CLOEXEC);
	turn(f);
	assert_false(askterm_asking(f->a));
	assert_int_equal(askterm_fd(f->a), -1);
	assert_non_null(strstr(screen(f), "withdrawn"));
}

/* A question waits one turn of lnk's loop: the program's output already
 * in its pty is shown first. */
static void test_question_waits_a_turn(void **state)
{
	struct fix *f = *state;
	struct lnk_err e = {0};
	struct ask a = {
	    .sandbox = "box", .summary = "mytool x", .question = "mytool x\n"};

	snprintf(a.id, sizeof(a.id), "%s", "abc235");
	a.expires_ms = asks_now_ms() + 60000;
	assert_int_equal(asks_put(f->dir, &a, &e), 0);
	assert_int_equal(write(f->broker[1], "a abc235\n", 9), 9);
	askterm_readable(f->a);
	assert_false(askterm_asking(f->a));
	assert_string_equal(screen(f), "");
	askterm_readable(f->a);
	assert_true(askterm_asking(f->a));
	assert_non_null(strstr(screen(f), "mytool x"));
}

/* The program pads its call so that the rows before the code would read
 * as a harmless `git status --short`, on a terminal of 80x24 (the size
 * when lnk cannot read it): the question on the screen fits 24 rows and
 * 79 columns, starts with the tool and the first argument, and the row
 * beside the code restates the call; no argument begins a row. */
static void test_padded_question_fits_the_screen(void **state)
{
	struct fix *f = *state;
	struct strv args = {0};
	char pad[300];

	strv_push(&args, "log");
	strv_push(&args, "--output=/home/me/.bashrc");
	memset(pad, ' ', sizeof(pad) - 1);
	pad[sizeof(pad) - 1] = '\0';
	for (int i = 0; i < 60; i++)
		strv_push(&args, i % 2 ? pad : "\nlnk: sandbox box asks");
	strv_push(&args, "status");
	strv_push(&args, "--short");
	ask_call(f, "abc240", &args);
	strv_free(&args);
	char *s = screen(f);
	/* from the sandbox's row to the code typed: the question */
	char *from = strstr(s, "lnk: sandbox box asks to run");
	assert_non_null(from);
	char *to = strstr(from, "lnk: code for ");
	assert_non_null(to);
	size_t rows = 1;
	for (char *p = from; p < to; p++)
		rows += *p == '\n';
	assert_true(rows <= 23); /* and the row the cursor came from */
	for (char *p = from, *e; (e = strstr(p, "\r\n")) && e < to;) {
		assert_true(question_cols(p, (size_t)(e - p)) <= 79);
		/* a row is lnk's, or the question's first line, or starts
		 * with blanks and a number or lnk's fold */
		assert_true(strncmp(p, "lnk: ", 5) == 0 ||
			    strncmp(p, "mytool log ", 11) == 0 ||
			    (p[0] == ' ' && p[1] == ' '));
		p = e + 2;
	}
	char *first = strstr(from, "\r\n") + 2;
	assert_true(
	    strncmp(first, "mytool log ... (64 arguments), in /w", 36) == 0);
	assert_non_null(strstr(first, "\r\n   1  log\r\n   2  "
				      "'--output=/home/me/.bashrc'\r\n"));
	assert_non_null(strstr(from, "arguments ("));
	assert_non_null(strstr(
	    from, "\r\nlnk: run mytool log ... (64 arguments)\r\n"
		  "lnk:   in /w\r\nlnk: to allow it once, type the code "));
	askterm_keys(f->a, "\x1b", 1);
	assert_int_equal(answered(f, "abc240"), 0);
}

/* Threat: the program's first argument held lnk's own separator,
 * "x), in /root/prod": the row of the call and the folder's row were
 * split there, and showed /root/prod for the folder the tool runs in. */
static void test_an_argument_cannot_be_the_folder(void **state)
{
	struct fix *f = *state;
	struct strv args = {0};
	strv_push(&args, "x), in /root/prod");
	strv_push(&args, "--force");
	ask_call(f, "abc250", &args);
	strv_free(&args);
	char *s = screen(f);
	assert_non_null(strstr(s, "\r\nlnk: run mytool 'x), in /root/prod' "
				  "... (2 arguments)\r\nlnk:   in /w\r\n"));
	askterm_keys(f->a, "\x1b", 1);
	assert_int_equal(answered(f, "abc250"), 0);
}

static void test_null_is_no_terminal(void **state)
{
	(void)state;
	assert_false(askterm_asking(NULL));
	assert_int_equal(askterm_fd(NULL), -1);
	assert_int_equal(askterm_hold_room(NULL), 0);
	assert_int_equal(askterm_timeout_ms(NULL), -1);
	askterm_keys(NULL, "x", 1);
	askterm_tick(NULL);
	askterm_finish(NULL);
	askterm_free(NULL);
}

int main(void)
{
	const struct CMUnitTest t[] = {
	    cmocka_unit_test_setup_teardown(test_code_allows_once, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_anything_else_refuses, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(
		test_output_held_bounded_and_shown_after, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_one_at_a_time_and_endings,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_question_waits_a_turn, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(
		test_padded_question_fits_the_screen, setup, teardown),
	    cmocka_unit_test_setup_teardown(
		test_an_argument_cannot_be_the_folder, setup, teardown),
	    cmocka_unit_test(test_null_is_no_terminal),
	};
	return cmocka_run_group_tests(t, NULL, NULL);
}
