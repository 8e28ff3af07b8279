/* lnk sandbox log: every call on the wires of the sandboxes (lnk-sandbox(1),
 * COMMANDS, log): when (UTC), which sandbox, the verb, where
 * to, and what happened; and the files that run outside the guard refused
 * to create (verb file, target FOLDER/NAME). The log never holds a request's
 * path, header or body, so this prints none.
 *
 * Exit status: 0; 2 usage; 125 the log cannot be read. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "common/buf.h"
#include "common/esc.h"
#include "common/util.h"
#include "launch/grantcheck.h"
#include "store/db.h"
#include "store/paths.h"

static void usage(FILE *f)
{
	fputs(
	    "usage: lnk sandbox log [--lines N] [--sandbox NAME] [--refused] "
	    "[--json]\n"
	    "\n"
	    "Prints the latest calls on the sandboxes' wires, oldest first:\n"
	    "TIME (UTC), SANDBOX, VERB, TARGET and WHAT happened: allowed,\n"
	    "ended with the bytes up and down, refused with the reason, or\n"
	    "failed when allowed but nothing answered.\n"
	    "\n"
	    "Verbs: connect (HTTPS, a CONNECT to host:port), http (a plain\n"
	    "http:// request), tcp (SOCKS5 or a --port), file: a file that\n"
	    "runs outside which the program tried to create in a --write\n"
	    "folder, refused (its TARGET is FOLDER/NAME; logged once per name\n"
	    "and sandbox, with or without a wire), and wire: the wire itself\n"
	    "ended before its sandbox (killed or failed), failed with why; the\n"
	    "sandbox had no network from then on.\n"
	    "\n"
	    "  --lines N        the latest N calls (default 40)\n"
	    "  --sandbox NAME   only this sandbox's calls\n"
	    "  --refused        only refused calls\n"
	    "  --json           one JSON object per line\n",
	    f);
}

struct rows {
	struct strv time, sandbox, verb, target, what;
	bool json;
	struct buf out;
};

static void on_row(const struct db_call_row *r, void *ud)
{
	struct rows *rs = ud;
	if (rs->json) {
		struct buf *b = &rs->out;
		buf_puts(b, "{\"time\":");
		buf_json_str(b, r->time, strlen(r->time));
		buf_puts(b, ",\"sandbox\":");
		buf_json_str(b, r->sandbox, strlen(r->sandbox));
		buf_puts(b, ",\"verb\":");
		buf_json_str(b, r->verb, strlen(r->verb));
		buf_puts(b, ",\"target\":");
		buf_json_str(b, r->target, strlen(r->target));
		buf_puts(b, ",\"outcome\":");
		buf_json_str(b, r->outcome, strlen(r->outcome));
		buf_puts(b, ",\"reason\":");
		buf_json_str(b, r->reason, strlen(r->reason));
		buf_printf(b, ",\"up\":%lld,\"down\":%lld}\n", (long long)r->up,
			   (long long)r->down);
		return;
	}
	/* A target is the program's word (a host it named, a file name):
	 * every column is escaped (common/esc.h) for the terminal. */
	strv_push_take(&rs->time, esc_dup(r->time));
	strv_push_take(&rs->sandbox, esc_dup(r->sandbox));
	strv_push_take(&rs->verb, esc_dup(r->verb));
	strv_push_take(&rs->target, esc_dup(r->target));
	_cleanup_free_ char *outcome = esc_dup(r->outcome);
	_cleanup_free_ char *reason = esc_dup(r->reason);
	if (strcmp(r->outcome, "ended") == 0)
		strv_pushf(&rs->what, "ended, %lld up, %lld down",
			   (long long)r->up, (long long)r->down);
	else if (r->reason[0])
		strv_pushf(&rs->what, "%s: %s", outcome, reason);
	else
		strv_push(&rs->what, outcome);
}

