/* The control protocol (wire/ctl.h): the parsers with hostile bytes, and
 * the server with real unix sockets: split, malformed, over-long, slow and
 * foreign clients, each closed alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
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
#include "wire/ctl.h"

/* ---- wire format ---- */

static void request_roundtrip(void **state)
{
	(void)state;
	for (int op = CTL_PAUSE; op <= CTL_STATUS; op++) {
		uint8_t b[CTL_REQ_SIZE];
		enum ctl_op got;
		ctl_encode_request((enum ctl_op)op, b);
		assert_int_equal(ctl_parse_request(b, sizeof(b), &got), 0);
		assert_int_equal(got, op);
	}
}

static void request_every_byte_checked(void **state)
{
	(void)state;
	uint8_t good[CTL_REQ_SIZE], b[CTL_REQ_SIZE];
	enum ctl_op op;
	ctl_encode_request(CTL_PAUSE, good);
	/* Any change of any byte is a malformed request, except op bytes
	 * that name another valid op. */
	for (size_t i = 0; i < CTL_REQ_SIZE; i++)
		for (int v = 0; v < 256; v++) {
			if (v == good[i])
				continue;
			memcpy(b, good, sizeof(b));
			b[i] = (uint8_t)v;
			int r = ctl_parse_request(b, sizeof(b), &op);
			if (i == 5 && v >= CTL_PAUSE && v <= CTL_STATUS)
				assert_int_equal(r, 0);
			else if (r != -EBADMSG)
				fail_msg("byte %zu = %d accepted", i, v);
		}
	/* Wrong version, explicitly. */
	memcpy(b, good, sizeof(b));
	b[4] = CTL_VERSION + 1;
	assert_int_equal(ctl_parse_request(b, sizeof(b), &op), -EBADMSG);
	/* Truncated and over-long. */
	for (size_t n = 0; n < CTL_REQ_SIZE; n++)
		assert_int_equal(ctl_parse_request(good, n, &op), -EBADMSG);
	uint8_t longer[CTL_REQ_SIZE + 1] = {0};
	memcpy(longer, good, CTL_REQ_SIZE);
	assert_int_equal(ctl_parse_request(longer, sizeof(longer), &op),
			 -EBADMSG);
	assert_int_equal(ctl_parse_request(NULL, 8, &op), -EBADMSG);
}

