/* The calls whose close-on-exec, signal and process forms differ between
 * Linux and macOS (compat.h says why and what each does). */
#include "common/compat.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#ifdef __linux__
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#else
#include <sys/event.h>
#include <time.h>
#endif

#ifdef __linux__

int socket_cloexec(int domain, int type, int proto, int flags)
{
	type |= SOCK_CLOEXEC;
	if (flags & COMPAT_NONBLOCK)
		type |= SOCK_NONBLOCK;
	return socket(domain, type, proto);
}

int socketpair_cloexec(int domain, int type, int proto, int sv[2])
{
	return socketpair(domain, type | SOCK_CLOEXEC, proto, sv);
}

int accept_cloexec(int fd, struct sockaddr *sa, socklen_t *len, int flags)
{
	return accept4(fd, sa, len,
		       SOCK_CLOEXEC |
			   ((flags & COMPAT_NONBLOCK) ? SOCK_NONBLOCK : 0));
}

int pipe_cloexec(int p[2], int flags)
{
	return pipe2(p,
		     O_CLOEXEC | ((flags & COMPAT_NONBLOCK) ? O_NONBLOCK : 0));
}

int dup_cloexec_to(int fd, int target)
{
	return dup3(fd, target, O_CLOEXEC);
}

ssize_t recvmsg_cloexec(int sock, struct msghdr *msg, int flags)
{
	return recvmsg(sock, msg, flags | MSG_CMSG_CLOEXEC);
}

void close_from(int lowfd)
{
	/* the system call itself: musl (lnk-init's C library where built
	 * with it) has no wrapper for it */
	syscall(SYS_close_range, (unsigned)lowfd, ~0U, 0);
}

int peer_uid(int sock, uid_t *uid)
{
	struct ucred cr;
	socklen_t cl = sizeof(cr);
	if (getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &cr, &cl) < 0)
		return -errno;
	if (cl != sizeof(cr))
		return -EINVAL;
	*uid = cr.uid;
	return 0;
}

int sigfd_open(const sigset_t *set, int flags)
{
	return signalfd(-1, set,
			SFD_CLOEXEC |
			    ((flags & COMPAT_NONBLOCK) ? SFD_NONBLOCK : 0));
}

int sigfd_next(int fd)
{
	struct signalfd_siginfo si;
	ssize_t n = read(fd, &si, sizeof(si));
	if (n == sizeof(si))
		return (int)si.ssi_signo;
	if (n < 0 && errno == EAGAIN)
		return 0;
	if (n >= 0)
		errno = EIO;
	return -1;
}

int proc_open(pid_t pid)
{
	/* pidfds are close-on-exec from the kernel */
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);
	return fd < 0 ? -errno : fd;
}

int proc_signal(int pfd, pid_t pid, int sig)
{
	(void)pid; /* the pidfd names it */
	if (syscall(SYS_pidfd_send_signal, pfd, sig, NULL, 0) < 0)
		return -errno;
	return 0;
}

int die_with_parent(int sig)
{
	return prctl(PR_SET_PDEATHSIG, sig) < 0 ? -errno : 0;
}

void proc_set_name(const char *name)
{
	prctl(PR_SET_NAME, name, 0, 0, 0);
}

#else /* macOS: the flags by fcntl right after the call (see compat.h) */

/* Sets close-on-exec, and non-blocking when asked, on a new fd; closes it
 * and returns -1 when that fails, so no caller holds a leaking one. */
static int set_flags(int fd, int flags)
{
	if (fd < 0)
		return fd;
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
		goto fail;
	if (flags & COMPAT_NONBLOCK) {
		int fl = fcntl(fd, F_GETFL);
		if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
			goto fail;
	}
	return fd;
fail:;
	int e = errno;
	close(fd);
	errno = e;
	return -1;
}

int socket_cloexec(int domain, int type, int proto, int flags)
{
	return set_flags(socket(domain, type, proto), flags);
}

int socketpair_cloexec(int domain, int type, int proto, int sv[2])
{
	if (socketpair(domain, type, proto, sv) < 0)
		return -1;
	if (set_flags(sv[0], 0) < 0) {
		close(sv[1]);
		return -1;
	}
	if (set_flags(sv[1], 0) < 0) {
		close(sv[0]);
		return -1;
	}
	return 0;
}

int accept_cloexec(int fd, struct sockaddr *sa, socklen_t *len, int flags)
{
	/* macOS' accepted socket does not inherit O_NONBLOCK: set per flags */
	return set_flags(accept(fd, sa, len), flags);
}

