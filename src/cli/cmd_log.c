/* lnk sandbox log: every call on the wires of the sandboxes (lnk-sandbox(1),
 * COMMANDS, log): when (UTC), which sandbox, the verb, where
 * to, and what happened; and the files that run outside the guard refused
 * to create (verb file, target FOLDER/NAME). The log never holds a request's
 * path, header or body, so this prints none.
 *
 * --follow reads the database again every POLL_MS for calls with a larger
 * id than the last it printed: it never talks to a wire, so a follower
 * cannot slow one down, and it sees every wire of this user alike.
 *
 * Exit status: 0; 2 usage; 125 the log cannot be read. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/commands.h"
#include "common/buf.h"
#include "common/esc.h"
#include "common/util.h"
#include "common/when.h"
#include "launch/grantcheck.h"
#include "store/db.h"
#include "store/paths.h"

static void usage(FILE *f)
{
	fputs(
	    "usage: lnk sandbox log [--lines N] [--sandbox NAME] [--refused]\n"
	    "                       [--since TIME] [--follow] [--json]\n"
	    "\n"
	    "Prints the latest calls on the sandboxes' wires, oldest first:\n"
	    "TIME (UTC), SANDBOX, VERB, TARGET and WHAT happened: allowed,\n"
	    "ended with the bytes up and down, refused with the reason, or\n"
	    "failed when allowed but nothing answered.\n"
	    "\n"
	    "Verbs: connect (HTTPS, a CONNECT to host:port), http (a plain\n"
	    "http:// request), tcp (SOCKS5 or a --port), dns (a name the\n"
	    "sandbox's resolver looked up upstream or refused: TARGET is the\n"
	    "name and its type; past a burst, '-' counts the rest), udp and\n"
	    "icmp (a datagram refused), model (a call on a\n"
	    "--model route: TARGET is ROUTE/MODEL METHOD PATH, WHAT adds the\n"
	    "answer's status and the tokens in and out it said, '?' when it\n"
	    "did not; in JSON status, tokens_in and tokens_out, null when not\n"
	    "said; 'the provider served NAME' when the answer names another\n"
	    "model),\n"
	    "and file: a file that\n"
	    "runs outside which the program tried to create in a --write\n"
	    "folder, refused (its TARGET is FOLDER/NAME; logged once per name\n"
	    "and sandbox, with or without a wire), and wire: the wire itself\n"
	    "ended before its sandbox (killed or failed), failed with why; the\n"
	    "sandbox had no network from then on.\n"
	    "\n"
	    "  --lines N        the latest N calls (default 40; with --since,\n"
	    "                   every call since TIME)\n"
	    "  --sandbox NAME   only this sandbox's calls\n"
	    "  --refused        only refused calls\n"
	    "  --since TIME     only calls at or after TIME: RFC 3339\n"
	    "                   (2024-05-01T12:00:00Z) or a span back from\n"
	    "                   now (90s, 10m, 2h, 7d)\n"
	    "  -f, --follow     then print each new call as it is logged, on\n"
	    "                   every wire of yours, until interrupted\n"
	    "  --json           one JSON object per line\n"
	    "\n"
	    "On a terminal, refused and failed calls are in colour; never in\n"
	    "a pipe, nor when NO_COLOR is set.\n",
	    f);
}

/* How often --follow looks for new calls: a wire commits its calls every
 * tick, so a call shows within about a tick and this. */
#define POLL_MS 250

struct rows {
	struct strv time, sandbox, verb, target, what, outcome;
	bool json, colour;
	int64_t last; /* the largest id seen */
	struct buf out;
};

