/* The wire's confinement (src/wire/confine_linux.c), each act in a child that
 * confines itself first: what must work works, what must not is refused
 * (errno) or kills the child (SIGSYS), other architectures included. */
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "wire/confine.h"

static char dir[] = "/tmp/lnk-test-confine-XXXXXX";
static char db[128];

enum outcome { WORKS, REFUSED, KILLED };

struct act {
	const char *name;
	int (*fn)(void); /* 0, or an errno */
	enum outcome want;
	int want_errno; /* for REFUSED */
};

static int open_db(void)
{
	int fd = open(db, O_RDWR | O_CLOEXEC);
	return fd >= 0 ? 0 : errno;
}

static int open_passwd(void)
{
	int fd = open("/etc/passwd", O_RDONLY | O_CLOEXEC);
	return fd >= 0 ? 0 : errno;
}

static int open_hosts(void)
{
	int fd = open("/etc/hosts", O_RDONLY | O_CLOEXEC);
	return fd >= 0 ? 0 : errno;
}

static int create_beside_db(void)
{
	char p[160];
	snprintf(p, sizeof(p), "%s/new", dir);
	int fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	return fd >= 0 ? 0 : errno;
}

static int remove_beside_db(void)
{
	char p[160];
	snprintf(p, sizeof(p), "%s/other.sock", dir);
	return unlink(p) == 0 ? 0 : errno;
}

static int run_true(void)
{
	char *argv[] = {"/bin/true", NULL};
	execve(argv[0], argv, argv + 1);
	return errno;
}

static int do_fork(void)
{
	pid_t p = fork();
	if (p == 0)
		_exit(0);
	return p > 0 ? 0 : errno;
}

static int unix_socket(void)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	return fd >= 0 ? 0 : errno;
}

static int inet_socket(void)
{
	int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
	return fd >= 0 ? 0 : errno;
}

static int netlink_route(void)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	return fd >= 0 ? 0 : errno;
}

static int netlink_audit(void)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
	return fd >= 0 ? 0 : errno;
}

static int exec_memory(void)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_EXEC,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p != MAP_FAILED ? 0 : errno;
}

static int rw_memory(void)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p != MAP_FAILED ? 0 : errno;
}

static int tty_ioctl(void)
{
	/* TIOCSTI: typing into a terminal */
	char c = 'x';
	return ioctl(2, TIOCSTI, &c) == 0 ? 0 : errno;
}

static pid_t parent; /* the test, taken before the child confines itself */

static int signal_parent(void)
{
	return kill(parent, 0) == 0 ? 0 : errno;
}

static int x32_call(void)
{
	/* getpid through the x32 entry */
	long r = syscall(0x40000000 | SYS_getpid);
	return r >= 0 ? 0 : errno;
}

static int i386_call(void)
{
	/* getpid (20) through the 32-bit entry */
	long r;
	__asm__ volatile("int $0x80" : "=a"(r) : "0"(20L) : "memory");
	return r >= 0 ? 0 : (int)-r;
}

static int open_proc(void)
{
	int fd = open("/proc/self/environ", O_RDONLY | O_CLOEXEC);
	return fd >= 0 ? 0 : errno;
}

static const struct act acts[] = {
    {"its database", open_db, WORKS, 0},
    {"/etc/hosts", open_hosts, WORKS, 0},
    {"/etc/passwd", open_passwd, REFUSED, EACCES},
    {"/proc/self/environ", open_proc, REFUSED, EACCES},
    {"a new file beside the database", create_beside_db, REFUSED, EACCES},
    {"an inet socket", inet_socket, WORKS, 0},
    {"a netlink route socket", netlink_route, WORKS, 0},
    {"read-write memory", rw_memory, WORKS, 0},
    {"a terminal ioctl", tty_ioctl, REFUSED, EPERM},
    {"removing a file beside the database", remove_beside_db, REFUSED, EACCES},
    {"exec", run_true, KILLED, 0},
    {"fork", do_fork, KILLED, 0},
    {"a unix socket", unix_socket, KILLED, 0},
    {"a netlink audit socket", netlink_audit, KILLED, 0},
    {"executable memory", exec_memory, KILLED, 0},
    {"a signal to another process", signal_parent, KILLED, 0},
    {"the x32 entry", x32_call, KILLED, 0},
    {"the i386 entry", i386_call, KILLED, 0},
};

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(db, sizeof(db), "%s/lnk.db", dir);
	char p[160];
	int fd = open(db, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	close(fd);
	snprintf(p, sizeof(p), "%s/other.sock", dir);
	fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char p[160];
	snprintf(p, sizeof(p), "%s/new", dir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/other.sock", dir);
	unlink(p);
	unlink(db);
	rmdir(dir);
	return 0;
}

/* The sanitizers' runtime makes calls of its own (sigaltstack, ...) that
 * the wire's list rightly lacks: the wire is confined in normal builds. */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif

static void each_act(void **state)
{
	(void)state;
#ifdef SANITIZED
	print_message("skipped: the sanitizer runtime makes calls outside "
		      "the wire's list\n");
	skip();
#endif
	parent = getpid();
	for (size_t i = 0; i < sizeof(acts) / sizeof(acts[0]); i++) {
		const struct act *a = &acts[i];
		pid_t p = fork();
		assert_true(p >= 0);
		if (p == 0) {
			struct lnk_err err = {0};
			struct confine_plan cp = {.db_path = db};
			int nfd;
			if (confine_wire(&cp, &nfd, &err) < 0) {
				fprintf(stderr, "%s\n", err.msg);
				_exit(254);
			}
			_exit(a->fn() & 0xff);
		}
		int st = 0;
		assert_int_equal(waitpid(p, &st, 0), p);
		switch (a->want) {
		case WORKS:
			if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
				fail_msg("%s: should work, status %#x", a->name,
					 st);
			break;
		case REFUSED:
			if (!WIFEXITED(st) || WEXITSTATUS(st) != a->want_errno)
				fail_msg("%s: should be refused with %d, "
					 "status %#x",
					 a->name, a->want_errno, st);
			break;
		case KILLED:
			if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGSYS)
				fail_msg("%s: should be killed, status %#x",
					 a->name, st);
			break;
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(each_act, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
