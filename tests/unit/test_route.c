/* The kernel's route answers, faked: what each one means for a call, and
 * replies that are stale, short or errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <string.h>

#include <cmocka.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/if_addr.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "wire/route.h"

/* One RTM_NEWROUTE message at buf: type, and a gateway when gw is set. */
static size_t fake_route(char *buf, uint32_t seq, unsigned char type,
			 const char *gw)
{
	memset(buf, 0, 256);
	struct nlmsghdr *nh = (struct nlmsghdr *)buf;
	struct rtmsg *rt = NLMSG_DATA(nh);
	nh->nlmsg_type = RTM_NEWROUTE;
	nh->nlmsg_seq = seq;
	rt->rtm_family = AF_INET;
	rt->rtm_type = type;
	size_t len = NLMSG_LENGTH(sizeof(*rt));
	struct rtattr *ra = (struct rtattr *)(buf + NLMSG_ALIGN(len));
	ra->rta_type = RTA_OIF;
	ra->rta_len = RTA_LENGTH(4);
	len = NLMSG_ALIGN(len) + RTA_SPACE(4);
	if (gw) {
		struct lnk_addr g;
		assert_int_equal(addr_parse_literal(gw, &g), LIT_ADDR);
		size_t n = g.family == AF_INET ? 4 : 16;
		ra = (struct rtattr *)(buf + NLMSG_ALIGN(len));
		ra->rta_type = RTA_GATEWAY;
		ra->rta_len = (unsigned short)RTA_LENGTH(n);
		memcpy(RTA_DATA(ra), g.a, n);
		len = NLMSG_ALIGN(len) + RTA_SPACE(n);
	}
	nh->nlmsg_len = (uint32_t)len;
	return NLMSG_ALIGN(len);
}

static size_t fake_error(char *buf, uint32_t seq, int error)
{
	memset(buf, 0, 256);
	struct nlmsghdr *nh = (struct nlmsghdr *)buf;
	nh->nlmsg_type = NLMSG_ERROR;
	nh->nlmsg_seq = seq;
	nh->nlmsg_len = NLMSG_LENGTH(sizeof(struct nlmsgerr));
	((struct nlmsgerr *)NLMSG_DATA(nh))->error = error;
	return NLMSG_ALIGN(nh->nlmsg_len);
}

static enum route_where judge_p2p(const char *buf, size_t len, uint32_t seq,
				  const char *dst, int p2p)
{
	struct route_answer ans;
	struct lnk_addr d;
	assert_int_equal(addr_parse_literal(dst, &d), LIT_ADDR);
	assert_int_equal(route_parse_reply(buf, len, seq, &ans), 0);
	return route_judge(&ans, &d, p2p);
}

static enum route_where judge(const char *buf, size_t len, uint32_t seq,
			      const char *dst)
{
	return judge_p2p(buf, len, seq, dst, 0);
}

static void test_answers(void **state)
{
	(void)state;
	char buf[512];
	size_t n;
	n = fake_route(buf, 7, RTN_UNICAST, "192.0.2.1");
	assert_int_equal(judge(buf, n, 7, "198.18.0.2"), ROUTE_INTERNET);
	/* a route through a gateway, asked for the gateway itself */
	assert_int_equal(judge(buf, n, 7, "192.0.2.1"), ROUTE_LAN);
	n = fake_route(buf, 7, RTN_UNICAST, NULL);
	assert_int_equal(judge(buf, n, 7, "203.0.113.5"), ROUTE_LAN);
	/* on-link through a point-to-point device (a full-tunnel VPN, PPP):
	 * the far end is no neighbour; an unknown answer stays the LAN */
	assert_int_equal(judge_p2p(buf, n, 7, "203.0.113.5", 1),
			 ROUTE_INTERNET);
	assert_int_equal(judge_p2p(buf, n, 7, "203.0.113.5", -EBADMSG),
			 ROUTE_LAN);
	n = fake_route(buf, 7, RTN_LOCAL, NULL);
	assert_int_equal(judge(buf, n, 7, "198.18.78.1"), ROUTE_LOCAL);
	assert_int_equal(judge_p2p(buf, n, 7, "198.18.78.1", 1), ROUTE_LOCAL);
	static const unsigned char refused[] = {RTN_BLACKHOLE, RTN_UNREACHABLE,
						RTN_PROHIBIT,  RTN_THROW,
						RTN_BROADCAST, RTN_MULTICAST,
						RTN_ANYCAST,   RTN_NAT,
						RTN_UNSPEC,    200};
	for (size_t i = 0; i < sizeof(refused); i++) {
		n = fake_route(buf, 7, refused[i], "192.0.2.1");
		if (judge(buf, n, 7, "198.18.0.2") != ROUTE_NONE)
			fail_msg("route type %u allowed", refused[i]);
	}
	/* the kernel's refusals (a blackhole answers EINVAL, no route
	 * ENETUNREACH) and a bare acknowledgement */
	int errs[] = {-EINVAL, -ENETUNREACH, -EHOSTUNREACH, -EACCES, 0};
	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		n = fake_error(buf, 9, errs[i]);
		assert_int_equal(judge(buf, n, 9, "198.18.0.2"), ROUTE_NONE);
	}
}

