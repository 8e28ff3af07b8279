/* A syscall oracle for the seccomp tests (in the spirit of bubblewrap's
 * tests/try-syscall.c): runs one named syscall and reports what the kernel
 * said.
 *
 *   try_syscall NAME [HEX]
 *   try_syscall --list       every refusal of the policy: "NAME<TAB>ERRNO"
 *
 * NAME is a try of the seccomp policy (src/init/seccomp_policy.c,
 * seccomp_try_get: the call and its arguments come from there), or one of
 * the calls below that take HEX (an ioctl cmd, clone or unshare flags, a
 * persona) or that the policy allows.
 *
 * Prints "ok" or "errno N" on stdout and exits 0, or 1 when the call
 * failed. A call killed by seccomp never prints: the caller sees SIGSYS.
 *
 * The arguments are chosen so that, WITHOUT our filter, the kernel gives a
 * different answer (usually EINVAL, EBADF or EFAULT from an argument it
 * checks before any permission) than the filter's EPERM or ENOSYS: the test
 * then proves the filter, not the kernel's own refusal. Where the kernel
 * checks permission first, the e2e test compares with a run without the
 * filter and says so.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "init/seccomp_policy.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

static unsigned long hexarg(int argc, char **argv, unsigned long dflt)
{
	return argc > 2 ? strtoul(argv[2], NULL, 16) : dflt;
}

/* clone() without a new stack: the child returns 0 and exits at once. */
static long do_clone(unsigned long flags)
{
	long r = syscall(SYS_clone, flags, 0, 0, 0, 0);
	if (r == 0)
		_exit(0);
	if (r > 0)
		waitpid((pid_t)r, NULL, __WALL);
	return r < 0 ? -1 : 0;
}

#if defined(__x86_64__)
/* getpid through the 32-bit entry (int 0x80, i386 number 20). */
static long i386_getpid(void)
{
	long r;
	__asm__ volatile("int $0x80" : "=a"(r) : "a"(20L) : "memory");
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return r;
}
#endif

int main(int argc, char **argv)
{
	struct seccomp_try t;
	const char *n;
	long r;

	if (argc < 2) {
		fprintf(stderr, "usage: try_syscall NAME [HEX]\n");
		return 2;
	}
	n = argv[1];
	errno = 0;
	if (!strcmp(n, "--list")) {
		/* every try of the policy, and the errno the filter gives */
		for (size_t i = 0; seccomp_try_get(i, &t) == 0; i++)
			printf("%s\t%d\n", t.name, t.errnum);
		return 0;
	}
	if (seccomp_try_find(n, &t) == 0) {
		r = syscall(t.nr, t.args[0], t.args[1], t.args[2], t.args[3],
			    t.args[4], t.args[5]);
		if (t.nr == SYS_clone && r == 0)
			_exit(0);
		if (t.nr == SYS_clone && r > 0)
			waitpid((pid_t)r, NULL, __WALL);
	}
	/* ioctl on fd -1: natively EBADF; HEX is the full 64-bit cmd. */
	else if (!strcmp(n, "ioctl"))
		r = syscall(SYS_ioctl, -1, hexarg(argc, argv, TIOCSTI), NULL);
	/* clone/unshare with HEX flags. */
	else if (!strcmp(n, "clone"))
		r = do_clone(hexarg(argc, argv, SIGCHLD));
	else if (!strcmp(n, "unshare"))
		r = syscall(SYS_unshare, hexarg(argc, argv, 0));
	else if (!strcmp(n, "personality"))
		r = syscall(SYS_personality, hexarg(argc, argv, 0xffffffff));
	else if (!strcmp(n, "ptrace_traceme"))
		r = syscall(SYS_ptrace, 0 /* PTRACE_TRACEME */, 0, 0, 0);
#if defined(__x86_64__)
	else if (!strcmp(n, "i386_getpid"))
		r = i386_getpid();
	else if (!strcmp(n, "x32_getpid"))
		r = syscall(0x40000000 | SYS_getpid);
#endif
	else if (!strcmp(n, "getpid"))
		r = syscall(SYS_getpid);
	else {
		fprintf(stderr, "try_syscall: unknown syscall '%s'\n", n);
		return 2;
	}
	if (r < 0) {
		printf("errno %d\n", errno);
		return 1;
	}
	printf("ok\n");
	return 0;
}
