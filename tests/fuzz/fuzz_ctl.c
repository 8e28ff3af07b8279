/* libFuzzer target for the wire's control protocol (proto/ctl.h): the bytes
 * a client sends to a wire's control socket and the reply a command reads
 * back from whatever listens there. Any input must give a request or reply
 * that passes every check, or -EBADMSG; never a crash or a read past len.
 * What is accepted must re-encode to the same bytes (the form is fixed;
 * the detail, which the encoder escapes, must hold no control byte or
 * markup), and the prefix check must agree with the whole-request parser, so
 * the server never closes a client that was sending a valid request. */
#include "proto/ctl.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void request(const uint8_t *data, size_t size)
{
	enum ctl_op op;
	int r = ctl_parse_request(data, size, &op);
	if (r != 0 && r != -EBADMSG)
		abort();
	if (r == 0) {
		uint8_t out[CTL_REQ_SIZE];
		ctl_encode_request(op, out);
		if (size != CTL_REQ_SIZE || memcmp(out, data, size) != 0 ||
		    !ctl_request_prefix_ok(data, size) ||
		    strcmp(ctl_op_name(op), "?") == 0)
			abort();
	}
	/* A prefix is fine iff some valid request starts with it. */
	for (size_t n = 0; n <= size && n <= CTL_REQ_SIZE; n++)
		if (!ctl_request_prefix_ok(data, n) &&
		    r == 0) /* a valid request has only valid prefixes */
			abort();
	if (size > CTL_REQ_SIZE && ctl_request_prefix_ok(data, size))
		abort();
}

static void reply(const uint8_t *data, size_t size)
{
	struct ctl_reply rep;
	int r = ctl_parse_reply(data, size, &rep);
	if (r != 0 && r != -EBADMSG)
		abort();
	if (r < 0)
		return;
	/* What the commands print: a printable, terminated detail. */
	size_t n = strnlen(rep.st.detail, CTL_DETAIL_MAX);
	if (n == CTL_DETAIL_MAX)
		abort();
	for (size_t i = 0; i < n; i++)
		if (rep.st.detail[i] < 0x20 || rep.st.detail[i] >= 0x7f ||
		    strchr("<>&", rep.st.detail[i]))
			abort();
	if (rep.st.closed != (rep.st.cause != CTL_CAUSE_NONE))
		abort();
	(void)ctl_cause_text(rep.st.cause);
	(void)trip_rule_text(rep.st.rule);
	/* Every field but the detail re-encodes to the same bytes (the
	 * encoder escapes a detail again, which may lengthen it). */
	uint8_t out[CTL_REPLY_SIZE];
	ctl_encode_reply(&rep, out);
	if (memcmp(out, data, 40) != 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	request(data, size);
	reply(data, size);
	/* The names the registry stores come back through the parsers of
	 * names: never a crash on any text. */
	char s[32];
	size_t n = size < sizeof(s) - 1 ? size : sizeof(s) - 1;
	memcpy(s, data, n);
	s[n] = '\0';
	enum ctl_cause c = ctl_cause_from_name(s);
	if (c != CTL_CAUSE_NONE && strcmp(ctl_cause_name(c), s) != 0)
		abort();
	enum trip_rule t = trip_rule_from_name(s);
	if (t != TRIP_NONE && strcmp(trip_rule_name(t), s) != 0)
		abort();
	return 0;
}
