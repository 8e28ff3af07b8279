/* libFuzzer target for the keeper's channel (src/proto/keeper.c): a
 * wire taken over sends the keeper what it likes. Never a crash; a
 * message taken keeps every bound the keeper relies on (a known kind, a
 * family of 4 or 6, a port, a descriptor number in range, a rule in
 * range, a printable target within its bound, a CPU hint within its two
 * bytes) and is in its one form:
 * encoded again, it is the same bytes. A connect refused still carries
 * its cookie. The same bytes are also an answer of the keeper's to the
 * wire (keeper_reply_decode), with the same promises. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "proto/keeper.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_msg(const uint8_t *data, size_t size)
{
	struct keeper_msg m;
	int r = keeper_msg_decode(data, size, &m);

	if (r < 0) {
		if (m.kind == KEEPER_M_CONNECT &&
		    (size != KEEPER_MSG_SIZE || data[4] != 'C'))
			abort();
		if (m.kind != KEEPER_M_CONNECT && m.kind != 0)
			abort();
		return;
	}
	if (size != KEEPER_MSG_SIZE || memcmp(data, "LNKK", 4) != 0)
		abort();
	switch (m.kind) {
	case KEEPER_M_DNS:
	case KEEPER_M_CONNECT:
		if ((m.addr.family != AF_INET && m.addr.family != AF_INET6) ||
		    m.port == 0 || (m.flags & ~KEEPER_ASK_ALL))
			abort();
		/* the wire's CPU: a hint in two bytes, -1 when not known */
		if (m.kind == KEEPER_M_CONNECT && (m.cpu < -1 || m.cpu > 65534))
			abort();
		break;
	case KEEPER_M_LISTENER:
	case KEEPER_M_BIND:
		if (m.fd < 0)
			abort();
		break;
	case KEEPER_M_BIND_PORT:
		if (m.fd < 0 || m.port == 0)
			abort();
		break;
	case KEEPER_M_TRIP: {
		size_t n = strnlen(m.target, sizeof(m.target));
		if (n > KEEPER_TARGET_MAX || m.rule == TRIP_NONE ||
		    m.rule > TRIP_RULE_LAST)
			abort();
		for (size_t i = 0; i < n; i++)
			if (m.target[i] < 0x20 || m.target[i] > 0x7e)
				abort();
		break;
	}
	case KEEPER_M_CLOSED:
		break;
	default:
		abort();
	}
	uint8_t again[KEEPER_MSG_SIZE];
	keeper_msg_encode(&m, again);
	if (memcmp(again, data, KEEPER_MSG_SIZE) != 0)
		abort();
}

static void check_reply(const uint8_t *data, size_t size)
{
	struct keeper_reply r;

	if (keeper_reply_decode(data, size, &r) < 0)
		return;
	if (size != KEEPER_ANSWER_SIZE || r.error < 0 || r.error > 4095 ||
	    r.answer > KEEPER_BUSY ||
	    (r.answer == KEEPER_CONNECTING && r.error != 0))
		abort();
	uint8_t again[KEEPER_ANSWER_SIZE];
	keeper_reply_encode(&r, again);
	if (memcmp(again, data, KEEPER_ANSWER_SIZE) != 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_msg(data, size);
	check_reply(data, size);
	return 0;
}
