/* Route lookups on Linux: rtnetlink (route.h). */
#include "wire/route.h"

#include <errno.h>
#include <linux/netlink.h>
#include <net/if.h>
#include <linux/if_addr.h>
#include <linux/rtnetlink.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

int route_open(struct route_sock *rs)
{
	rs->seq = 0;
	rs->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	return route_sock_ready(rs);
}

/* The groups whose announcements can change an answer: routes and
 * rules (which table is read) of both families, nexthop objects (a
 * route's gateway replaced without a route message), addresses (their
 * local and prefix routes) and links (a device down takes its IPv4
 * routes without a route message; its point-to-point flag). Each is
 * joined one by one (nexthops are past the 32 groups of bind's mask); a
 * kernel without nexthop objects has nothing of theirs to announce. */
static const unsigned watch_groups[] = {
    RTNLGRP_IPV4_ROUTE, RTNLGRP_IPV6_ROUTE,  RTNLGRP_IPV4_RULE,
    RTNLGRP_IPV6_RULE,	RTNLGRP_IPV4_IFADDR, RTNLGRP_IPV6_IFADDR,
    RTNLGRP_LINK,	RTNLGRP_NEXTHOP,
};

int route_watch_open(void)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK,
			NETLINK_ROUTE);
	if (fd < 0)
		return -1;
	/* bound (a port of its own): a socket that joins the groups
	 * unbound hears nothing (docs/kernel-facts.md,
	 * rtnetlink-watch-needs-bind) */
	struct sockaddr_nl me = {.nl_family = AF_NETLINK};
	if (bind(fd, (struct sockaddr *)&me, sizeof(me)) < 0) {
		close(fd);
		return -1;
	}
	for (size_t i = 0; i < sizeof(watch_groups) / sizeof(*watch_groups);
	     i++) {
		unsigned g = watch_groups[i];
		if (setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &g,
			       sizeof(g)) < 0 &&
		    !(g == RTNLGRP_NEXTHOP && errno == EINVAL)) {
			close(fd);
			return -1; /* then nothing is kept */
		}
	}
	return fd;
}

bool route_watch_changed(int watch)
{
	/* The messages are not read: any is a change. One byte of each is
	 * taken (the rest of a datagram is dropped with it). */
	bool changed = false;
	char b;
	for (int i = 0; i < 64; i++) {
		ssize_t n = recv(watch, &b, 1, MSG_DONTWAIT | MSG_TRUNC);
		if (n < 0 && errno == EAGAIN)
			return changed;
		if (n < 0 && errno == EINTR)
			continue;
		/* ENOBUFS: the queue overflowed and some were lost; any
		 * other error: no telling. Changed, either way. */
		if (n < 0)
			return true;
		changed = true;
	}
	return true; /* more waiting: the next call reads on */
}

size_t route_build_request(const struct lnk_addr *dst, uint32_t seq, void *buf)
{
	size_t alen = dst->family == AF_INET ? 4 : 16;
	memset(buf, 0, ROUTE_REQ_MAX);
	struct nlmsghdr *nh = buf;
	struct rtmsg *rt = NLMSG_DATA(nh);
	nh->nlmsg_type = RTM_GETROUTE;
	nh->nlmsg_flags = NLM_F_REQUEST;
	nh->nlmsg_seq = seq;
	rt->rtm_family = (unsigned char)dst->family;
	rt->rtm_dst_len = (unsigned char)(alen * 8);
	struct rtattr *ra =
	    (struct rtattr *)((char *)rt + NLMSG_ALIGN(sizeof(*rt)));
	ra->rta_type = RTA_DST;
	ra->rta_len = (unsigned short)RTA_LENGTH(alen);
	memcpy(RTA_DATA(ra), dst->a, alen);
	nh->nlmsg_len =
	    NLMSG_LENGTH(NLMSG_ALIGN(sizeof(*rt)) + RTA_SPACE(alen));
	return nh->nlmsg_len;
}

/* The kernel's error in an NLMSG_ERROR message: -EBADMSG when it is
 * cut short, ack when it is an acknowledgement (error 0). */
static int error_of(const struct nlmsghdr *nh, int ack)
{
	if (nh->nlmsg_len < NLMSG_LENGTH(sizeof(struct nlmsgerr)))
		return -EBADMSG;
	const struct nlmsgerr *e = NLMSG_DATA(nh);
	return e->error < 0 ? e->error : ack;
}