static void test_stale_and_bad(void **state)
{
	(void)state;
	char buf[512];
	struct route_answer ans;
	/* an answer to an earlier question, then ours */
	size_t n = fake_route(buf, 3, RTN_UNICAST, "192.0.2.1");
	n += fake_route(buf + n, 4, RTN_LOCAL, NULL);
	assert_int_equal(judge(buf, n, 4, "198.18.0.2"), ROUTE_LOCAL);
	/* only the stale one: not an answer */
	n = fake_route(buf, 3, RTN_UNICAST, "192.0.2.1");
	assert_int_equal(route_parse_reply(buf, n, 4, &ans), -EAGAIN);
	/* truncated */
	assert_int_equal(route_parse_reply(buf, 10, 3, &ans), -EAGAIN);
	struct nlmsghdr *nh = (struct nlmsghdr *)buf;
	nh->nlmsg_len = NLMSG_LENGTH(2);
	assert_int_equal(route_parse_reply(buf, n, 3, &ans), -EBADMSG);
	/* a gateway of a bad length */
	n = fake_route(buf, 5, RTN_UNICAST, "192.0.2.1");
	struct rtattr *ra =
	    (struct rtattr *)(buf +
			      NLMSG_ALIGN(NLMSG_LENGTH(sizeof(struct rtmsg))) +
			      RTA_SPACE(4));
	ra->rta_len = RTA_LENGTH(3);
	assert_int_equal(route_parse_reply(buf, n, 5, &ans), -EBADMSG);
	/* another message type */
	n = fake_route(buf, 6, RTN_UNICAST, NULL);
	nh->nlmsg_type = RTM_NEWLINK;
	assert_int_equal(route_parse_reply(buf, n, 6, &ans), -EBADMSG);
}

static void test_request(void **state)
{
	(void)state;
	char buf[ROUTE_REQ_MAX];
	struct lnk_addr d;
	addr_parse_literal("2001:db8::1", &d);
	size_t n = route_build_request(&d, 42, buf);
	const struct nlmsghdr *nh = (const void *)buf;
	assert_int_equal(nh->nlmsg_len, n);
	assert_true(n <= ROUTE_REQ_MAX);
	assert_int_equal(nh->nlmsg_type, RTM_GETROUTE);
	assert_int_equal(nh->nlmsg_seq, 42);
	const struct rtmsg *rt = NLMSG_DATA(nh);
	assert_int_equal(rt->rtm_family, AF_INET6);
	assert_int_equal(rt->rtm_dst_len, 128);
	const struct rtattr *ra = RTM_RTA(rt);
	assert_int_equal(ra->rta_type, RTA_DST);
	assert_memory_equal(RTA_DATA(ra), d.a, 16);
}

static void test_link(void **state)
{
	(void)state;
	char buf[256] = {0};
	size_t n = route_build_link_request(3, 11, buf);
	struct nlmsghdr *nh = (struct nlmsghdr *)buf;
	struct ifinfomsg *ifi = NLMSG_DATA(nh);
	assert_true(n <= ROUTE_REQ_MAX);
	assert_int_equal(nh->nlmsg_type, RTM_GETLINK);
	assert_int_equal(ifi->ifi_index, 3);
	/* the kernel's answer, as the request with its type changed */
	nh->nlmsg_type = RTM_NEWLINK;
	ifi->ifi_flags = IFF_UP | IFF_POINTOPOINT | IFF_NOARP;
	assert_int_equal(route_parse_link_reply(buf, n, 11), 1);
	ifi->ifi_flags = IFF_UP | IFF_BROADCAST;
	assert_int_equal(route_parse_link_reply(buf, n, 11), 0);
	assert_int_equal(route_parse_link_reply(buf, n, 12), -EAGAIN);
	assert_int_equal(route_parse_link_reply(buf, 8, 11), -EAGAIN);
	assert_int_equal(route_parse_link_reply(buf, NLMSG_HDRLEN + 2, 11),
			 -EBADMSG);
	nh->nlmsg_type = NLMSG_ERROR;
	assert_int_equal(route_parse_link_reply(buf, n, 11), -EBADMSG);
}

