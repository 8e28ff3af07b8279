/* The report of one run's changes, from sandbox_run: changes_run_begin
 * before bwrap starts, changes_run_stamp (one stamp per write folder)
 * while bwrap makes the sandbox, before the program is let go,
 * changes_run_end after the program ended (the walk, stderr, lnk.db). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "changes/changes.h"
#include "common/util.h"
#include "policy/policy.h"

/* Reports kept in lnk.db (the newest). */
#define CHANGES_KEEP 200
/* Flagged lines on the terminal at the end of a run; the rest are kept. */
#define CHANGES_SHOWN 50

struct changes_run {
	enum changes_mode mode;
	size_t n;
	char *const *tops; /* the policy's write folders, borrowed */
	struct timespec *since;
	struct strv skip; /* hidden and read-only folders, the write ones */
	bool stamped;	  /* changes_run_stamp ran */
};

/* pol: resolved (its write folders are walked; its hidden and read
 * folders, which the program could not write, are not). */
void changes_run_begin(struct changes_run *r, enum changes_mode mode,
		       const struct policy *pol);
/* Each write folder's clock now: after changes_run_begin, before the
 * program can run (while bwrap makes the sandbox, before lnk-init is let
 * go). Once; r may be NULL. Without it changes_run_end reports nothing. */
void changes_run_stamp(struct changes_run *r);
/* Prints the report on stderr per the mode and keeps it (bounded); a
 * failure is a warning, never lnk's exit status. host_env: lnk's environ,
 * for its PATH. */
void changes_run_end(struct changes_run *r, const char *sandbox,
		     const char *home, char *const *host_env);
