/* The control protocol's form (see ctl.h). Every byte a peer sends is
 * hostile until checked. */
#include "proto/ctl.h"

#include <errno.h>
#include <string.h>

#include "common/esc.h"
#include "common/util.h"
#include "proto/bytes.h"

static const uint8_t req_magic[4] = {'L', 'N', 'K', 'c'};
static const uint8_t rep_magic[4] = {'L', 'N', 'K', 'r'};

/* Detail offsets in the reply. */
#define R_CONNS 12
#define R_SINCE 16
#define R_UP 24
#define R_DOWN 32
#define R_DETAIL 40

static bool op_valid(unsigned op)
{
	return op >= CTL_PAUSE && op <= CTL_STATUS;
}

void ctl_printable(char *dst, size_t cap, const char *src)
{
	if (!src)
		src = "";
	esc_into(dst, cap, src, strlen(src), ESC_ASCII);
}

void ctl_encode_request(enum ctl_op op, uint8_t out[CTL_REQ_SIZE])
{
	memcpy(out, req_magic, 4);
	out[4] = CTL_VERSION;
	out[5] = (uint8_t)op;
	out[6] = 0;
	out[7] = 0;
}

/* How many leading bytes of buf are a valid start of a request (so a
 * client is closed at its first wrong byte, not after a timeout). */
bool ctl_request_prefix_ok(const uint8_t *buf, size_t len)
{
	for (size_t i = 0; i < len && i < CTL_REQ_SIZE; i++) {
		if (i < 4 && buf[i] != req_magic[i])
			return false;
		if (i == 4 && buf[i] != CTL_VERSION)
			return false;
		if (i == 5 && !op_valid(buf[i]))
			return false;
		if (i >= 6 && buf[i] != 0)
			return false;
	}
	return len <= CTL_REQ_SIZE;
}

int ctl_parse_request(const uint8_t *buf, size_t len, enum ctl_op *op)
{
	if (!buf || len != CTL_REQ_SIZE || !ctl_request_prefix_ok(buf, len))
		return -EBADMSG;
	*op = (enum ctl_op)buf[5];
	return 0;
}

void ctl_encode_reply(const struct ctl_reply *r, uint8_t out[CTL_REPLY_SIZE])
{
	memset(out, 0, CTL_REPLY_SIZE);
	memcpy(out, rep_magic, 4);
	out[4] = CTL_VERSION;
	out[5] = (uint8_t)r->op;
	out[6] = (uint8_t)r->result;
	out[7] = r->st.closed ? 1 : 0;
	out[8] = (uint8_t)r->st.cause;
	out[9] = (uint8_t)r->st.rule;
	bytes_put_le(out + R_CONNS, r->st.conns, 4);
	bytes_put_le(out + R_SINCE, (uint64_t)r->st.since_ms, 8);
	bytes_put_le(out + R_UP, r->st.up, 8);
	bytes_put_le(out + R_DOWN, r->st.down, 8);
	ctl_printable((char *)out + R_DETAIL, CTL_DETAIL_MAX, r->st.detail);
}

int ctl_parse_reply(const uint8_t *buf, size_t len, struct ctl_reply *r)
{
	if (!buf || len != CTL_REPLY_SIZE || memcmp(buf, rep_magic, 4) != 0 ||
	    buf[4] != CTL_VERSION)
		return -EBADMSG;
	if (buf[5] != 0 && !op_valid(buf[5]))
		return -EBADMSG;
	if (buf[6] > CTL_R_FAILED || buf[7] > 1 || buf[8] > CTL_CAUSE_TRIP ||
	    buf[9] > TRIP_RULE_LAST || buf[10] || buf[11])
		return -EBADMSG;
	/* Open means no cause; closed means one. */
	if ((buf[7] == 0) != (buf[8] == CTL_CAUSE_NONE))
		return -EBADMSG;
	if ((buf[8] == CTL_CAUSE_TRIP) != (buf[9] != TRIP_NONE))
		return -EBADMSG;
	const uint8_t *d = buf + R_DETAIL;
	size_t n = 0;
	while (n < CTL_DETAIL_MAX && d[n])
		n++;
	if (n == CTL_DETAIL_MAX)
		return -EBADMSG; /* not terminated */
	/* Printable ASCII without markup (< > &), as the encoder writes it:
	 * the detail reaches terminals, the paused table and desktop
	 * notifications, whose body is markup. */
	for (size_t i = 0; i < n; i++)
		if (d[i] < 0x20 || d[i] >= 0x7f || d[i] == '<' || d[i] == '>' ||
		    d[i] == '&')
			return -EBADMSG;
	for (size_t i = n; i < CTL_DETAIL_MAX; i++)
		if (d[i])
			return -EBADMSG; /* fixed form: zero padding */
	memset(r, 0, sizeof(*r));
	r->op = (enum ctl_op)buf[5];
	r->result = (enum ctl_result)buf[6];
	r->st.closed = buf[7];
	r->st.cause = (enum ctl_cause)buf[8];
	r->st.rule = (enum trip_rule)buf[9];
	r->st.conns = (uint32_t)bytes_get_le(buf + R_CONNS, 4);
	r->st.since_ms = (int64_t)bytes_get_le(buf + R_SINCE, 8);
	r->st.up = bytes_get_le(buf + R_UP, 8);
	r->st.down = bytes_get_le(buf + R_DOWN, 8);
	memcpy(r->st.detail, d, n + 1);
	return 0;
}

