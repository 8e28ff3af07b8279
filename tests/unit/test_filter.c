/* Grants: which grant covers a call, and the addresses no grant reaches
 * (the forms of hosts and LAN rules are test_grammar.c's rows). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <string.h>

#include <cmocka.h>

#include "wire/filter.h"

static struct filter make(const char *const *hosts, const char *const *lan)
{
	struct strv h = {0}, l = {0};
	for (; hosts && *hosts; hosts++)
		strv_push(&h, *hosts);
	for (; lan && *lan; lan++)
		strv_push(&l, *lan);
	struct filter f;
	struct lnk_err err = {0};
	uint16_t ports[] = {5432};
	assert_int_equal(filter_init(&f, &h, &l, ports, 1, &err), 0);
	strv_free(&h);
	strv_free(&l);
	return f;
}

/* A fake routing table: what the kernel would answer for an address
 * (longest prefix wins; everything else is through a gateway). */
struct fake_route {
	const char *net;
	unsigned prefix;
	enum route_where where;
};
static const struct fake_route routes[] = {
    {"198.18.0.1", 32, ROUTE_LOCAL},	 /* an address of this machine */
    {"198.18.78.0", 24, ROUTE_LOCAL},	 /* a local route (AnyIP) */
    {"198.18.1.0", 30, ROUTE_LAN},	 /* a link to the router */
    {"203.0.113.0", 24, ROUTE_LAN},	 /* a LAN numbered from public space */
    {"2001:db8:1::", 64, ROUTE_LAN},	 /* an IPv6 LAN */
    {"2001:db8:1::7", 128, ROUTE_LOCAL}, /* a privacy address gained */
    {"198.18.9.0", 24, ROUTE_NONE},	 /* blackhole or unreachable */
    {"192.168.1.0", 24, ROUTE_LAN},
};

static enum route_where fake_lookup(void *ud, const struct lnk_addr *a)
{
	(void)ud;
	enum route_where w = ROUTE_INTERNET;
	int best = -1;
	for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
		struct lnk_addr n;
		assert_int_equal(addr_parse_literal(routes[i].net, &n),
				 LIT_ADDR);
		if (addr_in_net(a, &n, routes[i].prefix) &&
		    (int)routes[i].prefix > best) {
			best = (int)routes[i].prefix;
			w = routes[i].where;
		}
	}
	return w;
}

/* The wire's answer for a: route.c's rules over the fake table. */
static enum route_where fake_where(const struct lnk_addr *a)
{
	return route_where_with(fake_lookup, NULL, a);
}

/* The decision the wire makes for a host as sent and the address it
 * would connect to: NULL when allowed. */
static const char *decide(const struct filter *f, const char *raw,
			  const char *addr, uint16_t port)
{
	char host[HOST_MAX + 1];
	const char *why;
	if (host_normalize(raw, host, &why) < 0)
		return why;
	struct lnk_addr lit, a;
	enum literal_kind k = addr_parse_literal(host, &lit);
	if (k == LIT_AMBIGUOUS)
		return "ambiguous";
	unsigned g =
	    filter_match_host(f, host, k == LIT_ADDR ? &lit : NULL, port);
	if (k == LIT_ADDR)
		a = lit;
	else
		assert_int_equal(addr_parse_literal(addr, &a), LIT_ADDR);
	why = filter_check_addr(f, g, host, &a, port, fake_where(&a));
	if (!why && !g)
		why = "not granted";
	return why;
}

