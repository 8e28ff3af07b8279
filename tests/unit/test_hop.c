/* The first-hop verdict (src/wire/hop.c): who answered a probe sent with a
 * hop limit of 1 says whether the address is the first router's own, and
 * silence alone never says "the internet" (the keeper takes it so only
 * while the first router was never heard); the verdicts kept are bounded. */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "wire/hop.h"

static struct lnk_addr a4(const char *s)
{
	struct lnk_addr a;
	memset(&a, 0, sizeof(a));
	a.family = AF_INET;
	assert_int_equal(inet_pton(AF_INET, s, a.a), 1);
	return a;
}

static struct lnk_addr a6(const char *s)
{
	struct lnk_addr a;
	memset(&a, 0, sizeof(a));
	a.family = AF_INET6;
	assert_int_equal(inet_pton(AF_INET6, s, a.a), 1);
	return a;
}

static void test_judge(void **state)
{
	(void)state;
	struct lnk_addr dst = a4("198.18.2.1"), gw = a4("198.18.1.2");
	/* its own TCP answered: a SYN-ACK, a reset */
	assert_int_equal(hop_judge(0, NULL, &dst), HOP_FIRST);
	assert_int_equal(hop_judge(ECONNREFUSED, NULL, &dst), HOP_FIRST);
	/* a forwarded port: the NAT's time exceeded comes from dst */
	assert_int_equal(hop_judge(EHOSTUNREACH, &dst, &dst), HOP_FIRST);
	/* its port unreachable, from dst */
	assert_int_equal(hop_judge(ECONNREFUSED, &dst, &dst), HOP_FIRST);
	/* the router's time exceeded from its inside address: farther */
	assert_int_equal(hop_judge(EHOSTUNREACH, &gw, &dst), HOP_FARTHER);
	/* silence, or a local error: unknown, never the internet */
	assert_int_equal(hop_judge(EINPROGRESS, NULL, &dst), HOP_UNKNOWN);
	assert_int_equal(hop_judge(ENETUNREACH, NULL, &dst), HOP_UNKNOWN);
	assert_int_equal(hop_judge(EHOSTUNREACH, NULL, &dst), HOP_UNKNOWN);
	/* IPv6: the same, by the exact address (no embedding) */
	struct lnk_addr d6 = a6("2001:db8::1"), g6 = a6("fe80::1");
	assert_int_equal(hop_judge(EHOSTUNREACH, &d6, &d6), HOP_FIRST);
	assert_int_equal(hop_judge(EHOSTUNREACH, &g6, &d6), HOP_FARTHER);
	struct lnk_addr mapped = a6("::ffff:198.18.2.1");
	assert_int_equal(hop_judge(EHOSTUNREACH, &mapped, &dst), HOP_FARTHER);
}

static void test_cache_bounded(void **state)
{
	(void)state;
	struct hop_cache *c = calloc(1, sizeof(*c));
	struct lnk_addr x = a4("198.18.2.1"), y = a4("198.18.0.2");
	assert_int_equal(hop_cache_get(c, &x, 80), HOP_UNKNOWN);
	hop_cache_put(c, &x, 80, HOP_FIRST);
	hop_cache_put(c, &y, 80, HOP_FARTHER);
	hop_cache_put(c, &y, 80, HOP_UNKNOWN); /* never kept, never replaces */
	assert_int_equal(hop_cache_get(c, &x, 80), HOP_FIRST);
	assert_int_equal(hop_cache_get(c, &y, 443), HOP_FARTHER);
	/* a quiet verdict (silence before the router was ever heard) is
	 * kept, and replaced when the address is asked again and answers */
	struct lnk_addr q = a4("198.18.2.9");
	hop_cache_put(c, &q, 80, HOP_QUIET);
	assert_int_equal(hop_cache_get(c, &q, 80), HOP_QUIET);
	/* silence on port 80 (a router that drops what it does not serve)
	 * says nothing of port 8000 (the port it forwards back here) */
	assert_int_equal(hop_cache_get(c, &q, 8000), HOP_UNKNOWN);
	hop_cache_put(c, &q, 8000, HOP_FIRST);
	assert_int_equal(hop_cache_get(c, &q, 80), HOP_FIRST);
	/* an answer judges the address on every port */
	assert_int_equal(hop_cache_get(c, &y, 8080), HOP_FARTHER);
	/* an unknown verdict is not kept: the next call asks again */
	struct lnk_addr z = a4("198.18.0.3");
	hop_cache_put(c, &z, 80, HOP_UNKNOWN);
	assert_int_equal(hop_cache_get(c, &z, 80), HOP_UNKNOWN);
	/* past HOP_CACHE_MAX addresses the oldest is forgotten first */
	for (unsigned i = 0; i < HOP_CACHE_MAX - 2; i++) {
		struct lnk_addr n;
		memset(&n, 0, sizeof(n));
		n.family = AF_INET;
		n.a[0] = 100;
		n.a[1] = (uint8_t)(i >> 16);
		n.a[2] = (uint8_t)(i >> 8);
		n.a[3] = (uint8_t)i;
		hop_cache_put(c, &n, 80, HOP_FARTHER);
	}
	assert_int_equal(c->n, HOP_CACHE_MAX);
	assert_int_equal(hop_cache_get(c, &x, 80), HOP_UNKNOWN);
	assert_int_equal(hop_cache_get(c, &y, 443), HOP_FARTHER);
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_judge),
	    cmocka_unit_test(test_cache_bounded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