/* A real point-to-point device (tun, as OpenVPN and many VPNs make) and
 * an ordinary one (veth), in a network namespace of this test's own: the
 * two halves of the internet through the tun (a full tunnel, as OpenVPN
 * and wg-quick route it) are the internet; a narrower route through the
 * same tun (a split tunnel to one network) and a route on the veth are
 * the network they lead to. */
static void test_kernel_p2p(void **state)
{
	(void)state;
	if (geteuid() != 0 || access("/dev/net/tun", R_OK | W_OK) != 0 ||
	    system("command -v ip >/dev/null 2>&1") != 0)
		skip(); /* needs root (tun), /dev/net/tun and ip(8) */
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (unshare(CLONE_NEWNET) != 0)
			_exit(77);
		if (system("ip tuntap add mode tun dev lnkt0 && "
			   "ip link set lnkt0 up && "
			   "ip link add lnkv0 type veth peer name lnkv1 && "
			   "ip link set lnkv0 up && ip link set lnkv1 up && "
			   "ip route add 198.18.251.0/24 dev lnkt0 && "
			   "ip route add 198.18.252.0/24 dev lnkv0 && "
			   "ip route add 0.0.0.0/1 dev lnkt0 && "
			   "ip route add 128.0.0.0/1 dev lnkt0") != 0)
			_exit(77);
		struct route_sock rs;
		struct lnk_addr a;
		if (route_open(&rs) != 0)
			_exit(2);
		addr_parse_literal("198.18.253.5", &a);
		if (route_lookup(&rs, &a) != ROUTE_INTERNET)
			_exit(3);
		addr_parse_literal("198.18.251.5", &a);
		if (route_lookup(&rs, &a) != ROUTE_LAN)
			_exit(5);
		addr_parse_literal("198.18.252.5", &a);
		if (route_lookup(&rs, &a) != ROUTE_LAN)
			_exit(4);
		_exit(0);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) == 77)
		skip(); /* no tun or veth in this kernel */
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* The real kernel, on loopback only: 127.0.0.1 is this machine. */
static void test_kernel(void **state)
{
	(void)state;
	struct route_sock rs;
	assert_int_equal(route_open(&rs), 0);
	struct lnk_addr a;
	addr_parse_literal("127.0.0.1", &a);
	assert_int_equal(route_lookup(&rs, &a), ROUTE_LOCAL);
	addr_parse_literal("::ffff:127.0.0.1", &a);
	assert_int_equal(route_where_for(&rs, &a), ROUTE_LOCAL);
	route_close(&rs);
	/* a closed socket answers nothing: refused */
	assert_int_equal(route_lookup(&rs, &a), ROUTE_NONE);
}

/* This process in a network namespace of its own, as its root (a user
 * namespace too when not root), so ip(8) may change the routes there. */
static int own_netns(void)
{
	if (geteuid() == 0)
		return unshare(CLONE_NEWNET);
	uid_t uid = getuid();
	gid_t gid = getgid();
	if (unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0)
		return -1;
	char m[64];
	FILE *f = fopen("/proc/self/setgroups", "w");
	if (f)
		fputs("deny", f), fclose(f);
	snprintf(m, sizeof(m), "0 %u 1", uid);
	if (!(f = fopen("/proc/self/uid_map", "w")))
		return -1;
	fputs(m, f);
	if (fclose(f) != 0)
		return -1;
	snprintf(m, sizeof(m), "0 %u 1", gid);
	if ((f = fopen("/proc/self/gid_map", "w")))
		fputs(m, f), fclose(f);
	return 0;
}

static enum route_where where(struct route_sock *rs, const char *lit)
{
	struct lnk_addr a;
	addr_parse_literal(lit, &a);
	return route_lookup(rs, &a);
}

