/* Route lookups on macOS: the routing socket's RTM_GET (route.h), the
 * question route(8)'s "get" asks. Not built on Linux; tests/portable/check
 * compiles it there against the SDK's declarations
 * (tests/portable/macos/net/route.h).
 *
 * A sockaddr in a routing message starts with its length byte (BSD's
 * sa_len) and its family byte, and takes a multiple of 4 bytes: it is
 * read and written here as bytes, by that layout, so nothing depends on
 * a struct field Linux lacks.
 */
#include "wire/route.h"

#include <errno.h>
#include <net/if.h>
#include <net/route.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "common/compat.h"

/* The room a sockaddr of length n takes in a routing message. */
#define SA_ROOM(n) ((n) > 0 ? 1 + (((size_t)(n)-1) | 3) : 4)

int route_open(struct route_sock *rs)
{
	rs->seq = 0;
	rs->fd = socket_cloexec(PF_ROUTE, SOCK_RAW, AF_UNSPEC, 0);
	return route_sock_ready(rs);
}

/* What the kernel said about one destination. */
struct mac_answer {
	int error; /* -errno: no route (ESRCH) or another failure */
	int flags; /* RTF_* of the route that matched */
	int ifindex;
	int has_gateway; /* an IP gateway (an on-link route names a link) */
	struct lnk_addr gateway;
	int prefix; /* the route's prefix length */
};

/* The IP address in a sockaddr of length sl at p; -1 for another kind. */
static int get_addr(const unsigned char *p, size_t sl, struct lnk_addr *out)
{
	memset(out, 0, sizeof(*out));
	if (p[1] == AF_INET && sl >= 8) { /* len, family, port, address */
		out->family = AF_INET;
		memcpy(out->a, p + 4, 4);
		return 0;
	}
	if (p[1] == AF_INET6 && sl >= 24) { /* ..., flowinfo, address */
		out->family = AF_INET6;
		memcpy(out->a, p + 8, 16);
		return 0;
	}
	return -1;
}

/* The bits set in a netmask sockaddr; the kernel trims its trailing zero
 * bytes, and a host route has none (full length, set by the caller). */
static int mask_bits(const unsigned char *p, size_t sl, int family)
{
	size_t from = family == AF_INET ? 4 : 8;
	int bits = 0;
	for (size_t i = from; i < sl; i++)
		bits += __builtin_popcount(p[i]);
	return bits;
}

/* Parses the answer to request seq of this process. 0 with *out filled,
 * -EAGAIN when buf is another message, -EBADMSG when it is malformed. */
static int parse_answer(const unsigned char *buf, size_t len, int seq,
			pid_t pid, int family, struct mac_answer *out)
{
	struct rt_msghdr rtm;
	if (len < sizeof(rtm))
		return -EAGAIN;
	memcpy(&rtm, buf, sizeof(rtm));
	if (rtm.rtm_version != RTM_VERSION || rtm.rtm_type != RTM_GET ||
	    rtm.rtm_pid != pid || rtm.rtm_seq != seq)
		return -EAGAIN; /* another process', or a late answer */
	if (rtm.rtm_msglen < sizeof(rtm) || rtm.rtm_msglen > len)
		return -EBADMSG;
	memset(out, 0, sizeof(*out));
	if (rtm.rtm_errno) {
		out->error = -rtm.rtm_errno;
		return 0;
	}
	out->flags = rtm.rtm_flags;
	out->ifindex = rtm.rtm_index;
	out->prefix = family == AF_INET ? 32 : 128;
	size_t off = sizeof(rtm);
	for (int i = 0; i < RTAX_MAX; i++) {
		if (!(rtm.rtm_addrs & (1 << i)))
			continue;
		if (off + 2 > rtm.rtm_msglen)
			return -EBADMSG;
		size_t sl = buf[off];
		if (off + SA_ROOM(sl) > rtm.rtm_msglen)
			return -EBADMSG;
		const unsigned char *p = buf + off;
		if (i == RTAX_GATEWAY && (rtm.rtm_flags & RTF_GATEWAY) &&
		    get_addr(p, sl, &out->gateway) == 0)
			out->has_gateway = 1;
		else if (i == RTAX_NETMASK)
			out->prefix = mask_bits(p, sl, family);
		off += SA_ROOM(sl);
	}
	return 0;
}

