/* The tools broker's starter and the sandbox's closed state (broker_int.h):
 * whether a call may be carried now (the wire's shared word, or the
 * registry's row of a sandbox without a wire), and the refusals that
 * count toward the tripwires. */
#include <stdio.h>

#include "common/esc.h"
#include "common/notify.h"
#include "proto/ctl.h"
#include "store/registry.h"
#include "store/shut.h"
#include "store/tripbox.h"
#include "tools/broker_int.h"
#include "wire/trip.h"

/* Why no call is carried now: the sandbox's wire is closed (paused by
 * hand, tripped, stopped), in the words its own refusals are logged
 * with; NULL while it is open. A sandbox without a wire is paused in the
 * registry (cli/control.c): its row is read here, on a connection opened
 * at the first question; a registry that cannot be read closes nothing,
 * as pause could not have written it either. */
const char *broker_closed(struct broker *b)
{
	enum ctl_cause cause;
	enum trip_rule rule;
	if (b->in->shut) {
		if (!shut_closed(b->in->shut, &cause, &rule))
			return NULL;
		return ctl_closed_reason(cause, rule);
	}
	if (b->trip_unrecorded)
		return ctl_closed_reason(CTL_CAUSE_TRIP, b->trip->verdict.rule);
	struct lnk_err e = {0};
	if (!b->reg && registry_open_at(b->in->db, &b->reg, &e) < 0) {
		b->reg = NULL;
		return NULL;
	}
	struct registry_entry re;
	if (registry_find(b->reg, b->in->sandbox, &re, &e) < 0)
		return NULL;
	/* open again (resume): the tripwires count afresh */
	if (!re.closed && b->trip && trip_tripped(b->trip))
		trip_reset(b->trip);
	if (!re.closed)
		return NULL;
	return ctl_closed_reason(re.cause, re.rule);
}

/* A call refused for what the person allowed (no grant names it, or
 * they answered no) counts toward the sandbox's tripwires: a program
 * refused call after call probes what it may run outside as the person.
 * With a wire they are the wire's, told through the shared box; without
 * one they are the broker's, and a trip closes the tools and pages as
 * pause does (the registry's row, which resume opens), said on lnk's
 * terminal and the desktop. */
void broker_trip_told(struct broker *b, const char *target)
{
	struct trip_verdict v;
	if (b->in->shut) {
		tripbox_put(b->in->trips, target);
		return;
	}
	if (!b->trip || b->trip_unrecorded ||
	    !trip_note(b->trip, mono_ms(), TRIP_EV_REFUSED, target, &v))
		return;
	struct lnk_err e = {0};
	char nm[REGISTRY_NAME_MAX + 1], det[CTL_DETAIL_MAX];
	ctl_printable(nm, sizeof(nm), b->in->sandbox);
	ctl_printable(det, sizeof(det), v.target);
	if ((!b->reg && registry_open_at(b->in->db, &b->reg, &e) < 0) ||
	    registry_set_closed(b->reg, b->in->sandbox, CTL_CAUSE_TRIP, v.rule,
				det, registry_now_ms(), &e) < 0) {
		b->trip_unrecorded = true;
		_cleanup_free_ char *m = xasprintf(
		    "lnk: %s: a tripwire closed its tools and pages, and the "
		    "registry cannot say so (%s): they stay closed until the "
		    "sandbox ends\n",
		    nm, e.msg);
		term_write(2, m);
	}
	_cleanup_free_ char *line = xasprintf(
	    "lnk: %s: tools and pages paused: %s (%s); 'lnk sandbox resume "
	    "%s' opens them\n",
	    nm, trip_rule_text(v.rule), det[0] ? det : "?", nm);
	term_write(2, line);
	_cleanup_free_ char *title =
	    xasprintf("lnk: %s: tools and pages paused", nm);
	_cleanup_free_ char *body =
	    xasprintf("%s (%s). 'lnk sandbox resume %s' opens them.",
		      trip_rule_text(v.rule), det[0] ? det : "?", nm);
	(void)desktop_notify(b->env.v, title, body, true);
}
