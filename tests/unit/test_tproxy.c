/* The transparent path's formats, which carry hostile bytes: the head the
 * guard (or a program forging one) sends the wire (proto/tproxy.h), and
 * the DNS questions the wire's resolver reads and the answers it writes
 * (wire/dnsd.h). Every malformed form is refused, never half read. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "proto/tproxy.h"
#include "wire/dnsd.h"

static void head_round_trip(void **state)
{
	(void)state;
	struct lnk_addr a = {.family = AF_INET, .a = {198, 18, 0, 2}}, b;
	uint8_t h[TPROXY_HEAD_SIZE];
	uint16_t port = 0;
	tproxy_head_encode(&a, 443, h);
	assert_int_equal(tproxy_head_decode(h, sizeof(h), &b, &port), 0);
	assert_int_equal(b.family, AF_INET);
	assert_memory_equal(b.a, a.a, 4);
	assert_int_equal(port, 443);

	struct lnk_addr c = {.family = AF_INET6};
	inet_pton(AF_INET6, "2001:db8::7", c.a);
	tproxy_head_encode(&c, 22, h);
	assert_int_equal(tproxy_head_decode(h, sizeof(h), &b, &port), 0);
	assert_int_equal(b.family, AF_INET6);
	assert_memory_equal(b.a, c.a, 16);
	assert_int_equal(port, 22);
}

static void head_refusals(void **state)
{
	(void)state;
	struct lnk_addr a = {.family = AF_INET, .a = {198, 18, 0, 2}}, b;
	uint8_t good[TPROXY_HEAD_SIZE], h[TPROXY_HEAD_SIZE + 1];
	uint16_t port;
	tproxy_head_encode(&a, 80, good);
	/* short, long */
	assert_int_equal(tproxy_head_decode(good, 23, &b, &port), -EPROTO);
	memcpy(h, good, sizeof(good));
	h[24] = 0;
	assert_int_equal(tproxy_head_decode(h, 25, &b, &port), -EPROTO);
	/* magic, version, family, port 0, bytes after an IPv4 address */
	static const struct {
		size_t at;
		uint8_t v;
	} bad[] = {{0, 'X'}, {3, 'X'}, {4, 2},	{4, 0}, {5, 0},
		   {5, 5},   {5, 10},  {12, 1}, {23, 1}};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memcpy(h, good, sizeof(good));
		h[bad[i].at] = bad[i].v;
		assert_int_equal(tproxy_head_decode(h, 24, &b, &port), -EPROTO);
	}
	memcpy(h, good, sizeof(good));
	h[6] = h[7] = 0;
	assert_int_equal(tproxy_head_decode(h, 24, &b, &port), -EPROTO);
}

static void verdicts(void **state)
{
	(void)state;
	assert_int_equal(tproxy_verdict_errno(TPROXY_OK), 0);
	assert_int_equal(tproxy_verdict_errno(TPROXY_REFUSED), ECONNREFUSED);
	assert_int_equal(tproxy_verdict_errno(TPROXY_TIMEDOUT), ETIMEDOUT);
	assert_int_equal(tproxy_verdict_errno(TPROXY_HOST_UNREACH),
			 EHOSTUNREACH);
	/* an unknown byte is a refusal, never success */
	assert_int_equal(tproxy_verdict_errno(200), ECONNREFUSED);
}

/* A query for name (dots between labels) of type qtype. */
static size_t query(uint8_t *m, const char *name, uint16_t qtype)
{
	static const uint8_t hdr[12] = {0x12, 0x34, 0x01, 0x00, 0, 1};
	size_t n = 12;
	memcpy(m, hdr, 12);
	while (*name) {
		size_t l = strcspn(name, ".");
		m[n++] = (uint8_t)l;
		memcpy(m + n, name, l);
		n += l;
		name += l;
		if (*name == '.')
			name++;
	}
	m[n++] = 0;
	m[n++] = (uint8_t)(qtype >> 8);
	m[n++] = (uint8_t)qtype;
	m[n++] = 0;
	m[n++] = 1;
	return n;
}