static void reply_roundtrip_and_checks(void **state)
{
	(void)state;
	struct ctl_reply r = {.op = CTL_STATUS, .result = CTL_R_OK};
	r.st.closed = true;
	r.st.cause = CTL_CAUSE_TRIP;
	r.st.rule = TRIP_METADATA;
	r.st.conns = 77;
	r.st.since_ms = 1714560000123;
	r.st.up = 1ULL << 40;
	r.st.down = 12345;
	snprintf(r.st.detail, sizeof(r.st.detail), "169.254.169.254:80");
	uint8_t b[CTL_REPLY_SIZE], c[CTL_REPLY_SIZE];
	ctl_encode_reply(&r, b);
	struct ctl_reply g;
	assert_int_equal(ctl_parse_reply(b, sizeof(b), &g), 0);
	assert_int_equal(g.op, CTL_STATUS);
	assert_true(g.st.closed);
	assert_int_equal(g.st.cause, CTL_CAUSE_TRIP);
	assert_int_equal(g.st.rule, TRIP_METADATA);
	assert_int_equal(g.st.conns, 77);
	assert_int_equal(g.st.since_ms, 1714560000123);
	assert_int_equal(g.st.up, 1ULL << 40);
	assert_int_equal(g.st.down, 12345);
	assert_string_equal(g.st.detail, "169.254.169.254:80");

	/* Truncated, over-long. */
	for (size_t n = 0; n < CTL_REPLY_SIZE; n += 7)
		assert_int_equal(ctl_parse_reply(b, n, &g), -EBADMSG);
	uint8_t longer[CTL_REPLY_SIZE + 1] = {0};
	memcpy(longer, b, CTL_REPLY_SIZE);
	assert_int_equal(ctl_parse_reply(longer, sizeof(longer), &g), -EBADMSG);
	/* Each of these single changes is malformed. */
	static const struct {
		size_t at;
		uint8_t v;
	} bad[] = {
	    {0, 'X'},
	    {4, 2},
	    {5, 9},
	    {6, 4},
	    {7, 2},
	    {8, 4},
	    {9, TRIP_RULE_LAST + 1},
	    {10, 1},
	    {11, 1},
	    {9, 0},
	    {8, 0},
	    {7, 0},
	    {60, 1},
	    {127, 1},
	    {40, 0x1b},
	    {41, 0x7f},
	    {45, 0x80},
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		memcpy(c, b, sizeof(c));
		c[bad[i].at] = bad[i].v;
		if (ctl_parse_reply(c, sizeof(c), &g) != -EBADMSG)
			fail_msg("reply byte %zu = %d accepted", bad[i].at,
				 bad[i].v);
	}
	/* A detail filling all 88 bytes has no NUL. */
	memcpy(c, b, sizeof(c));
	memset(c + 40, 'a', CTL_DETAIL_MAX);
	assert_int_equal(ctl_parse_reply(c, sizeof(c), &g), -EBADMSG);
	/* Markup the encoder never writes: a detail
	 * reaches a desktop notification's body. */
	for (const char *m = "<>&"; *m; m++) {
		memcpy(c, b, sizeof(c));
		memset(c + 40, 0, CTL_DETAIL_MAX);
		memcpy(c + 40, "e&-target", 9);
		c[41] = (uint8_t)*m;
		assert_int_equal(ctl_parse_reply(c, sizeof(c), &g), -EBADMSG);
	}

	/* The encoder makes hostile detail printable (no escape sequences
	 * reach a terminal) and never overflows. */
	struct ctl_reply h = {.op = CTL_STATUS};
	h.st.closed = true;
	h.st.cause = CTL_CAUSE_HAND;
	memset(h.st.detail, 'z', sizeof(h.st.detail) - 1);
	h.st.detail[0] = 0x1b;
	h.st.detail[1] = '<';
	h.st.detail[sizeof(h.st.detail) - 1] = '\0';
	ctl_encode_reply(&h, b);
	assert_int_equal(ctl_parse_reply(b, sizeof(b), &g), 0);
	assert_memory_equal(g.st.detail, "\\x1b\\x3czz", 10);
	assert_int_equal(strlen(g.st.detail), sizeof(g.st.detail) - 1);
	assert_string_equal(g.st.detail + sizeof(g.st.detail) - 4, "...");
}

static void names_and_paths(void **state)
{
	(void)state;
	char *p = ctl_socket_path("/home/u", "run-1234");
	assert_string_equal(p, "/home/u/.lnk/sandbox/run/run-1234.sock");
	free(p);
	static const char *const bad[] = {"",	   "../x", "a/b", ".hidden",
					  "-rf",   "a b",  "é",	  "x\n",
					  "a\x1b", NULL};
	for (size_t i = 0; bad[i]; i++)
		assert_null(ctl_socket_path("/home/u", bad[i]));
	char longname[80];
	memset(longname, 'a', sizeof(longname) - 1);
	longname[79] = '\0';
	assert_null(ctl_socket_path("/home/u", longname));
	assert_string_equal(ctl_cause_text(CTL_CAUSE_HAND), "by hand");
	assert_int_equal(ctl_cause_from_name("tripped"), CTL_CAUSE_TRIP);
	assert_int_equal(ctl_cause_from_name("x"), CTL_CAUSE_NONE);
}

/* ---- the server, with real sockets ---- */

struct fake_wire {
	int calls;
	enum ctl_op last;
	bool closed;
	enum ctl_cause cause;
};

static enum ctl_result handler(void *ctx, enum ctl_op op, struct ctl_status *st)
{
	struct fake_wire *w = ctx;
	w->calls++;
	w->last = op;
	switch (op) {
	case CTL_PAUSE:
		w->closed = true;
		w->cause = CTL_CAUSE_HAND;
		break;
	case CTL_STOP:
		w->closed = true;
		w->cause = CTL_CAUSE_STOP;
		break;
	case CTL_RESUME:
		w->closed = false;
		w->cause = CTL_CAUSE_NONE;
		break;
	case CTL_STOP_OFF:
		if (w->cause == CTL_CAUSE_STOP) {
			w->closed = false;
			w->cause = CTL_CAUSE_NONE;
		}
		break;
	case CTL_STATUS:
		break;
	}
	st->closed = w->closed;
	st->cause = w->cause;
	st->conns = 3;
	return CTL_R_OK;
}

struct fixture {
	char dir[64];
	char path[128];
	struct ctl_server *s;
	struct fake_wire w;
};

