/* guard-harness: a test bed for the dot-file guard outside `lnk sandbox
 * run`. It does what lnk does: plan the guard, ro-bind the
 * existing dot files, start bwrap, and inside it install a notify filter
 * equivalent to lnk-init's and hand the listener back over a socketpair.
 *
 *   guard-harness [-w DIR] [-g DIR] [-a SRC:DEST] [-C DIR] [-n] -- PROG...
 *     -w DIR       a write folder, its dot files guarded
 *     -g DIR       a write folder with --write-dot-files (not guarded)
 *     -a SRC:DEST  bind SRC at DEST too (an alias of a write folder)
 *     -C DIR       the program's working folder
 *     -n           no guard at all (the benchmark's baseline)
 * Exit status: the program's; 128+N for a signal; 125 for our failure.
 * Test-only: built with the tests, never installed.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/fdpass.h"
#include "common/util.h"
#include "guard/guard.h"
#include "confine/layers.h"

#if defined(__x86_64__)
#define GUARD_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define GUARD_ARCH AUDIT_ARCH_AARCH64
#else
#error "guard-harness: add this architecture"
#endif

#define LD_NR \
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr))
#define RET(v) BPF_STMT(BPF_RET | BPF_K, (v))

/* Builds: bad arch -> kill; open/openat with O_CREAT and the creating
 * calls -> NOTIFY; openat2 and io_uring_setup -> ENOSYS; else allow. */
static size_t build_filter(struct sock_filter *f)
{
	static const long guarded_nrs[] = {
#ifdef __NR_creat
	    __NR_creat,
#endif
#ifdef __NR_mkdir
	    __NR_mkdir,
#endif
	    __NR_mkdirat,
#ifdef __NR_mknod
	    __NR_mknod,
#endif
	    __NR_mknodat,
#ifdef __NR_symlink
	    __NR_symlink,
#endif
	    __NR_symlinkat,
#ifdef __NR_link
	    __NR_link,
#endif
	    __NR_linkat,
#ifdef __NR_rename
	    __NR_rename,
#endif
#ifdef __NR_renameat
	    __NR_renameat,
#endif
	    __NR_renameat2, __NR_bind,
	};
	size_t k = 0;

	f[k++] = (struct sock_filter)BPF_STMT(
	    BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
					      GUARD_ARCH, 1, 0);
	f[k++] = (struct sock_filter)RET(SECCOMP_RET_KILL_PROCESS);
	f[k++] = (struct sock_filter)LD_NR;
#ifdef __x86_64__
	/* x32 numbers share the arch: kill them too (fail closed). */
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K,
					      0x40000000, 0, 1);
	f[k++] = (struct sock_filter)RET(SECCOMP_RET_KILL_PROCESS);
#endif
	for (size_t i = 0; i < ARRAY_SIZE(guarded_nrs); i++) {
		f[k++] = (struct sock_filter)BPF_JUMP(
		    BPF_JMP | BPF_JEQ | BPF_K, (unsigned)guarded_nrs[i], 0, 1);
		f[k++] = (struct sock_filter)RET(SECCOMP_RET_USER_NOTIF);
	}
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
					      __NR_openat2, 0, 1);
	f[k++] = (struct sock_filter)RET(SECCOMP_RET_ERRNO | ENOSYS);
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
					      __NR_io_uring_setup, 0, 1);
	f[k++] = (struct sock_filter)RET(SECCOMP_RET_ERRNO | ENOSYS);
#ifdef __NR_open
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
					      __NR_open, 0, 4);
	f[k++] = (struct sock_filter)BPF_STMT(
	    BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[1]));
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K,
					      O_CREAT, 0, 1);
	f[k++] = (struct sock_filter)RET(SECCOMP_RET_USER_NOTIF);
	f[k++] = (struct sock_filter)RET(SECCOMP_RET_ALLOW);
#endif
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
					      __NR_openat, 0, 4);
	f[k++] = (struct sock_filter)BPF_STMT(
	    BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[2]));
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K,
					      O_CREAT, 0, 1);
	f[k++] = (struct sock_filter)RET(SECCOMP_RET_USER_NOTIF);
	f[k++] = (struct sock_filter)RET(SECCOMP_RET_ALLOW);
	f[k++] = (struct sock_filter)RET(SECCOMP_RET_ALLOW);
	return k;
}

static int inner(int sock, char **argv)
{
	struct sock_filter f[64];
	struct sock_fprog prog = {.len = (unsigned short)build_filter(f),
				  .filter = f};
	char byte = 'L';

	if (confine_no_new_privs() < 0) {
		perror("guard-harness: no_new_privs");
		return 125;
	}
	int l = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			     SECCOMP_FILTER_FLAG_NEW_LISTENER |
				 SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV,
			     &prog);
	if (l < 0) {
		perror("guard-harness: seccomp");
		return 125;
	}
	int r = fd_send(sock, &l, 1, &byte, 1);
	close(l);
	close(sock);
	if (r < 0) {
		fprintf(stderr, "guard-harness: send listener: %s\n",
			strerror(-r));
		return 125;
	}
	execvp(argv[0], argv);
	fprintf(stderr, "guard-harness: %s: %s\n", argv[0], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}

