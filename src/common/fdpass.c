#include "common/fdpass.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/compat.h"

int fd_send(int sock, const int *fds, size_t nfds, const void *data, size_t len)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * FDPASS_MAX)];
		struct cmsghdr align;
	} u;
	struct iovec iov = {.iov_base = (void *)data, .iov_len = len};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};

	if (nfds > FDPASS_MAX || len == 0)
		return -EINVAL;
	if (nfds) {
		memset(&u, 0, sizeof(u));
		msg.msg_control = u.buf;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
	}
	for (;;) {
		ssize_t r = sendmsg(sock, &msg, MSG_NOSIGNAL);
		if (r >= 0)
			return (size_t)r == len ? 0 : -EMSGSIZE;
		if (errno != EINTR)
			return -errno;
	}
}

ssize_t fd_recv(int sock, int *fds, size_t *nfds, void *data, size_t cap)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * FDPASS_MAX)];
		struct cmsghdr align;
	} u;
	struct iovec iov = {.iov_base = data, .iov_len = cap};
	struct msghdr msg = {.msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = u.buf,
			     .msg_controllen = sizeof(u.buf)};
	size_t want = *nfds, got = 0;
	ssize_t r;

	*nfds = 0;
	do
		r = recvmsg_cloexec(sock, &msg, 0);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;

	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c;
	     c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		int tmp[FDPASS_MAX];
		if (n > FDPASS_MAX)
			n = FDPASS_MAX;
		memcpy(tmp, CMSG_DATA(c), n * sizeof(int));
		for (size_t i = 0; i < n; i++) {
			if (got < want)
				fds[got++] = tmp[i];
			else
				close(tmp[i]); /* more than asked: drop */
		}
	}
	if (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
		for (size_t i = 0; i < got; i++)
			close(fds[i]);
		return -EMSGSIZE;
	}
	*nfds = got;
	return r;
}

size_t fd_take(struct msghdr *mh, int *fds, size_t cap)
{
	size_t nfd = 0;

	for (struct cmsghdr *h = CMSG_FIRSTHDR(mh); h; h = CMSG_NXTHDR(mh, h)) {
		if (h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS)
			continue;
		size_t k = (h->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t j = 0; j < k; j++) {
			int fd;
			memcpy(&fd, CMSG_DATA(h) + j * sizeof(int), sizeof(fd));
			if (nfd < cap)
				fds[nfd++] = fd;
			else
				close(fd);
		}
	}
	return nfd;
}
