/* Answers from the person only (src/tools/answer.c): the lines of the
 * terminal's pipe and the desktop's socket; the answer socket, which takes
 * an answer from a process of the same user in the broker's own
 * namespaces and refuses one from a process in a user or mount namespace
 * of its own (a sandbox, a tool's view, `unshare`), saying why; and the
 * broker's box, where the first answer to a waiting question counts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/util.h"
#include "tools/answer.h"

static void test_line_parse(void **state)
{
	(void)state;
	char id[ASK_ID_LEN + 1];
	bool yes = false;

	assert_int_equal(answer_line_parse("y abc234\n", 9, id, &yes), 0);
	assert_string_equal(id, "abc234");
	assert_true(yes);
	assert_int_equal(answer_line_parse("n abc234", 8, id, &yes), 0);
	assert_false(yes);
	static const char *const bad[] = {
	    "",
	    "y",
	    "y abc23",
	    "y abc2345",
	    "Y abc234",
	    "yes abc234",
	    "y  abc234",
	    "y ABC234",
	    "y ../x/y",
	    "y abc234\n\n",
	    "y abc23\n4",
	    "x abc234",
	    ("y abc2\x00"
	     "4"),
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(
		    answer_line_parse(
			bad[i], strlen(bad[i]) + (i == 12 ? 2 : 0), id, &yes),
		    -EINVAL);
}

struct fix {
	char dir[64];
	int fd;
	char *path;
};

static int setup(void **state)
{
	struct fix *f = calloc(1, sizeof(*f));
	struct lnk_err e = {0};
	snprintf(f->dir, sizeof(f->dir), "/tmp/lnk-answer-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	assert_int_equal(answer_listen(f->dir, "box", &f->fd, &f->path, &e), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fix *f = *state;
	answer_unlisten(f->fd, f->path);
	assert_int_equal(rmdir(f->dir), 0);
	free(f);
	return 0;
}

/* A child that first enters the namespaces of flags (0: none), then
 * answers with `answer_send`; its exit status: 0 taken, 1 refused with
 * the namespace named, 2 other, 77 the namespace could not be made. */
static pid_t answerer(struct fix *f, int flags)
{
	pid_t p = fork();
	assert_true(p >= 0);
	if (p == 0) {
		struct lnk_err e = {0};
		if (flags && unshare(flags) < 0)
			_exit(77);
		int r = answer_send(f->dir, "box", "abc234", true, &e);
		if (r == 0)
			_exit(0);
		if (r == -EPERM && strstr(e.msg, "namespace"))
			_exit(1);
		fprintf(stderr, "answer_send: %d %s\n", r, e.msg);
		_exit(2);
	}
	return p;
}

/* The broker's side for one connection: what answer_take gives. */
static int take(struct fix *f, char id[ASK_ID_LEN + 1], bool *yes)
{
	struct pollfd pf = {.fd = f->fd, .events = POLLIN};
	struct lnk_err e = {0};
	int conn = -1;
	assert_int_equal(poll(&pf, 1, 10000), 1);
	int r = answer_take(f->fd, id, yes, &conn, &e);
	if (r == 1)
		answer_reply(conn, ANSWER_TAKEN, "");
	return r;
}

static int status_of(pid_t p)
{
	int ws;
	assert_int_equal(waitpid(p, &ws, 0), p);
	return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128;
}