const char *ctl_op_name(enum ctl_op op)
{
	switch (op) {
	case CTL_PAUSE:
		return "pause";
	case CTL_RESUME:
		return "resume";
	case CTL_STOP:
		return "stop";
	case CTL_STOP_OFF:
		return "stop --off";
	case CTL_STATUS:
		return "status";
	}
	return "?";
}

const char *ctl_cause_name(enum ctl_cause c)
{
	switch (c) {
	case CTL_CAUSE_HAND:
		return "hand";
	case CTL_CAUSE_STOP:
		return "stop";
	case CTL_CAUSE_TRIP:
		return "tripped";
	case CTL_CAUSE_NONE:
		break;
	}
	return "";
}

const char *ctl_cause_text(enum ctl_cause c)
{
	switch (c) {
	case CTL_CAUSE_HAND:
		return "by hand";
	case CTL_CAUSE_STOP:
		return "by stop";
	case CTL_CAUSE_TRIP:
		return "tripped";
	case CTL_CAUSE_NONE:
		break;
	}
	return "open";
}

const char *ctl_closed_reason(enum ctl_cause cause, enum trip_rule rule)
{
	switch (cause) {
	case CTL_CAUSE_STOP:
		return "stopped";
	case CTL_CAUSE_TRIP:
		switch (rule) {
		case TRIP_REFUSED_RATE:
			return "paused: too many calls refused within a "
			       "minute";
		case TRIP_REFUSED_TARGETS:
			return "paused: too many different targets refused "
			       "within 10 minutes";
		case TRIP_METADATA:
			return "paused: a call to a cloud metadata address";
		case TRIP_DNS_NAMES:
			return "paused: too many different names looked up "
			       "under one domain within a minute";
		case TRIP_NONE:
			break;
		}
		return "paused";
	case CTL_CAUSE_HAND:
	case CTL_CAUSE_NONE:
		break;
	}
	return "paused";
}

enum ctl_cause ctl_cause_from_name(const char *s)
{
	static const enum ctl_cause all[] = {CTL_CAUSE_HAND, CTL_CAUSE_STOP,
					     CTL_CAUSE_TRIP};
	for (size_t i = 0; s && i < ARRAY_SIZE(all); i++)
		if (strcmp(s, ctl_cause_name(all[i])) == 0)
			return all[i];
	return CTL_CAUSE_NONE;
}

const char *trip_rule_text(enum trip_rule r)
{
	switch (r) {
	case TRIP_REFUSED_RATE:
		return "too many calls refused within a minute";
	case TRIP_REFUSED_TARGETS:
		return "too many different targets refused within 10 minutes";
	case TRIP_METADATA:
		return "a call to a cloud metadata address";
	case TRIP_DNS_NAMES:
		return "too many different names looked up under one domain "
		       "within a minute";
	case TRIP_NONE:
		break;
	}
	return "";
}

const char *trip_rule_name(enum trip_rule r)
{
	switch (r) {
	case TRIP_REFUSED_RATE:
		return "refused-rate";
	case TRIP_REFUSED_TARGETS:
		return "refused-targets";
	case TRIP_METADATA:
		return "metadata";
	case TRIP_DNS_NAMES:
		return "dns-names";
	case TRIP_NONE:
		break;
	}
	return "";
}

enum trip_rule trip_rule_from_name(const char *s)
{
	static const enum trip_rule all[] = {TRIP_REFUSED_RATE,
					     TRIP_REFUSED_TARGETS,
					     TRIP_METADATA, TRIP_DNS_NAMES};
	for (size_t i = 0; s && i < sizeof(all) / sizeof(all[0]); i++)
		if (strcmp(s, trip_rule_name(all[i])) == 0)
			return all[i];
	return TRIP_NONE;
}
