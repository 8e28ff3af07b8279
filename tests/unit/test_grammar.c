/* The grammar of ports, names, host patterns and LAN grants, as row tables:
 * every form once, what is accepted, its normal form, and what each refusal
 * says. The spec (through the keys table), the wire and check all parse with
 * these functions, so these rows are what each of them accepts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "net/grammar.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

struct port_row {
	const char *in;
	int want; /* the port, or -1 when refused */
};

static const struct port_row port_rows[] = {
    {"5432", 5432},
    {"1", 1},
    {"65535", 65535},
    {"0", -1},
    {"65536", -1},
    {"080", -1}, /* octal to one reader, 80 to another */
    {"+80", -1},
    {"-1", -1},
    {"80 ", -1},
    {" 80", -1},
    {"0x50", -1},
    {"", -1},
    {"99999999999999999999", -1},
};

static void ports(void **state)
{
	(void)state;
	for (size_t i = 0; i < N(port_rows); i++) {
		const struct port_row *r = &port_rows[i];
		uint16_t p = 0;
		int ret = port_parse(r->in, strlen(r->in), &p);
		if (r->want < 0 ? ret != -EINVAL : ret != 0 || p != r->want)
			fail_msg("port '%s': got %d (%u)", r->in, ret, p);
	}
}

struct text_row {
	const char *in;
	const char *want; /* the normal form, NULL when refused; for sandbox
			   * names "" when accepted */
	const char *msg;  /* a part of the refusal's message */
};

static const struct text_row name_rows[] = {
    {"app", "", NULL},
    {"run-1", "", NULL},
    {"A.b_c-9", "", NULL},
    {"x234567890123456789012345678901234567890123456789012345678901234", "",
     NULL},
    {"x2345678901234567890123456789012345678901234567890123456789012345", NULL,
     "1 to 64"},
    {"", NULL, "1 to 64"},
    {"a b", NULL, "only letters"},
    {"a/b", NULL, "only letters"},
    {"a\n", NULL, "only letters"},
    {"caf\xc3\xa9", NULL, "only letters"},
    {".", NULL, "'.'"},
    {"..", NULL, "'..'"},
    {".x", NULL, "not start with '.' or '-'"},
    {"-x", NULL, "not start with '.' or '-'"},
};

static void sandbox_names(void **state)
{
	(void)state;
	for (size_t i = 0; i < N(name_rows); i++) {
		const struct text_row *r = &name_rows[i];
		struct lnk_err err = {0};
		int ret = sandbox_name_check(r->in, strlen(r->in), &err);
		if (r->want && ret != 0)
			fail_msg("name '%s' refused: %s", r->in, err.msg);
		if (!r->want && (ret != -EINVAL || !strstr(err.msg, r->msg)))
			fail_msg("name '%s': got %d '%s', want '%s'", r->in,
				 ret, err.msg, r->msg);
		assert_int_equal(sandbox_name_valid(r->in), r->want != NULL);
	}
	assert_false(sandbox_name_valid(NULL));
}

/* DNS names as request hosts (host_normalize) and as grants (dns_name_why
 * through the patterns below). */
static const struct text_row request_rows[] = {
    {"Example.COM.", "example.com", NULL},
    {"xn--bcher-kva.de", "xn--bcher-kva.de", NULL},
    {"2001:DB8::1", "2001:db8::1", NULL},
    {"a..b", NULL, "empty label"},
    {".", NULL, "empty host"},
    {"", NULL, "empty host"},
    {"ex ample.com", NULL, "invalid character"},
    {"-a.example", NULL, "starting or ending with '-'"},
    {"1.0x7f", "1.0x7f", NULL}, /* the caller refuses it as ambiguous */
    {"127.1", "127.1", NULL},
    /* Not a name (a ':'), so only one trailing dot goes: what is left is
     * no literal either, and the caller refuses it as ambiguous. */
    {"1.2.:.z..", "1.2.:.z.", NULL},
    {"exa/mple.com", NULL, "invalid character"},
    {"b\xc3\xbc"
     "cher.de",
     NULL, "xn--"},
    {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
     NULL, "longer than 63"},
};

