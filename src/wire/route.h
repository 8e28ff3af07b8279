/* Where an address is, in the kernel's own words: a route lookup for the
 * exact destination, per call (or its answer kept until the routing
 * changes, below): rtnetlink's RTM_GETROUTE on Linux
 * (route_linux.c), the routing socket's RTM_GET on macOS (route_macos.c);
 * what an answer means for a connection is route.c's, shared.
 *
 * The address classes (addr.h) say what an address is by its number; they
 * cannot say that a public address is this machine's (a VPN, DHCP, an IPv6
 * privacy address gained while a sandbox runs, a local route such as AnyIP)
 * or sits on a directly connected network (a LAN numbered from public
 * space, every device on an IPv6 LAN). Only the routing table knows, and it
 * changes at any time, so the wire asks the kernel for each address it is
 * about to connect to, and refuses when it gets no clear answer.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net/addr.h"

enum route_where {
	ROUTE_INTERNET, /* unicast through a gateway */
	ROUTE_LOCAL,	/* delivered to this machine (type local) */
	ROUTE_LAN,	/* on a directly connected network (not through a
			 * point-to-point device), or a gateway */
	ROUTE_NONE,	/* no usable route: blackhole, unreachable,
			 * prohibit, broadcast, multicast, or no answer */
};

/* ---- rtnetlink's messages (route_linux.c), unit-tested on their own ---- */

/* What a reply said (parsed from the kernel's message). */
struct route_answer {
	int error;	    /* -errno from NLMSG_ERROR, 0 with a route */
	unsigned char type; /* RTN_* */
	int has_gateway;    /* RTA_GATEWAY or RTA_VIA */
	struct lnk_addr gateway;
	int oif; /* RTA_OIF: the device it leaves by, 0 when not said */
	unsigned char dst_len; /* the prefix length of the route */
};

/* Builds the RTM_GETROUTE request for dst into buf (at least
 * ROUTE_REQ_MAX bytes); returns its length. */
#define ROUTE_REQ_MAX 64
size_t route_build_request(const struct lnk_addr *dst, uint32_t seq, void *buf);

/* Parses the reply to request seq from buf. 0 with *out filled (a route or
 * the kernel's error), -EAGAIN when buf holds no message for seq, -EBADMSG
 * when it is malformed. */
int route_parse_reply(const void *buf, size_t len, uint32_t seq,
		      struct route_answer *out);

/* What an answer means for dst. An on-link route is this machine's
 * network, unless p2p is 1: the device is point-to-point AND the route
 * that matched is a full tunnel's (prefix 0 or 1): a VPN (wg-quick,
 * OpenVPN's tun) or PPP routes the whole internet on-link through one, and
 * the one machine at its other end is no neighbour. A narrower route
 * through such a device (a split tunnel) stays the network it leads to.
 * The address classes still refuse private and special addresses. */
enum route_where route_judge(const struct route_answer *ans,
			     const struct lnk_addr *dst, int p2p);

/* The RTM_GETLINK request for device ifindex, and whether the reply says
 * it is point-to-point: 1 or 0, -EAGAIN when buf holds no message for seq,
 * -EBADMSG when it is malformed or an error. */
size_t route_build_link_request(int ifindex, uint32_t seq, void *buf);
int route_parse_link_reply(const void *buf, size_t len, uint32_t seq);

/* The RTM_GETADDR dump of this machine's IPv6 addresses, and its reply:
 * each address of global scope appended to out (at most max, *n counted
 * on), 1 when the dump's end came, 0 when more is to come, -ENOBUFS past
 * max, -EBADMSG when malformed, the kernel's error. */
size_t route_build_own6_request(uint32_t seq, void *buf);
int route_parse_own6_reply(const void *buf, size_t len, uint32_t seq,
			   struct lnk_addr *out, size_t max, size_t *n);

/* ---- every platform ---- */

/* Whether dst (IPv6) lies in the /64 of one of own: the network of an
 * address this machine holds, even where no on-link route says so (an
 * address given as a /128 by DHCPv6, a router advertisement without the
 * on-link flag: every peer of the /64 is then reached through the
 * router, and looks like the internet to the routes alone). /64 is the
 * size of every IPv6 network of hosts (RFC 4291, 7421). */
bool route_in_own_net6(const struct lnk_addr *own, size_t n,
		       const struct lnk_addr *dst);

/* The longest prefix of a route through a point-to-point device that
 * still carries the internet: the default route (0) or its halves (1). */
#define ROUTE_TUNNEL_PREFIX_MAX 1

/* The kernel's answers are kept, per address, while nothing in the
 * routing changes: a second socket (rtnetlink's multicast groups of
 * routes, rules, nexthops, addresses and links on Linux) hears every
 * change the kernel announces, and any message on it, or a lost one
 * (the socket's queue overflowed), empties the table before the next
 * answer is given. So a change made before a call is judged by the new
 * routes, as with a lookup per call. The changes the kernel does not
 * announce (an ICMP redirect's exception, a router's route past its
 * lifetime that the kernel's collector has not removed yet) are seen
 * after at most ROUTE_CACHE_MS, when an answer is asked again anyway.
 * Without the second socket (macOS, or it cannot be opened) nothing is
 * kept: every call asks. A slot is an address's; a hostile program can
 * only push answers out, never put one in. */