static int parse_route(const struct nlmsghdr *nh, struct route_answer *out)
{
	if (nh->nlmsg_len < NLMSG_LENGTH(sizeof(struct rtmsg)))
		return -EBADMSG;
	const struct rtmsg *rt = NLMSG_DATA(nh);
	out->type = rt->rtm_type;
	out->dst_len = rt->rtm_dst_len;
	int alen = RTM_PAYLOAD(nh);
	for (const struct rtattr *ra = RTM_RTA(rt); RTA_OK(ra, alen);
	     ra = RTA_NEXT(ra, alen)) {
		size_t n = RTA_PAYLOAD(ra);
		if (ra->rta_type == RTA_GATEWAY) {
			if (n != 4 && n != 16)
				return -EBADMSG;
			memset(&out->gateway, 0, sizeof(out->gateway));
			out->gateway.family = n == 4 ? AF_INET : AF_INET6;
			memcpy(out->gateway.a, RTA_DATA(ra), n);
			out->has_gateway = 1;
		} else if (ra->rta_type == RTA_OIF) {
			if (n != sizeof(int))
				return -EBADMSG;
			memcpy(&out->oif, RTA_DATA(ra), sizeof(int));
		} else if (ra->rta_type == RTA_VIA) {
			/* an IPv4 route through an IPv6 gateway */
			const struct rtvia *v = RTA_DATA(ra);
			if (n < sizeof(*v))
				return -EBADMSG;
			size_t vn = n - sizeof(*v);
			memset(&out->gateway, 0, sizeof(out->gateway));
			if ((v->rtvia_family == AF_INET && vn == 4) ||
			    (v->rtvia_family == AF_INET6 && vn == 16)) {
				out->gateway.family = v->rtvia_family;
				memcpy(out->gateway.a, v->rtvia_addr, vn);
			}
			out->has_gateway = 1;
		}
	}
	return 0;
}

/* NLMSG_OK compares the header's u32 length with the int count left. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
int route_parse_reply(const void *buf, size_t len, uint32_t seq,
		      struct route_answer *out)
{
	memset(out, 0, sizeof(*out));
	int left = len > 1 << 20 ? 1 << 20 : (int)len;
	for (const struct nlmsghdr *nh = buf; NLMSG_OK(nh, left);
	     nh = NLMSG_NEXT(nh, left)) {
		if (nh->nlmsg_seq != seq)
			continue; /* a late answer to an earlier question */
		if (nh->nlmsg_type == NLMSG_ERROR) {
			/* an acknowledgement: no route */
			out->error = error_of(nh, -ENODATA);
			return out->error == -EBADMSG ? -EBADMSG : 0;
		}
		if (nh->nlmsg_type == RTM_NEWROUTE)
			return parse_route(nh, out);
		return -EBADMSG;
	}
	return -EAGAIN;
}
#pragma GCC diagnostic pop

enum route_where route_judge(const struct route_answer *ans,
			     const struct lnk_addr *dst, int p2p)
{
	if (ans->error)
		return ROUTE_NONE;
	switch (ans->type) {
	case RTN_LOCAL:
		return ROUTE_LOCAL;
	case RTN_UNICAST:
		if (!ans->has_gateway)
			/* on-link: this machine's network, but for the far
			 * end of a point-to-point device */
			return p2p == 1 ? ROUTE_INTERNET : ROUTE_LAN;
		/* the gateway itself (a route "via X onlink" to X) */
		if (addr_equal(&ans->gateway, dst))
			return ROUTE_LAN;
		return ROUTE_INTERNET;
	default:
		/* blackhole, unreachable, prohibit, throw, broadcast,
		 * anycast, multicast, nat, or a type this code does not
		 * know: not a destination for a call */
		return ROUTE_NONE;
	}
}

