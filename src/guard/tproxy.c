/* The transparent path, the guard's half: a program's TCP connect to any
 * address but the sandbox's own loopback is carried by the wire, also for
 * programs that ignore the proxy variables (docs/design.md, the
 * transparent path).
 *
 * The sandbox's network namespace has loopback only, so such a connect
 * would fail with "Network is unreachable". Instead the guard, which
 * performs every connect of the program (supervise.c), connects the
 * program's own socket to the wire's transparent listener on the
 * sandbox's loopback, sends a head naming the destination
 * (proto/tproxy.h) and waits for the wire's one-byte verdict: the wire
 * decides exactly as for a SOCKS5 request for that address (grants,
 * address rules, log, tripwires, pause and stop), so the guard decides
 * nothing itself and a program that forges the head gains nothing. The
 * program's connect returns only with the verdict: success, or the
 * errno the verdict names ("Connection refused" for a refusal), and the
 * socket is disconnected again on failure, so it can be reused as after
 * a native failure. A nonblocking connect succeeds at once in the same
 * way (the wait is the wire's connect, bounded by its timeout).
 *
 * UDP to any address but loopback is refused at the call (ECONNREFUSED)
 * here for connect(); the sandbox's DNS server is on loopback.
 */
#include "guard/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "proto/tproxy.h"

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif

/* The wire answers within its own connect timeout; this only keeps a
 * worker from waiting forever on a wire that stopped answering. */
#define TPROXY_VERDICT_MS 20000
#define TPROXY_LOOPBACK_MS 5000

/* The destination of a connect as the kernel reads it for a socket of
 * this domain: 1 and *a, *port when it is an address of that family, 0
 * when the kernel would answer on its own (AF_UNSPEC disconnects, a short
 * length, another family). An IPv4-mapped IPv6 address is its IPv4. */
static int dest_of(int domain, const struct sockaddr_storage *ss, size_t alen,
		   struct lnk_addr *a, uint16_t *port)
{
	memset(a, 0, sizeof(*a));
	if (domain == AF_INET) {
		struct sockaddr_in in;
		if (alen < sizeof(in) || ss->ss_family != AF_INET)
			return 0;
		memcpy(&in, ss, sizeof(in));
		a->family = AF_INET;
		memcpy(a->a, &in.sin_addr, 4);
		*port = ntohs(in.sin_port);
		return 1;
	}
	struct sockaddr_in6 in6;
	/* SIN6_LEN_RFC2133: 24 bytes, without sin6_scope_id */
	if (alen < 24 || ss->ss_family != AF_INET6)
		return 0;
	memset(&in6, 0, sizeof(in6));
	memcpy(&in6, ss, alen < sizeof(in6) ? alen : sizeof(in6));
	*port = ntohs(in6.sin6_port);
	static const uint8_t mapped[12] = {[10] = 0xff, [11] = 0xff};
	if (memcmp(&in6.sin6_addr, mapped, 12) == 0) {
		a->family = AF_INET;
		memcpy(a->a, (uint8_t *)&in6.sin6_addr + 12, 4);
	} else {
		a->family = AF_INET6;
		memcpy(a->a, &in6.sin6_addr, 16);
	}
	return 1;
}

static int wait_for(int fd, short ev, int ms)
{
	struct timespec start, now;
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		long spent = (now.tv_sec - start.tv_sec) * 1000 +
			     (now.tv_nsec - start.tv_nsec) / 1000000;
		if (spent >= ms)
			return -ETIMEDOUT;
		struct pollfd p = {.fd = fd, .events = ev};
		int r = poll(&p, 1, (int)(ms - spent));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r > 0)
			return 0;
	}
}

/* Connects sfd to the transparent listener on the sandbox's loopback (the
 * socket is in the sandbox's network namespace, whoever calls connect:
 * docs/kernel-facts.md, socket-keeps-its-netns). */