static void test_same_namespaces_taken(void **state)
{
	struct fix *f = *state;
	char id[ASK_ID_LEN + 1];
	bool yes = false;

	/* the socket is the user's alone */
	struct stat st;
	assert_int_equal(stat(f->path, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0600);
	pid_t p = answerer(f, 0);
	assert_int_equal(take(f, id, &yes), 1);
	assert_string_equal(id, "abc234");
	assert_true(yes);
	assert_int_equal(status_of(p), 0);
}

/* Whether this process may make namespaces of flags (a kernel or policy
 * can forbid user namespaces to an unprivileged user). */
static bool can_unshare(int flags)
{
	pid_t p = fork();
	if (p == 0)
		_exit(unshare(flags) == 0 ? 0 : 1);
	return status_of(p) == 0;
}

static void refused_in(struct fix *f, int flags)
{
	char id[ASK_ID_LEN + 1];
	bool yes = false;

	pid_t p = answerer(f, flags);
	assert_int_equal(take(f, id, &yes), 0);
	assert_int_equal(status_of(p), 1);
}

static void test_user_namespace_refused(void **state)
{
	if (!can_unshare(CLONE_NEWUSER))
		skip(); /* no user namespaces here: nothing to try */
	refused_in(*state, CLONE_NEWUSER);
}

static void test_mount_namespace_refused(void **state)
{
	int flags = geteuid() == 0 ? CLONE_NEWNS : CLONE_NEWUSER | CLONE_NEWNS;
	if (!can_unshare(flags))
		skip(); /* no namespaces here: nothing to try */
	refused_in(*state, flags);
}

static void test_bad_message_refused(void **state)
{
	struct fix *f = *state;
	char id[ASK_ID_LEN + 1], m[256];
	bool yes;
	int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", f->path);
	assert_int_equal(connect(s, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(send(s, "yes abc234", 10, 0), 10);
	assert_int_equal(take(f, id, &yes), 0);
	ssize_t n = recv(s, m, sizeof(m) - 1, 0);
	assert_true(n > 0);
	assert_int_equal(m[0], ANSWER_REFUSED);
	close(s);
}

static bool waits(void *ctx, const char *id)
{
	(void)ctx;
	return strcmp(id, "abc234") == 0 || strcmp(id, "abc235") == 0;
}

/* The box: the terminal's lines, split across reads; the first answer of
 * a question counts; an answer to no waiting question is dropped; the
 * desktop's lines; the socket's answerer told. */
static void test_box(void **state)
{
	struct fix *f = *state;
	struct answer_box box;
	struct lnk_err e = {0};
	int pp[2], dp[2];
	bool yes = false;

	answer_unlisten(f->fd, f->path);
	f->fd = -1;
	f->path = NULL;
	assert_int_equal(pipe2(pp, O_CLOEXEC | O_NONBLOCK), 0);
	assert_int_equal(
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, dp), 0);
	assert_int_equal(answer_box_open(&box, f->dir, "box", pp[0], &e), 0);
	assert_int_equal(write(pp[1], "y abc2", 6), 6);
	assert_int_equal(answer_box_pump(&box, waits, NULL), 0);
	assert_int_equal(answer_box_get(&box, "abc234", &yes), 0);
	assert_int_equal(write(pp[1], "34\nn abc234\ny zzz999\nbad\n", 25), 25);
	assert_int_equal(answer_box_pump(&box, waits, NULL), 0);
	assert_int_equal(answer_box_get(&box, "abc234", &yes), 1);
	assert_true(yes);
	assert_int_equal(answer_box_get(&box, "abc234", &yes), 0);
	assert_int_equal(answer_box_get(&box, "zzz999", &yes), 0);
	/* the desktop's answer */
	assert_int_equal(send(dp[1], "n abc235\n", 9, 0), 9);
	assert_int_equal(answer_box_desktop(&box, dp[0], waits, NULL), 0);
	assert_int_equal(answer_box_get(&box, "abc235", &yes), 1);
	assert_false(yes);
	/* the socket's answerer is told it counts; a second, that the
	 * first answer counts */
	f->path = xstrdup(box.path);
	pid_t p = answerer(f, 0);
	for (int i = 0; i < 100 && !box.n; i++) {
		poll(NULL, 0, 50);
		answer_box_pump(&box, waits, NULL);
	}
	assert_int_equal(status_of(p), 0);
	p = fork();
	if (p == 0) {
		int r = answer_send(f->dir, "box", "abc234", false, &e);
		_exit(r == -EEXIST ? 0 : 1);
	}
	int ws = 0;
	pid_t w = 0;
	for (int i = 0; i < 200 && (w = waitpid(p, &ws, WNOHANG)) == 0; i++) {
		poll(NULL, 0, 50);
		answer_box_pump(&box, waits, NULL);
	}
	assert_int_equal(w, p);
	assert_true(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
	assert_int_equal(answer_box_get(&box, "abc234", &yes), 1);
	assert_true(yes);
	/* the terminal gone */
	close(pp[1]);
	assert_int_equal(answer_box_pump(&box, waits, NULL), -EPIPE);
	close(dp[1]);
	assert_int_equal(answer_box_desktop(&box, dp[0], waits, NULL), -EPIPE);
	close(dp[0]);
	free(f->path);
	f->path = NULL;
	answer_box_close(&box);
}

int main(void)
{
	const struct CMUnitTest t[] = {
	    cmocka_unit_test(test_line_parse),
	    cmocka_unit_test_setup_teardown(test_same_namespaces_taken, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_user_namespace_refused, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_mount_namespace_refused, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_bad_message_refused, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_box, setup, teardown),
	};
	return cmocka_run_group_tests(t, NULL, NULL);
}