static void dns_questions(void **state)
{
	(void)state;
	uint8_t m[600];
	struct dnsd_question q;
	size_t n = query(m, "Origin.LNK-test", 1);
	assert_int_equal(dnsd_parse(m, n, &q), 0);
	assert_string_equal(q.name, "origin.lnk-test");
	assert_int_equal(q.qtype, 1);
	assert_int_equal(q.qclass, 1);
	assert_int_equal(q.id, 0x1234);
	/* an answer is never answered; short messages are dropped */
	m[2] |= 0x80;
	assert_int_equal(dnsd_parse(m, n, &q), -EPROTO);
	m[2] &= 0x7f;
	assert_int_equal(dnsd_parse(m, 11, &q), -EPROTO);
	/* truncated question, two questions, another opcode */
	assert_int_equal(dnsd_parse(m, n - 1, &q), 1);
	m[5] = 2;
	assert_int_equal(dnsd_parse(m, n, &q), 1);
	m[5] = 1;
	m[2] |= 0x10; /* opcode 2 */
	assert_int_equal(dnsd_parse(m, n, &q), 4);
	m[2] &= ~0x10;
	/* a compression pointer in the question */
	uint8_t c[] = {0x12, 0x34, 1, 0,    0,	  1, 0, 0, 0,
		       0,    0,	   0, 0xc0, 0x0c, 0, 1, 0, 1};
	assert_int_equal(dnsd_parse(c, sizeof(c), &q), 1);
	/* a label over 63 bytes, a name over 253 */
	char big[300];
	memset(big, 'a', 64);
	big[64] = '\0';
	n = query(m, big, 1);
	assert_int_equal(dnsd_parse(m, n, &q), 1);
	snprintf(big, sizeof(big), "%063d.%063d.%063d.%063d", 0, 0, 0, 0);
	n = query(m, big, 1);
	assert_int_equal(dnsd_parse(m, n, &q), 1);
	/* a dot or NUL inside a label never becomes a separator */
	n = query(m, "ab.cd", 1);
	m[13] = '.';
	assert_int_equal(dnsd_parse(m, n, &q), 0);
	assert_int_equal(q.name[0], '\x01');
	assert_int_equal(q.name[2], '.');
}

static void dns_answers(void **state)
{
	(void)state;
	uint8_t m[600], out[512];
	struct dnsd_question q;
	size_t n = query(m, "origin.lnk-test", 1);
	assert_int_equal(dnsd_parse(m, n, &q), 0);
	struct lnk_addr a[2] = {{.family = AF_INET, .a = {198, 18, 0, 2}},
				{.family = AF_INET6, .a = {[15] = 1}}};
	size_t len = dnsd_answer(m, &q, 0, a, 2, out, sizeof(out));
	/* the question echoed, one A record (the AAAA left out) */
	assert_int_equal(len, n + 16);
	assert_int_equal(out[3] & 0xf, 0);
	assert_int_equal(out[2] & 0x80, 0x80);
	assert_int_equal(out[7], 1);
	assert_memory_equal(out + n + 12, a[0].a, 4);
	/* NXDOMAIN: no records */
	len = dnsd_answer(m, &q, 3, a, 2, out, sizeof(out));
	assert_int_equal(len, n);
	assert_int_equal(out[3] & 0xf, 3);
	assert_int_equal(out[7], 0);
	/* what does not fit is left out */
	struct lnk_addr many[40];
	for (int i = 0; i < 40; i++)
		many[i] = a[0];
	len = dnsd_answer(m, &q, 0, many, 40, out, 100);
	assert_true(len <= 100);
	assert_int_equal(out[7], (100 - n) / 16);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(head_round_trip), cmocka_unit_test(head_refusals),
	    cmocka_unit_test(verdicts),	       cmocka_unit_test(dns_questions),
	    cmocka_unit_test(dns_answers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