static int setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof(*f));
	snprintf(f->dir, sizeof(f->dir), "/tmp/lnk-test-ctl-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/t.sock", f->dir);
	struct lnk_err err = {0};
	if (ctl_server_open_at(f->path, getuid(), &f->s, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return -1;
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	ctl_server_close(f->s);
	rmdir(f->dir);
	free(f);
	return 0;
}

static int connect_to(const char *path)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

/* Dispatches until nothing is ready. */
static void pump(struct fixture *f)
{
	for (int i = 0; i < 20; i++) {
		struct pollfd p = {.fd = ctl_server_fd(f->s), .events = POLLIN};
		if (poll(&p, 1, 20) <= 0)
			return;
		ctl_server_dispatch(f->s, 0, handler, &f->w);
	}
}

/* Reads the reply; returns its byte count (0 when closed silently). */
static ssize_t read_reply(int fd, struct ctl_reply *r)
{
	uint8_t b[CTL_REPLY_SIZE + 16];
	size_t have = 0;
	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		if (poll(&p, 1, 1000) <= 0)
			return -1;
		ssize_t n = read(fd, b + have, sizeof(b) - have);
		if (n <= 0)
			break;
		have += (size_t)n;
	}
	if (have && r)
		assert_int_equal(ctl_parse_reply(b, have, r), 0);
	return (ssize_t)have;
}