static void test_grants(void **state)
{
	(void)state;
	static const char *const hosts[] = {"Example.com.", "*.lnk-test", NULL};
	static const char *const lan[] = {"192.168.1.0/24", "nas.local:445",
					  "[fd00::5]:22", NULL};
	struct filter f = make(hosts, lan);

	assert_null(decide(&f, "EXAMPLE.COM", "198.18.0.2", 443));
	assert_null(decide(&f, "example.com.", "198.18.0.2", 443));
	assert_non_null(decide(&f, "evilexample.com", "198.18.0.2", 443));
	assert_non_null(decide(&f, "example.com.evil.test", "198.18.0.2", 443));
	assert_null(decide(&f, "origin.lnk-test", "198.18.0.2", 80));
	/* a granted name that resolves home is refused */
	assert_non_null(decide(&f, "rebind.lnk-test", "127.0.0.1", 80));
	assert_non_null(decide(&f, "rebind.lnk-test", "::ffff:127.0.0.1", 80));
	assert_non_null(decide(&f, "meta.lnk-test", "169.254.169.254", 80));
	assert_non_null(decide(&f, "priv.lnk-test", "10.0.0.1", 80));
	assert_non_null(decide(&f, "self.lnk-test", "198.18.0.1", 80));
	/* literals: loopback in every spelling */
	const char *loop[] = {
	    "127.0.0.1",	"127.1",	   "2130706433",
	    "0x7f000001",	"0177.0.0.1",	   "::1",
	    "::ffff:127.0.0.1", "0.0.0.0",	   "::",
	    "169.254.169.254",	"100.100.100.200", "fd00:ec2::254"};
	for (size_t i = 0; i < sizeof(loop) / sizeof(loop[0]); i++)
		if (!decide(&f, loop[i], NULL, 80))
			fail_msg("%s allowed", loop[i]);
	/* a literal not named by a grant */
	assert_non_null(decide(&f, "198.18.0.2", NULL, 80));
	/* LAN */
	assert_null(decide(&f, "192.168.1.20", NULL, 80));
	assert_non_null(decide(&f, "192.168.2.20", NULL, 80));
	assert_null(decide(&f, "nas.local", "192.168.7.7", 445));
	assert_non_null(decide(&f, "nas.local", "192.168.7.7", 22));
	assert_non_null(decide(&f, "nas.local", "127.0.0.1", 445));
	assert_null(decide(&f, "fd00::5", NULL, 22));
	assert_non_null(decide(&f, "fd00::5", NULL, 23));
	assert_true(filter_port_allowed(&f, 5432));
	assert_false(filter_port_allowed(&f, 5433));
	filter_free(&f);

	static const char *const star[] = {"*", NULL};
	f = make(star, NULL);
	assert_null(decide(&f, "anything.test", "198.18.0.2", 443));
	assert_null(decide(&f, "198.18.0.2", NULL, 443));
	assert_null(decide(&f, "192.0.2.1", NULL, 443));
	assert_non_null(decide(&f, "198.18.0.1", NULL, 443));
	assert_non_null(decide(&f, "192.168.1.1", NULL, 443));
	assert_non_null(decide(&f, "100.64.1.1", NULL, 443));
	assert_non_null(decide(&f, "[::1]", NULL, 443)); /* not a host */
	assert_non_null(decide(&f, "127.0.0.1", NULL, 5432));
	filter_free(&f);
}

/* Threat: a grant of one IPv4 address (or LAN range) widened to every
 * IPv6 form that embeds it: [2002:c612:102::2] is a 6to4 relay's other
 * machine, not 198.18.1.2. Embedded addresses only add refusals. */