/* The answers are kept, and every kind of routing change the kernel
 * announces (a route replaced, a rule, an address, a link down, a
 * nexthop, IPv6 routes) empties them before the next answer: each step
 * changes where 198.18.252.5 is and the very next lookup says so. The
 * threat: an answer kept from before the change ("the internet") lets a
 * call reach what is now this machine or its network. */
static void test_kernel_changes(void **state)
{
	(void)state;
	if (system("command -v ip >/dev/null 2>&1") != 0)
		skip();
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (own_netns() != 0 ||
		    system(
			"exec >/dev/null 2>&1; "
			"ip link set lo up && "
			"ip link add lnkv0 type veth peer name lnkv1 && "
			/* Quiet before the watch opens: no link-local
			 * addresses (their duplicate address detection ends
			 * a second later with an announcement), and the
			 * carrier's change announced (the kernel's link
			 * watch does it later, on its own): an announcement
			 * while the test looks at the kept answers would
			 * drop them. */
			"ip link set lnkv0 addrgenmode none && "
			"ip link set lnkv1 addrgenmode none && "
			"ip link set lnkv0 up && ip link set lnkv1 up && "
			"for i in $(seq 100); do ip -br link show lnkv0 | "
			"grep -q ' UP ' && ip -br link show lnkv1 | "
			"grep -q ' UP ' && break; sleep 0.02; done && "
			"ip addr add 198.18.250.1/24 dev lnkv0 && "
			"ip route add 198.18.252.0/24 via 198.18.250.2 && "
			"ip -6 addr add 2001:db8:1::1/64 dev lnkv0 nodad && "
			"ip -6 route add 2001:db8:2::/64 via 2001:db8:1::2") !=
			0)
			_exit(77);
		struct route_sock rs;
		if (route_open(&rs) != 0 || rs.watch < 0)
			_exit(2);
		if (where(&rs, "198.18.252.5") != ROUTE_INTERNET)
			_exit(3);
		/* kept: asked of a socket that cannot answer, it still
		 * says the internet; past ROUTE_CACHE_MS it asks again */
		int real = rs.fd;
		rs.fd = socket(AF_INET, SOCK_DGRAM, 0);
		if (where(&rs, "198.18.252.5") != ROUTE_INTERNET)
			_exit(4);
		usleep((ROUTE_CACHE_MS + 100) * 1000);
		if (where(&rs, "198.18.252.5") != ROUTE_NONE)
			_exit(5);
		close(rs.fd);
		rs.fd = real;
		if (where(&rs, "198.18.252.5") != ROUTE_INTERNET)
			_exit(6);
		/* a route replaced: on-link now, this machine's network */
		if (system("ip route replace 198.18.252.0/24 dev lnkv0") != 0)
			_exit(77);
		if (where(&rs, "198.18.252.5") != ROUTE_LAN)
			_exit(7);
		/* a rule sends it to another table, then goes */
		if (system("ip route add 198.18.252.0/24 via 198.18.250.2 "
			   "table 100 && ip rule add to 198.18.252.5 lookup "
			   "100") != 0)
			_exit(77);
		if (where(&rs, "198.18.252.5") != ROUTE_INTERNET)
			_exit(8);
		if (system("ip rule del to 198.18.252.5 lookup 100") != 0)
			_exit(77);
		if (where(&rs, "198.18.252.5") != ROUTE_LAN)
			_exit(9);
		/* an address: this machine */
		if (system("ip addr add 198.18.252.5/32 dev lnkv1") != 0)
			_exit(77);
		if (where(&rs, "198.18.252.5") != ROUTE_LOCAL)
			_exit(10);
		if (system("ip addr del 198.18.252.5/32 dev lnkv1") != 0)
			_exit(77);
		if (where(&rs, "198.18.252.5") != ROUTE_LAN)
			_exit(11);
		/* a link down takes its IPv4 routes with no route message */
		if (system("ip route replace 198.18.252.0/24 via 198.18.250.2"
			   " && ip link set lnkv1 down") != 0)
			_exit(77);
		if (where(&rs, "198.18.252.5") != ROUTE_INTERNET)
			_exit(12);
		if (system("ip link set lnkv0 down") != 0)
			_exit(77);
		if (where(&rs, "198.18.252.5") != ROUTE_NONE)
			_exit(13);
		/* IPv6: a route through a gateway, then on-link */
		if (system("ip link set lnkv0 up && ip link set lnkv1 up && "
			   "ip -6 addr replace 2001:db8:1::1/64 dev lnkv0 "
			   "nodad && ip -6 route replace 2001:db8:2::/64 via "
			   "2001:db8:1::2") != 0)
			_exit(77);
		if (where(&rs, "2001:db8:2::5") != ROUTE_INTERNET)
			_exit(14);
		if (system("ip -6 route replace 2001:db8:2::/64 dev lnkv0") !=
		    0)
			_exit(77);
		if (where(&rs, "2001:db8:2::5") != ROUTE_LAN)
			_exit(15);
		/* a nexthop object replaced under its route (where the
		 * kernel has them) */
		if (system("exec >/dev/null 2>&1; ip nexthop add id 7 via "
			   "198.18.250.2 dev lnkv0 && ip route replace "
			   "198.18.252.0/24 nhid 7") == 0) {
			if (where(&rs, "198.18.252.5") != ROUTE_INTERNET)
				_exit(16);
			if (system("ip nexthop replace id 7 dev lnkv0") != 0)
				_exit(77);
			if (where(&rs, "198.18.252.5") != ROUTE_LAN)
				_exit(17);
		}
		route_close(&rs);
		_exit(0);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) == 77)
		skip(); /* no namespaces, veth or ip(8) here */
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* One RTM_NEWNEIGH message at buf, with a link-layer address of n bytes
 * when n > 0. */