static void server_answers(void **state)
{
	struct fixture *f = *state;
	struct stat st;
	assert_int_equal(stat(f->path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);

	int fd = connect_to(f->path);
	uint8_t req[CTL_REQ_SIZE];
	ctl_encode_request(CTL_PAUSE, req);
	assert_int_equal(write(fd, req, sizeof(req)), sizeof(req));
	pump(f);
	struct ctl_reply r;
	assert_int_equal(read_reply(fd, &r), CTL_REPLY_SIZE);
	close(fd);
	assert_int_equal(r.result, CTL_R_OK);
	assert_int_equal(r.op, CTL_PAUSE);
	assert_true(r.st.closed);
	assert_int_equal(r.st.cause, CTL_CAUSE_HAND);
	assert_int_equal(f->w.calls, 1);
	assert_int_equal(ctl_server_clients(f->s), 0);
}

static void server_split_request(void **state)
{
	struct fixture *f = *state;
	int fd = connect_to(f->path);
	uint8_t req[CTL_REQ_SIZE];
	ctl_encode_request(CTL_STATUS, req);
	/* One byte at a time, with the loop running between. */
	for (size_t i = 0; i < sizeof(req); i++) {
		assert_int_equal(write(fd, req + i, 1), 1);
		pump(f);
		if (i + 1 < sizeof(req)) {
			assert_int_equal(f->w.calls, 0);
			assert_int_equal(ctl_server_clients(f->s), 1);
		}
	}
	struct ctl_reply r;
	assert_int_equal(read_reply(fd, &r), CTL_REPLY_SIZE);
	assert_int_equal(r.op, CTL_STATUS);
	assert_int_equal(r.st.conns, 3);
	close(fd);
}

static void server_bad_client_alone(void **state)
{
	struct fixture *f = *state;
	uint8_t req[CTL_REQ_SIZE];
	ctl_encode_request(CTL_RESUME, req);

	/* A good client half-way through its request. */
	int good = connect_to(f->path);
	assert_int_equal(write(good, req, 3), 3);
	pump(f);

	static const struct {
		const char *what;
		uint8_t b[12];
		size_t n;
	} bad[] = {
	    {"wrong magic", {'X', 'N', 'K', 'c', 1, 1, 0, 0}, 8},
	    {"wrong version", {'L', 'N', 'K', 'c', 2, 1, 0, 0}, 8},
	    {"op 0", {'L', 'N', 'K', 'c', 1, 0, 0, 0}, 8},
	    {"op 99", {'L', 'N', 'K', 'c', 1, 99, 0, 0}, 8},
	    {"reserved set", {'L', 'N', 'K', 'c', 1, 1, 0, 7}, 8},
	    {"over-long", {'L', 'N', 'K', 'c', 1, 1, 0, 0, 0, 0}, 10},
	    {"http", {'G', 'E', 'T', ' ', '/'}, 5},
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		int fd = connect_to(f->path);
		assert_int_equal(write(fd, bad[i].b, bad[i].n),
				 (ssize_t)bad[i].n);
		pump(f);
		struct ctl_reply r;
		ssize_t n = read_reply(fd, &r);
		if (n != CTL_REPLY_SIZE || r.result != CTL_R_BAD)
			fail_msg("%s: not refused as malformed", bad[i].what);
		close(fd);
	}
	assert_int_equal(f->w.calls, 0);
	/* A client that closes half-way. */
	int half = connect_to(f->path);
	assert_int_equal(write(half, req, 5), 5);
	close(half);
	pump(f);

	/* The good client is still served. */
	assert_int_equal(ctl_server_clients(f->s), 1);
	assert_int_equal(write(good, req + 3, 5), 5);
	pump(f);
	struct ctl_reply r;
	assert_int_equal(read_reply(good, &r), CTL_REPLY_SIZE);
	assert_int_equal(r.result, CTL_R_OK);
	assert_int_equal(r.op, CTL_RESUME);
	assert_int_equal(f->w.calls, 1);
	close(good);
}

static void server_slow_and_many(void **state)
{
	struct fixture *f = *state;
	int fds[CTL_MAX_CLIENTS + 4];
	/* More clients than slots: the extra ones are refused, not queued
	 * forever. */
	for (size_t i = 0; i < ARRAY_SIZE(fds); i++) {
		fds[i] = connect_to(f->path);
		pump(f);
	}
	assert_int_equal(ctl_server_clients(f->s), CTL_MAX_CLIENTS);
	struct ctl_reply r;
	assert_int_equal(read_reply(fds[CTL_MAX_CLIENTS], &r), CTL_REPLY_SIZE);
	assert_int_equal(r.result, CTL_R_FAILED);
	/* Silent clients are closed after the timeout, not before. */
	ctl_server_tick(f->s, CTL_CLIENT_TIMEOUT_MS - 1);
	assert_int_equal(ctl_server_clients(f->s), CTL_MAX_CLIENTS);
	ctl_server_tick(f->s, CTL_CLIENT_TIMEOUT_MS);
	assert_int_equal(ctl_server_clients(f->s), 0);
	assert_int_equal(read_reply(fds[0], NULL), 0);
	for (size_t i = 0; i < ARRAY_SIZE(fds); i++)
		close(fds[i]);
	/* And the server still answers. */
	int fd = connect_to(f->path);
	uint8_t req[CTL_REQ_SIZE];
	ctl_encode_request(CTL_STATUS, req);
	assert_int_equal(write(fd, req, sizeof(req)), sizeof(req));
	pump(f);
	assert_int_equal(read_reply(fd, &r), CTL_REPLY_SIZE);
	assert_int_equal(r.result, CTL_R_OK);
	close(fd);
}

static void server_refuses_other_uid(void **state)
{
	struct fixture *f = *state;
	if (geteuid() != 0)
		skip(); /* needs root to become another user */
	/* Let the other user reach the socket, so only SO_PEERCRED stands
	 * in the way. */
	chmod(f->dir, 0755);
	chmod(f->path, 0666);
	pid_t pid = fork();
	if (pid == 0) {
		if (setgid(65534) < 0 || setuid(65534) < 0)
			_exit(3);
		int fd = socket(AF_UNIX, SOCK_STREAM, 0);
		struct sockaddr_un sa = {.sun_family = AF_UNIX};
		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", f->path);
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
			_exit(4);
		uint8_t req[CTL_REQ_SIZE];
		ctl_encode_request(CTL_PAUSE, req);
		(void)!write(fd, req, sizeof(req));
		uint8_t b[CTL_REPLY_SIZE];
		struct pollfd p = {.fd = fd, .events = POLLIN};
		if (poll(&p, 1, 3000) <= 0)
			_exit(5);
		ssize_t n = read(fd, b, sizeof(b));
		struct ctl_reply r;
		if (n != CTL_REPLY_SIZE || ctl_parse_reply(b, (size_t)n, &r))
			_exit(6);
		_exit(r.result == CTL_R_NOT_OWNER ? 0 : 7);
	}
	for (int i = 0; i < 50; i++) {
		pump(f);
		int status;
		if (waitpid(pid, &status, WNOHANG) == pid) {
			assert_true(WIFEXITED(status));
			assert_int_equal(WEXITSTATUS(status), 0);
			assert_int_equal(f->w.calls, 0);
			assert_false(f->w.closed);
			return;
		}
		usleep(20000);
	}
	kill(pid, SIGKILL);
	fail_msg("the other user's client did not finish");
}

/* Another user's request already waits when the server accepts it: the
 * refusal must still be read, not lost to a reset (closing a unix socket
 * with unread bytes resets its peer). Here the server's owner is another
 * uid, so this process is "another user" without needing root. */
static void server_not_owner_reply_survives(void **state)
{
	struct fixture *f = *state;
	ctl_server_close(f->s);
	struct lnk_err err = {0};
	assert_int_equal(
	    ctl_server_open_at(f->path, getuid() + 4242, &f->s, &err), 0);
	int fd = connect_to(f->path);
	assert_true(fd >= 0);
	uint8_t req[CTL_REQ_SIZE];
	ctl_encode_request(CTL_PAUSE, req);
	assert_int_equal(write(fd, req, sizeof(req)), (ssize_t)sizeof(req));
	pump(f);
	uint8_t b[CTL_REPLY_SIZE];
	assert_int_equal(read(fd, b, sizeof(b)), CTL_REPLY_SIZE);
	struct ctl_reply r;
	assert_int_equal(ctl_parse_reply(b, sizeof(b), &r), 0);
	assert_int_equal(r.result, CTL_R_NOT_OWNER);
	/* then a clean end, not ECONNRESET (which ctl_request reports) */
	assert_int_equal(read(fd, b, sizeof(b)), 0);
	assert_int_equal(f->w.calls, 0);
	assert_int_equal(ctl_server_clients(f->s), 0);
	close(fd);
}

/* ctl_request against a server in a child process. */
static void client_request(void **state)
{
	struct fixture *f = *state;
	pid_t pid = fork();
	if (pid == 0) {
		for (int i = 0; i < 200; i++) {
			struct pollfd p = {.fd = ctl_server_fd(f->s),
					   .events = POLLIN};
			if (poll(&p, 1, 20) > 0)
				ctl_server_dispatch(f->s, 0, handler, &f->w);
		}
		_exit(0);
	}
	struct ctl_reply r;
	struct lnk_err err = {0};
	assert_int_equal(ctl_request(f->path, CTL_STOP, 2000, &r, &err), 0);
	assert_int_equal(r.result, CTL_R_OK);
	assert_int_equal(r.st.cause, CTL_CAUSE_STOP);
	assert_int_equal(ctl_request(f->path, CTL_STOP_OFF, 2000, &r, &err), 0);
	assert_false(r.st.closed);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);

	/* Nobody answers: a clear error in time, not a hang. */
	int r2 = ctl_request(f->path, CTL_STATUS, 300, &r, &err);
	assert_int_equal(r2, -ETIMEDOUT);
	assert_non_null(strstr(err.msg, "did not answer"));
	char none[160];
	snprintf(none, sizeof(none), "%s/none.sock", f->dir);
	assert_int_equal(ctl_request(none, CTL_STATUS, 300, &r, &err), -ENOENT);
}

