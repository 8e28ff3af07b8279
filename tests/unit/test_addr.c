/* Address classes and strict literals: the row tables of invariant 3. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include <cmocka.h>

#include "net/addr.h"

struct row {
	const char *in;
	enum literal_kind kind;
	enum addr_class cls; /* when kind == LIT_ADDR */
};

static const struct row rows[] = {
    {"127.0.0.1", LIT_ADDR, AC_LOOPBACK},
    {"127.9.9.9", LIT_ADDR, AC_LOOPBACK},
    {"127.1", LIT_AMBIGUOUS, 0},
    {"2130706433", LIT_AMBIGUOUS, 0},
    {"0x7f000001", LIT_AMBIGUOUS, 0},
    {"0x7F.1", LIT_AMBIGUOUS, 0},
    {"0177.0.0.1", LIT_AMBIGUOUS, 0},
    {"127.0.0.01", LIT_AMBIGUOUS, 0},
    {"1.2.3.4.5", LIT_AMBIGUOUS, 0},
    {"256.0.0.1", LIT_AMBIGUOUS, 0},
    {"example.com.1", LIT_AMBIGUOUS, 0},
    {"0.0.0.0", LIT_ADDR, AC_UNSPECIFIED},
    {"::", LIT_ADDR, AC_UNSPECIFIED},
    {"::1", LIT_ADDR, AC_LOOPBACK},
    {"::ffff:127.0.0.1", LIT_ADDR, AC_LOOPBACK},
    {"::ffff:7f00:1", LIT_ADDR, AC_LOOPBACK},
    {"::127.0.0.1", LIT_ADDR, AC_LOOPBACK},
    {"64:ff9b::127.0.0.1", LIT_ADDR, AC_LOOPBACK},
    {"64:ff9b::a9fe:a9fe", LIT_ADDR, AC_METADATA},
    {"::ffff:0:10.0.0.1", LIT_ADDR, AC_PRIVATE},
    {"2002:7f00:1::", LIT_ADDR, AC_LOOPBACK},
    {"64:ff9b:1:c612:2:0:c612:2", LIT_ADDR, AC_PRIVATE},
    {"::1%lo", LIT_AMBIGUOUS, 0},
    {"10.1.2.3", LIT_ADDR, AC_PRIVATE},
    {"172.16.0.1", LIT_ADDR, AC_PRIVATE},
    {"172.31.255.255", LIT_ADDR, AC_PRIVATE},
    {"172.32.0.1", LIT_ADDR, AC_INTERNET},
    {"192.168.1.1", LIT_ADDR, AC_PRIVATE},
    {"100.64.0.1", LIT_ADDR, AC_CGNAT},
    {"100.127.255.255", LIT_ADDR, AC_CGNAT},
    {"100.128.0.1", LIT_ADDR, AC_INTERNET},
    {"169.254.1.1", LIT_ADDR, AC_LINK_LOCAL},
    {"169.254.169.254", LIT_ADDR, AC_METADATA},
    {"::ffff:169.254.169.254", LIT_ADDR, AC_METADATA},
    {"100.100.100.200", LIT_ADDR, AC_METADATA},
    {"fd00:ec2::254", LIT_ADDR, AC_METADATA},
    /* Azure's WireServer, AWS ECS's task credentials and EKS Pod
     * Identity's agent, Tencent's and Oracle's (older) metadata */
    {"168.63.129.16", LIT_ADDR, AC_METADATA},
    {"::ffff:168.63.129.16", LIT_ADDR, AC_METADATA},
    {"169.254.170.2", LIT_ADDR, AC_METADATA},
    {"169.254.170.23", LIT_ADDR, AC_METADATA},
    {"fd00:ec2::23", LIT_ADDR, AC_METADATA},
    {"169.254.0.23", LIT_ADDR, AC_METADATA},
    {"192.0.0.192", LIT_ADDR, AC_METADATA},
    {"168.63.129.17", LIT_ADDR, AC_INTERNET},
    {"169.254.170.3", LIT_ADDR, AC_LINK_LOCAL},
    {"fe80::1", LIT_ADDR, AC_LINK_LOCAL},
    {"fc00::1", LIT_ADDR, AC_ULA},
    {"fd12:3456::1", LIT_ADDR, AC_ULA},
    {"224.0.0.1", LIT_ADDR, AC_MULTICAST},
    {"239.255.255.250", LIT_ADDR, AC_MULTICAST},
    {"ff02::1", LIT_ADDR, AC_MULTICAST},
    {"255.255.255.255", LIT_ADDR, AC_BROADCAST},
    {"240.0.0.1", LIT_ADDR, AC_RESERVED},
    {"192.0.0.8", LIT_ADDR, AC_RESERVED},
    {"192.0.2.1", LIT_ADDR, AC_INTERNET},
    {"198.51.100.7", LIT_ADDR, AC_INTERNET},
    {"203.0.113.9", LIT_ADDR, AC_INTERNET},
    {"198.18.0.2", LIT_ADDR, AC_INTERNET},
    {"198.19.255.254", LIT_ADDR, AC_INTERNET},
    {"93.184.216.34", LIT_ADDR, AC_INTERNET},
    {"2001:db8::1", LIT_ADDR, AC_INTERNET},
    {"2606:4700::1111", LIT_ADDR, AC_INTERNET},
    {"::ffff:198.18.0.2", LIT_ADDR, AC_INTERNET},
    /* embedded IPv4 addresses add reasons to refuse, in every form */
    {"2002:c612:102::2", LIT_ADDR, AC_INTERNET},
    {"2002:c0a8:101::1", LIT_ADDR, AC_PRIVATE},
    {"2002:a9fe:a9fe::1", LIT_ADDR, AC_METADATA},
    {"64:ff9b::10.0.0.1", LIT_ADDR, AC_PRIVATE},
    {"64:ff9b:1:7f00:1::", LIT_ADDR, AC_LOOPBACK},   /* as a /48 */
    {"64:ff9b:1::a9fe:a9fe", LIT_ADDR, AC_METADATA}, /* as a /96 */
    /* Teredo: the server 127.0.0.1; the client ~3f57:fefe = 192.168.1.1 */
    {"2001:0:7f00:1::1", LIT_ADDR, AC_LOOPBACK},
    {"2001:0:c612:2:0:0:3f57:fefe", LIT_ADDR, AC_PRIVATE},
    {"2001:0:c612:2:0:0:39ed:fefd", LIT_ADDR, AC_INTERNET},
    /* ISATAP under a public prefix */
    {"2001:db8::5efe:127.0.0.1", LIT_ADDR, AC_LOOPBACK},
    {"2001:db8::200:5efe:a9fe:a9fe", LIT_ADDR, AC_METADATA},
    {"2001:db8::5efe:198.18.0.2", LIT_ADDR, AC_INTERNET},
    {"fd00::5efe:10.0.0.1", LIT_ADDR, AC_PRIVATE},
    {"example.com", LIT_NAME, 0},
    {"xn--bcher-kva.example", LIT_NAME, 0},
    {"1x.example", LIT_NAME, 0},
    {"0x.example", LIT_NAME, 0},
};

