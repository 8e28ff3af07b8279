/* Listening sockets, from lnk-init inside the sandbox to the wire outside.
 *
 * lnk-init creates each listener in the sandbox's network namespace (which
 * has loopback only) and sends them on wire_fd; the wire accepts on them
 * directly, so no relay runs inside. The messages are of one fixed form:
 *
 *   struct handoff_msg (HANDOFF_MSG_SIZE bytes) + up to HANDOFF_PER_MSG
 *   descriptors, one entry per descriptor, in order; the last message has
 *   HANDOFF_LAST set.
 *
 * The sender is inside the sandbox and so untrusted (invariant 6): the wire
 * believes no tag. It checks each descriptor itself (a listening TCP socket
 * on loopback) and knows what it is by its bound port and the plan.
 */
#pragma once

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/err.h"
#include "proto/initcfg.h"

#define HANDOFF_MAGIC 0x574b4e4cu /* "LNKW" little-endian */
#define HANDOFF_VERSION 1
#define HANDOFF_PER_MSG 32
#define HANDOFF_LAST 1

struct handoff_entry {
	uint8_t kind;	/* enum init_listener_kind */
	uint8_t family; /* 4 or 6 */
	uint16_t port;	/* host order */
};

struct handoff_msg {
	uint32_t magic;
	uint8_t version;
	uint8_t flags; /* HANDOFF_LAST */
	uint8_t n;     /* descriptors in this message */
	uint8_t pad;
	struct handoff_entry e[HANDOFF_PER_MSG];
};
#define HANDOFF_MSG_SIZE sizeof(struct handoff_msg)

/* lnk-init: creates the listeners of l (HTTP and SOCKS on 127.0.0.1; each
 * --port, and the transparent listener, on 127.0.0.1 and [::1], the latter
 * skipped when the namespace has
 * no IPv6) and sends them on wire_fd. The listeners are closed here once
 * sent, but for the resolver's two sockets (UDP, TCP) when dns is not
 * NULL: their copies are kept there (-1 when none), for the resolver of a
 * sandbox without network that serves them inside once lnk has bound
 * them. 0 or -errno. */
/* A --port listener below the unprivileged ports goes to the wire
 * unbound (nothing inside may bind it: the keeper does), and so do the
 * resolver's two sockets (port 53: with dns NULL, a wire's, which its
 * keeper binds as it starts); with low not NULL, a copy of each is
 * kept there (at most HANDOFF_LOW_MAX, *nlow counts them), so that
 * lnk-init can wait until it is bound (a datagram socket) or listens
 * before the program runs: a lookup or a connect in the program's first
 * moment would otherwise meet a closed port and fail at once. */
#define HANDOFF_LOW_MAX 34
struct handoff_low {
	int fd;
	uint16_t port;
	bool dgram; /* bound is enough: no listening state */
};
int handoff_send(int wire_fd, const struct init_listener *l, size_t n,
		 int dns[2], struct handoff_low *low, size_t *nlow,
		 struct lnk_err *err);

/* A listener as received (the wire checks it before use). */
struct handoff_listener {
	int fd;
	struct handoff_entry tag;
};

/* The wire: receives one message. >0 more to come, 0 the last one came,
 * <0 -errno (EOF before the last message is -EPIPE). Appends to *v. */
int handoff_recv_one(int fd, struct handoff_listener **v, size_t *n,
		     struct lnk_err *err);