static size_t fake_neigh(char *buf, uint32_t seq, const unsigned char *ll,
			 size_t n)
{
	memset(buf, 0, 256);
	struct nlmsghdr *nh = (struct nlmsghdr *)buf;
	struct ndmsg *nd = NLMSG_DATA(nh);
	nh->nlmsg_type = RTM_NEWNEIGH;
	nh->nlmsg_seq = seq;
	nd->ndm_family = AF_INET;
	size_t len = NLMSG_LENGTH(sizeof(*nd));
	struct rtattr *ra = (struct rtattr *)(buf + NLMSG_ALIGN(len));
	ra->rta_type = NDA_DST;
	ra->rta_len = RTA_LENGTH(4);
	len = NLMSG_ALIGN(len) + RTA_SPACE(4);
	if (n) {
		ra = (struct rtattr *)(buf + NLMSG_ALIGN(len));
		ra->rta_type = NDA_LLADDR;
		ra->rta_len = (unsigned short)RTA_LENGTH(n);
		memcpy(RTA_DATA(ra), ll, n);
		len = NLMSG_ALIGN(len) + RTA_SPACE(n);
	}
	nh->nlmsg_len = (uint32_t)len;
	return NLMSG_ALIGN(len);
}

/* The neighbour entry's answers: its link-layer address, none yet, the
 * kernel's "no such entry", a stale answer, and one too long to be an
 * address. */
