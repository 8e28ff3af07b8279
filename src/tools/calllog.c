/* The tools broker's call log (broker_int.h): every call it carries has
 * its row written first, every refusal a row under the sandbox's one cap
 * (store/refusals.h), and what cannot be written is said on stderr. */
#include <stdio.h>

#include "common/esc.h"
#include "store/refusals.h"
#include "tools/broker_int.h"

/* The log's connection, opened at the first call: a sandbox whose
 * program calls no tool never opens it. A lock held by another process
 * is waited for LOG_WAIT_MS, then the write fails and the call with it. */
#define LOG_WAIT_MS 2000
int broker_log_db(struct broker *b, struct lnk_err *e)
{
	if (b->db)
		return 0;
	return db_open_wait(b->in->db, false, LOG_WAIT_MS, &b->db, e);
}

/* A refusal's row, under the cap every channel keeps (refusals.h): a
 * flood of refused calls grows the log by a burst, then a row a second,
 * then counts. A refusal carried nothing, so one whose row cannot be
 * written is still refused; that is said once on stderr. */
void broker_log_refused(struct broker *b, const char *verb, const char *target,
			const char *why)
{
	struct lnk_err e = {0};
	int64_t row;

	if (!refusals_shared_take(b->cap, mono_ms()))
		return;
	if (broker_log_db(b, &e) < 0 ||
	    db_record_call(b->db, b->in->sandbox, verb, target, DB_REFUSED, why,
			   &row, &e) < 0) {
		if (!b->nolog_why[0])
			term_write(2, "lnk: call log: a refused tool call "
				      "could not be logged\n");
		snprintf(b->nolog_why, sizeof(b->nolog_why), "%s", e.msg);
	}
}

/* The count of refusals not logged one by one, as one row, when due. */
void broker_log_summary(struct broker *b, bool end)
{
	struct lnk_err e = {0};
	uint64_t n = refusals_shared_due(b->cap, mono_ms(), end);
	int64_t row;

	if (!n)
		return;
	char why[DB_REASON_MAX];
	snprintf(why, sizeof(why),
		 "%llu more tool calls refused, not logged one by one",
		 (unsigned long long)n);
	if (broker_log_db(b, &e) == 0)
		(void)db_record_call(b->db, b->in->sandbox, "tool", "?",
				     DB_REFUSED, why, &row, &e);
}

/* The call's row, written before it is carried. -1 when it cannot be:
 * then the call is refused, never carried unlogged. */
int broker_log_start(struct broker *b, struct call *c, char *msg, size_t cap)
{
	struct lnk_err e = {0};

	if (broker_log_db(b, &e) == 0 &&
	    db_record_call(b->db, b->in->sandbox, c->verb ? c->verb : "tool",
			   c->target ? c->target : "?", DB_ALLOWED, c->how,
			   &c->row, &e) == 0)
		return 0;
	b->nolog++;
	snprintf(b->nolog_why, sizeof(b->nolog_why), "%s", e.msg);
	char q[DB_WHY_MAX + 16];
	snprintf(msg, cap,
		 "the call log cannot be written (%s), and lnk carries no "
		 "call it cannot log: try again when it can",
		 esc_to(q, sizeof(q), e.msg));
	_cleanup_free_ char *say = xasprintf(
	    "lnk: sandbox %s: a tool call was refused: the call log cannot "
	    "be written (%s)\n",
	    b->in->sandbox, q);
	term_write(2, say);
	return -1;
}

/* How a carried call ended, on its row; a row that cannot be updated is
 * said on stderr instead, never dropped unsaid. */
void broker_log_end(struct broker *b, struct call *c, enum db_outcome o,
		    const char *why)
{
	struct lnk_err e = {0};

	if (b->db && db_record_end(b->db, c->row, o, why, &e) == 0)
		return;
	char q[DB_TARGET_MAX + 16], w[DB_REASON_MAX + 16];
	_cleanup_free_ char *say = xasprintf(
	    "lnk: sandbox %s: call log: the end of '%s' (%s) could not be "
	    "written\n",
	    b->in->sandbox, esc_to(q, sizeof(q), c->target ? c->target : "?"),
	    esc_to(w, sizeof(w), why));
	term_write(2, say);
}
