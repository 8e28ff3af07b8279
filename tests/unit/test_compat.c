/* The descriptor calls' portable names (common/compat.h), on Linux: every
 * descriptor they make is close-on-exec, non-blocking when asked, and the
 * signal and process handles say what they name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/compat.h"

static void assert_flags(int fd, bool nonblock)
{
	assert_true(fd >= 0);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	assert_int_equal(!!(fcntl(fd, F_GETFL) & O_NONBLOCK), nonblock);
}

static void every_descriptor_is_cloexec(void **state)
{
	(void)state;
	int s = socket_cloexec(AF_INET, SOCK_STREAM, 0, 0);
	assert_flags(s, false);
	close(s);
	s = socket_cloexec(AF_INET, SOCK_DGRAM, 0, COMPAT_NONBLOCK);
	assert_flags(s, true);
	close(s);
	int sv[2];
	assert_int_equal(socketpair_cloexec(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	assert_flags(sv[0], false);
	assert_flags(sv[1], false);
	int p[2];
	assert_int_equal(pipe_cloexec(p, COMPAT_NONBLOCK), 0);
	assert_flags(p[0], true);
	assert_flags(p[1], true);
	/* dup to an exact number */
	int hi = fcntl(p[0], F_DUPFD, 200);
	assert_true(hi >= 200);
	close(hi);
	assert_int_equal(dup_cloexec_to(p[0], hi), hi);
	assert_flags(hi, true);
	close(hi);
	/* a descriptor received over a socket */
	char byte = 'x';
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	union {
		char b[CMSG_SPACE(sizeof(int))];
		struct cmsghdr a;
	} u;
	memset(&u, 0, sizeof(u));
	struct msghdr m = {.msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = u.b,
			   .msg_controllen = sizeof(u.b)};
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	int plain = dup(p[1]); /* not close-on-exec */
	memcpy(CMSG_DATA(c), &plain, sizeof(int));
	assert_int_equal(sendmsg(sv[0], &m, 0), 1);
	close(plain);
	memset(&u, 0, sizeof(u));
	m.msg_controllen = sizeof(u.b);
	assert_int_equal(recvmsg_cloexec(sv[1], &m, 0), 1);
	c = CMSG_FIRSTHDR(&m);
	assert_non_null(c);
	int got;
	memcpy(&got, CMSG_DATA(c), sizeof(int));
	assert_true(fcntl(got, F_GETFD) & FD_CLOEXEC);
	close(got);
	/* the peer is this very user */
	uid_t uid = (uid_t)-1;
	assert_int_equal(peer_uid(sv[0], &uid), 0);
	assert_int_equal(uid, geteuid());
	close(sv[0]);
	close(sv[1]);
	close(p[0]);
	close(p[1]);
}

static void a_signal_arrives_as_a_readable_descriptor(void **state)
{
	(void)state;
	sigset_t set, old;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, &old);
	int fd = sigfd_open(&set, COMPAT_NONBLOCK);
	assert_flags(fd, true);
	assert_int_equal(sigfd_next(fd), 0); /* none yet */
	kill(getpid(), SIGUSR1);
	struct pollfd pf = {.fd = fd, .events = POLLIN};
	assert_int_equal(poll(&pf, 1, 1000), 1);
	assert_int_equal(sigfd_next(fd), SIGUSR1);
	assert_int_equal(sigfd_next(fd), 0);
	close(fd);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

static void a_process_handle_names_one_process(void **state)
{
	(void)state;
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		pause();
		_exit(0);
	}
	int h = proc_open(pid);
	assert_true(h >= 0);
	assert_true(fcntl(h, F_GETFD) & FD_CLOEXEC);
	struct pollfd pf = {.fd = h, .events = POLLIN};
	assert_int_equal(poll(&pf, 1, 0), 0); /* alive */
	assert_int_equal(proc_signal(h, pid, SIGKILL), 0);
	assert_int_equal(poll(&pf, 1, 5000), 1); /* readable: it exited */
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	/* reaped: the handle still names that process, which is gone */
	assert_int_equal(proc_signal(h, pid, SIGKILL), -ESRCH);
	close(h);
	assert_int_equal(proc_open(pid), -ESRCH);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_descriptor_is_cloexec),
	    cmocka_unit_test(a_signal_arrives_as_a_readable_descriptor),
	    cmocka_unit_test(a_process_handle_names_one_process),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