static void on_row(const struct db_call_row *r, void *ud)
{
	struct rows *rs = ud;
	if (r->id > rs->last)
		rs->last = r->id;
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
		buf_printf(b, ",\"up\":%lld,\"down\":%lld", (long long)r->up,
			   (long long)r->down);
		if (r->has_usage) {
			/* a model call: the answer's status and tokens, null
			 * where the answer did not say */
			buf_printf(b, ",\"status\":%d", r->status);
			if (r->tokens_in >= 0)
				buf_printf(b, ",\"tokens_in\":%lld",
					   (long long)r->tokens_in);
			else
				buf_puts(b, ",\"tokens_in\":null");
			if (r->tokens_out >= 0)
				buf_printf(b, ",\"tokens_out\":%lld",
					   (long long)r->tokens_out);
			else
				buf_puts(b, ",\"tokens_out\":null");
		}
		buf_puts(b, "}\n");
		return;
	}
	/* A target is the program's word (a host it named, a file name):
	 * every column is escaped (common/esc.h) for the terminal. */
	strv_push_take(&rs->time, esc_dup(r->time));
	strv_push_take(&rs->sandbox, esc_dup(r->sandbox));
	strv_push_take(&rs->verb, esc_dup(r->verb));
	strv_push_take(&rs->target, esc_dup(r->target));
	strv_push(&rs->outcome, r->outcome);
	_cleanup_free_ char *outcome = esc_dup(r->outcome);
	_cleanup_free_ char *reason = esc_dup(r->reason);
	if (strcmp(r->outcome, "ended") == 0 && r->has_usage) {
		char in[24] = "?", out[24] = "?";
		if (r->tokens_in >= 0)
			snprintf(in, sizeof(in), "%lld",
				 (long long)r->tokens_in);
		if (r->tokens_out >= 0)
			snprintf(out, sizeof(out), "%lld",
				 (long long)r->tokens_out);
		strv_pushf(&rs->what,
			   "ended, status %d, %lld up, %lld down, tokens %s in "
			   "%s out%s%s",
			   r->status, (long long)r->up, (long long)r->down, in,
			   out, r->reason[0] ? ": " : "", reason);
	} else if (strcmp(r->outcome, "ended") == 0 &&
		   /* a tool's call carries no bytes: its reason holds its
		    * status; a lookup's, what came of it */
		   strcmp(r->verb, "tool") != 0 &&
		   strcmp(r->verb, "page") != 0 && strcmp(r->verb, "dns") != 0)
		strv_pushf(&rs->what, "ended, %lld up, %lld down",
			   (long long)r->up, (long long)r->down);
	else if (r->reason[0])
		strv_pushf(&rs->what, "%s: %s", outcome, reason);
	else
		strv_push(&rs->what, outcome);
}

static void rows_clear(struct rows *rs)
{
	strv_free(&rs->time);
	strv_free(&rs->sandbox);
	strv_free(&rs->verb);
	strv_free(&rs->target);
	strv_free(&rs->what);
	strv_free(&rs->outcome);
	buf_free(&rs->out);
}

/* A column's width: its widest value, at least least; a value longer than
 * COLUMN_MAX (a long path or host the program chose) overflows its own
 * row only, never pushing every other row's WHAT out of sight. */
#define COLUMN_MAX 64
static int width(const struct strv *v, const char *head, int least)
{
	size_t w = strlen(head);
	for (size_t i = 0; i < v->n; i++)
		if (strlen(v->v[i]) > w && strlen(v->v[i]) <= COLUMN_MAX)
			w = strlen(v->v[i]);
	return (int)w > least ? (int)w : least;
}

/* Colour only for a person: stdout a terminal, NO_COLOR unset or empty
 * (no-color.org), and a terminal that is not "dumb". */
static bool want_colour(void)
{
	const char *no = getenv("NO_COLOR");
	const char *term = getenv("TERM");
	return isatty(STDOUT_FILENO) && !(no && *no) &&
	       !(term && strcmp(term, "dumb") == 0);
}

/* SGR of a call's outcome, or NULL: red refused, yellow failed. */
static const char *colour_of(const char *outcome)
{
	if (strcmp(outcome, "refused") == 0)
		return "\033[31m";
	if (strcmp(outcome, "failed") == 0)
		return "\033[33m";
	return NULL;
}