static int connect_listener(int sfd, int domain, uint16_t port)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int r = -ECONNREFUSED;

	for (int i = 0; i < 2; i++) {
		memset(&ss, 0, sizeof(ss));
		if (domain == AF_INET) {
			if (i)
				break;
			struct sockaddr_in *s = (struct sockaddr_in *)&ss;
			s->sin_family = AF_INET;
			s->sin_port = htons(port);
			s->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
			len = sizeof(*s);
		} else {
			/* [::1], else ::ffff:127.0.0.1 (a namespace without
			 * IPv6 loopback) */
			struct sockaddr_in6 *s = (struct sockaddr_in6 *)&ss;
			s->sin6_family = AF_INET6;
			s->sin6_port = htons(port);
			if (i == 0) {
				s->sin6_addr = in6addr_loopback;
			} else {
				uint8_t *b = (uint8_t *)&s->sin6_addr;
				b[10] = b[11] = 0xff;
				b[12] = 127;
				b[15] = 1;
			}
			len = sizeof(*s);
		}
		if (connect(sfd, (struct sockaddr *)&ss, len) == 0)
			return 0;
		r = -errno;
		if (r == -EINPROGRESS) {
			int e = 0;
			socklen_t el = sizeof(e);
			if ((r = wait_for(sfd, POLLOUT, TPROXY_LOOPBACK_MS)) <
			    0)
				return r;
			if (getsockopt(sfd, SOL_SOCKET, SO_ERROR, &e, &el) < 0)
				return -errno;
			if (e == 0)
				return 0;
			r = -e;
		}
		/* only a missing IPv6 loopback is worth the second try */
		if (r != -EADDRNOTAVAIL && r != -ENETUNREACH &&
		    r != -ECONNREFUSED)
			return r;
	}
	return r;
}

/* A failed transparent connect leaves the socket as a failed native one
 * does: not connected (a TCP socket disconnects on AF_UNSPEC). */
static void disconnect(int sfd)
{
	struct sockaddr sa = {.sa_family = AF_UNSPEC};
	(void)connect(sfd, &sa, sizeof(sa));
}

int guard_tproxy_connect(int sfd, int domain, uint16_t tcp_port,
			 const struct sockaddr_storage *ss, size_t alen,
			 struct guard_refused_dgram *refused)
{
	struct lnk_addr a;
	uint16_t port;
	int type = 0, proto = 0, r;
	socklen_t l = sizeof(int);

	refused->verb = "";
	refused->target[0] = '\0';
	if (!tcp_port || (domain != AF_INET && domain != AF_INET6))
		return 1;
	if (!dest_of(domain, ss, alen, &a, &port))
		return 1;
	enum addr_class c = addr_classify(&a);
	/* the sandbox's own loopback (0.0.0.0 and :: are loopback to
	 * connect): as given */
	if (c == AC_LOOPBACK || c == AC_UNSPECIFIED)
		return 1;
	if (getsockopt(sfd, SOL_SOCKET, SO_TYPE, &type, &l) < 0)
		return -EPERM;
	l = sizeof(int);
	if (getsockopt(sfd, SOL_SOCKET, SO_PROTOCOL, &proto, &l) < 0)
		return -EPERM;
	if (type == SOCK_DGRAM) {
		/* no datagram leaves the sandbox; QUIC falls back to TCP */
		char at[48];
		addr_format(&a, at, sizeof(at));
		refused->verb = proto == IPPROTO_ICMP || proto == IPPROTO_ICMPV6
				    ? "icmp"
				    : "udp";
		snprintf(refused->target, sizeof(refused->target), "%s%s%s:%u",
			 a.family == AF_INET6 ? "[" : "", at,
			 a.family == AF_INET6 ? "]" : "", port);
		return -ECONNREFUSED;
	}
	if (type != SOCK_STREAM ||
	    (proto != IPPROTO_TCP && proto != IPPROTO_MPTCP))
		return 1; /* no route: the kernel answers */
	if (port == 0)
		return -ECONNREFUSED; /* as the kernel answers port 0 */

	if ((r = connect_listener(sfd, domain, tcp_port)) < 0)
		return r == -EISCONN || r == -EALREADY ? r : -ECONNREFUSED;
	uint8_t head[TPROXY_HEAD_SIZE];
	tproxy_head_encode(&a, port, head);
	ssize_t n = send(sfd, head, sizeof(head), MSG_NOSIGNAL | MSG_DONTWAIT);
	if (n != (ssize_t)sizeof(head)) {
		disconnect(sfd);
		return -ECONNREFUSED;
	}
	uint8_t v = TPROXY_FAILED;
	r = wait_for(sfd, POLLIN, TPROXY_VERDICT_MS);
	if (r == 0) {
		n = recv(sfd, &v, 1, MSG_DONTWAIT);
		if (n != 1)
			v = TPROXY_REFUSED; /* the wire closed or reset it */
	} else {
		v = TPROXY_TIMEDOUT;
	}
	if (v == TPROXY_OK)
		return 0;
	disconnect(sfd);
	return -tproxy_verdict_errno(v);
}