int main(int argc, char **argv)
{
	struct strv guarded = {0}, lifted = {0}, aliases = {0}, ro = {0};
	struct strv bw = {0};
	const char *cwd = NULL;
	bool no_guard = false;
	int i;

	if (argc > 2 && strcmp(argv[1], "--inner") == 0) {
		int sock = atoi(argv[2]);
		if (argc < 5 || strcmp(argv[3], "--"))
			return 125;
		return inner(sock, argv + 4);
	}
	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (i + 1 >= argc && strcmp(argv[i], "-n"))
			diex(2, "usage: guard-harness [-w DIR] [-g DIR] "
				"[-a SRC:DEST] [-C DIR] [-n] -- PROG...");
		if (!strcmp(argv[i], "-w"))
			strv_push_take(&guarded, realpath(argv[++i], NULL));
		else if (!strcmp(argv[i], "-g"))
			strv_push_take(&lifted, realpath(argv[++i], NULL));
		else if (!strcmp(argv[i], "-a"))
			strv_push(&aliases, argv[++i]);
		else if (!strcmp(argv[i], "-C"))
			cwd = argv[++i];
		else if (!strcmp(argv[i], "-n"))
			no_guard = true;
		else
			diex(2, "unknown option '%s'", argv[i]);
	}
	if (i + 1 >= argc)
		diex(2, "no program after --");
	for (size_t j = 0; j < guarded.n; j++)
		if (!guarded.v[j])
			diex(2, "a -w folder does not exist");

	struct guard_plan np = {0};
	struct lnk_err err = {0};
	for (size_t j = 0; !no_guard && j < guarded.n; j++)
		if (guard_plan_add(&np, guarded.v[j], &err) < 0)
			diex(125, "%s", err.msg);
	for (size_t j = 0; !no_guard && j < guarded.n; j++)
		guard_mounts_in(guarded.v[j], &guarded, &ro);

	int sp[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0)
		diex(125, "socketpair: %s", strerror(errno));

	char self[4096];
	ssize_t sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (sl < 0)
		diex(125, "readlink /proc/self/exe: %s", strerror(errno));
	self[sl] = '\0';

	strv_push(&bw, "bwrap");
	const char *fixed[] = {"--die-with-parent",
			       "--unshare-user",
			       "--unshare-pid",
			       "--unshare-ipc",
			       "--unshare-uts",
			       "--unshare-net",
			       "--ro-bind",
			       "/",
			       "/",
			       "--dev",
			       "/dev",
			       "--proc",
			       "/proc"};
	for (size_t j = 0; j < ARRAY_SIZE(fixed); j++)
		strv_push(&bw, fixed[j]);
	for (size_t j = 0; j < guarded.n; j++)
		strv_pushf(&bw, "--bind\n%s\n%s", guarded.v[j], guarded.v[j]);
	for (size_t j = 0; j < lifted.n; j++)
		strv_pushf(&bw, "--bind\n%s\n%s", lifted.v[j], lifted.v[j]);
	for (size_t j = 0; j < aliases.n; j++) {
		char *c = strchr(aliases.v[j], ':');
		if (!c)
			diex(2, "-a takes SRC:DEST");
		*c = '\0';
		strv_pushf(&bw, "--bind\n%s\n%s", aliases.v[j], c + 1);
	}
	for (size_t j = 0; j < ro.n; j++)
		strv_pushf(&bw, "--ro-bind\n%s\n%s", ro.v[j], ro.v[j]);
	if (cwd)
		strv_pushf(&bw, "--chdir\n%s", cwd);
	if (!no_guard) {
		strv_push(&bw, "--");
		strv_push(&bw, self);
		strv_push(&bw, "--inner");
		strv_pushf(&bw, "%d", sp[1]);
	}
	strv_push(&bw, "--");
	/* split the "--bind\nA\nB" entries into separate arguments */
	struct strv args = {0};
	for (size_t j = 0; j < bw.n; j++) {
		char *s = bw.v[j], *nl;
		while ((nl = strchr(s, '\n'))) {
			strv_push_take(&args, xstrndup(s, (size_t)(nl - s)));
			s = nl + 1;
		}
		strv_push(&args, s);
	}
	/* the program's arguments, unchanged */
	for (int j = i + 1; j < argc; j++)
		strv_push(&args, argv[j]);

	pid_t pid = fork();
	if (pid < 0)
		diex(125, "fork: %s", strerror(errno));
	if (pid == 0) {
		close(sp[0]);
		if (!no_guard)
			fcntl(sp[1], F_SETFD, 0);
		execvp("bwrap", args.v);
		_exit(127);
	}
	close(sp[1]);
	struct guard *n = NULL;
	if (!no_guard && guard_start(&np, sp[0], &n, &err) < 0) {
		kill(pid, SIGKILL);
		diex(125, "%s", err.msg);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	guard_stop(n);
	close(sp[0]);
	guard_plan_free(&np);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}