static void stale_and_live_sockets(void **state)
{
	struct fixture *f = *state;
	struct lnk_err err = {0};
	struct ctl_server *s2 = NULL;
	/* A live wire holds the name. */
	assert_int_equal(ctl_server_open_at(f->path, getuid(), &s2, &err),
			 -EADDRINUSE);
	/* A socket left by a dead wire is replaced. */
	char stale[160];
	snprintf(stale, sizeof(stale), "%s/stale.sock", f->dir);
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", stale);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	close(fd);
	assert_int_equal(ctl_server_open_at(stale, getuid(), &s2, &err), 0);
	ctl_server_close(s2);
	assert_int_equal(access(stale, F_OK), -1);
	/* Not a socket: refused, left alone. */
	char file[160];
	snprintf(file, sizeof(file), "%s/file.sock", f->dir);
	close(open(file, O_CREAT | O_WRONLY | O_CLOEXEC, 0600));
	assert_int_equal(ctl_server_open_at(file, getuid(), &s2, &err),
			 -EEXIST);
	unlink(file);
}

static void long_home_path(void **state)
{
	(void)state;
	/* A home deeper than sun_path's 108 bytes still works (through
	 * /proc/self/fd). */
	char base[] = "/tmp/lnk-test-ctl-long-XXXXXX";
	assert_non_null(mkdtemp(base));
	char home[300];
	snprintf(home, sizeof(home),
		 "%s/a-rather-long-folder-name-for-a-home/and-deeper-still/"
		 "and-deeper-again-to-pass-the-limit",
		 base);
	char cmd[400];
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", home);
	assert_int_equal(system(cmd), 0);
	struct ctl_server *s = NULL;
	struct lnk_err err = {0};
	assert_int_equal(ctl_server_open(home, "run-42", &s, &err), 0);
	char *path = ctl_socket_path(home, "run-42");
	assert_true(strlen(path) > 108);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	char *dir = xasprintf("%s/.lnk/sandbox/run", home);
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);

	pid_t pid = fork();
	if (pid == 0) {
		struct fake_wire w = {0};
		for (int i = 0; i < 100; i++) {
			struct pollfd p = {.fd = ctl_server_fd(s),
					   .events = POLLIN};
			if (poll(&p, 1, 20) > 0)
				ctl_server_dispatch(s, 0, handler, &w);
		}
		_exit(0);
	}
	struct ctl_reply r;
	assert_int_equal(ctl_request(path, CTL_STATUS, 2000, &r, &err), 0);
	assert_int_equal(r.result, CTL_R_OK);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	ctl_server_close(s);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(ctl_server_open(home, "../evil", &s, &err), -EINVAL);
	free(path);
	free(dir);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	assert_int_equal(system(cmd), 0);
}

