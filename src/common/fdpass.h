/* Passing file descriptors over unix sockets (SCM_RIGHTS).
 *
 * Policy travels only outward-in (invariant 6); descriptors travel inward-out:
 * the init inside the sandbox hands its listening sockets to the wire and its
 * seccomp listener to the supervisor. One kind goes in: the sandbox's own
 * cgroup v1 files, to lnk-init (src/init/main.c, recv_cgroup). The receiver
 * always takes them with MSG_CMSG_CLOEXEC so they never leak into a program
 * it starts. */
#pragma once

#include <stddef.h>
#include <sys/types.h>

#define FDPASS_MAX 64

/* Sends len bytes of data (at least 1) with nfds descriptors. 0 or -errno. */
int fd_send(int sock, const int *fds, size_t nfds, const void *data,
	    size_t len);

/* Receives one message: up to cap bytes into data and up to *nfds
 * descriptors into fds (*nfds is updated). Returns the byte count, 0 at end
 * of stream, or -errno. Messages with truncated data or descriptors are
 * refused with -EMSGSIZE (and any descriptors received are closed). */
ssize_t fd_recv(int sock, int *fds, size_t *nfds, void *data, size_t cap);

/* The descriptors a message received with recvmsg carries (SCM_RIGHTS,
 * in any number of headers): up to cap kept in fds, any more closed at
 * once. How many were kept. Call it only after a recvmsg that did not
 * fail (mh's control length is then the kernel's). */
struct msghdr;
size_t fd_take(struct msghdr *mh, int *fds, size_t cap);