size_t route_build_link_request(int ifindex, uint32_t seq, void *buf)
{
	memset(buf, 0, ROUTE_REQ_MAX);
	struct nlmsghdr *nh = buf;
	struct ifinfomsg *ifi = NLMSG_DATA(nh);
	nh->nlmsg_type = RTM_GETLINK;
	nh->nlmsg_flags = NLM_F_REQUEST;
	nh->nlmsg_seq = seq;
	nh->nlmsg_len = NLMSG_LENGTH(sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	return nh->nlmsg_len;
}

int route_parse_link_reply(const void *buf, size_t len, uint32_t seq)
{
	/* Only the fixed header is read: a link message's attributes
	 * (statistics, names) may not fit the buffer, and are not needed. */
	if (len < NLMSG_HDRLEN)
		return -EAGAIN;
	const struct nlmsghdr *nh = buf;
	if (nh->nlmsg_seq != seq)
		return -EAGAIN;
	if (nh->nlmsg_type != RTM_NEWLINK ||
	    nh->nlmsg_len < NLMSG_LENGTH(sizeof(struct ifinfomsg)) ||
	    len < NLMSG_LENGTH(sizeof(struct ifinfomsg)))
		return -EBADMSG;
	const struct ifinfomsg *ifi = NLMSG_DATA(nh);
	return (ifi->ifi_flags & IFF_POINTOPOINT) ? 1 : 0;
}

/* Sends one request and waits for the kernel's answer to it: the reply's
 * length in u, or -1. Answers to earlier questions that timed out may come
 * first; only the kernel's (port 0) count. */
union route_reply {
	struct nlmsghdr nh;
	char b[8192];
};

static ssize_t ask(struct route_sock *rs, const void *req, size_t n,
		   union route_reply *u,
		   ssize_t (*mine)(const void *, size_t, uint32_t, void *),
		   uint32_t seq, void *out)
{
	/* send() without an address goes to the kernel (an unconnected
	 * netlink socket's peer is port 0); with one, the confined wire's
	 * filter would hand every lookup to the keeper for nothing */
	if (send(rs->fd, req, n, 0) != (ssize_t)n)
		return -1;
	for (int tries = 0; tries < 16; tries++) {
		struct sockaddr_nl from;
		socklen_t fl = sizeof(from);
		ssize_t r = recvfrom(rs->fd, u->b, sizeof(u->b), 0,
				     (struct sockaddr *)&from, &fl);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		if (fl != sizeof(from) || from.nl_pid != 0)
			continue;
		ssize_t p = mine(u->b, (size_t)r, seq, out);
		if (p == -EAGAIN)
			continue;
		return p;
	}
	return -1;
}

static ssize_t route_reply(const void *buf, size_t len, uint32_t seq, void *out)
{
	return route_parse_reply(buf, len, seq, out);
}

static ssize_t link_reply(const void *buf, size_t len, uint32_t seq, void *out)
{
	int p = route_parse_link_reply(buf, len, seq);
	if (p < 0)
		return p;
	*(int *)out = p;
	return 0;
}

size_t route_build_own6_request(uint32_t seq, void *buf)
{
	memset(buf, 0, ROUTE_REQ_MAX);
	struct nlmsghdr *nh = buf;
	struct ifaddrmsg *ifa = NLMSG_DATA(nh);
	nh->nlmsg_type = RTM_GETADDR;
	nh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nh->nlmsg_seq = seq;
	nh->nlmsg_len = NLMSG_LENGTH(sizeof(*ifa));
	ifa->ifa_family = AF_INET6;
	return nh->nlmsg_len;
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
int route_parse_own6_reply(const void *buf, size_t len, uint32_t seq,
			   struct lnk_addr *out, size_t max, size_t *n)
{
	int left = len > 1 << 20 ? 1 << 20 : (int)len;
	for (const struct nlmsghdr *nh = buf; NLMSG_OK(nh, left);
	     nh = NLMSG_NEXT(nh, left)) {
		if (nh->nlmsg_seq != seq)
			continue;
		if (nh->nlmsg_type == NLMSG_DONE)
			return 1;
		if (nh->nlmsg_type == NLMSG_ERROR)
			return error_of(nh, -EBADMSG);
		if (nh->nlmsg_type != RTM_NEWADDR ||
		    nh->nlmsg_len < NLMSG_LENGTH(sizeof(struct ifaddrmsg)))
			return -EBADMSG;
		const struct ifaddrmsg *ifa = NLMSG_DATA(nh);
		if (ifa->ifa_family != AF_INET6 ||
		    ifa->ifa_scope != RT_SCOPE_UNIVERSE)
			continue;
		int alen = IFA_PAYLOAD(nh);
		for (const struct rtattr *ra = IFA_RTA(ifa); RTA_OK(ra, alen);
		     ra = RTA_NEXT(ra, alen)) {
			if (ra->rta_type != IFA_ADDRESS)
				continue;
			if (RTA_PAYLOAD(ra) != 16)
				return -EBADMSG;
			if (*n >= max)
				return -ENOBUFS;
			memset(&out[*n], 0, sizeof(out[*n]));
			out[*n].family = AF_INET6;
			memcpy(out[*n].a, RTA_DATA(ra), 16);
			(*n)++;
		}
	}
	return 0;
}
#pragma GCC diagnostic pop

struct own6_out {
	struct route_sock *rs;
};

/* One datagram of the dump: -EAGAIN until its end (ask() reads on). */
static ssize_t own6_reply(const void *buf, size_t len, uint32_t seq, void *out)
{
	struct route_sock *rs = ((struct own6_out *)out)->rs;
	int p = route_parse_own6_reply(buf, len, seq, rs->own6, ROUTE_OWN6_MAX,
				       &rs->nown6);
	return p == 0 ? -EAGAIN : p < 0 ? p : 0;
}

/* Reads this machine's global IPv6 addresses into rs. 0 or -1. */
static int read_own6(struct route_sock *rs)
{
	char req[ROUTE_REQ_MAX];
	union route_reply u;
	uint32_t seq = ++rs->seq;
	size_t n = route_build_own6_request(seq, req);
	struct own6_out o = {.rs = rs};
	rs->own6_read = false;
	rs->nown6 = 0;
	if (ask(rs, req, n, &u, own6_reply, seq, &o) < 0)
		return -1;
	rs->own6_read = true;
	rs->own6_gen = rs->gen;
	return 0;
}

/* An IPv6 destination the routes call the internet, judged again by this
 * machine's own addresses (route_in_own_net6). Without a clear list of
 * them (the dump failed or held more than ROUTE_OWN6_MAX), no answer:
 * refused. The list is read again after each change the watch announced
 * (its generation), and on every call without a watch. */
static enum route_where own_net6(struct route_sock *rs,
				 const struct lnk_addr *dst)
{
	if ((!rs->own6_read || rs->own6_gen != rs->gen || rs->watch < 0) &&
	    read_own6(rs) < 0)
		return ROUTE_NONE;
	return route_in_own_net6(rs->own6, rs->nown6, dst) ? ROUTE_LAN
							   : ROUTE_INTERNET;
}

enum route_where route_ask(struct route_sock *rs, const struct lnk_addr *dst)
{
	if (rs->fd < 0)
		return ROUTE_NONE;
	char req[ROUTE_REQ_MAX];
	union route_reply u;
	struct route_answer ans;
	uint32_t seq = ++rs->seq;
	size_t n = route_build_request(dst, seq, req);
	if (ask(rs, req, n, &u, route_reply, seq, &ans) < 0)
		return ROUTE_NONE;
	/* On-link: is it the far end of a point-to-point device? Without a
	 * clear answer it stays this machine's network (the stricter). */
	int p2p = 0;
	if (!ans.error && ans.type == RTN_UNICAST && !ans.has_gateway &&
	    ans.oif > 0) {
		seq = ++rs->seq;
		n = route_build_link_request(ans.oif, seq, req);
		if (ask(rs, req, n, &u, link_reply, seq, &p2p) < 0)
			p2p = 0;
	}
	/* A full tunnel carries the internet: its route is the default one
	 * (or the two halves OpenVPN and wg-quick add). A narrower route
	 * through the device is a split tunnel to one network (a company's,
	 * however numbered): the network, not the internet. The route that
	 * matched is asked for by RTM_F_FIB_MATCH; no clear answer keeps the
	 * stricter. */
	if (p2p == 1) {
		struct route_answer fib;
		seq = ++rs->seq;
		n = route_build_request(dst, seq, req);
		((struct rtmsg *)NLMSG_DATA((struct nlmsghdr *)req))
		    ->rtm_flags = RTM_F_FIB_MATCH;
		if (ask(rs, req, n, &u, route_reply, seq, &fib) < 0 ||
		    fib.error || fib.dst_len > ROUTE_TUNNEL_PREFIX_MAX)
			p2p = 0;
	}
	enum route_where w = route_judge(&ans, dst, p2p);
	if (w == ROUTE_INTERNET && dst->family == AF_INET6)
		w = own_net6(rs, dst);
	return w;
}

size_t route_build_neigh_request(const struct lnk_addr *gw, int ifindex,
				 uint32_t seq, void *buf)
{
	size_t alen = gw->family == AF_INET ? 4 : 16;
	memset(buf, 0, ROUTE_REQ_MAX);
	struct nlmsghdr *nh = buf;
	struct ndmsg *nd = NLMSG_DATA(nh);
	nh->nlmsg_type = RTM_GETNEIGH;
	nh->nlmsg_flags = NLM_F_REQUEST;
	nh->nlmsg_seq = seq;
	nd->ndm_family = (unsigned char)gw->family;
	nd->ndm_ifindex = ifindex;
	struct rtattr *ra =
	    (struct rtattr *)((char *)nd + NLMSG_ALIGN(sizeof(*nd)));
	ra->rta_type = NDA_DST;
	ra->rta_len = (unsigned short)RTA_LENGTH(alen);
	memcpy(RTA_DATA(ra), gw->a, alen);
	nh->nlmsg_len =
	    NLMSG_LENGTH(NLMSG_ALIGN(sizeof(*nd)) + RTA_SPACE(alen));
	return nh->nlmsg_len;
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
int route_parse_neigh_reply(const void *buf, size_t len, uint32_t seq,
			    unsigned char *ll, size_t *ll_len)
{
	*ll_len = 0;
	int left = len > 1 << 20 ? 1 << 20 : (int)len;
	for (const struct nlmsghdr *nh = buf; NLMSG_OK(nh, left);
	     nh = NLMSG_NEXT(nh, left)) {
		if (nh->nlmsg_seq != seq)
			continue;
		if (nh->nlmsg_type == NLMSG_ERROR)
			return error_of(nh, -ENOENT);
		if (nh->nlmsg_type != RTM_NEWNEIGH ||
		    nh->nlmsg_len < NLMSG_LENGTH(sizeof(struct ndmsg)))
			return -EBADMSG;
		const struct ndmsg *nd = NLMSG_DATA(nh);
		int alen = (int)nh->nlmsg_len -
			   (int)NLMSG_LENGTH(NLMSG_ALIGN(sizeof(*nd)));
		for (const struct rtattr *ra =
			 (const struct rtattr *)((const char *)nd +
						 NLMSG_ALIGN(sizeof(*nd)));
		     RTA_OK(ra, alen); ra = RTA_NEXT(ra, alen)) {
			size_t n = RTA_PAYLOAD(ra);
			if (ra->rta_type != NDA_LLADDR)
				continue;
			if (n > ROUTE_LL_MAX)
				return -EBADMSG;
			memcpy(ll, RTA_DATA(ra), n);
			*ll_len = n;
		}
		return 0;
	}
	return -EAGAIN;
}
#pragma GCC diagnostic pop

struct neigh_out {
	unsigned char *ll;
	size_t *ll_len;
};

static ssize_t neigh_reply(const void *buf, size_t len, uint32_t seq, void *out)
{
	struct neigh_out *o = out;
	int r = route_parse_neigh_reply(buf, len, seq, o->ll, o->ll_len);
	/* the kernel's refusal is an answer, not a reason to read on */
	return r == -EAGAIN || r == -EBADMSG ? r : 0;
}

int route_router_of(struct route_sock *rs, const struct lnk_addr *dst,
		    struct route_router *out)
{
	memset(out, 0, sizeof(*out));
	if (rs->fd < 0)
		return -EBADF;
	char req[ROUTE_REQ_MAX];
	union route_reply u;
	struct route_answer ans;
	uint32_t seq = ++rs->seq;
	size_t n = route_build_request(dst, seq, req);
	if (ask(rs, req, n, &u, route_reply, seq, &ans) < 0)
		return -EIO;
	if (ans.error)
		return ans.error;
	out->oif = ans.oif;
	if (!ans.has_gateway || !ans.gateway.family || ans.oif <= 0)
		return 0;
	out->gateway = ans.gateway;
	/* No entry, or one not resolved yet: no link-layer address, which
	 * the caller takes as "this router cannot be told apart". */
	struct neigh_out o = {.ll = out->ll, .ll_len = &out->ll_len};
	seq = ++rs->seq;
	n = route_build_neigh_request(&ans.gateway, ans.oif, seq, req);
	if (ask(rs, req, n, &u, neigh_reply, seq, &o) < 0)
		out->ll_len = 0;
	return 0;
}