struct widths {
	int t, s, v, g;
};

static void print_rows(struct rows *rs, const struct widths *w)
{
	for (size_t i = 0; i < rs->time.n; i++) {
		const char *c = rs->colour ? colour_of(rs->outcome.v[i]) : NULL;
		printf("%-*s  %-*s  %-*s  %-*s  %s%s%s\n", w->t, rs->time.v[i],
		       w->s, rs->sandbox.v[i], w->v, rs->verb.v[i], w->g,
		       rs->target.v[i], c ? c : "", rs->what.v[i],
		       c ? "\033[0m" : "");
	}
}

/* Writes what the rows hold and empties them; false when stdout is gone
 * (a reader such as head that has had enough). */
static bool emit(struct rows *rs, const struct widths *w)
{
	if (rs->json && rs->out.len)
		fwrite(rs->out.p, 1, rs->out.len, stdout);
	else if (!rs->json)
		print_rows(rs, w);
	rows_clear(rs);
	return fflush(stdout) == 0;
}

/* The database, waiting for it with --follow: a user's first wire makes
 * it. Returns 0, -ENOENT (none, without follow), or -errno. */
static int open_log(const char *path, bool follow, struct db **db,
		    struct lnk_err *err)
{
	for (;;) {
		int r = db_open(path, true, db, err);
		if (r != -ENOENT || !follow)
			return r;
		poll(NULL, 0, POLL_MS);
	}
}

/* Reads the calls q asks for into rs; a database no wire has written yet
 * has no calls table, which is no calls. */
static int read_calls(struct db *db, const struct db_log_query *q,
		      struct rows *rs, struct lnk_err *err)
{
	int r = db_log_read(db, q, on_row, rs, err);
	if (r < 0 && strstr(err->msg, "no such table"))
		return 0;
	return r;
}

static void count_row(const struct db_call_row *r, void *ud)
{
	(void)r;
	(*(size_t *)ud)++;
}

/* What an empty answer says: what was asked, so that a sandbox's name
 * mistyped or a window too short is not read as "nothing happened". */
static void say_none(struct db *db, const struct db_log_query *q,
		     const char *since_arg)
{
	struct lnk_err err = {0};

	if (!q->sandbox && !q->since && !q->refused) {
		puts("no calls logged yet");
		return;
	}
	_cleanup_free_ char *name = q->sandbox ? esc_dup(q->sandbox) : NULL;
	if (q->sandbox) {
		struct db_log_query any = {.lines = 1, .sandbox = q->sandbox};
		size_t n = 0;
		if (db_log_read(db, &any, count_row, &n, &err) == 0 && n == 0) {
			printf("no sandbox named %s has logged a call ('lnk "
			       "sandbox log' shows every sandbox's)\n",
			       name);
			return;
		}
	}
	struct buf b = {0};
	buf_puts(&b, q->refused ? "no refused calls" : "no calls");
	if (q->sandbox)
		buf_printf(&b, " of sandbox %s", name);
	if (q->since) {
		/* a span ("0s", "10m") said with the time it stands for */
		_cleanup_free_ char *arg = esc_dup(since_arg);
		buf_printf(&b, " since %s", q->since);
		if (strcmp(since_arg, q->since) != 0)
			buf_printf(&b, " (--since %s)", arg);
	}
	buf_puts(&b, " in the log\n");
	fwrite(b.p, 1, b.len, stdout);
	buf_free(&b);
}

static int follow(struct db *db, struct db_log_query *q, struct rows *rs,
		  const struct widths *w)
{
	struct lnk_err err = {0};
	q->lines = 0;
	for (;;) {
		q->after = rs->last;
		if (read_calls(db, q, rs, &err) < 0)
			diex(LNK_EXIT_FAIL, "%s", err.msg);
		if (!emit(rs, w))
			return errno == EPIPE ? 0 : LNK_EXIT_FAIL;
		poll(NULL, 0, POLL_MS);
	}
}

