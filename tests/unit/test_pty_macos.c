/* The macOS launcher's pty (src/launch/pty_macos.c), driven on Linux: it
 * uses POSIX calls only, so the threat it closes can be shown here.
 *
 * A "user's terminal" is a pty of the test's own; lnk's stand-in runs on
 * it and starts a program the way macos.c does. The program must find a
 * terminal that is not the user's, in a session of its own; and a process
 * it started that left its session must not read what the user types
 * after the program ended (it read it when the program had the user's
 * terminal). */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

/* Not in the Linux build's libraries: compiled in here. */
#include "../../src/launch/pty_macos.c"

static void say(int fd, const char *s)
{
	if (write(fd, s, strlen(s)) < 0)
		_exit(3);
}

/* The program: says its terminal and whether it leads its session, then
 * leaves behind a process in a session of its own that, once told, reads
 * its standard input and says what it got. */
static void program(const char *users_tty, int report, int go)
{
	char line[256];
	const char *t = ttyname(0);
	snprintf(line, sizeof(line), "tty=%s own=%d leader=%d\n",
		 t ? t : "none", t && strcmp(t, users_tty) != 0,
		 getsid(0) == getpid());
	say(report, line);
	/* as a daemon does: the terminal's hangup does not end it */
	signal(SIGHUP, SIG_IGN);
	pid_t g = fork();
	if (g == 0) {
		setsid();
		char c;
		if (read(go, &c, 1) != 1)
			_exit(3);
		char buf[64] = {0};
		ssize_t n = read(0, buf, sizeof(buf) - 1);
		snprintf(line, sizeof(line), "read=%s\n",
			 n > 0	  ? buf
			 : n == 0 ? "EOF"
				  : "error");
		say(report, line);
		_exit(0);
	}
	_exit(0);
}

static void pty_of_its_own(void **state)
{
	(void)state;
	int um = posix_openpt(O_RDWR | O_NOCTTY);
	assert_true(um >= 0);
	assert_int_equal(grantpt(um), 0);
	assert_int_equal(unlockpt(um), 0);
	char users_tty[128];
	snprintf(users_tty, sizeof(users_tty), "%s", ptsname(um));
	int report[2], go[2];
	signal(SIGPIPE, SIG_IGN);
	assert_int_equal(pipe(report), 0);
	assert_int_equal(pipe(go), 0);

	pid_t lnk = fork();
	assert_true(lnk >= 0);
	if (lnk == 0) {
		/* lnk, run by the user on the user's terminal */
		close(um);
		close(report[0]);
		close(go[1]);
		setsid();
		int s = open(users_tty, O_RDWR);
		if (s < 0 || ioctl(s, TIOCSCTTY, 0) < 0)
			_exit(4);
		for (int fd = 0; fd < 3; fd++)
			dup2(s, fd);
		close(s);
		struct mac_pty pt;
		struct lnk_err err = {0};
		if (mac_pty_open(&pt, &err) < 0)
			_exit(5);
		pid_t c = fork();
		if (c == 0) {
			if (mac_pty_child(&pt) < 0)
				_exit(6);
			program(users_tty, report[1], go[0]);
		}
		int st;
		int r = mac_pty_relay(&pt, c, &st);
		mac_pty_close(&pt);
		_exit(r == 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 7);
	}
	close(report[1]);
	close(go[0]);
	/* The user's terminal shows what lnk relays; keep it drained. */
	int st;
	for (;;) {
		char buf[256];
		struct pollfd p = {.fd = um, .events = POLLIN};
		/* before lnk opens its end, the user's side reads an
		 * error: wait a little then */
		if (poll(&p, 1, 50) > 0 && read(um, buf, sizeof(buf)) < 0)
			(void)poll(NULL, 0, 20);
		if (waitpid(lnk, &st, WNOHANG) == lnk)
			break;
	}
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);

	/* The program and lnk are gone; the user types the next command. */
	assert_int_equal(write(um, "SECRET\n", 7), 7);
	assert_int_equal(write(go[1], "g", 1), 1);
	char out[1024] = {0};
	size_t len = 0;
	ssize_t n;
	while (len < sizeof(out) - 1 &&
	       (n = read(report[0], out + len, sizeof(out) - 1 - len)) > 0)
		len += (size_t)n;
	if (!strstr(out, "own=1 leader=1"))
		fail_msg("the program's terminal or session: %s", out);
	if (!strstr(out, "read=") || strstr(out, "SECRET"))
		fail_msg("a process that left the session read: %s", out);
	close(um);
	close(report[0]);
	close(go[1]);
}

/* No terminal among lnk's descriptors: none is made, and the program
 * still gets a session of its own. */
static void no_terminal_no_pty(void **state)
{
	(void)state;
	pid_t c = fork();
	assert_true(c >= 0);
	if (c == 0) {
		int devnull = open("/dev/null", O_RDWR);
		for (int fd = 0; fd < 3; fd++)
			dup2(devnull, fd);
		setsid(); /* no controlling terminal either */
		struct mac_pty pt;
		struct lnk_err err = {0};
		if (mac_pty_open(&pt, &err) < 0 || pt.master != -1)
			_exit(2);
		pid_t g = fork();
		if (g == 0) {
			_exit(mac_pty_child(&pt) == 0 && getsid(0) == getpid()
				  ? 0
				  : 3);
		}
		int st;
		if (mac_pty_relay(&pt, g, &st) < 0)
			_exit(5);
		mac_pty_close(&pt);
		_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 6);
	}
	int st;
	assert_int_equal(waitpid(c, &st, 0), c);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(pty_of_its_own),
	    cmocka_unit_test(no_terminal_no_pty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
