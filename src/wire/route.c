/* What a route lookup means for a connection, on every platform; the
 * lookups themselves are route_linux.c's and route_macos.c's, which share
 * the routing socket's setup here. */
#include "wire/route.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "common/util.h"

enum route_where route_where_with(route_lookup_fn lookup, void *ud,
				  const struct lnk_addr *dst)
{
	struct lnk_addr v4;
	if (addr_v4_mapped(dst, &v4))
		return lookup(ud, &v4); /* the kernel connects v4 */
	enum route_where w = lookup(ud, dst);
	if (w == ROUTE_LOCAL)
		return w;
	/* an embedded IPv4 address only makes the answer stricter; no
	 * IPv4 route to it says nothing about the IPv6 path */
	struct lnk_addr e[ADDR_EMBED_MAX];
	size_t n = addr_embedded(dst, e);
	bool lan = false;
	for (size_t i = 0; i < n; i++) {
		enum route_where v = lookup(ud, &e[i]);
		if (v == ROUTE_LOCAL)
			return ROUTE_LOCAL;
		lan |= v == ROUTE_LAN;
	}
	if (w == ROUTE_NONE)
		return ROUTE_NONE;
	return lan ? ROUTE_LAN : w;
}

bool route_in_own_net6(const struct lnk_addr *own, size_t n,
		       const struct lnk_addr *dst)
{
	if (dst->family != AF_INET6)
		return false;
	for (size_t i = 0; i < n; i++)
		if (own[i].family == AF_INET6 &&
		    memcmp(own[i].a, dst->a, 8) == 0)
			return true;
	return false;
}

void route_forget(struct route_sock *rs)
{
	memset(rs->kept, 0, sizeof(rs->kept));
	rs->gen++;
}

static size_t slot_of(const struct lnk_addr *a)
{
	/* FNV-1a of the address's bytes */
	uint32_t h = 2166136261u ^ (uint32_t)a->family;
	for (size_t i = 0; i < sizeof(a->a); i++)
		h = (h ^ a->a[i]) * 16777619u;
	return h % ROUTE_CACHE_SLOTS;
}

enum route_where route_lookup(struct route_sock *rs, const struct lnk_addr *dst)
{
	if (rs->fd < 0)
		return ROUTE_NONE;
	if (rs->watch < 0)
		return route_ask(rs, dst);
	/* every change the kernel announced before this call empties the
	 * table before it is read: the announcement is queued on the watch
	 * while the change is made, before the changer hears it is done */
	if (route_watch_changed(rs->watch))
		route_forget(rs);
	int64_t now = mono_ms();
	struct route_kept *k = &rs->kept[slot_of(dst)];
	if (k->until_ms > now && addr_equal(&k->a, dst))
		return k->w;
	enum route_where w = route_ask(rs, dst);
	/* no answer (or no route) is not kept: asked again next time */
	if (w == ROUTE_NONE)
		return w;
	*k = (struct route_kept){
	    .a = *dst, .until_ms = now + ROUTE_CACHE_MS, .w = w};
	return w;
}

static enum route_where sock_lookup(void *ud, const struct lnk_addr *dst)
{
	return route_lookup(ud, dst);
}

enum route_where route_where_for(struct route_sock *rs,
				 const struct lnk_addr *dst)
{
	return route_where_with(sock_lookup, rs, dst);
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
	memset(rs->kept, 0, sizeof(rs->kept));
	rs->gen = 0;
	rs->watch = -1;
	rs->nown6 = 0;
	rs->own6_read = false;
	rs->own6_gen = 0;
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
	rs->watch = route_watch_open();
	return 0;
}

void route_close(struct route_sock *rs)
{
	if (rs->fd >= 0)
		close(rs->fd);
	rs->fd = -1;
	if (rs->watch >= 0)
		close(rs->watch);
	rs->watch = -1;
	route_forget(rs);
}