int cmd_log(int argc, char **argv, const struct cli_ctx *cx)
{
	static const char *const opts[] = {"--lines", "--sandbox", "--refused",
					   "--since", "--follow",  "--json",
					   "--help",  NULL};
	struct db_log_query q = {.lines = 40};
	struct rows rs = {0};
	bool follow_on = false, lines_given = false;
	char since[32];
	const char *since_arg = NULL;
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
		if (strcmp(a, "--follow") == 0 || strcmp(a, "-f") == 0) {
			follow_on = true;
			continue;
		}
		size_t n = strcspn(a, "=");
		if ((strncmp(a, "--lines", n) == 0 && n == 7) ||
		    (strncmp(a, "--sandbox", n) == 0 && n == 9) ||
		    (strncmp(a, "--since", n) == 0 && n == 7))
			v = a[n] ? a + n + 1
				 : (i + 1 < argc ? argv[++i] : NULL);
		else
			return usage_unknown_option("log", a, opts);
		if (!v) {
			warnx_("'%.*s' needs a value", (int)n, a);
			return LNK_EXIT_USAGE;
		}
		if (strncmp(a, "--lines", n) == 0) {
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
			lines_given = true;
		} else if (strncmp(a, "--since", n) == 0) {
			struct lnk_err err = {0};
			time_t t;
			if (when_parse(v, time(NULL), &t, &err) < 0) {
				warnx_("--since: %s", err.msg);
				return LNK_EXIT_USAGE;
			}
			db_format_time(t, since);
			q.since = since;
			since_arg = v;
		} else {
			q.sandbox = v;
		}
	}
	if (q.since && !lines_given)
		q.lines = 0;
	rs.colour = !rs.json && want_colour();

	/* ~/.lnk is hidden inside: "no calls logged yet" would be false. */
	if (grantcheck_inside_sandbox())
		diex(LNK_EXIT_FAIL, "this is inside a lnk sandbox, which "
				    "cannot read the log; run 'lnk sandbox "
				    "log' outside it");

	struct lnk_err err = {0};
	const char *home = cx->home;
	_cleanup_free_ char *path = paths_db(home);
	struct db *db;
	int r = open_log(path, follow_on, &db, &err);
	if (r == -ENOENT) {
		if (!rs.json)
			puts("no calls logged yet");
		return 0;
	}
	if (r < 0)
		diex(LNK_EXIT_FAIL, "%s", err.msg);
	r = read_calls(db, &q, &rs, &err);
	if (r < 0) {
		db_close(db);
		diex(LNK_EXIT_FAIL, "%s", err.msg);
	}
	/* Following, the columns keep the widths of the first lines (at
	 * least these), and a longer value later only pushes its line. */
	struct widths w = {
	    width(&rs.time, "TIME", follow_on ? 20 : 0),
	    width(&rs.sandbox, "SANDBOX", follow_on ? 12 : 0),
	    width(&rs.verb, "VERB", follow_on ? 7 : 0),
	    width(&rs.target, "TARGET", follow_on ? 24 : 0),
	};
	if (!rs.json && rs.time.n == 0 && !follow_on) {
		say_none(db, &q, since_arg);
		db_close(db);
		return 0;
	}
	if (!rs.json)
		printf("%-*s  %-*s  %-*s  %-*s  %s\n", w.t, "TIME", w.s,
		       "SANDBOX", w.v, "VERB", w.g, "TARGET", "WHAT");
	bool ok = emit(&rs, &w);
	if (ok && follow_on)
		r = follow(db, &q, &rs, &w);
	else
		r = ok || errno == EPIPE ? 0 : LNK_EXIT_FAIL;
	db_close(db);
	rows_clear(&rs);
	return r;
}