int pipe_cloexec(int p[2], int flags)
{
	if (pipe(p) < 0)
		return -1;
	if (set_flags(p[0], flags) < 0) {
		close(p[1]);
		return -1;
	}
	if (set_flags(p[1], flags) < 0) {
		close(p[0]);
		return -1;
	}
	return 0;
}

int dup_cloexec_to(int fd, int target)
{
	if (fd == target) {
		errno = EINVAL; /* as dup3 */
		return -1;
	}
	return set_flags(dup2(fd, target), 0);
}

ssize_t recvmsg_cloexec(int sock, struct msghdr *msg, int flags)
{
	ssize_t r = recvmsg(sock, msg, flags);
	if (r < 0)
		return r;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c;
	     c = CMSG_NXTHDR(msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		const unsigned char *p = CMSG_DATA(c);
		for (size_t i = 0; i < n; i++) {
			int fd;
			__builtin_memcpy(&fd, p + i * sizeof(int), sizeof(fd));
			fcntl(fd, F_SETFD, FD_CLOEXEC);
		}
	}
	return r;
}

void close_from(int lowfd)
{
	/* no close_range: every number up to the limit (as launch/macos.c) */
	long max = sysconf(_SC_OPEN_MAX);
	if (max < 0 || max > 65536)
		max = 65536;
	for (int fd = lowfd; fd < max; fd++)
		close(fd);
}

void proc_set_name(const char *name)
{
	/* ps on macOS shows the program's path, not a thread's name */
	(void)name;
}

/* The SDK declares it in <unistd.h>; glibc has none, and this is only
 * ever built on macOS (the header check compiles it on Linux). */
int getpeereid(int fd, uid_t *euid, gid_t *egid);

int peer_uid(int sock, uid_t *uid)
{
	gid_t gid;
	return getpeereid(sock, uid, &gid) < 0 ? -errno : 0;
}

/* A kqueue with fd's flags set (kqueues are not inherited by fork). */
static int new_kqueue(void)
{
	return set_flags(kqueue(), 0);
}

int sigfd_open(const sigset_t *set, int flags)
{
	(void)flags; /* sigfd_next never waits on macOS */
	int kq = new_kqueue();
	if (kq < 0)
		return -1;
	for (int s = 1; s < NSIG; s++) {
		if (sigismember(set, s) != 1)
			continue;
		struct kevent ev;
		EV_SET(&ev, (uintptr_t)s, EVFILT_SIGNAL, EV_ADD, 0, 0, NULL);
		if (kevent(kq, &ev, 1, NULL, 0, NULL) < 0) {
			int e = errno;
			close(kq);
			errno = e;
			return -1;
		}
	}
	return kq;
}

int sigfd_next(int fd)
{
	struct kevent ev;
	struct timespec zero = {0};
	int n = kevent(fd, NULL, 0, &ev, 1, &zero);
	if (n < 0)
		return -1;
	return n == 0 ? 0 : (int)ev.ident;
}

int proc_open(pid_t pid)
{
	int kq = new_kqueue();
	if (kq < 0)
		return -errno;
	struct kevent ev;
	EV_SET(&ev, (uintptr_t)pid, EVFILT_PROC, EV_ADD, NOTE_EXIT, 0, NULL);
	if (kevent(kq, &ev, 1, NULL, 0, NULL) < 0) {
		int e = errno;
		close(kq);
		return -e;
	}
	return kq;
}

int proc_signal(int pfd, pid_t pid, int sig)
{
	struct kevent ev;
	struct timespec zero = {0};
	int n = kevent(pfd, NULL, 0, &ev, 1, &zero);
	if (n < 0)
		return -errno;
	if (n > 0)
		return -ESRCH; /* it has exited: its pid may be another's */
	return kill(pid, sig) < 0 ? -errno : 0;
}

int die_with_parent(int sig)
{
	(void)sig;
	return -ENOSYS;
}

#endif

int file_reserve(int fd, off_t len)
{
#ifdef __linux__
	return -posix_fallocate(fd, 0, len);
#else
	static const char zero[4096];
	for (off_t off = 0; off < len;) {
		size_t n = len - off < (off_t)sizeof(zero) ? (size_t)(len - off)
							   : sizeof(zero);
		ssize_t w = pwrite(fd, zero, n, off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		off += w;
	}
	return 0;
#endif
}