static void request_hosts(void **state)
{
	(void)state;
	for (size_t i = 0; i < N(request_rows); i++) {
		const struct text_row *r = &request_rows[i];
		char out[HOST_MAX + 1];
		const char *why = "";
		int ret = host_normalize(r->in, out, &why);
		if (r->want && (ret != 0 || strcmp(out, r->want) != 0))
			fail_msg("host '%s': got %d '%s'", r->in, ret,
				 ret ? why : out);
		if (!r->want && (ret != -EINVAL || !strstr(why, r->msg)))
			fail_msg("host '%s': got %d '%s', want '%s'", r->in,
				 ret, why, r->msg);
	}
}

static const struct text_row host_rows[] = {
    {"*", "*", NULL},
    {"Example.COM", "example.com", NULL},
    {"example.com.", "example.com", NULL},
    {"*.Example.com", "*.example.com", NULL},
    {"_dmarc.example.com", "_dmarc.example.com", NULL},
    {"xn--bcher-kva.example", "xn--bcher-kva.example", NULL},
    {"b\xc3\xbc"
     "cher.example",
     NULL, "xn--"},
    {"192.0.2.1", "192.0.2.1", NULL},
    {"198.18.0.1.", "198.18.0.1", NULL},
    {"[2001:DB8::1]", "2001:db8::1", NULL},
    {"2001:db8:0:0::1", "2001:db8::1", NULL},
    /* numeric spellings the wire reads as ambiguous */
    {"127.1", NULL, "ambiguous address literal"},
    {"0x7f.0.0.1", NULL, "ambiguous address literal"},
    {"010.0.0.1", NULL, "ambiguous address literal"},
    {"2130706433", NULL, "ambiguous address literal"},
    {"1.0x7f", NULL, "ambiguous address literal"},
    {"1.2.3.4.5", NULL, "ambiguous address literal"},
    {"example.0x", NULL, "ambiguous address literal"},
    {"1.2.3.4a", "1.2.3.4a", NULL},
    /* addresses the wire refuses under an internet grant */
    {"169.254.169.254", NULL, "cloud metadata address"},
    {"100.100.100.200", NULL, "cloud metadata address"},
    {"[fd00:ec2::254]", NULL, "cloud metadata address"},
    {"168.63.129.16", NULL, "cloud metadata address"},
    {"169.254.170.2", NULL, "cloud metadata address"},
    {"127.0.0.1", NULL, "loopback address"},
    {"::ffff:127.0.0.1", NULL, "loopback address"},
    /* a grant is one spelling of one address: the IPv4 one */
    {"::ffff:198.18.0.2", NULL, "grant the IPv4 address itself ('198.18.0.2')"},
    {"[::ffff:c612:2]", NULL, "IPv4-mapped"},
    {"2002:c612:2::1", "2002:c612:2::1", NULL},
    {"0.0.0.0", NULL, "unspecified address"},
    {"224.0.0.1", NULL, "multicast address"},
    {"255.255.255.255", NULL, "broadcast address"},
    {"240.0.0.1", NULL, "reserved address"},
    {"192.168.1.5", NULL, "not the internet (grant it with --lan-host)"},
    {"fd00::5", NULL, "not the internet"},
    {"[nas]", NULL, "inside '[' and ']' goes an IPv6 address"},
    {"[192.0.2.1]", NULL, "inside '[' and ']' goes an IPv6 address"},
    {"a.*.com", NULL, "'*' stands alone"},
    {"*example.com", NULL, "'*' stands alone"},
    {"**", NULL, "'*' stands alone"},
    {"*.", NULL, "'*' stands alone"},
    {"example.com:443", NULL, "without scheme, port"},
    {"https://example.com", NULL, "without scheme, port"},
    {"", NULL, "not a host name: empty host"},
    {"-a.com", NULL, "not a host name: label starting or ending with '-'"},
    {"a-.com", NULL, "not a host name"},
    {"a..com", NULL, "not a host name: empty label"},
    {"a com", NULL, "not a host name: invalid character"},
    {"a\x1b[2Jb.com", NULL, "\\x1b"}, /* quoted, escaped */
    /* a cloud's metadata names: a grant could only trip its own wire */
    {"metadata.google.internal", NULL, "cloud's metadata service"},
    {"Metadata.GOOG.", NULL, "covers 'metadata.goog'"},
    {"*.internal", NULL, "covers 'metadata.google.internal'"},
    {"*.ec2.internal", NULL, "covers 'instance-data.ec2.internal'"},
    {"*.goog", NULL, "covers 'metadata.goog'"},
    {"api.google.internal", "api.google.internal", NULL},
    {"*.metadata.goog", "*.metadata.goog", NULL},
};