static void test_rows(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct lnk_addr a;
		enum literal_kind k = addr_parse_literal(rows[i].in, &a);
		if (k != rows[i].kind)
			fail_msg("%s: kind %d, want %d", rows[i].in, k,
				 rows[i].kind);
		if (k == LIT_ADDR && addr_classify(&a) != rows[i].cls)
			fail_msg("%s: class %s, want %s", rows[i].in,
				 addr_class_name(addr_classify(&a)),
				 addr_class_name(rows[i].cls));
	}
}

/* One address, one spelling: a grant of an IPv4 address matches that
 * address only, never an IPv6 form that embeds it (another machine). */
static void test_equal(void **state)
{
	(void)state;
	struct lnk_addr a, m;
	addr_parse_literal("198.18.1.2", &a);
	const char *forms[] = {"::ffff:198.18.1.2", "2002:c612:102::2",
			       "64:ff9b::c612:102", "::198.18.1.2",
			       "2001:db8::5efe:198.18.1.2"};
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		addr_parse_literal(forms[i], &m);
		if (addr_equal(&a, &m) || addr_equal(&m, &a))
			fail_msg("%s equals 198.18.1.2", forms[i]);
	}
	addr_parse_literal("198.18.1.2", &m);
	assert_true(addr_equal(&a, &m));
	addr_parse_literal("198.18.0.2", &m);
	assert_false(addr_equal(&a, &m));
}