#define ROUTE_CACHE_SLOTS 64
#define ROUTE_CACHE_MS 1000

struct route_kept {
	struct lnk_addr a;
	int64_t until_ms; /* 0: an empty slot */
	enum route_where w;
};

/* The routing socket the lookups use (NETLINK_ROUTE, or PF_ROUTE on
 * macOS), opened once at setup (before the wire is confined) and reused
 * for every call. */
/* This machine's global IPv6 addresses held at once (more: an IPv6
 * destination the routes call the internet is refused, route_linux.c). */
#define ROUTE_OWN6_MAX 256

struct route_sock {
	int fd;
	uint32_t seq;
	int watch;    /* the kernel's announcements, -1: none (keep none) */
	uint64_t gen; /* how many times the kept answers were dropped */
	struct route_kept kept[ROUTE_CACHE_SLOTS];
	/* this machine's global IPv6 addresses, read under generation
	 * own6_gen (read again after any change the watch announced) */
	struct lnk_addr own6[ROUTE_OWN6_MAX];
	size_t nown6;
	bool own6_read;
	uint64_t own6_gen;
};

/* Opens rs (CLOEXEC, a receive timeout so a lost answer cannot hang the
 * wire) and its watch (route_watch_open; without one, nothing is kept).
 * 0 or -errno. */
int route_open(struct route_sock *rs);
void route_close(struct route_sock *rs);
/* The first router a connection to an address leaves through, as this
 * machine knows it: the route's gateway and the link-layer address its
 * neighbour table holds for it on the route's device (none through a
 * point-to-point device, or before the neighbour was resolved). */
#define ROUTE_LL_MAX 32
struct route_router {
	struct lnk_addr gateway; /* family 0: an on-link route, no gateway */
	int oif;		 /* the device, 0 when not said */
	unsigned char ll[ROUTE_LL_MAX];
	size_t ll_len; /* 0: no link-layer address known */
};

/* The RTM_GETNEIGH request for the neighbour entry of gw on device
 * ifindex, and the link-layer address its reply holds: 0 with ll (at
 * most ROUTE_LL_MAX bytes) and *ll_len filled (0 when the entry has none
 * yet), -ENOENT for no entry (the kernel's error), -EAGAIN when buf
 * holds no message for seq, -EBADMSG when it is malformed. */
size_t route_build_neigh_request(const struct lnk_addr *gw, int ifindex,
				 uint32_t seq, void *buf);
int route_parse_neigh_reply(const void *buf, size_t len, uint32_t seq,
			    unsigned char *ll, size_t *ll_len);

/* The first router of a connection to dst, asked of the kernel now (no
 * kept answer): 0 with *out filled, or -errno (no route, no answer). */
int route_router_of(struct route_sock *rs, const struct lnk_addr *dst,
		    struct route_router *out);

/* route_open's second half, the same on every platform: rs->fd (or -1,
 * with errno) given its receive timeout; closed on failure. 0 or -errno. */
int route_sock_ready(struct route_sock *rs);

/* Per platform: the watch socket (non-blocking, CLOEXEC), or -1; and
 * whether anything came on it since the last call (drained, bounded: what
 * is left counts at the next call). An error on it counts as a change. */
int route_watch_open(void);
bool route_watch_changed(int watch);

/* Where dst is: the kept answer when the routing has not changed since
 * it was given (and it is younger than ROUTE_CACHE_MS), else the
 * kernel's (route_ask), kept. Any failure to get an answer is ROUTE_NONE
 * (never kept): the caller refuses (fail closed). */
enum route_where route_lookup(struct route_sock *rs,
			      const struct lnk_addr *dst);
/* Asks the kernel, every time (per platform). */
enum route_where route_ask(struct route_sock *rs, const struct lnk_addr *dst);
/* The kept answers dropped (rs->gen counts it). */
void route_forget(struct route_sock *rs);

/* Where a connection to dst goes: an IPv4-mapped address is looked up as
 * the IPv4 address the kernel connects to; an IPv6 address that embeds
 * IPv4 ones (addr_embedded: NAT64, 6to4, compatible, Teredo, ISATAP) is
 * looked up as itself and each embedded address too, and the stricter
 * answer wins (this machine or its network behind a translator is still
 * this machine or its network). */
enum route_where route_where_for(struct route_sock *rs,
				 const struct lnk_addr *dst);
/* The same with another lookup (the unit tests' fake routing table). */
typedef enum route_where (*route_lookup_fn)(void *ud,
					    const struct lnk_addr *dst);
enum route_where route_where_with(route_lookup_fn lookup, void *ud,
				  const struct lnk_addr *dst);

const char *route_where_name(enum route_where w);
