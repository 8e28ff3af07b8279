/* The keeper's channel (src/proto/keeper.h): what the wire's encoder
 * writes decodes to the same message, and every other form is refused.
 * The wire may be an attacker's once it is set up, so each refusal is a
 * row: the size, the magic, the kind, the family, the port, a flag, the
 * rule, a target's length, bytes, end, a descriptor number, and any byte
 * that should be 0. The keeper's answers are checked the same way. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "proto/keeper.h"

static const struct lnk_addr v4 = {.family = AF_INET, .a = {10, 0, 0, 1}};
static const struct lnk_addr v6 = {
    .family = AF_INET6,
    .a = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}};

/* m encoded, decoded, encoded again: the same bytes, and m back. */
static void round_trip(const struct keeper_msg *m)
{
	uint8_t a[KEEPER_MSG_SIZE], b[KEEPER_MSG_SIZE];
	struct keeper_msg d;

	keeper_msg_encode(m, a);
	assert_memory_equal(a, "LNKK", 4);
	assert_int_equal(keeper_msg_decode(a, sizeof(a), &d), 0);
	assert_int_equal(d.kind, m->kind);
	keeper_msg_encode(&d, b);
	assert_memory_equal(a, b, sizeof(a));
}

static void each_kind_round_trips(void **state)
{
	(void)state;
	struct keeper_msg m = {.kind = KEEPER_M_DNS, .addr = v4, .port = 53};
	round_trip(&m);
	m = (struct keeper_msg){.kind = KEEPER_M_DNS, .addr = v6, .port = 5353};
	round_trip(&m);
	m = (struct keeper_msg){.kind = KEEPER_M_CONNECT,
				.addr = v6,
				.port = 443,
				.flags = KEEPER_ASK_FIRST_HOP,
				.cookie = UINT64_MAX - 1};
	round_trip(&m);
	m = (struct keeper_msg){.kind = KEEPER_M_LISTENER, .fd = 7};
	round_trip(&m);
	m = (struct keeper_msg){.kind = KEEPER_M_BIND, .fd = KEEPER_FD_MAX};
	round_trip(&m);
	m = (struct keeper_msg){
	    .kind = KEEPER_M_BIND_PORT, .fd = 9, .port = 80};
	round_trip(&m);
	m = (struct keeper_msg){
	    .kind = KEEPER_M_BIND_PORT, .fd = KEEPER_FD_MAX, .port = 1023};
	round_trip(&m);
	m = (struct keeper_msg){.kind = KEEPER_M_TRIP, .rule = TRIP_METADATA};
	strcpy(m.target, "169.254.169.254:80");
	round_trip(&m);
	memset(m.target, 'x', KEEPER_TARGET_MAX);
	m.target[KEEPER_TARGET_MAX] = '\0';
	round_trip(&m);
	m = (struct keeper_msg){.kind = KEEPER_M_CLOSED};
	round_trip(&m);

	/* the fields come back as they went */
	uint8_t b[KEEPER_MSG_SIZE];
	struct keeper_msg d;
	m = (struct keeper_msg){.kind = KEEPER_M_CONNECT,
				.addr = v4,
				.port = 8080,
				.cookie = 0x0102030405060708u};
	keeper_msg_encode(&m, b);
	assert_int_equal(keeper_msg_decode(b, sizeof(b), &d), 0);
	assert_int_equal(d.addr.family, AF_INET);
	assert_memory_equal(d.addr.a, v4.a, 16);
	assert_int_equal(d.port, 8080);
	assert_int_equal(d.flags, 0);
	assert_true(d.cookie == 0x0102030405060708u);
}

/* The wire's CPU in a connect: a hint, any value the two bytes hold,
 * not knowing it is -1, and a value past them is sent as not known. */