static void host_patterns(void **state)
{
	(void)state;
	for (size_t i = 0; i < N(host_rows); i++) {
		const struct text_row *r = &host_rows[i];
		struct lnk_err err = {0};
		char out[HOST_PATTERN_MAX];
		int ret = host_pattern_parse(r->in, strlen(r->in), out, &err);
		if (r->want) {
			if (ret != 0)
				fail_msg("host '%s' refused: %s", r->in,
					 err.msg);
			assert_string_equal(out, r->want);
			/* The normal form is its own normal form. */
			char again[HOST_PATTERN_MAX];
			assert_int_equal(
			    host_pattern_parse(out, strlen(out), again, &err),
			    0);
			assert_string_equal(again, out);
		} else if (ret != -EINVAL || !strstr(err.msg, r->msg))
			fail_msg("host '%s': got %d '%s', want '%s'", r->in,
				 ret, err.msg, r->msg);
	}
}

struct match_row {
	const char *pattern, *host;
	bool match;
};

static const struct match_row match_rows[] = {
    {"example.com", "example.com", true},
    {"example.com", "www.example.com", false},
    {"example.com", "evilexample.com", false},
    {"example.com", "example.com.evil.test", false},
    {"*.example.com", "www.example.com", true},
    {"*.example.com", "a.b.example.com", true},
    {"*.example.com", "example.com", false},
    {"*.example.com", "evilexample.com", false},
    {"*.example.com", "wwwexample.com", false},
    {"*.example.com", "example.com.evil.test", false},
    {"*", "anything.test", true},
};

static void pattern_match(void **state)
{
	(void)state;
	for (size_t i = 0; i < N(match_rows); i++)
		if (host_pattern_match(match_rows[i].pattern,
				       match_rows[i].host) !=
		    match_rows[i].match)
			fail_msg("'%s' vs '%s'", match_rows[i].pattern,
				 match_rows[i].host);
}