static void test_neigh(void **state)
{
	(void)state;
	char buf[256], req[ROUTE_REQ_MAX];
	unsigned char ll[ROUTE_LL_MAX];
	size_t n;
	const unsigned char mac[6] = {2, 0, 0, 0, 0, 2};
	struct lnk_addr gw;
	assert_int_equal(addr_parse_literal("198.18.250.2", &gw), LIT_ADDR);
	size_t rl = route_build_neigh_request(&gw, 3, 9, req);
	assert_true(rl <= ROUTE_REQ_MAX);
	struct nlmsghdr *rq = (struct nlmsghdr *)req;
	assert_int_equal(rq->nlmsg_type, RTM_GETNEIGH);
	assert_int_equal(((struct ndmsg *)NLMSG_DATA(rq))->ndm_ifindex, 3);
	size_t len = fake_neigh(buf, 9, mac, 6);
	assert_int_equal(route_parse_neigh_reply(buf, len, 9, ll, &n), 0);
	assert_int_equal(n, 6);
	assert_memory_equal(ll, mac, 6);
	len = fake_neigh(buf, 9, NULL, 0);
	assert_int_equal(route_parse_neigh_reply(buf, len, 9, ll, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(route_parse_neigh_reply(buf, len, 8, ll, &n), -EAGAIN);
	len = fake_error(buf, 9, -ENOENT);
	assert_int_equal(route_parse_neigh_reply(buf, len, 9, ll, &n), -ENOENT);
	unsigned char big[ROUTE_LL_MAX + 1];
	memset(big, 1, sizeof(big));
	len = fake_neigh(buf, 9, big, sizeof(big));
	assert_int_equal(route_parse_neigh_reply(buf, len, 9, ll, &n),
			 -EBADMSG);
}

/* The real kernel: the first router of an address beyond a gateway is
 * that gateway, with the link-layer address of its neighbour entry once
 * there is one; an on-link address has no gateway. */
static void test_kernel_router(void **state)
{
	(void)state;
	if (system("command -v ip >/dev/null 2>&1") != 0)
		skip();
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (own_netns() != 0 ||
		    system("exec >/dev/null 2>&1; "
			   "ip link set lo up && "
			   "ip link add lnkv0 type veth peer name lnkv1 && "
			   "ip link set lnkv0 up && ip link set lnkv1 up && "
			   "ip addr add 198.18.250.1/24 dev lnkv0 && "
			   "ip route add 198.18.252.0/24 via 198.18.250.2") !=
			0)
			_exit(77);
		struct route_sock rs;
		struct route_router r;
		struct lnk_addr a, gw;
		if (route_open(&rs) != 0)
			_exit(2);
		addr_parse_literal("198.18.252.5", &a);
		addr_parse_literal("198.18.250.2", &gw);
		if (route_router_of(&rs, &a, &r) != 0 ||
		    !addr_equal(&r.gateway, &gw) || r.oif <= 0 || r.ll_len)
			_exit(3);
		if (system("ip neigh add 198.18.250.2 lladdr 02:00:00:00:00:02 "
			   "dev lnkv0 nud permanent") != 0)
			_exit(77);
		const unsigned char mac[6] = {2, 0, 0, 0, 0, 2};
		if (route_router_of(&rs, &a, &r) != 0 || r.ll_len != 6 ||
		    memcmp(r.ll, mac, 6) != 0)
			_exit(4);
		addr_parse_literal("198.18.250.9", &a);
		if (route_router_of(&rs, &a, &r) != 0 || r.gateway.family ||
		    r.oif <= 0)
			_exit(5);
		addr_parse_literal("198.18.99.1", &a);
		if (route_router_of(&rs, &a, &r) >= 0)
			_exit(6); /* no route: an error, never a router */
		/* IPv6: a gateway through a link-local address */
		if (system("exec >/dev/null 2>&1; "
			   "ip -6 addr add 2001:db8:1::1/64 dev lnkv0 nodad && "
			   "ip -6 route add 2001:db8:2::/64 via fe80::2 dev "
			   "lnkv0 && ip -6 neigh add fe80::2 lladdr "
			   "02:00:00:00:00:06 dev lnkv0 nud permanent") != 0)
			_exit(77);
		addr_parse_literal("2001:db8:2::5", &a);
		addr_parse_literal("fe80::2", &gw);
		const unsigned char mac6[6] = {2, 0, 0, 0, 0, 6};
		if (route_router_of(&rs, &a, &r) != 0 ||
		    !addr_equal(&r.gateway, &gw) || r.ll_len != 6 ||
		    memcmp(r.ll, mac6, 6) != 0)
			_exit(7);
		_exit(0);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) == 77)
		skip(); /* no veth, or no user namespace to make one in */
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* IPv6 without an on-link prefix: this machine holds 2001:db8:1::1 as a
 * /128 (DHCPv6, a router advertisement without the on-link flag) and
 * reaches everything through its router, also the peers of its own /64.
 * Those peers are this machine's network, not the internet: a
 * destination in the /64 of one of this machine's global addresses is
 * the LAN, whatever the route says; another /64 stays the internet. */
static void test_kernel_v6_same_prefix(void **state)
{
	(void)state;
	if (system("command -v ip >/dev/null 2>&1") != 0)
		skip();
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (own_netns() != 0 ||
		    system(
			"exec >/dev/null 2>&1; "
			"ip link set lo up && "
			"ip link add lnkv0 type veth peer name lnkv1 && "
			"ip link set lnkv0 up && ip link set lnkv1 up && "
			"ip -6 addr add 2001:db8:1::1/128 dev lnkv0 nodad && "
			"ip -6 route add default via fe80::2 dev lnkv0") != 0)
			_exit(77);
		struct route_sock rs;
		if (route_open(&rs) != 0)
			_exit(2);
		struct lnk_addr a;
		addr_parse_literal("2001:db8:1::5", &a);
		if (route_where_for(&rs, &a) != ROUTE_LAN)
			_exit(3);
		addr_parse_literal("2001:db8:1:0:ffff::9", &a);
		if (route_where_for(&rs, &a) != ROUTE_LAN)
			_exit(4);
		addr_parse_literal("2001:db8:2::5", &a);
		if (route_where_for(&rs, &a) != ROUTE_INTERNET)
			_exit(5);
		/* an address gained while the socket is open counts at once */
		if (system("ip -6 addr add 2001:db8:7::1/128 dev lnkv0 "
			   "nodad") != 0)
			_exit(77);
		addr_parse_literal("2001:db8:7::5", &a);
		if (route_where_for(&rs, &a) != ROUTE_LAN)
			_exit(6);
		_exit(0);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) == 77)
		skip();
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* One RTM_NEWADDR message of an IPv6 address at buf + off. */
static size_t fake_addr6(char *buf, uint32_t seq, const char *lit,
			 unsigned char scope)
{
	memset(buf, 0, 128);
	struct nlmsghdr *nh = (struct nlmsghdr *)buf;
	struct ifaddrmsg *ifa = NLMSG_DATA(nh);
	nh->nlmsg_type = RTM_NEWADDR;
	nh->nlmsg_seq = seq;
	ifa->ifa_family = AF_INET6;
	ifa->ifa_prefixlen = 128;
	ifa->ifa_scope = scope;
	size_t len = NLMSG_LENGTH(sizeof(*ifa));
	struct rtattr *ra = (struct rtattr *)(buf + NLMSG_ALIGN(len));
	ra->rta_type = IFA_ADDRESS;
	ra->rta_len = RTA_LENGTH(16);
	struct lnk_addr a;
	assert_int_equal(addr_parse_literal(lit, &a), LIT_ADDR);
	memcpy(RTA_DATA(ra), a.a, 16);
	len = NLMSG_ALIGN(len) + RTA_SPACE(16);
	nh->nlmsg_len = (uint32_t)len;
	return NLMSG_ALIGN(len);
}

