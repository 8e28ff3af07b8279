/* Socket addresses as the kernel reads them for bind(2) and connect(2),
 * which the dot-file guard performs for the program with its own
 * privilege in the sandbox's network namespace: every length and family
 * the kernel accepts must show the guard the port, path or groups the
 * kernel will use. Row tables. */
#include <errno.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <cmocka.h>

#include "common/util.h"
#include "guard/internal.h"

struct sa_row {
	const char *what;
	int domain;
	sa_family_t family;
	size_t alen;
	int ret;
	enum guard_sa_kind kind;
	uint16_t port;
};

/* Every address is port 80 (or the path "s", groups 1) in the bytes;
 * alen says how many the program passed. */
static const struct sa_row rows[] = {
    /* AF_INET6 sockets: inet6_bind takes 24 bytes and more */
    {"in6 full 28", AF_INET6, AF_INET6, 28, 0, GUARD_SA_PORT, 80},
    {"in6 rfc2133 24 (no scope id)", AF_INET6, AF_INET6, 24, 0, GUARD_SA_PORT,
     80},
    {"in6 storage 128", AF_INET6, AF_INET6, 128, 0, GUARD_SA_PORT, 80},
    {"in6 short 16 (kernel: EINVAL)", AF_INET6, AF_INET6, 16, 0, GUARD_SA_PORT,
     80},
    {"in4 on an in6 socket (sctp takes it)", AF_INET6, AF_INET, 16, 0,
     GUARD_SA_PORT, 80},
    {"in6 family 0", AF_INET6, AF_UNSPEC, 28, 0, GUARD_SA_PORT, 80},
    {"in6 3 bytes: no port", AF_INET6, AF_INET6, 3, 0, GUARD_SA_OTHER, 0},
    /* AF_INET sockets: 16 bytes and more; AF_UNSPEC is INADDR_ANY */
    {"in4 16", AF_INET, AF_INET, 16, 0, GUARD_SA_PORT, 80},
    {"in4 28", AF_INET, AF_INET, 28, 0, GUARD_SA_PORT, 80},
    {"in4 AF_UNSPEC any", AF_INET, AF_UNSPEC, 16, 0, GUARD_SA_PORT, 80},
    {"in4 with an AF_UNIX family field", AF_INET, AF_UNIX, 16, 0, GUARD_SA_PORT,
     80},
    {"in4 4 bytes", AF_INET, AF_INET, 4, 0, GUARD_SA_PORT, 80},
    {"in4 2 bytes: no port", AF_INET, AF_INET, 2, 0, GUARD_SA_OTHER, 0},
    /* AF_UNIX sockets */
    {"unix path", AF_UNIX, AF_UNIX, offsetof(struct sockaddr_un, sun_path) + 2,
     0, GUARD_SA_PATH, 0},
    {"unix path, no NUL in alen", AF_UNIX, AF_UNIX,
     offsetof(struct sockaddr_un, sun_path) + 1, 0, GUARD_SA_PATH, 0},
    {"unix full 110", AF_UNIX, AF_UNIX, sizeof(struct sockaddr_un), 0,
     GUARD_SA_PATH, 0},
    {"unix too long 111", AF_UNIX, AF_UNIX, sizeof(struct sockaddr_un) + 1,
     -EINVAL, GUARD_SA_OTHER, 0},
    {"unix storage 128", AF_UNIX, AF_UNIX, 128, -EINVAL, GUARD_SA_OTHER, 0},
    {"unix autobind", AF_UNIX, AF_UNIX, 2, 0, GUARD_SA_OTHER, 0},
    {"unix abstract", AF_UNIX, AF_UNIX, 3, 0, GUARD_SA_ABSTRACT, 0},
    {"unix AF_UNSPEC (dgram disconnect)", AF_UNIX, AF_UNSPEC, 16, 0,
     GUARD_SA_OTHER, 0},
    {"unix with AF_INET family (kernel: EINVAL)", AF_UNIX, AF_INET, 16, 0,
     GUARD_SA_OTHER, 0},
    /* a path-looking address on an inet socket is a port, never a path */
    {"AF_UNIX family on in6 socket", AF_INET6, AF_UNIX, 28, 0, GUARD_SA_PORT,
     80},
    /* netlink */
    {"netlink 12", AF_NETLINK, AF_NETLINK, sizeof(struct sockaddr_nl), 0,
     GUARD_SA_GROUPS, 0},
    {"netlink short", AF_NETLINK, AF_NETLINK, 8, 0, GUARD_SA_OTHER, 0},
    {"netlink wrong family", AF_NETLINK, AF_INET, 12, 0, GUARD_SA_OTHER, 0},
    /* other families: nothing read */
    {"packet", AF_PACKET, AF_PACKET, 20, 0, GUARD_SA_OTHER, 0},
};

