/* The descriptor calls whose close-on-exec (and non-blocking) form differs
 * between Linux and macOS, behind one name each.
 *
 * Every descriptor lnk opens is close-on-exec, so none leaks into a
 * program it starts. Linux sets the flag atomically with the call
 * (SOCK_CLOEXEC, accept4, pipe2, dup3, MSG_CMSG_CLOEXEC); macOS has none
 * of those, so there the flag is set by fcntl right after, and a fork and
 * exec by another thread in between would inherit the descriptor: the
 * macOS launcher closes every inherited descriptor in its child before it
 * executes the program (launch/macos.c), which closes that window for the
 * sandbox's program.
 *
 * They keep the calls' own convention: the descriptor (or 0) on success,
 * -1 with errno set on failure, so a call site reads as the call it
 * replaces.
 */
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>

/* Flags of the calls below: close-on-exec is always set. */
#define COMPAT_NONBLOCK 1

/* socket(2), close-on-exec. */
int socket_cloexec(int domain, int type, int proto, int flags);
/* socketpair(2), both ends close-on-exec. */
int socketpair_cloexec(int domain, int type, int proto, int sv[2]);
/* accept(2), the new descriptor close-on-exec. */
int accept_cloexec(int fd, struct sockaddr *sa, socklen_t *len, int flags);
/* pipe(2), both ends close-on-exec. */
int pipe_cloexec(int p[2], int flags);
/* dup2(2) to exactly target, which is then close-on-exec. */
int dup_cloexec_to(int fd, int target);
/* recvmsg(2): every descriptor received (SCM_RIGHTS) is close-on-exec. */
ssize_t recvmsg_cloexec(int sock, struct msghdr *msg, int flags);

/* The uid of the process at the other end of a unix socket. 0 or -errno. */
int peer_uid(int sock, uid_t *uid);

/* A folder handle for fchdir and the *at calls: O_PATH on Linux (no
 * right to list the folder needed), O_RDONLY on macOS, which has no
 * O_PATH. COMPAT_O_PATH is the flag that marks such a handle (0 there). */
#ifdef __linux__
#define COMPAT_O_DIRHANDLE O_PATH
#define COMPAT_O_PATH O_PATH
#else
#define COMPAT_O_DIRHANDLE O_RDONLY
#define COMPAT_O_PATH 0
#endif

/* A descriptor that is readable (poll) while a signal of set is pending:
 * signalfd on Linux, a kqueue of EVFILT_SIGNAL on macOS. The caller blocks
 * set first (sigprocmask), as signalfd needs. flags: COMPAT_NONBLOCK. */
int sigfd_open(const sigset_t *set, int flags);
/* Takes the next pending signal of the set from fd: its number, 0 when
 * none waits, -1 with errno. Call it when fd is readable, or made with
 * COMPAT_NONBLOCK (on macOS it never waits). */
int sigfd_next(int fd);

/* A descriptor naming process pid, readable (poll) once that process has
 * exited: a pidfd on Linux; on macOS a kqueue watching its exit
 * (EVFILT_PROC). The descriptor or -errno (-ESRCH: it has exited). */
int proc_open(pid_t pid);
/* Sends sig to the process proc_open(pid) named, never to another: on
 * Linux through the pidfd; on macOS by kill(pid) unless the kqueue has
 * seen it exit (a pid that is reused between that look and the kill is
 * the window macOS leaves). 0 or -errno. */
int proc_signal(int pfd, pid_t pid, int sig);
/* Asks the kernel to send sig to the calling process when its parent
 * ends: Linux' PR_SET_PDEATHSIG. macOS has no such request: -ENOSYS there,
 * and the caller must watch its parent itself. */
int die_with_parent(int sig);

/* Closes every descriptor from lowfd up (a process about to hold only
 * what it chose). */
void close_from(int lowfd);
/* Names the calling process for ps and top (Linux' comm); a no-op on
 * macOS, whose ps shows the program's path. */
void proc_set_name(const char *name);

/* Gives the file's first len bytes room on its disk (a reserve that a
 * full disk cannot take): posix_fallocate on Linux; macOS has none, so the
 * bytes are written there, as zeros. 0 or -errno. */
int file_reserve(int fd, off_t len);
