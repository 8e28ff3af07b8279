/* libFuzzer target for the wire's side of the listener handoff
 * (proto/handoff.h): the message lnk-init, inside the sandbox and so
 * untrusted, sends on the wire's socket, with up to three descriptors
 * attached. Any bytes must give listeners the wire then checks itself, or
 * a clean refusal; never a crash, and never a descriptor lost (a refused
 * message closes what came with it, an accepted one hands every descriptor
 * to the caller exactly once).
 *
 * Input: first byte, low two bits: how many descriptors to attach (0..3);
 * the rest: the message bytes (cut to what one datagram carries). */
#include "proto/handoff.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/fdpass.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The lowest free descriptor: equal before and after means nothing leaked. */
static int lowest_free(void)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		abort();
	close(fd);
	return fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 1 + 4 * HANDOFF_MSG_SIZE)
		return 0;
	size_t nfds = data[0] & 3;
	data++;
	size--;

	int before = lowest_free();
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		abort();
	int fds[3];
	for (size_t i = 0; i < nfds; i++)
		if ((fds[i] = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0)
			abort();
	/* An empty datagram is EOF to the receiver; send one byte at least
	 * when descriptors ride along. */
	uint8_t one = 0;
	const void *p = size ? (const void *)data : (const void *)&one;
	size_t len = size ? size : (nfds ? 1 : 0);
	if (len && fd_send(sv[0], fds, nfds, p, len) < 0)
		abort();
	for (size_t i = 0; i < nfds; i++)
		close(fds[i]);
	close(sv[0]);

	struct handoff_listener *v = NULL;
	size_t n = 0;
	struct lnk_err err = {0};
	int r = handoff_recv_one(sv[1], &v, &n, &err);
	if (r < 0) {
		if (n != 0 || err.msg[0] == '\0' || err.code >= 0)
			abort();
	} else {
		if (r > 1 || len != HANDOFF_MSG_SIZE || n != nfds)
			abort();
		for (size_t i = 0; i < n; i++) {
			if (fcntl(v[i].fd, F_GETFD) < 0)
				abort();
			close(v[i].fd);
		}
	}
	free(v);
	close(sv[1]);
	if (lowest_free() != before)
		abort();
	return 0;
}
