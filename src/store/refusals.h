/* How many refused calls the call log takes one by one.
 *
 * Threat: every refused call is a row of ~/.lnk/sandbox/lnk.db, outside
 * every folder the program was given. A program with one grant can make
 * refused calls as fast as it likes (a CONNECT a millisecond, after the
 * wire tripped too; a resolver question for a new name each time, past
 * the last few the resolver remembers): measured, 0.5 to 5.5 MB a second,
 * until the disk is full, when no sandbox starts; and the flood buries the
 * calls a person looks for in `lnk sandbox log`.
 *
 * So refusals are logged one by one up to REFUSAL_BURST at once, then one
 * a REFUSAL_EVERY_MS; the rest are counted, and the count is logged as one
 * row at most every REFUSAL_SUMMARY_MS and when the wire ends: the log
 * still says how many calls were refused, not each one. A flood then grows
 * the log by a few rows a minute. Allowed calls are always logged one by
 * one (each is a connection to a granted host).
 *
 * A pure state machine, like trip.h: the caller passes the time (any
 * monotonic milliseconds). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#define REFUSAL_BURST 1000
#define REFUSAL_EVERY_MS 1000
#define REFUSAL_SUMMARY_MS 60000

struct refusals {
	int64_t tokens;	    /* rows that may be written now */
	int64_t refill_ms;  /* when the next one is added */
	uint64_t unlogged;  /* refusals counted since the last summary */
	int64_t summary_ms; /* when the last summary row was written */
};

void refusals_init(struct refusals *r, int64_t now_ms);
/* A refusal: true when its row is to be written, false when it is only
 * counted. */
bool refusals_take(struct refusals *r, int64_t now_ms);
/* n more refusals, counted without a row of their own (a channel that
 * could only count them). */
void refusals_count(struct refusals *r, uint64_t n);
/* The count for a summary row when one is due (end: the wire ends), and
 * resets it; 0 when none is. */
uint64_t refusals_due(struct refusals *r, int64_t now_ms, bool end);
