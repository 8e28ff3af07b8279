/* SOCKS5 greeting and request parsers: every address type, malformed,
 * split input, and the replies. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "wire/socks5.h"

static void test_greeting(void **state)
{
	(void)state;
	int reply;
	const uint8_t ok[] = {5, 2, 2, 0};
	for (size_t i = 0; i < sizeof(ok); i++)
		assert_int_equal(socks5_parse_greeting(ok, i, &reply), 0);
	assert_int_equal(socks5_parse_greeting(ok, sizeof(ok), &reply), 4);
	const uint8_t auth_only[] = {5, 1, 2};
	assert_true(socks5_parse_greeting(auth_only, 3, &reply) < 0);
	assert_int_equal(reply, 1);
	const uint8_t none[] = {5, 0};
	assert_true(socks5_parse_greeting(none, 2, &reply) < 0);
	const uint8_t v4[] = {4, 1, 0, 80};
	assert_true(socks5_parse_greeting(v4, 4, &reply) < 0);
	assert_int_equal(reply, 0);
	const uint8_t http[] = {'G', 'E', 'T'};
	assert_true(socks5_parse_greeting(http, 3, &reply) < 0);
}

static void test_requests(void **state)
{
	(void)state;
	struct socks5_req r;
	enum socks5_rep rep;
	const uint8_t dom[] = {5,   1,	 0,   3,   15,	 'o', 'r', 'i',
			       'g', 'i', 'n', '.', 'l',	 'n', 'k', '-',
			       't', 'e', 's', 't', 0x01, 0xbb};
	for (size_t i = 0; i < sizeof(dom); i++)
		assert_int_equal(socks5_parse_request(dom, i, &r, &rep), 0);
	assert_int_equal(socks5_parse_request(dom, sizeof(dom), &r, &rep),
			 (int)sizeof(dom));
	assert_string_equal(r.host, "origin.lnk-test");
	assert_int_equal(r.port, 443);
	assert_false(r.is_addr);

	const uint8_t v4[] = {5, 1, 0, 1, 127, 0, 0, 1, 0, 80};
	assert_int_equal(socks5_parse_request(v4, sizeof(v4), &r, &rep), 10);
	assert_true(r.is_addr);
	assert_string_equal(r.host, "127.0.0.1");

	uint8_t v6[22] = {5, 1, 0, 4};
	v6[4 + 15] = 1;
	v6[20] = 0;
	v6[21] = 22;
	assert_int_equal(socks5_parse_request(v6, sizeof(v6), &r, &rep), 22);
	assert_string_equal(r.host, "::1");
	assert_int_equal(r.port, 22);
}

static void test_bad_requests(void **state)
{
	(void)state;
	struct socks5_req r;
	enum socks5_rep rep;
	const uint8_t bind[] = {5, 2, 0, 1, 1, 2, 3, 4, 0, 80};
	assert_true(socks5_parse_request(bind, sizeof(bind), &r, &rep) < 0);
	assert_int_equal(rep, SOCKS5_CMD_UNSUPPORTED);
	const uint8_t udp[] = {5, 3, 0, 1, 1, 2, 3, 4, 0, 80};
	assert_true(socks5_parse_request(udp, sizeof(udp), &r, &rep) < 0);
	const uint8_t atyp[] = {5, 1, 0, 9, 1, 2, 3, 4, 0, 80};
	assert_true(socks5_parse_request(atyp, sizeof(atyp), &r, &rep) < 0);
	assert_int_equal(rep, SOCKS5_ATYP_UNSUPPORTED);
	const uint8_t rsv[] = {5, 1, 7, 1, 1, 2, 3, 4, 0, 80};
	assert_true(socks5_parse_request(rsv, sizeof(rsv), &r, &rep) < 0);
	const uint8_t empty[] = {5, 1, 0, 3, 0, 0, 80};
	assert_true(socks5_parse_request(empty, sizeof(empty), &r, &rep) < 0);
	const uint8_t nul[] = {5, 1, 0, 3, 5, 'a', '.', 'c', 0, 'x', 0, 80};
	assert_true(socks5_parse_request(nul, sizeof(nul), &r, &rep) < 0);
	const uint8_t port0[] = {5, 1, 0, 1, 1, 2, 3, 4, 0, 0};
	assert_true(socks5_parse_request(port0, sizeof(port0), &r, &rep) < 0);
	const uint8_t ver[] = {4, 1, 0, 1, 1, 2, 3, 4, 0, 80};
	assert_true(socks5_parse_request(ver, sizeof(ver), &r, &rep) < 0);
	/* the longest name: 255 bytes */
	uint8_t longname[5 + 255 + 2] = {5, 1, 0, 3, 255};
	memset(longname + 5, 'a', 255);
	longname[5 + 255 + 1] = 80;
	assert_int_equal(
	    socks5_parse_request(longname, sizeof(longname), &r, &rep),
	    (int)sizeof(longname));
	assert_int_equal(strlen(r.host), 255);
}

static void test_reply(void **state)
{
	(void)state;
	uint8_t out[22];
	size_t n = socks5_reply(SOCKS5_NOT_ALLOWED, NULL, 0, out);
	assert_int_equal(n, 10);
	assert_int_equal(out[0], 5);
	assert_int_equal(out[1], 2);
	assert_int_equal(out[3], 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_greeting),
	    cmocka_unit_test(test_requests),
	    cmocka_unit_test(test_bad_requests),
	    cmocka_unit_test(test_reply),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
