/* Tripwires: a wire that pauses itself when its calls look like no normal
 * work (lnk-sandbox(1), COMMANDS, paused).
 *
 * Four rules:
 *   - 30 calls refused within a minute (the 30th refusal comes less than
 *     60 s after the first of the 30);
 *   - 20 different targets refused within 10 minutes (the same target
 *     refused again counts once, and refreshes its time);
 *   - any call to a cloud metadata address: at once;
 *   - 50 different names looked up under one domain (its last two labels)
 *     within a minute of the first: data carried out in the names
 *     themselves (<chunk>.evil.example), which needs no connection and
 *     passes any grant that covers the domain ('*', '*.evil.example').
 *     A normal program asks for a few names of a domain, and again.
 * The two counts are thresholds the user's settings may set, up to
 * TRIP_RATE_MAX and TRIP_TARGETS_MAX, and a spec may only lower
 * (launch/limits.h); the metadata rule has no threshold and no off.
 *
 * Why: a program that was turned (prompt injection, a hostile package)
 * probes: it scans hosts, hammers refusals, reaches for the metadata
 * service that hands out cloud credentials, or leaks through lookups. Pausing the wire stops the
 * exfiltration channel while a person looks.
 *
 * This is a PURE state machine: no clock, no allocation, no I/O. The caller
 * passes the time (any monotonic milliseconds; tests pass a fake clock).
 * For TRIP_EV_LOOKUP the target is the name looked up, and a trip's
 * verdict names its domain as "*.domain". Its
 * memory is the fixed struct trip whatever the input: a flood of distinct
 * targets cannot grow it (the distinct-target table holds at most
 * TRIP_TARGETS entries, and reaching that count is the trip).
 *
 * How the wire uses this
 *   struct trip t; trip_init_at(&t, calls, targets);   once, at start
 *   on each call it refuses (not for "paused"/"stopped" refusals):
 *       if (trip_note(&t, now_ms, TRIP_EV_REFUSED, "host:port", &v)) ...
 *   on each call whose target (an IP literal, a resolved address, or a
 *   well-known metadata name; see trip_target_is_metadata and
 *   trip_addr_is_metadata) is a cloud metadata address, allowed or not:
 *       if (trip_note(&t, now_ms, TRIP_EV_METADATA, "host:port", &v)) ...
 *   trip_note returns true exactly once, when a rule trips: the wire then
 *   closes itself (cause tripped), records v with registry_set_closed
 *   (store/registry.h) and calls ctl_notify_trip (wire/ctl.h). While tripped,
 *   trip_note returns false and counts nothing. On RESUME the wire calls
 *   trip_reset(&t) so the counting starts afresh.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "proto/ctl.h"

#define TRIP_RATE_COUNT 30 /* the default threshold */
#define TRIP_RATE_WINDOW_MS (60 * 1000)
#define TRIP_TARGETS 20 /* the default threshold */
#define TRIP_TARGETS_WINDOW_MS (10 * 60 * 1000)
/* The highest thresholds: the memory of struct trip is fixed, whatever a
 * program does, so it holds this many and no more. */
#define TRIP_RATE_MAX 1000
#define TRIP_TARGETS_MAX 200
/* A target is "host:port"; longer ones are kept as a prefix plus a hash of
 * the whole (so they stay distinct and the struct stays fixed). */
#define TRIP_TARGET_MAX 255
/* The lookup rule: distinct names under one domain within the window, in
 * a table of the last TRIP_DOMAINS domains looked up (fixed memory). */
#define TRIP_NAMES 50
#define TRIP_NAMES_WINDOW_MS (60 * 1000)
#define TRIP_DOMAINS 32

enum trip_event {
	TRIP_EV_REFUSED,  /* the wire refused a call (not for being paused) */
	TRIP_EV_METADATA, /* a call to a cloud metadata address */
	TRIP_EV_LOOKUP,	  /* a name the wire looks up upstream */
};

struct trip_verdict {
	enum trip_rule rule;
	int64_t at_ms;			  /* the now_ms of the tripping call */
	char target[TRIP_TARGET_MAX + 1]; /* the call that tripped it */
};

struct trip_target {
	int64_t last_ms;
	char key[TRIP_TARGET_MAX + 1];
};

/* One domain's names since first_ms (hashes: distinct, not kept). */
struct trip_domain {
	uint64_t key;
	int64_t first_ms, last_ms;
	unsigned n;
	uint64_t names[TRIP_NAMES];
};

struct trip {
	bool tripped;
	struct trip_verdict verdict;
	/* The thresholds: 1..TRIP_RATE_MAX and 1..TRIP_TARGETS_MAX. */
	unsigned rate_limit, targets_limit;
	/* Ring of the times of the last rate_limit refusals. */
	int64_t rate[TRIP_RATE_MAX];
	unsigned rate_head, rate_n;
	/* Distinct targets refused within the window, at most
	 * targets_limit. */
	struct trip_target targets[TRIP_TARGETS_MAX];
	unsigned ntargets;
	struct trip_domain domains[TRIP_DOMAINS];
};

/* With the default thresholds (30 and 20). */
void trip_init(struct trip *t);
/* With thresholds calls and targets; 0 is the default, and one above the
 * maximum is the maximum. */
void trip_init_at(struct trip *t, unsigned calls, unsigned targets);
/* Forgets every count and the trip (on RESUME); keeps the thresholds. */
void trip_reset(struct trip *t);

/* Notes one event at now_ms (monotonic, non-decreasing; a clock going back
 * is treated as no time passing). target is "host:port" as the program
 * asked (NULL or "" is counted as one unnamed target). Returns true when
 * this event trips a rule, and fills *out (if not NULL). */
bool trip_note(struct trip *t, int64_t now_ms, enum trip_event ev,
	       const char *target, struct trip_verdict *out);

/* True when t has tripped (until trip_reset). */
bool trip_tripped(const struct trip *t);

/* A cloud metadata address: 169.254.169.254 (AWS, GCP, Azure, ...),
 * 100.100.100.200 (Alibaba), fd00:ec2::254 (AWS IPv6), and their
 * IPv4-mapped forms. family is AF_INET (addr: 4 bytes, network order) or
 * AF_INET6 (16 bytes). */
bool trip_addr_is_metadata(int family, const void *addr);
/* The same for a host as a program names it: a strict IP literal
 * (inet_pton; "[v6]" brackets allowed) or a well-known metadata name
 * (metadata.google.internal, metadata.goog, instance-data.ec2.internal),
 * case-insensitive, a trailing dot ignored. */
bool trip_target_is_metadata(const char *host);