static void the_wires_cpu_comes_as_a_hint(void **state)
{
	(void)state;
	uint8_t b[KEEPER_MSG_SIZE];
	struct keeper_msg d;
	const int cpus[] = {-1, 0, 1, 255, 256, 4095, 65534};
	for (size_t i = 0; i < sizeof(cpus) / sizeof(cpus[0]); i++) {
		struct keeper_msg m = {.kind = KEEPER_M_CONNECT,
				       .addr = v4,
				       .port = 80,
				       .cookie = 7,
				       .cpu = cpus[i]};
		round_trip(&m);
		keeper_msg_encode(&m, b);
		assert_int_equal(keeper_msg_decode(b, sizeof(b), &d), 0);
		assert_int_equal(d.cpu, cpus[i]);
	}
	struct keeper_msg m = {.kind = KEEPER_M_CONNECT,
			       .addr = v4,
			       .port = 80,
			       .cookie = 7,
			       .cpu = 65535};
	keeper_msg_encode(&m, b);
	assert_int_equal(b[26] | b[27] << 8, 0);
	assert_int_equal(keeper_msg_decode(b, sizeof(b), &d), 0);
	assert_int_equal(d.cpu, -1);
	/* every value of the two bytes is taken (the keeper bounds it) */
	b[26] = 0xff;
	b[27] = 0xff;
	assert_int_equal(keeper_msg_decode(b, sizeof(b), &d), 0);
	assert_int_equal(d.cpu, 65534);
	/* a connect refused for another byte names no CPU */
	b[25] = 1;
	assert_int_equal(keeper_msg_decode(b, sizeof(b), &d), -EBADMSG);
	assert_int_equal(d.cpu, -1);
}

/* A message the encoder writes, with byte i set to v: refused, with err. */
static void refused_with(const struct keeper_msg *m, size_t i, uint8_t v,
			 int err)
{
	uint8_t b[KEEPER_MSG_SIZE];
	struct keeper_msg d;

	keeper_msg_encode(m, b);
	b[i] = v;
	int r = keeper_msg_decode(b, sizeof(b), &d);
	if (r != err)
		fail_msg("kind %c, byte %zu = %u: %d, not %d", m->kind, i, v, r,
			 err);
	if (m->kind == KEEPER_M_CONNECT) {
		/* still answered, under its cookie */
		assert_int_equal(d.kind, KEEPER_M_CONNECT);
		assert_true(d.cookie == m->cookie);
	} else {
		assert_int_equal(d.kind, 0);
	}
}