static const struct text_row lan_rows[] = {
    {"printer.local", "printer.local", NULL},
    {"Printer.Local.", "printer.local", NULL},
    {"192.168.1.20.", "192.168.1.20", NULL},
    {"127.0.0.1.", NULL, "loopback address"},
    {"NAS:22", "nas:22", NULL},
    {"192.168.1.20", "192.168.1.20", NULL},
    {"192.168.1.20:8080", "192.168.1.20:8080", NULL},
    {"192.168.1.0/24", "192.168.1.0/24", NULL},
    {"192.168.1.20/32", "192.168.1.20", NULL},
    {"10.0.0.0/8:22", "10.0.0.0/8:22", NULL},
    {"fd00::/8", "fd00::/8", NULL},
    {"FE80::0001", "fe80::1", NULL},
    {"[fe80::1]:22", "[fe80::1]:22", NULL},
    /* a range with a port: the normal form must parse back */
    {"[FD00::/8]:22", "[fd00::/8]:22", NULL},
    {"[fd00::/8]:22", "[fd00::/8]:22", NULL},
    {"[fd00::]", "fd00::", NULL},
    {"169.254.0.0/16", "169.254.0.0/16", NULL},
    {"0.0.0.0/0", "0.0.0.0/0", NULL},
    {"192.168.1.5/24", NULL, "did you mean '192.168.1.0/24'"},
    {"fd00::1/8", NULL, "did you mean 'fd00::/8'"},
    {"192.168.1.0/33", NULL, "0 to 32"},
    {"fd00::/129", NULL, "0 to 128"},
    {"192.168.1.0/024", NULL, "0 to 32"},
    {"192.168.1.0/", NULL, "0 to 32"},
    {"192.168.1", NULL, "not a machine: ambiguous address literal"},
    {"127.1", NULL, "not a machine: ambiguous address literal"},
    {"192.168.01.1", NULL, "not a machine: ambiguous address literal"},
    {"10.1", NULL, "ambiguous address literal"},
    {"fe80::1%eth0", NULL, "not a machine"},
    /* the classes no grant reaches, with the wire's words */
    {"127.0.0.1", NULL, "loopback address (use --port"},
    {"127.0.0.0/8", NULL, "loopback address"},
    {"::1", NULL, "loopback address"},
    {"[::1]:80", NULL, "loopback address"},
    {"169.254.169.254", NULL, "cloud metadata address"},
    {"169.254.169.254:80", NULL, "cloud metadata address"},
    {"100.100.100.200", NULL, "cloud metadata address"},
    {"[fd00:ec2::254]:80", NULL, "cloud metadata address"},
    {"::ffff:169.254.169.254", NULL, "cloud metadata address"},
    {"::ffff:192.168.1.0/120", NULL, "grant the IPv4 address itself"},
    {"[::ffff:192.168.1.5]:22", NULL, "IPv4-mapped"},
    {"0.0.0.0", NULL, "unspecified address"},
    {"224.0.0.0/4", NULL, "multicast address"},
    {"255.255.255.255", NULL, "broadcast address"},
    {"nas:0", NULL, "1 to 65535"},
    {"nas:65536", NULL, "1 to 65535"},
    {"nas:022", NULL, "1 to 65535"},
    {"nas:", NULL, "1 to 65535"},
    {"[fe80::1", NULL, "without ']'"},
    {"[fe80::1]x", NULL, "only ':port'"},
    {"[nas]:22", NULL, "IPv6 address"},
    {"[10.0.0.1]:22", NULL, "IPv6 address"},
    {"nas/24", NULL, "needs an address before '/'"},
    {"*.local", NULL, "no '*'"},
    {"", NULL, "empty"},
    {"n\xc3\xa4s", NULL, "xn--"},
};

static void lan_rules(void **state)
{
	(void)state;
	for (size_t i = 0; i < N(lan_rows); i++) {
		const struct text_row *r = &lan_rows[i];
		struct lnk_err err = {0};
		struct lan_rule rule;
		int ret = lan_rule_parse(r->in, strlen(r->in), &rule, &err);
		if (r->want) {
			if (ret != 0)
				fail_msg("lan '%s' refused: %s", r->in,
					 err.msg);
			char out[HOST_PATTERN_MAX + 64];
			lan_rule_format(&rule, out, sizeof(out));
			assert_string_equal(out, r->want);
			struct lan_rule again;
			assert_int_equal(
			    lan_rule_parse(out, strlen(out), &again, &err), 0);
			assert_memory_equal(&again, &rule, sizeof(rule));
		} else if (ret != -EINVAL || !strstr(err.msg, r->msg))
			fail_msg("lan '%s': got %d '%s', want '%s'", r->in, ret,
				 err.msg, r->msg);
	}
	/* What the wire matches on. */
	struct lan_rule rule;
	assert_int_equal(lan_rule_parse("10.0.0.0/8:22", 13, &rule, NULL), 0);
	assert_true(rule.is_net);
	assert_int_equal(rule.prefix, 8);
	assert_int_equal(rule.port, 22);
	assert_int_equal(lan_rule_parse("nas.local", 9, &rule, NULL), 0);
	assert_false(rule.is_net);
	assert_string_equal(rule.name, "nas.local");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(ports),	     cmocka_unit_test(sandbox_names),
	    cmocka_unit_test(request_hosts), cmocka_unit_test(host_patterns),
	    cmocka_unit_test(pattern_match), cmocka_unit_test(lan_rules),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
