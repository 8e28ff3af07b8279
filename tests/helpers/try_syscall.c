/* A syscall oracle for the seccomp tests (in the spirit of bubblewrap's
 * tests/try-syscall.c): runs one named syscall and reports what the kernel
 * said.
 *
 *   try_syscall NAME [HEX]
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
	const char *n;
	long r;

	if (argc < 2) {
		fprintf(stderr, "usage: try_syscall NAME [HEX]\n");
		return 2;
	}
	n = argv[1];
	errno = 0;
	if (!strcmp(n, "io_uring_setup"))
		r = syscall(SYS_io_uring_setup, 0, NULL); /* native EINVAL */
	else if (!strcmp(n, "io_uring_enter"))
		r = syscall(SYS_io_uring_enter, -1, 0, 0, 0, NULL, 0);
	else if (!strcmp(n, "io_uring_register"))
		r = syscall(SYS_io_uring_register, -1, 0, NULL, 0);
	else if (!strcmp(n, "openat2"))
		r = syscall(SYS_openat2, AT_FDCWD, "/", NULL, 0);
	else if (!strcmp(n, "clone3"))
		r = syscall(SYS_clone3, NULL, 0); /* native EINVAL */
	else if (!strcmp(n, "userfaultfd"))
		r = syscall(SYS_userfaultfd, 0x7fffffff);
	else if (!strcmp(n, "perf_event_open"))
		r = syscall(SYS_perf_event_open, NULL, 0, -1, -1, ~0UL);
	else if (!strcmp(n, "bpf"))
		r = syscall(SYS_bpf, -1, NULL, 0);
	else if (!strcmp(n, "keyctl"))
		r = syscall(SYS_keyctl, -1, 0, 0, 0, 0); /* native EOPNOTSUPP */
	else if (!strcmp(n, "add_key"))
		r = syscall(SYS_add_key, NULL, NULL, NULL, 0, 0);
	else if (!strcmp(n, "request_key"))
		r = syscall(SYS_request_key, NULL, NULL, NULL, 0);
	else if (!strcmp(n, "init_module"))
		r = syscall(SYS_init_module, NULL, 0, NULL);
	else if (!strcmp(n, "finit_module"))
		r = syscall(SYS_finit_module, -1, NULL, 0);
	else if (!strcmp(n, "delete_module"))
		r = syscall(SYS_delete_module, NULL, 0);
	else if (!strcmp(n, "kexec_load"))
		r = syscall(SYS_kexec_load, 0, 0, NULL, 0);
	else if (!strcmp(n, "kexec_file_load"))
		r = syscall(SYS_kexec_file_load, -1, -1, 0, NULL, 0);
	else if (!strcmp(n, "reboot"))
		r = syscall(SYS_reboot, 0, 0, 0, NULL);
	else if (!strcmp(n, "acct"))
		r = syscall(SYS_acct, (void *)1);
	else if (!strcmp(n, "swapon"))
		r = syscall(SYS_swapon, (void *)1, 0);
	else if (!strcmp(n, "swapoff"))
		r = syscall(SYS_swapoff, (void *)1);
	else if (!strcmp(n, "syslog"))
		r = syscall(SYS_syslog, -1, NULL, 0); /* native EINVAL */
	else if (!strcmp(n, "quotactl"))
		r = syscall(SYS_quotactl, 0, NULL, 0, NULL);
	else if (!strcmp(n, "vhangup"))
		r = syscall(SYS_vhangup);
	else if (!strcmp(n, "iopl"))
		r = syscall(SYS_iopl, 4); /* native EINVAL */
	else if (!strcmp(n, "ioperm"))
		r = syscall(SYS_ioperm, 0, 0, 0); /* native EINVAL */
	else if (!strcmp(n, "settimeofday"))
		r = syscall(SYS_settimeofday, (void *)1, NULL);
	else if (!strcmp(n, "clock_settime"))
		r = syscall(SYS_clock_settime, -1, NULL); /* native EINVAL */
	else if (!strcmp(n, "adjtimex"))
		r = syscall(SYS_adjtimex, (void *)1); /* native EFAULT */
	else if (!strcmp(n, "clock_adjtime"))
		r = syscall(SYS_clock_adjtime, -1, (void *)1);
	else if (!strcmp(n, "mount"))
		r = syscall(SYS_mount, NULL, NULL, NULL, 0, NULL);
	else if (!strcmp(n, "umount2"))
		r = syscall(SYS_umount2, NULL, -1); /* native EINVAL */
	else if (!strcmp(n, "pivot_root"))
		r = syscall(SYS_pivot_root, NULL, NULL);
	else if (!strcmp(n, "chroot"))
		r = syscall(SYS_chroot, (void *)1); /* native EFAULT */
	else if (!strcmp(n, "fsopen"))
		r = syscall(SYS_fsopen, NULL, ~0U);
	else if (!strcmp(n, "fsconfig"))
		r = syscall(SYS_fsconfig, -1, ~0U, NULL, NULL, 0);
	else if (!strcmp(n, "fsmount"))
		r = syscall(SYS_fsmount, -1, ~0U, 0);
	else if (!strcmp(n, "fspick"))
		r = syscall(SYS_fspick, -1, NULL, ~0U);
	else if (!strcmp(n, "move_mount"))
		r = syscall(SYS_move_mount, -1, NULL, -1, NULL, ~0U);
	else if (!strcmp(n, "open_tree"))
		r = syscall(SYS_open_tree, -1, NULL, ~0U);
	else if (!strcmp(n, "mount_setattr"))
		r = syscall(SYS_mount_setattr, -1, NULL, ~0U, NULL, 0);
	else if (!strcmp(n, "setns"))
		r = syscall(SYS_setns, -1, 0); /* native EBADF */
	else if (!strcmp(n, "open_by_handle_at"))
		r = syscall(SYS_open_by_handle_at, -1, NULL, 0);
	else if (!strcmp(n, "name_to_handle_at"))
		r = syscall(SYS_name_to_handle_at, AT_FDCWD, NULL, NULL, NULL,
			    ~0);
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
