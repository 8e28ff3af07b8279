/* What a route lookup means for a connection, on every platform; the
 * lookups themselves are route_linux.c's and route_macos.c's, which share
 * the routing socket's setup here. */
#include "wire/route.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

enum route_where route_where_for(struct route_sock *rs,
				 const struct lnk_addr *dst)
{
	struct lnk_addr inner = addr_unwrap(dst);
	static const uint8_t mapped[12] = {0, 0, 0, 0, 0,    0,
					   0, 0, 0, 0, 0xff, 0xff};
	if (dst->family == AF_INET6 && memcmp(dst->a, mapped, 12) == 0)
		return route_lookup(rs, &inner); /* the kernel connects v4 */
	enum route_where w = route_lookup(rs, dst);
	if (inner.family == dst->family || w == ROUTE_LOCAL)
		return w;
	/* an embedded IPv4 address only makes the answer stricter; no
	 * IPv4 route to it says nothing about the IPv6 path */
	enum route_where v4 = route_lookup(rs, &inner);
	if (v4 == ROUTE_LOCAL)
		return ROUTE_LOCAL;
	if (w == ROUTE_NONE)
		return ROUTE_NONE;
	if (v4 == ROUTE_LAN)
		return ROUTE_LAN;
	return w;
}

const char *route_where_name(enum route_where w)
{
	switch (w) {
	case ROUTE_INTERNET:
		return "internet";
	case ROUTE_LOCAL:
		return "this machine";
	case ROUTE_LAN:
		return "this machine's network";
	case ROUTE_NONE:
		return "no route";
	}
	return "unknown";
}

int route_sock_ready(struct route_sock *rs)
{
	if (rs->fd < 0)
		return -errno;
	/* The kernel answers while handling our send: a second is a lost
	 * answer, and a lost answer refuses the call. */
	struct timeval tv = {.tv_sec = 1};
	if (setsockopt(rs->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0) {
		int e = -errno;
		close(rs->fd);
		rs->fd = -1;
		return e;
	}
	return 0;
}

void route_close(struct route_sock *rs)
{
	if (rs->fd >= 0)
		close(rs->fd);
	rs->fd = -1;
}
