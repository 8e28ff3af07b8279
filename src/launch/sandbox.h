/* One sandbox, from a resolved policy to the program's exit: what `lnk
 * sandbox run` does after it parsed its flags and asked first, callable by
 * every command that starts a sandbox (run, check, enter), so that check
 * tests exactly what run builds and enter runs exactly what run runs.
 *
 * Plan everything before acting (docs/design.md, "One model"): the wire plan,
 * the dot-file guard and the launch plan are all built before the wire process,
 * the guard's threads or bwrap start.
 */
#pragma once

#include <stdbool.h>

#include "changes/changes.h"
#include "common/err.h"
#include "policy/policy.h"

/* Where check's probe (lnk-probe) is bound, read only, inside the sandbox,
 * beside lnk-init. */
#define SANDBOX_PROBE_PATH "/run/lnk/probe"

struct sandbox_req {
	const struct policy *pol; /* resolved; trust_check already passed */
	const char *home;	  /* absolute */
	const char *cwd;	  /* absolute: where the program starts if the
				   * sandbox shows it */
	const char *name;	  /* the sandbox's name; NULL: run-<pid> */
	char *const *host_env;	  /* lnk's environ: only the names the policy
				   * passes reach the program (invariant 4) */
	char *const *argv;	  /* the program and its arguments */
	int argc;
	bool pty; /* give the program a pty (spawn_wants_pty()) */
	/* enter: the sandbox ends with the session's connection
	 * (spawn.h, end_on_hangup) */
	bool end_on_hangup;
	/* No one can be asked (enter: an SSH forced command): a tool's call
	 * outside its allow lists is refused at once. */
	bool no_one_to_ask;
	/* check only: lnk-probe on the host (absolute). It is bound read
	 * only at SANDBOX_PROBE_PATH and run as the program with argv[1..];
	 * argv[0] is ignored. Landlock may execute it even when [commands]
	 * does not list it: check runs it, not the program under test. */
	const char *probe;
	/* What is said, after the program ended, of what it left in its
	 * write folders (changes/changes.h); CHANGES_OFF: no walk. */
	enum changes_mode changes;
};

/* Plans and runs the sandbox and waits for it. Returns 0 with *status the
 * program's exit status (128+N for a signal), or -errno with err set and
 * *status what lnk exits with: 127 for a program not found, 126 for one
 * that cannot run or is not allowed, 125 when lnk or bubblewrap failed
 * (the message then says why, and to run 'lnk sandbox ready').
 *
 * Blocks the supervisor's signals (spawn.h) and forks the wire: call it
 * before starting any thread. */
int sandbox_run(const struct sandbox_req *req, int *status,
		struct lnk_err *err);