static size_t width(const struct strv *v, const char *head)
{
	size_t w = strlen(head);
	for (size_t i = 0; i < v->n; i++)
		if (strlen(v->v[i]) > w)
			w = strlen(v->v[i]);
	return w;
}

int cmd_log(int argc, char **argv, const struct cli_ctx *cx)
{
	static const char *const opts[] = {"--lines", "--sandbox", "--refused",
					   "--json",  "--help",	   NULL};
	struct db_log_query q = {.lines = 40};
	struct rows rs = {0};
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = NULL;
		if (is_help(a)) {
			usage(stdout);
			return 0;
		}
		if (strcmp(a, "--refused") == 0) {
			q.refused = true;
			continue;
		}
		if (strcmp(a, "--json") == 0) {
			rs.json = true;
			continue;
		}
		size_t n = strcspn(a, "=");
		if (strncmp(a, "--lines", n) == 0 && n == 7)
			v = a[n] ? a + n + 1
				 : (i + 1 < argc ? argv[++i] : NULL);
		else if (strncmp(a, "--sandbox", n) == 0 && n == 9)
			v = a[n] ? a + n + 1
				 : (i + 1 < argc ? argv[++i] : NULL);
		else
			return usage_unknown_option("log", a, opts);
		if (!v) {
			warnx_("'%.*s' needs a value", (int)n, a);
			return LNK_EXIT_USAGE;
		}
		if (n == 7) {
			char *end;
			errno = 0;
			long l = strtol(v, &end, 10);
			if (errno || *end || l < 1 || l > 1000000) {
				warnx_("--lines '%s' is not a number from 1 to "
				       "1000000",
				       v);
				return LNK_EXIT_USAGE;
			}
			q.lines = l;
		} else {
			q.sandbox = v;
		}
	}

	/* ~/.lnk is hidden inside: "no calls logged yet" would be false. */
	if (grantcheck_inside_sandbox())
		diex(LNK_EXIT_FAIL, "this is inside a lnk sandbox, which "
				    "cannot read the log; run 'lnk sandbox "
				    "log' outside it");

	struct lnk_err err = {0};
	const char *home = cx->home;
	_cleanup_free_ char *path = paths_db(home);
	struct db *db;
	int r = db_open(path, true, &db, &err);
	if (r == -ENOENT) {
		if (!rs.json)
			puts("no calls logged yet");
		return 0;
	}
	if (r < 0)
		diex(LNK_EXIT_FAIL, "%s", err.msg);
	r = db_log_read(db, &q, on_row, &rs, &err);
	db_close(db);
	if (r < 0) {
		/* a database no wire has written yet has no calls table */
		if (strstr(err.msg, "no such table")) {
			if (!rs.json)
				puts("no calls logged yet");
			return 0;
		}
		diex(LNK_EXIT_FAIL, "%s", err.msg);
	}
	if (rs.json) {
		if (rs.out.len)
			fwrite(rs.out.p, 1, rs.out.len, stdout);
		buf_free(&rs.out);
		return 0;
	}
	if (rs.time.n == 0) {
		puts("no calls logged yet");
		return 0;
	}
	int wt = (int)width(&rs.time, "TIME"),
	    ws = (int)width(&rs.sandbox, "SANDBOX"),
	    wv = (int)width(&rs.verb, "VERB"),
	    wg = (int)width(&rs.target, "TARGET");
	printf("%-*s  %-*s  %-*s  %-*s  %s\n", wt, "TIME", ws, "SANDBOX", wv,
	       "VERB", wg, "TARGET", "WHAT");
	for (size_t i = 0; i < rs.time.n; i++)
		printf("%-*s  %-*s  %-*s  %-*s  %s\n", wt, rs.time.v[i], ws,
		       rs.sandbox.v[i], wv, rs.verb.v[i], wg, rs.target.v[i],
		       rs.what.v[i]);
	strv_free(&rs.time);
	strv_free(&rs.sandbox);
	strv_free(&rs.verb);
	strv_free(&rs.target);
	strv_free(&rs.what);
	return 0;
}
