/* The control protocol between the commands and a wire: the requests and
 * replies of the control socket, their fixed form (wire/ctl.h tells it
 * whole), and the names of the causes and tripwire rules that the replies
 * carry and the registry (store/registry.h) records. Pure: no I/O. Every
 * byte a peer sends is decoded here and checked. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CTL_VERSION 1
#define CTL_REQ_SIZE 8
#define CTL_REPLY_SIZE 128
#define CTL_DETAIL_MAX 88 /* with the NUL */

enum trip_rule {
	TRIP_NONE = 0,
	TRIP_REFUSED_RATE = 1,	  /* 30 calls refused within a minute */
	TRIP_REFUSED_TARGETS = 2, /* 20 different targets in 10 minutes */
	TRIP_METADATA = 3,	  /* a call to a cloud metadata address */
	TRIP_DNS_NAMES = 4,	  /* many names looked up under one domain */
};
/* The highest rule a message may carry. */
#define TRIP_RULE_LAST TRIP_DNS_NAMES

enum ctl_op {
	CTL_PAUSE = 1,
	CTL_RESUME = 2,
	CTL_STOP = 3,
	CTL_STOP_OFF = 4,
	CTL_STATUS = 5,
};

enum ctl_result {
	CTL_R_OK = 0,
	CTL_R_NOT_OWNER = 1, /* the peer's uid is not the wire's */
	CTL_R_BAD = 2,	     /* malformed request */
	CTL_R_FAILED = 3,    /* the wire could not do it */
};

enum ctl_cause {
	CTL_CAUSE_NONE = 0, /* open */
	CTL_CAUSE_HAND = 1, /* lnk sandbox pause */
	CTL_CAUSE_STOP = 2, /* lnk sandbox stop */
	CTL_CAUSE_TRIP = 3, /* a tripwire; rule says which */
};

/* A wire's state, as the handler reports it and STATUS carries it. */
struct ctl_status {
	bool closed;
	enum ctl_cause cause;
	enum trip_rule rule;
	uint32_t conns;	  /* open connections */
	int64_t since_ms; /* closed since (unix ms), or 0 */
	uint64_t up, down;
	char detail[CTL_DETAIL_MAX]; /* e.g. the target that tripped it */
};

struct ctl_reply {
	enum ctl_op op; /* 0 when refused before any request */
	enum ctl_result result;
	struct ctl_status st;
};

/* Wire format, pure (unit-tested, fuzzable). The parsers return 0 or
 * -EBADMSG and never read beyond len. */
void ctl_encode_request(enum ctl_op op, uint8_t out[CTL_REQ_SIZE]);
int ctl_parse_request(const uint8_t *buf, size_t len, enum ctl_op *op);
/* Whether buf[0..len) is a valid start of a request (so a client is
 * closed at its first wrong byte, not after a timeout). */
bool ctl_request_prefix_ok(const uint8_t *buf, size_t len);
void ctl_encode_reply(const struct ctl_reply *r, uint8_t out[CTL_REPLY_SIZE]);
int ctl_parse_reply(const uint8_t *buf, size_t len, struct ctl_reply *r);

const char *ctl_op_name(enum ctl_op op);      /* "pause", ... */
const char *ctl_cause_name(enum ctl_cause c); /* "hand", "stop", "tripped" */
/* "by hand", "by stop", "tripped" for the table. */
const char *ctl_cause_text(enum ctl_cause c);
/* Why a closed wire refuses a call, as every channel logs it: "paused",
 * "stopped", or "paused: " and the rule that tripped. */
const char *ctl_closed_reason(enum ctl_cause cause, enum trip_rule rule);
enum ctl_cause ctl_cause_from_name(const char *s); /* NONE if unknown */

/* Copies src into dst (cap bytes with the NUL) escaped to printable
 * ASCII without markup (common/esc.h, ESC_ASCII), "..." when cut: a target
 * the program chose reaches a terminal, a desktop and the paused table. */
void ctl_printable(char *dst, size_t cap, const char *src);

/* "30 calls refused within a minute", for people. */
const char *trip_rule_text(enum trip_rule r);
/* "refused-rate", "refused-targets", "metadata" (stored, --json); "" for
 * TRIP_NONE. */
const char *trip_rule_name(enum trip_rule r);
/* The inverse of trip_rule_name; TRIP_NONE for anything else. */
enum trip_rule trip_rule_from_name(const char *s);