static void notify_line_and_desktop(void **state)
{
	(void)state;
	char dir[] = "/tmp/lnk-test-notify-XXXXXX";
	assert_non_null(mkdtemp(dir));
	/* A fake notify-send that records its arguments. */
	char exe[128], out[128];
	snprintf(exe, sizeof(exe), "%s/notify-send", dir);
	snprintf(out, sizeof(out), "%s/args", dir);
	FILE *fp = fopen(exe, "w");
	assert_non_null(fp);
	fprintf(fp,
		"#!/bin/sh\nfor a; do echo \"$a\"; done > '%s.tmp'\n"
		"/bin/mv '%s.tmp' '%s'\n",
		out, out, out);
	fclose(fp);
	chmod(exe, 0755);

	int p[2];
	assert_int_equal(pipe(p), 0);
	struct trip_verdict v = {.rule = TRIP_REFUSED_RATE, .at_ms = 1};
	snprintf(v.target, sizeof(v.target), "evil\x1b[2J.test:443");
	char *old_path = getenv("PATH") ? xstrdup(getenv("PATH")) : NULL;
	setenv("PATH", dir, 1);
	setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent", 1);
	ctl_notify_trip("run-1234", &v, p[1]);
	close(p[1]);
	char line[512] = {0};
	assert_true(read(p[0], line, sizeof(line) - 1) > 0);
	close(p[0]);
	assert_string_equal(
	    line, "lnk: run-1234: wire paused: too many calls refused within a "
		  "minute (evil\\x1b[2J.test:443); 'lnk sandbox resume "
		  "run-1234' "
		  "opens it\n");
	/* The desktop notification runs detached; wait for its file. */
	int tries = 0;
	while (access(out, F_OK) != 0 && tries++ < 100)
		usleep(20000);
	char *args = NULL;
	size_t n;
	assert_int_equal(read_file(out, 4096, &args, &n), 0);
	assert_non_null(strstr(args, "lnk: run-1234: wire paused\n"));
	assert_non_null(strstr(args, "too many calls refused within a minute"));
	assert_null(strchr(args, 0x1b));
	free(args);
	unlink(out);

	/* Without a session bus: the line only. */
	unsetenv("DBUS_SESSION_BUS_ADDRESS");
	assert_int_equal(pipe(p), 0);
	ctl_notify_trip("run-1234", &v, p[1]);
	close(p[1]);
	close(p[0]);
	usleep(100000);
	assert_int_equal(access(out, F_OK), -1);
	if (old_path)
		setenv("PATH", old_path, 1);
	free(old_path);
	unlink(exe);
	rmdir(dir);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(request_roundtrip),
	    cmocka_unit_test(request_every_byte_checked),
	    cmocka_unit_test(reply_roundtrip_and_checks),
	    cmocka_unit_test(names_and_paths),
	    cmocka_unit_test_setup_teardown(server_answers, setup, teardown),
	    cmocka_unit_test_setup_teardown(server_split_request, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(server_bad_client_alone, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(server_slow_and_many, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(server_refuses_other_uid, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(server_not_owner_reply_survives,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(client_request, setup, teardown),
	    cmocka_unit_test_setup_teardown(stale_and_live_sockets, setup,
					    teardown),
	    cmocka_unit_test(long_home_path),
	    cmocka_unit_test(notify_line_and_desktop),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