static void fill(const struct sa_row *r, unsigned char *b)
{
	memset(b, 0, 128);
	memcpy(b, &r->family, sizeof(r->family));
	if (r->domain == AF_UNIX) {
		size_t o = offsetof(struct sockaddr_un, sun_path);
		memset(b + o, 's', 128 - o); /* no NUL: alen ends it */
		if (r->alen == o + 2)
			b[o + 1] = '\0';
		if (r->kind == GUARD_SA_ABSTRACT)
			b[o] = '\0';
	} else if (r->domain == AF_NETLINK) {
		struct sockaddr_nl nl = {.nl_family = r->family,
					 .nl_groups = 1};
		memcpy(b, &nl, sizeof(nl));
	} else {
		b[2] = 0;
		b[3] = 80;
	}
}

static void parse_rows(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		const struct sa_row *r = &rows[i];
		union {
			struct sockaddr_storage ss;
			unsigned char b[128];
		} a;
		struct guard_sockaddr sa;
		fill(r, a.b);
		int ret = guard_sockaddr_parse(r->domain, a.b, r->alen, &sa);
		if (ret != r->ret ||
		    (ret == 0 && (sa.kind != r->kind || sa.port != r->port)))
			fail_msg("%s: got %d kind %d port %u", r->what, ret,
				 sa.kind, sa.port);
		if (ret == 0 && sa.kind == GUARD_SA_PATH) {
			size_t want =
			    r->alen - offsetof(struct sockaddr_un, sun_path);
			if (r->alen ==
			    offsetof(struct sockaddr_un, sun_path) + 2)
				want = 1;
			if (strlen(sa.path) != want)
				fail_msg("%s: path of %zu bytes", r->what,
					 strlen(sa.path));
		}
		if (ret == 0 && sa.kind == GUARD_SA_GROUPS && sa.groups != 1)
			fail_msg("%s: groups %u", r->what, sa.groups);
	}
}

static void netlink_groups(void **state)
{
	(void)state;
	assert_true(guard_netlink_groups_ok(NETLINK_ROUTE, 0));
	assert_true(guard_netlink_groups_ok(NETLINK_GENERIC, 0));
	/* ip monitor: link, addresses, routes */
	assert_true(guard_netlink_groups_ok(NETLINK_ROUTE, 0x1 | 0x10 | 0x40));
	/* RTNLGRP_IPV4_MROUTE_R (30), RTNLGRP_IPV6_MROUTE_R (31) */
	assert_false(guard_netlink_groups_ok(NETLINK_ROUTE, 1u << 29));
	assert_false(guard_netlink_groups_ok(NETLINK_ROUTE, 1u << 30));
	assert_true(guard_netlink_groups_ok(NETLINK_KOBJECT_UEVENT, 1));
	/* families whose groups need CAP_NET_ADMIN, or check it themselves */
	assert_false(guard_netlink_groups_ok(NETLINK_GENERIC, 1));
	assert_false(guard_netlink_groups_ok(NETLINK_XFRM, 1));
	assert_false(guard_netlink_groups_ok(NETLINK_AUDIT, 1));
	assert_false(guard_netlink_groups_ok(NETLINK_NETFILTER, 1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(parse_rows),
	    cmocka_unit_test(netlink_groups),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
