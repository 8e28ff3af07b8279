/* The tools broker's starter, inside (broker.c): its calls and state,
 * and the call log it writes (calllog.c). Not for other modules. */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/util.h"
#include "proto/toolcall.h"
#include "store/db.h"
#include "tools/answer.h"
#include "tools/asks.h"
#include "tools/broker.h"
#include "tools/folder.h"
#include "tools/view.h"

struct trip;

struct call {
	bool busy;	  /* the slot holds a call the reader handed on */
	bool gone;	  /* its client went away */
	pid_t pid;	  /* the tool (its process group), or 0 */
	char *target;	  /* the log's target: the whole call, folded */
	int64_t row;	  /* its row in the log, written before it ran */
	const char *why;  /* how it ended, when it was ended first */
	char ended[96];	  /* why's text, when it is not a constant */
	char how[64];	  /* "allowed", or the question and its answer */
	const char *verb; /* the log's: "tool", or "page" */
	/* While a question waits: the call, its descriptors, the question. */
	bool asking;
	struct tools_call tc;
	const struct tool_grant *g;
	int fds[TOOLS_NFDS];
	char id[ASK_ID_LEN + 1];
	int64_t expires_ms;
	/* The folder the tool runs in, chosen when it was asked (the
	 * question names it), and the note on its stderr. */
	bool has_dir;
	int dirfd;
	char *note;
};

struct broker {
	const struct tools_broker_in *in;
	struct strv env; /* the tools' environment (tools_env) */
	int pass;	 /* the reader's socket (proto/toolpass.h) */
	pid_t reader;
	bool ending; /* the sandbox is over: refusals logged, no call run */
	/* The call log, written by this process itself, before a call is
	 * carried (log_start): no call runs whose row is not written. */
	struct db *db;
	/* how many refusals are logged one by one: the sandbox's one cap,
	 * shared with its wire, or the broker's own */
	struct refusals_shared *cap;
	uint64_t nolog;	     /* calls refused for want of a log */
	unsigned pages_said; /* pages shown on lnk's stderr (PAGES_SAID_MAX) */
	char nolog_why[DB_WHY_MAX];
	struct call calls[TOOLS_MAX_CALLS];
	char *buf;		/* one message from the reader */
	struct tools_tops tops; /* the write folders' tops (folder.h) */
	/* The hidden folders held by identity from the start (view.h), and
	 * where they are now, read again for each call. */
	struct tools_pins pins;
	struct strv pins_now;
	int desktop;  /* the desktop process's socket (desktop.h), or -1 */
	bool can_ask; /* a terminal, or a desktop channel */
	/* more git driver commands in reach than the tools' environment
	 * stands in for (env.h): no tool runs */
	bool drivers_over;
	struct answer_box answers; /* the person's answers (answer.h) */
	/* the registry, for a sandbox without a wire: whether it is paused
	 * (wire_closed), opened at the first question */
	struct registry *reg;
	/* the tripwires of a sandbox without a wire (wire/trip.h), or NULL:
	 * a wire's are told through the box (store/tripbox.h) */
	struct trip *trip;
	/* tripped, and the registry's row could not say so: closed until
	 * the sandbox ends, as nothing could open it again */
	bool trip_unrecorded;
};

/* Why no call is carried now (closed.c): the wire's reason while it is
 * closed (paused, tripped, stopped), NULL while it is open. */
const char *broker_closed(struct broker *b);
/* A call refused for what the person allowed, for the tripwires
 * (closed.c). */
void broker_trip_told(struct broker *b, const char *target);

/* The call log (calllog.c). A refusal's row, under the sandbox's cap; a
 * summary of those counted, when due; a carried call's row, before it is
 * carried (-1: it cannot be written, msg says so, the call is refused);
 * its end. */
int broker_log_db(struct broker *b, struct lnk_err *e);
void broker_log_refused(struct broker *b, const char *verb, const char *target,
			const char *why);
void broker_log_summary(struct broker *b, bool end);
int broker_log_start(struct broker *b, struct call *c, char *msg, size_t cap);
void broker_log_end(struct broker *b, struct call *c, enum db_outcome o,
		    const char *why);
