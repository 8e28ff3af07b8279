/* The first-hop probe and its verdicts (hop.h). Linux: the ICMP error's
 * origin comes from the socket's error queue (IP_RECVERR). */
#include "wire/hop.h"

#include <errno.h>
#include <linux/errqueue.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/compat.h"

enum hop_verdict hop_judge(int err, const struct lnk_addr *offender,
			   const struct lnk_addr *dst)
{
	if (offender)
		/* an ICMP error: who sent it is the whole answer */
		return addr_equal(offender, dst) ? HOP_FIRST : HOP_FARTHER;
	/* The destination's own TCP answered a packet that could not pass
	 * a router: a SYN-ACK, or a reset. */
	if (err == 0 || err == ECONNREFUSED)
		return HOP_FIRST;
	/* a local error (no route, no neighbour), or still waiting */
	return HOP_UNKNOWN;
}

int hop_probe_start(const struct lnk_addr *a, uint16_t port, int *fd)
{
	int v6 = a->family == AF_INET6;
	int s = socket_cloexec(a->family, SOCK_STREAM, 0, COMPAT_NONBLOCK);
	if (s < 0)
		return -errno;
	int one = 1;
	int r = v6 ? setsockopt(s, IPPROTO_IPV6, IPV6_UNICAST_HOPS, &one,
				sizeof(one))
		   : setsockopt(s, IPPROTO_IP, IP_TTL, &one, sizeof(one));
	if (r == 0)
		r = v6 ? setsockopt(s, IPPROTO_IPV6, IPV6_RECVERR, &one,
				    sizeof(one))
		       : setsockopt(s, IPPROTO_IP, IP_RECVERR, &one,
				    sizeof(one));
	struct sockaddr_storage ss;
	socklen_t len = addr_to_sockaddr(a, port, &ss);
	if (r == 0 && connect(s, (struct sockaddr *)&ss, len) < 0 &&
	    errno != EINPROGRESS)
		r = -1;
	if (r < 0) {
		/* no route, no socket: the call's own connect would fail
		 * the same way, and says so */
		int e = -errno;
		close(s);
		return e;
	}
	*fd = s;
	return 0;
}

/* The origin of the ICMP error queued on fd, if one is. */
static bool icmp_origin(int fd, int family, struct lnk_addr *out)
{
	char ctl[512];
	char data[64];
	struct iovec iov = {.iov_base = data, .iov_len = sizeof(data)};
	struct msghdr m = {.msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = ctl,
			   .msg_controllen = sizeof(ctl)};
	if (recvmsg(fd, &m, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
		return false;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
		bool ours = (c->cmsg_level == IPPROTO_IP &&
			     c->cmsg_type == IP_RECVERR) ||
			    (c->cmsg_level == IPPROTO_IPV6 &&
			     c->cmsg_type == IPV6_RECVERR);
		if (!ours ||
		    c->cmsg_len < CMSG_LEN(sizeof(struct sock_extended_err)))
			continue;
		struct sock_extended_err ee;
		memcpy(&ee, CMSG_DATA(c), sizeof(ee));
		if (ee.ee_origin != SO_EE_ORIGIN_ICMP &&
		    ee.ee_origin != SO_EE_ORIGIN_ICMP6)
			continue;
		size_t need = sizeof(ee) + (family == AF_INET6
						? sizeof(struct sockaddr_in6)
						: sizeof(struct sockaddr_in));
		if (c->cmsg_len < CMSG_LEN(need))
			continue;
		struct sockaddr_storage ss;
		memset(&ss, 0, sizeof(ss));
		memcpy(&ss, CMSG_DATA(c) + sizeof(ee), need - sizeof(ee));
		if (ss.ss_family != family ||
		    addr_from_sockaddr((struct sockaddr *)&ss, out) < 0)
			continue;
		return true;
	}
	return false;
}

enum hop_verdict hop_probe_read(int fd, const struct lnk_addr *a)
{
	int e = 0;
	socklen_t l = sizeof(e);
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &l) < 0)
		e = errno;
	struct lnk_addr off;
	bool got = icmp_origin(fd, a->family, &off);
	return hop_judge(e, got ? &off : NULL, a);
}

enum hop_verdict hop_cache_get(const struct hop_cache *c,
			       const struct lnk_addr *a, uint16_t port)
{
	/* newest first: the addresses a program is calling now */
	for (size_t k = 0; k < c->n; k++) {
		size_t i = (c->next + HOP_CACHE_MAX - 1 - k) % HOP_CACHE_MAX;
		if (!addr_equal(&c->addr[i], a))
			continue;
		/* silence on one port says nothing of another (hop.h) */
		if (c->verdict[i] == HOP_QUIET && c->port[i] != port)
			return HOP_UNKNOWN;
		return (enum hop_verdict)c->verdict[i];
	}
	return HOP_UNKNOWN;
}

void hop_cache_put(struct hop_cache *c, const struct lnk_addr *a, uint16_t port,
		   enum hop_verdict v)
{
	if (v == HOP_UNKNOWN)
		return;
	for (size_t i = 0; i < c->n; i++)
		if (addr_equal(&c->addr[i], a)) {
			c->verdict[i] = (uint8_t)v;
			c->port[i] = port;
			return;
		}
	memset(&c->addr[c->next], 0, sizeof(c->addr[c->next]));
	c->addr[c->next].family = a->family;
	memcpy(c->addr[c->next].a, a->a, sizeof(a->a));
	c->port[c->next] = port;
	c->verdict[c->next] = (uint8_t)v;
	c->next = (c->next + 1) % HOP_CACHE_MAX;
	if (c->n < HOP_CACHE_MAX)
		c->n++;
}