static void each_malformed_form_refused(void **state)
{
	(void)state;
	uint8_t b[KEEPER_MSG_SIZE + 1];
	struct keeper_msg d;
	struct keeper_msg dns = {.kind = KEEPER_M_DNS, .addr = v4, .port = 53};
	struct keeper_msg con = {
	    .kind = KEEPER_M_CONNECT, .addr = v4, .port = 443, .cookie = 42};
	struct keeper_msg lis = {.kind = KEEPER_M_LISTENER, .fd = 5};
	struct keeper_msg bnd = {.kind = KEEPER_M_BIND, .fd = 6};
	struct keeper_msg bpt = {
	    .kind = KEEPER_M_BIND_PORT, .fd = 6, .port = 22};
	struct keeper_msg trp = {.kind = KEEPER_M_TRIP,
				 .rule = TRIP_REFUSED_RATE};
	strcpy(trp.target, "evil.example:443");

	/* the size: one short, one long, none */
	keeper_msg_encode(&dns, b);
	b[KEEPER_MSG_SIZE] = 0;
	assert_int_equal(keeper_msg_decode(b, KEEPER_MSG_SIZE - 1, &d),
			 -EBADMSG);
	assert_int_equal(keeper_msg_decode(b, KEEPER_MSG_SIZE + 1, &d),
			 -EBADMSG);
	assert_int_equal(keeper_msg_decode(b, 0, &d), -EBADMSG);

	/* the magic: another format's, or the answers' */
	refused_with(&dns, 3, 'T', -EBADMSG);
	refused_with(&dns, 3, 'A', -EBADMSG);
	refused_with(&dns, 0, 'l', -EBADMSG);
	/* a close holds nothing else */
	struct keeper_msg cls = {.kind = KEEPER_M_CLOSED};
	refused_with(&cls, 5, 1, -EBADMSG);
	refused_with(&cls, KEEPER_MSG_SIZE - 1, 1, -EBADMSG);
	/* an unknown kind, the answers' kind, none */
	refused_with(&dns, 4, 'Z', -EBADMSG);
	refused_with(&dns, 4, 'R', -EBADMSG);
	refused_with(&dns, 4, 0, -EBADMSG);

	/* a family not 4 or 6 */
	refused_with(&dns, 5, 5, -EAFNOSUPPORT);
	refused_with(&dns, 5, 0, -EAFNOSUPPORT);
	refused_with(&con, 5, 10, -EAFNOSUPPORT);
	/* port 0 */
	struct keeper_msg p0 = dns;
	p0.port = 0;
	refused_with(&p0, 4, 'A', -EINVAL);
	p0 = con;
	p0.port = 0;
	refused_with(&p0, 4, 'C', -EINVAL);
	/* an IPv4 address with bytes after its four */
	refused_with(&dns, 12, 1, -EBADMSG);
	refused_with(&con, 23, 1, -EBADMSG);
	/* a byte after the address */
	refused_with(&dns, 24, 1, -EBADMSG);
	refused_with(&dns, KEEPER_MSG_SIZE - 1, 1, -EBADMSG);
	/* a connect's unknown flag, padding, a byte after its cookie */
	refused_with(&con, 24, 2, -EBADMSG);
	refused_with(&con, 24, 0x80, -EBADMSG);
	refused_with(&con, 25, 1, -EBADMSG);
	refused_with(&con, 28, 1, -EBADMSG);
	refused_with(&con, 31, 1, -EBADMSG);
	refused_with(&con, 40, 1, -EBADMSG);
	refused_with(&con, KEEPER_MSG_SIZE - 1, 1, -EBADMSG);

	/* a descriptor number out of range, padding, a byte after */
	refused_with(&lis, 11, 0x80, -EINVAL);
	refused_with(&bnd, 11, 0xff, -EINVAL);
	refused_with(&lis, 5, 1, -EBADMSG);
	refused_with(&bnd, 7, 1, -EBADMSG);
	refused_with(&lis, 12, 1, -EBADMSG);
	refused_with(&bnd, KEEPER_MSG_SIZE - 1, 1, -EBADMSG);
	/* a port bind: port 0, a family byte, a descriptor out of range,
	 * padding after the descriptor */
	refused_with(&bpt, 7, 0, -EINVAL);
	refused_with(&bpt, 5, 4, -EBADMSG);
	refused_with(&bpt, 11, 0x80, -EINVAL);
	refused_with(&bpt, 12, 1, -EBADMSG);
	refused_with(&bpt, KEEPER_MSG_SIZE - 1, 1, -EBADMSG);

	/* a trip: no rule, a rule past the last, padding */
	refused_with(&trp, 5, TRIP_NONE, -EBADMSG);
	refused_with(&trp, 5, TRIP_RULE_LAST + 1, -EBADMSG);
	refused_with(&trp, 5, 0xff, -EBADMSG);
	refused_with(&trp, 7, 1, -EBADMSG);
	/* a target longer than its length says (unterminated), a NUL or a
	 * byte not printable within it, a byte past it */
	refused_with(&trp, 6, 3, -EBADMSG);
	refused_with(&trp, 6, 255, -EBADMSG);
	refused_with(&trp, 8 + 2, 0, -EBADMSG);
	refused_with(&trp, 8 + 2, '\n', -EBADMSG);
	refused_with(&trp, 8 + 2, 0x1b, -EBADMSG);
	refused_with(&trp, 8 + 2, 0x7f, -EBADMSG);
	refused_with(&trp, 8 + 2, 0xc3, -EBADMSG);
	refused_with(&trp, KEEPER_MSG_SIZE - 1, 'x', -EBADMSG);
}

/* A target the encoder is given longer than the bound is cut to it, so
 * what it writes is always a form the decoder takes. */
