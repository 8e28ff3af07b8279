/* lnk sandbox paused: which wires are closed, and why: by hand, by stop, or
 * tripped (with the rule), and since when (lnk-sandbox(1), COMMANDS, paused).
 *
 * The registry (store/registry.h) says which sandboxes run; each wire is asked
 * its state over its control socket, so the answer is the wire's own. A
 * wire that does not answer is shown as down: its sandbox has no network.
 *
 * Exit status: 0; 2 usage; 125 lnk could not read its registry. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/commands.h"
#include "common/buf.h"
#include "common/esc.h"
#include "common/util.h"
#include "store/paths.h"
#include "store/registry.h"
#include "wire/ctl.h"

static void usage(FILE *f)
{
	fputs(
	    "usage: lnk sandbox paused [--json]\n"
	    "\n"
	    "Lists the closed wires: NAME, WHY (by hand, by stop, tripped, down\n"
	    "when the wire does not answer, or no wire for a sandbox without a\n"
	    "network grant), SINCE (UTC) and, for a tripwire, its rule and the call\n"
	    "that tripped it. Says first when a stop is in force.\n"
	    "\n"
	    "  --json   one JSON object: {\"stop\": null or {\"since\": ...},\n"
	    "           \"closed\": [{\"name\", \"why\", \"rule\", \"rule_text\",\n"
	    "           \"detail\", \"since\"}, ...]}\n",
	    f);
}

static void fmt_time(int64_t ms, char out[32])
{
	if (ms <= 0) {
		snprintf(out, 32, "-");
		return;
	}
	time_t t = (time_t)(ms / 1000);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

struct row {
	char name[REGISTRY_NAME_MAX + 1];
	const char *why; /* "hand", "stop", "tripped", "down", "no-wire" */
	const char *why_text;
	enum trip_rule rule;
	char detail[CTL_DETAIL_MAX + 64];
	int64_t since;
};

int cmd_paused(int argc, char **argv, const struct cli_ctx *cx)
{
	bool json = false;
	int rc = cli_json_only("paused", argc, argv, usage, &json);
	if (rc >= 0)
		return rc;

	struct lnk_err err = {0};
	const char *home = cx->home;
	struct registry *st;
	if (registry_open(home, &st, &err) < 0)
		diex(LNK_EXIT_FAIL, "%s", err.msg);
	bool stopped = false;
	int64_t stop_since = 0;
	struct registry_entry *v = NULL;
	size_t n = 0;
	if (registry_stop_get(st, &stopped, &stop_since, &err) < 0 ||
	    registry_list(st, &v, &n, &err) < 0) {
		registry_close(st);
		diex(LNK_EXIT_FAIL, "%s", err.msg);
	}
	registry_close(st);

	struct row *rows = xcalloc(n ? n : 1, sizeof(*rows));
	size_t nr = 0;
	for (size_t i = 0; i < n; i++) {
		struct ctl_reply rep;
		struct row *r = &rows[nr];
		struct lnk_err e2 = {0};
		snprintf(r->name, sizeof(r->name), "%s", v[i].name);
		if (!registry_entry_has_wire(&v[i])) {
			/* No network grant: no wire to close, no network. */
			r->why = "no-wire";
			r->why_text = "no wire";
			/* pause closed its tools and pages (control.c), or
			 * its broker's tripwires did (tools/broker.c) */
			bool trip = v[i].closed && v[i].cause == CTL_CAUSE_TRIP;
			if (trip) {
				r->why = "tripped";
				r->why_text = "tripped";
				r->rule = v[i].rule;
			}
			snprintf(r->detail, sizeof(r->detail), "%s%s",
				 trip ? "its tools and pages, no network "
					"grant; at "
				 : v[i].closed ? "no network grant; its tools "
						 "and pages closed by hand"
					       : "it has no network grant",
				 trip ? v[i].detail : "");
			r->since =
			    v[i].closed ? v[i].closed_ms : v[i].started_ms;
			nr++;
			continue;
		}
		/* Its wire is starting: it reads the stop itself when it
		 * joins, and has carried nothing yet. */
		if (v[i].wire.pid <= 0)
			continue;
		if (ctl_control_entry(home, &v[i], CTL_STATUS, 1000, &rep,
				      &e2) < 0) {
			r->why = "down";
			r->why_text = "down";
			snprintf(r->detail, sizeof(r->detail),
				 "the wire does not answer");
			r->since = v[i].closed ? v[i].closed_ms : 0;
			nr++;
			continue;
		}
		if (!rep.st.closed)
			continue;
		r->why = ctl_cause_name(rep.st.cause);
		r->why_text = ctl_cause_text(rep.st.cause);
		r->rule = rep.st.rule;
		snprintf(r->detail, sizeof(r->detail), "%s", rep.st.detail);
		r->since = rep.st.since_ms;
		nr++;
	}
	free(v);

	char t[32];
	if (json) {
		struct buf b = {0};
		buf_puts(&b, "{\"stop\": ");
		if (stopped) {
			fmt_time(stop_since, t);
			buf_printf(&b, "{\"since\": \"%s\"}", t);
		} else {
			buf_puts(&b, "null");
		}
		buf_puts(&b, ", \"closed\": [");
		for (size_t i = 0; i < nr; i++) {
			struct row *r = &rows[i];
			fmt_time(r->since, t);
			buf_puts(&b, i ? ", {\"name\": " : "{\"name\": ");
			buf_json_str(&b, r->name, strlen(r->name));
			buf_printf(&b, ", \"why\": \"%s\", \"rule\": ", r->why);
			if (r->rule != TRIP_NONE) {
				buf_printf(&b, "\"%s\", \"rule_text\": \"%s\"",
					   trip_rule_name(r->rule),
					   trip_rule_text(r->rule));
			} else {
				buf_puts(&b, "null, \"rule_text\": null");
			}
			buf_puts(&b, ", \"detail\": ");
			buf_json_str(&b, r->detail, strlen(r->detail));
			buf_printf(&b, ", \"since\": \"%s\"}", t);
		}
		buf_puts(&b, "]}\n");
		fputs(b.p, stdout);
		buf_free(&b);
		free(rows);
		return 0;
	}

	if (stopped) {
		fmt_time(stop_since, t);
		printf(
		    "a stop is in force since %s: every wire here is closed, "
		    "and new ones start closed, until 'lnk sandbox stop --off'\n",
		    t);
	}
	if (nr == 0) {
		if (!stopped)
			printf("no wire is closed\n");
		free(rows);
		return 0;
	}
	if (stopped)
		putchar('\n');
	size_t w = 4;
	for (size_t i = 0; i < nr; i++)
		if (strlen(rows[i].name) > w)
			w = strlen(rows[i].name);
	printf("%-*s  %-8s  %-20s  %s\n", (int)w, "NAME", "WHY", "SINCE",
	       "RULE");
	for (size_t i = 0; i < nr; i++) {
		struct row *r = &rows[i];
		fmt_time(r->since, t);
		/* The detail is a target the program chose: escaped
		 * (common/esc.h), as is the name. */
		char rule[512], det[256], nm[256];
		esc_to(det, sizeof(det), r->detail);
		if (r->rule != TRIP_NONE)
			snprintf(rule, sizeof(rule), "%s%s%s%s",
				 trip_rule_text(r->rule), det[0] ? " (" : "",
				 det, det[0] ? ")" : "");
		else
			snprintf(rule, sizeof(rule), "%s", det);
		printf("%-*s  %-8s  %-20s  %s\n", (int)w,
		       esc_to(nm, sizeof(nm), r->name), r->why_text, t, rule);
	}
	free(rows);
	return 0;
}