static void test_embedded(void **state)
{
	(void)state;
	struct lnk_addr a, e[ADDR_EMBED_MAX], v4;
	char t[64];
	addr_parse_literal("2001:0:c612:2:0:0:3f57:fefe", &a);
	assert_int_equal(addr_embedded(&a, e), 2);
	addr_format(&e[0], t, sizeof(t));
	assert_string_equal(t, "198.18.0.2");
	addr_format(&e[1], t, sizeof(t));
	assert_string_equal(t, "192.168.1.1");
	addr_parse_literal("198.18.1.2", &a);
	assert_int_equal(addr_embedded(&a, e), 0);
	addr_parse_literal("2001:db8::1", &a);
	assert_int_equal(addr_embedded(&a, e), 0);
	assert_false(addr_v4_mapped(&a, &v4));
	addr_parse_literal("::ffff:198.18.1.2", &a);
	assert_true(addr_v4_mapped(&a, &v4));
	addr_format(&v4, t, sizeof(t));
	assert_string_equal(t, "198.18.1.2");
	addr_parse_literal("2002:c612:102::2", &a);
	assert_false(addr_v4_mapped(&a, &v4));
}

static void test_in_net(void **state)
{
	(void)state;
	struct lnk_addr n, a;
	addr_parse_literal("192.168.1.0", &n);
	addr_parse_literal("192.168.1.77", &a);
	assert_true(addr_in_net(&a, &n, 24));
	addr_parse_literal("192.168.2.1", &a);
	assert_false(addr_in_net(&a, &n, 24));
	assert_true(addr_in_net(&a, &n, 16));
	/* a LAN range is IPv4: no IPv6 form of its addresses is in it */
	addr_parse_literal("::ffff:192.168.1.5", &a);
	assert_false(addr_in_net(&a, &n, 24));
	addr_parse_literal("2002:c0a8:105::1", &a);
	assert_false(addr_in_net(&a, &n, 24));
	addr_parse_literal("fd00::", &n);
	addr_parse_literal("fd00::5", &a);
	assert_true(addr_in_net(&a, &n, 8));
	assert_false(addr_in_net(&a, &n, 129));
}

/* The loopback sockaddr the bait servers and lnk-init's listeners bind. */
static void loopback_sockaddr(void **state)
{
	(void)state;
	struct sockaddr_storage ss;
	socklen_t len = addr_loopback_sockaddr(AF_INET, 8080, &ss);
	const struct sockaddr_in *s4 = (const void *)&ss;
	assert_int_equal(len, sizeof(*s4));
	assert_int_equal(s4->sin_family, AF_INET);
	assert_int_equal(ntohs(s4->sin_port), 8080);
	assert_int_equal(ntohl(s4->sin_addr.s_addr), INADDR_LOOPBACK);
	len = addr_loopback_sockaddr(AF_INET6, 53, &ss);
	const struct sockaddr_in6 *s6 = (const void *)&ss;
	assert_int_equal(len, sizeof(*s6));
	assert_int_equal(s6->sin6_family, AF_INET6);
	assert_int_equal(ntohs(s6->sin6_port), 53);
	assert_memory_equal(&s6->sin6_addr, &in6addr_loopback, 16);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(loopback_sockaddr),
	    cmocka_unit_test(test_rows),
	    cmocka_unit_test(test_equal),
	    cmocka_unit_test(test_embedded),
	    cmocka_unit_test(test_in_net),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