/* The interface's IFF_* flags, or 0 when they cannot be read. */
static int if_flags(int ifindex)
{
	char name[IF_NAMESIZE];
	if (ifindex <= 0 || !if_indextoname((unsigned)ifindex, name))
		return 0;
	int s = socket_cloexec(AF_INET, SOCK_DGRAM, 0, 0);
	if (s < 0)
		return 0;
	struct ifreq ifr;
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, name, sizeof(ifr.ifr_name));
	int r = ioctl(s, SIOCGIFFLAGS, &ifr);
	close(s);
	return r < 0 ? 0 : ifr.ifr_flags;
}

/* What an answer means for dst: route.h's route_judge, in the routing
 * socket's words. */
static enum route_where judge(const struct mac_answer *a,
			      const struct lnk_addr *dst)
{
	if (a->error || !(a->flags & RTF_UP) ||
	    (a->flags &
	     (RTF_REJECT | RTF_BLACKHOLE | RTF_BROADCAST | RTF_MULTICAST)))
		return ROUTE_NONE;
	if (a->flags & RTF_LOCAL)
		return ROUTE_LOCAL;
	int iff = if_flags(a->ifindex);
	if (iff & IFF_LOOPBACK)
		return ROUTE_LOCAL; /* this machine's address, routed by lo0 */
	if (a->flags & RTF_GATEWAY) {
		if (!a->has_gateway)
			return ROUTE_NONE; /* a gateway it does not name */
		/* the gateway itself is on this machine's network */
		return addr_equal(&a->gateway, dst) ? ROUTE_LAN
						    : ROUTE_INTERNET;
	}
	/* on-link: this machine's network, but for the far end of a
	 * point-to-point device that carries the whole internet */
	if ((iff & IFF_POINTOPOINT) && a->prefix <= ROUTE_TUNNEL_PREFIX_MAX)
		return ROUTE_INTERNET;
	return ROUTE_LAN;
}

/* Nothing is kept on macOS: every lookup asks (route.h). Its routing
 * socket hears every change, but this side has never run on a Mac. */
int route_watch_open(void)
{
	return -1;
}

bool route_watch_changed(int watch)
{
	(void)watch;
	return true;
}

enum route_where route_ask(struct route_sock *rs, const struct lnk_addr *dst)
{
	if (rs->fd < 0 || (dst->family != AF_INET && dst->family != AF_INET6))
		return ROUTE_NONE;
	union {
		struct rt_msghdr h;
		unsigned char b[2048];
	} u;
	memset(&u, 0, sizeof(struct rt_msghdr) + 28);
	int seq = (int)++rs->seq;
	pid_t pid = getpid();
	unsigned char *sa = u.b + sizeof(struct rt_msghdr);
	size_t sl = dst->family == AF_INET ? 16 : 28;
	sa[0] = (unsigned char)sl;
	sa[1] = (unsigned char)dst->family;
	memcpy(sa + (dst->family == AF_INET ? 4 : 8), dst->a,
	       dst->family == AF_INET ? 4 : 16);
	u.h.rtm_msglen =
	    (unsigned short)(sizeof(struct rt_msghdr) + SA_ROOM(sl));
	u.h.rtm_version = RTM_VERSION;
	u.h.rtm_type = RTM_GET;
	u.h.rtm_flags = RTF_UP | RTF_HOST;
	u.h.rtm_addrs = RTA_DST;
	u.h.rtm_pid = pid;
	u.h.rtm_seq = seq;
	if (write(rs->fd, u.b, u.h.rtm_msglen) != u.h.rtm_msglen)
		return ROUTE_NONE; /* ESRCH here is "no route" */
	/* every routing message of the system comes to this socket: only
	 * the answer to this question counts */
	for (int tries = 0; tries < 16; tries++) {
		ssize_t r = read(rs->fd, u.b, sizeof(u.b));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return ROUTE_NONE;
		struct mac_answer a;
		int p = parse_answer(u.b, (size_t)r, seq, pid, dst->family, &a);
		if (p == -EAGAIN)
			continue;
		return p < 0 ? ROUTE_NONE : judge(&a, dst);
	}
	return ROUTE_NONE;
}