static void test_embedded_never_grants(void **state)
{
	(void)state;
	static const char *const hosts[] = {"198.18.1.2", "198.18.0.2", NULL};
	static const char *const lan[] = {"192.168.1.0/24", NULL};
	struct filter f = make(hosts, lan);
	assert_null(decide(&f, "198.18.0.2", NULL, 80));
	const char *forms[] = {
	    "2002:c612:2::1",
	    "2002:c612:2::c612:2",
	    "64:ff9b::c612:2",
	    "::ffff:0:198.18.0.2",
	    "::198.18.0.2",
	    "::ffff:198.18.0.2",
	    "2001:0:c612:2::39ed:fffd",
	    "2001:db8::5efe:198.18.0.2",
	    "2002:c0a8:105::1",
	    "::ffff:192.168.1.5",
	    "64:ff9b::192.168.1.5",
	};
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++)
		if (!decide(&f, forms[i], NULL, 80))
			fail_msg("%s allowed", forms[i]);
	assert_string_equal(decide(&f, "2002:c612:2::1", NULL, 80),
			    "host not in the sandbox's grants");
	assert_null(decide(&f, "192.168.1.5", NULL, 80));
	filter_free(&f);

	/* under '*' an embedded address of this network or this machine
	 * refuses; one of the internet is the internet */
	static const char *const star[] = {"*", NULL};
	f = make(star, NULL);
	assert_null(decide(&f, "2002:c612:2::1", NULL, 80));
	assert_non_null(decide(&f, "2002:c612:102::2", NULL, 80));  /* LAN */
	assert_non_null(decide(&f, "2002:c612:4e09::1", NULL, 80)); /* here */
	assert_non_null(decide(&f, "2001:0:c612:2::39ed:b1f6", NULL, 80));
	assert_non_null(decide(&f, "2001:db8::5efe:198.18.78.9", NULL, 80));
	assert_non_null(decide(&f, "2002:c0a8:105::1", NULL, 80));
	assert_non_null(decide(&f, "2001:db8::5efe:10.1.1.1", NULL, 80));
	filter_free(&f);

	/* a [lan] grant of an IPv6 range may reach the embedding address,
	 * but never what it embeds of this machine */
	static const char *const lan6[] = {"2002::/16", NULL};
	f = make(NULL, lan6);
	assert_null(decide(&f, "2002:c0a8:105::1", NULL, 80));
	assert_non_null(decide(&f, "2002:c612:4e09::1", NULL, 80));
	assert_non_null(decide(&f, "2002:7f00:1::1", NULL, 80));
	filter_free(&f);
}

/* This machine and its network as the routing table says, whatever the
 * address's class: '*' and host patterns never reach them, [lan] grants
 * reach the network but never this machine, and no route is a refusal. */
static void test_routes(void **state)
{
	(void)state;
	static const char *const star[] = {"*", NULL};
	struct filter f = make(star, NULL);
	/* through a gateway: the internet */
	assert_null(decide(&f, "198.18.0.2", NULL, 80));
	assert_null(decide(&f, "a.test", "2001:db8:2::1", 443));
	/* local routes: an address gained while running, AnyIP */
	assert_non_null(decide(&f, "198.18.0.1", NULL, 80));
	assert_non_null(decide(&f, "198.18.78.9", NULL, 80));
	assert_non_null(decide(&f, "any.test", "198.18.78.9", 80));
	assert_non_null(decide(&f, "2001:db8:1::7", NULL, 80));
	assert_non_null(decide(&f, "::ffff:198.18.78.9", NULL, 80));
	/* on-link neighbours with public addresses, and the router */
	assert_non_null(decide(&f, "203.0.113.5", NULL, 80));
	assert_non_null(decide(&f, "nas.test", "203.0.113.5", 80));
	assert_non_null(decide(&f, "2001:db8:1::5", NULL, 80));
	assert_non_null(decide(&f, "198.18.1.2", NULL, 80));
	assert_non_null(decide(&f, "64:ff9b::203.0.113.5", NULL, 80));
	/* no route */
	assert_non_null(decide(&f, "198.18.9.9", NULL, 80));
	assert_string_equal(decide(&f, "198.18.9.9", NULL, 80),
			    "no route to this address");
	assert_string_equal(decide(&f, "198.18.78.9", NULL, 80),
			    "address of this machine");
	filter_free(&f);

	static const char *const pat[] = {"*.test", NULL};
	f = make(pat, NULL);
	assert_null(decide(&f, "far.test", "198.18.0.2", 80));
	assert_non_null(decide(&f, "near.test", "203.0.113.5", 80));
	assert_non_null(decide(&f, "me.test", "198.18.78.1", 80));
	filter_free(&f);

	static const char *const lan[] = {"203.0.113.0/24", "2001:db8:1::/64",
					  "198.18.78.0/24", NULL};
	f = make(NULL, lan);
	assert_null(decide(&f, "203.0.113.5", NULL, 80));
	assert_null(decide(&f, "2001:db8:1::5", NULL, 80));
	/* a [lan] grant never reaches this machine itself */
	assert_non_null(decide(&f, "198.18.78.9", NULL, 80));
	assert_non_null(decide(&f, "2001:db8:1::7", NULL, 80));
	filter_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_grants),
	    cmocka_unit_test(test_routes),
	    cmocka_unit_test(test_embedded_never_grants),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
