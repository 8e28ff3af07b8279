/* term_write: lnk's own messages stay readable on a raw terminal. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "common/util.h"

static size_t drain(int fd, char *buf, size_t cap)
{
	size_t n = 0;
	struct pollfd p = {.fd = fd, .events = POLLIN};
	while (n < cap && poll(&p, 1, 200) > 0) {
		ssize_t r = read(fd, buf + n, cap - n);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	return n;
}

static void raw_pty_gets_crlf(void **state)
{
	(void)state;
	int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	assert_true(m >= 0);
	assert_int_equal(grantpt(m), 0);
	assert_int_equal(unlockpt(m), 0);
	int s = open(ptsname(m), O_RDWR | O_NOCTTY | O_CLOEXEC);
	assert_true(s >= 0);
	struct termios t;
	assert_int_equal(tcgetattr(s, &t), 0);
	cfmakeraw(&t);
	assert_int_equal(tcsetattr(s, TCSANOW, &t), 0);

	term_write(s, "lnk: one\nlnk: two\r\n");
	char buf[64];
	size_t n = drain(m, buf, sizeof(buf));
	assert_int_equal(n, strlen("lnk: one\r\nlnk: two\r\n"));
	assert_memory_equal(buf, "lnk: one\r\nlnk: two\r\n", n);
	close(s);
	close(m);
}

static void pipe_is_untouched(void **state)
{
	(void)state;
	int p[2];
	assert_int_equal(pipe(p), 0);
	term_write(p[1], "a\nb\n");
	close(p[1]);
	char buf[16];
	ssize_t n = read(p[0], buf, sizeof(buf));
	assert_int_equal(n, 4);
	assert_memory_equal(buf, "a\nb\n", 4);
	close(p[0]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(raw_pty_gets_crlf),
	    cmocka_unit_test(pipe_is_untouched),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