static void long_target_cut(void **state)
{
	(void)state;
	struct keeper_msg m = {.kind = KEEPER_M_TRIP, .rule = TRIP_DNS_NAMES};
	uint8_t b[KEEPER_MSG_SIZE];
	struct keeper_msg d;

	memset(m.target, 'a', sizeof(m.target));
	keeper_msg_encode(&m, b);
	assert_int_equal(keeper_msg_decode(b, sizeof(b), &d), 0);
	assert_int_equal(strlen(d.target), KEEPER_TARGET_MAX);
}

static void answers(void **state)
{
	(void)state;
	uint8_t b[KEEPER_ANSWER_SIZE + 1], c[KEEPER_ANSWER_SIZE];
	struct keeper_reply r, d;

	r = (struct keeper_reply){.kind = KEEPER_R_ANSWER,
				  .answer = KEEPER_FAILED,
				  .error = ECONNREFUSED,
				  .cookie = 99};
	keeper_reply_encode(&r, b);
	assert_memory_equal(b, "LNKA", 4);
	assert_int_equal(keeper_reply_decode(b, KEEPER_ANSWER_SIZE, &d), 0);
	assert_int_equal(d.answer, KEEPER_FAILED);
	assert_int_equal(d.error, ECONNREFUSED);
	assert_true(d.cookie == 99);
	keeper_reply_encode(&d, c);
	assert_memory_equal(b, c, KEEPER_ANSWER_SIZE);
	for (int k = 0; k < 2; k++) {
		r = (struct keeper_reply){.kind =
					      k ? KEEPER_R_ACK : KEEPER_R_NACK};
		keeper_reply_encode(&r, b);
		assert_int_equal(keeper_reply_decode(b, KEEPER_ANSWER_SIZE, &d),
				 0);
		assert_int_equal(d.kind, r.kind);
	}

	/* refused: each byte changed where the form allows one value */
	const struct {
		size_t at;
		uint8_t v;
	} bad[] = {
	    {0, 'X'},  /* the magic */
	    {3, 'K'},  /* the wire's magic */
	    {4, 'C'},  /* a kind of the wire's */
	    {5, 5},    /* an outcome past KEEPER_BUSY */
	    {6, 1},    /* padding */
	    {9, 0x10}, /* an errno of 4096 and more */
	    {11, 1},
	};
	r = (struct keeper_reply){.kind = KEEPER_R_ANSWER,
				  .answer = KEEPER_BUSY,
				  .error = EAGAIN,
				  .cookie = 1};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		keeper_reply_encode(&r, b);
		b[bad[i].at] = bad[i].v;
		if (keeper_reply_decode(b, KEEPER_ANSWER_SIZE, &d) != -EBADMSG)
			fail_msg("answer row %zu taken", i);
	}
	keeper_reply_encode(&r, b);
	assert_int_equal(keeper_reply_decode(b, KEEPER_ANSWER_SIZE - 1, &d),
			 -EBADMSG);
	assert_int_equal(keeper_reply_decode(b, KEEPER_ANSWER_SIZE + 1, &d),
			 -EBADMSG);
	/* connecting comes with no errno; an ack with nothing after it */
	r = (struct keeper_reply){
	    .kind = KEEPER_R_ANSWER, .answer = KEEPER_CONNECTING, .error = 0};
	keeper_reply_encode(&r, b);
	assert_int_equal(keeper_reply_decode(b, KEEPER_ANSWER_SIZE, &d), 0);
	b[8] = 1;
	assert_int_equal(keeper_reply_decode(b, KEEPER_ANSWER_SIZE, &d),
			 -EBADMSG);
	r = (struct keeper_reply){.kind = KEEPER_R_ACK};
	keeper_reply_encode(&r, b);
	b[12] = 1;
	assert_int_equal(keeper_reply_decode(b, KEEPER_ANSWER_SIZE, &d),
			 -EBADMSG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(each_kind_round_trips),
	    cmocka_unit_test(the_wires_cpu_comes_as_a_hint),
	    cmocka_unit_test(each_malformed_form_refused),
	    cmocka_unit_test(long_target_cut),
	    cmocka_unit_test(answers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
