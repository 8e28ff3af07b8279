/* The wire's record of what it closes, refuses and looks up: why it is
 * closed, the tripwires, the refusals said on lnk's terminal and the
 * lookups counted (wire_int.h). What the call loop (conn.c, dnsd.c,
 * model.c) reports to; it calls none of them, so the loop's files call
 * down to it and never back up into wire.c. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/util.h"
#include "store/registry.h"
#include "store/shut.h"
#include "store/tripbox.h"
#include "wire/keeper.h"
#include "net/said.h"
#include "wire/wire_int.h"

const char *wire_closed_reason(const struct wire *w)
{
	return ctl_closed_reason(w->cause, w->rule);
}

/* Refuses every new call from now on and ends the open ones after this
 * batch of events (ending them here could free the very connection whose
 * refusal tripped the wire). Recorded in the registry so `paused` shows
 * it; a failed record does not keep the wire open. */
void wire_tell_keeper_closed(struct wire *w)
{
	if (w->keeper_close_due && keeper_send_closed(w->keeper) != -EAGAIN)
		w->keeper_close_due = false; /* told, or gone */
}

void wire_close(struct wire *w, enum ctl_cause cause, enum trip_rule rule,
		const char *detail)
{
	w->closed = true;
	w->close_now = true;
	/* The tools broker refuses from now on too (store/shut.h). */
	shut_set(w->wp->shut, cause, rule);
	/* First: a connect asked a moment ago may still wait in the
	 * keeper's channel, or for its first-hop probe (seconds, for a
	 * silent address): the keeper drops it, so nothing the closed wire
	 * had asked reaches its host afterwards. */
	w->keeper_close_due = true;
	wire_tell_keeper_closed(w);
	w->cause = cause;
	w->rule = rule;
	w->closed_ms = registry_now_ms();
	ctl_printable(w->detail, sizeof(w->detail), detail ? detail : "");
	if (w->registered) {
		struct lnk_err err = {0};
		if (registry_set_closed(w->state, w->wp->name, cause, rule,
					w->detail, w->closed_ms, &err) < 0)
			fprintf(stderr, "lnk: wire: %s\n", err.msg);
	}
}

void wire_trip_note(struct wire *w, enum trip_event ev, const char *target)
{
	struct trip_verdict v;
	if (w->closed)
		return;
	if (!trip_note(&w->trip, loop_now_ms(), ev, target, &v))
		return;
	wire_close(w, CTL_CAUSE_TRIP, v.rule, v.target);
	/* The keeper writes the line on lnk's stderr (the sandbox's
	 * terminal) and shows the desktop notification: the wire may not run
	 * notify-send. */
	keeper_send_trip(w->keeper, &v);
}

/* Each call the tools broker refused counts as one the wire refused: the
 * tripwires are the sandbox's, whichever channel the program probes. What
 * a full box could not hold counts toward the rate, under one target. */
void wire_trip_told(struct wire *w)
{
	char t[TRIPBOX_SLOTS][TRIPBOX_TARGET_MAX];
	uint64_t lost = 0;
	size_t n = tripbox_take(w->wp->trips, t, TRIPBOX_SLOTS, &lost);
	for (size_t i = 0; i < n; i++)
		wire_trip_note(w, TRIP_EV_REFUSED, t[i]);
	for (uint64_t i = 0; i < lost && i < TRIP_RATE_MAX; i++)
		wire_trip_note(w, TRIP_EV_REFUSED, "tool");
}

/* Reads the writer's last commit: when the log cannot be written, new
 * calls are refused (conn.c) and the person is told once, and again when
 * it can be written again. */
bool wire_refusal_logged(struct wire *w)
{
	return refusals_shared_take(w->cap, loop_now_ms());
}

void wire_say_refused(struct wire *w, const char *host, uint16_t port,
		      const char *why)
{
	char nm[REGISTRY_NAME_MAX + 1], line[1024];
	ctl_printable(nm, sizeof(nm), w->wp->name ? w->wp->name : "");
	wire_said_line(&w->said, nm, host, port, why, line, sizeof(line));
	size_t n = strlen(line);
	if (n && w->wp->stderr_raw && n + 1 < sizeof(line)) {
		line[n - 1] = '\r';
		line[n] = '\n';
		line[n + 1] = '\0';
	}
	if (n)
		term_write(STDERR_FILENO, line);
}

const char *wire_lookup_send(struct wire *w, const char *name)
{
	wire_trip_note(w, TRIP_EV_LOOKUP, name);
	if (w->closed)
		return wire_closed_reason(w);
	if (w->log_down)
		return WIRE_LOG_DOWN_REASON;
	w->lookups++;
	return NULL;
}

void wire_refused_unread(struct wire *w, const char *why)
{
	if (wire_refusal_logged(w))
		db_batch_call(&w->batch, ++w->seq, time(NULL), "wire", "-",
			      DB_REFUSED, why, 0, 0);
}

bool wire_failure_logged(struct wire *w)
{
	return refusals_take(&w->failed_rows, loop_now_ms());
}

bool wire_lookup_logged(struct wire *w)
{
	return refusals_take(&w->lookup_rows, loop_now_ms());
}
