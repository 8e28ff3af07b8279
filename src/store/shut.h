/* Whether a sandbox's wire is closed, for the sandbox's other channels.
 *
 * Threat: closing a wire (lnk sandbox pause, a tripwire, stop) promises
 * that every new call is refused and the open ones end within a second.
 * The tools broker carries calls too: a tool runs outside as the person,
 * a page opens in their browser. Without this the broker went on running
 * them while the wire refused everything, and a program whose wire had
 * tripped (its calls looked like no normal work) still acted outside
 * through a granted tool.
 *
 * The wire writes its state into memory lnk maps shared before it forks
 * the wire and the broker; the broker reads it before each call and while
 * calls are open. The state is one word, stored and loaded whole (C11
 * atomics), so a reader never sees half of it. Only the wire writes it; a
 * wire that wrote "open" falsely could reach the network anyway, so the
 * word grants nothing the writer does not already hold. */
#pragma once

#include <stdbool.h>

#include "proto/ctl.h"

struct shut;

/* The shared word, open, or NULL when no shared memory can be had (the
 * caller then has no wire state to share: a run refuses to start). */
struct shut *shut_new(void);
void shut_free(struct shut *s);
/* The wire closed (cause, and the rule for a trip), or opened again
 * (CTL_CAUSE_NONE). NULL s: nothing. */
void shut_set(struct shut *s, enum ctl_cause cause, enum trip_rule rule);
/* Whether it is closed now, and why. NULL s: open (no wire). */
bool shut_closed(const struct shut *s, enum ctl_cause *cause,
		 enum trip_rule *rule);
