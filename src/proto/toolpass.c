/* The broker's inner hand-over (toolpass.h). */
#include "proto/toolpass.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "common/util.h"

int pass_send(int sock, char kind, unsigned slot, const void *data, size_t n,
	      const int *fds, size_t nfd)
{
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int) * 4)];
	} ctl;
	char *m = xmalloc(n + PASS_HEAD);
	struct iovec iov = {.iov_base = m, .iov_len = n + PASS_HEAD};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};

	if (nfd > 4) {
		free(m);
		return -EINVAL;
	}
	m[0] = kind;
	m[1] = (char)slot;
	if (n)
		memcpy(m + PASS_HEAD, data, n);
	if (nfd) {
		memset(&ctl, 0, sizeof(ctl));
		mh.msg_control = ctl.b;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfd);
		struct cmsghdr *h = CMSG_FIRSTHDR(&mh);
		h->cmsg_level = SOL_SOCKET;
		h->cmsg_type = SCM_RIGHTS;
		h->cmsg_len = CMSG_LEN(sizeof(int) * nfd);
		memcpy(CMSG_DATA(h), fds, sizeof(int) * nfd);
	}
	ssize_t w = sendmsg(sock, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
	int e = errno;
	free(m);
	if (w < 0)
		return -e;
	return (size_t)w == n + PASS_HEAD ? 0 : -EIO;
}

int toolpass_decode(const char *buf, size_t n, struct toolpass_msg *m)
{
	memset(m, 0, sizeof(*m));
	if (n < PASS_HEAD)
		return -EBADMSG;
	m->kind = (enum toolpass_kind)(unsigned char)buf[0];
	m->slot = (unsigned char)buf[1];
	m->data = buf + PASS_HEAD;
	m->len = n - PASS_HEAD;
	switch (m->kind) {
	case PASS_CALL:
		if (m->slot >= TOOLS_MAX_CALLS || m->len > PASS_CALL_MAX)
			return -EBADMSG;
		return 0;
	case PASS_SIGNAL:
		if (m->slot >= TOOLS_MAX_CALLS || m->len != 1)
			return -EBADMSG;
		m->sig = (unsigned char)m->data[0];
		return tools_signal_ok(m->sig) ? 0 : -EBADMSG;
	case PASS_GONE:
		return m->slot < TOOLS_MAX_CALLS && m->len == 0 ? 0 : -EBADMSG;
	case PASS_DENIED:
		/* the reader's own words, escaped by the starter before the
		 * log has them; slot 1: a page's */
		return m->slot <= 1 && m->len <= PASS_TEXT_MAX ? 0 : -EBADMSG;
	case PASS_UNTOLD:
		if (m->slot != 0 || m->len != sizeof(m->count))
			return -EBADMSG;
		memcpy(&m->count, m->data, sizeof(m->count));
		return 0;
	}
	return -EBADMSG;
}