/* The dump of this machine's IPv6 addresses: global ones kept, link
 * ones not, its end, a list past its room; and the /64 they name. */
static void test_own6(void **state)
{
	(void)state;
	char buf[1024];
	size_t off = fake_addr6(buf, 4, "2001:db8:1::1", RT_SCOPE_UNIVERSE);
	off += fake_addr6(buf + off, 4, "fe80::1", RT_SCOPE_LINK);
	off += fake_addr6(buf + off, 3, "2001:db8:9::1", RT_SCOPE_UNIVERSE);
	struct lnk_addr own[2];
	size_t n = 0;
	assert_int_equal(route_parse_own6_reply(buf, off, 4, own, 2, &n), 0);
	assert_int_equal(n, 1); /* the link address and the stale one: no */
	struct nlmsghdr *done = (struct nlmsghdr *)(buf + off);
	memset(done, 0, NLMSG_LENGTH(4));
	done->nlmsg_type = NLMSG_DONE;
	done->nlmsg_seq = 4;
	done->nlmsg_len = NLMSG_LENGTH(4);
	n = 0;
	assert_int_equal(
	    route_parse_own6_reply(buf, off + NLMSG_LENGTH(4), 4, own, 2, &n),
	    1);
	assert_int_equal(n, 1);
	n = 2; /* full */
	assert_int_equal(route_parse_own6_reply(buf, off, 4, own, 2, &n),
			 -ENOBUFS);
	struct lnk_addr d;
	addr_parse_literal("2001:db8:1::ffff", &d);
	assert_true(route_in_own_net6(own, 1, &d));
	addr_parse_literal("2001:db8:1:1::1", &d);
	assert_false(route_in_own_net6(own, 1, &d));
	addr_parse_literal("198.18.0.1", &d);
	assert_false(route_in_own_net6(own, 1, &d));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_answers),
	    cmocka_unit_test(test_stale_and_bad),
	    cmocka_unit_test(test_request),
	    cmocka_unit_test(test_link),
	    cmocka_unit_test(test_kernel),
	    cmocka_unit_test(test_kernel_p2p),
	    cmocka_unit_test(test_kernel_changes),
	    cmocka_unit_test(test_neigh),
	    cmocka_unit_test(test_kernel_router),
	    cmocka_unit_test(test_kernel_v6_same_prefix),
	    cmocka_unit_test(test_own6),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
