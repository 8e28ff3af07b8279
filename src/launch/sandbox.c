/* One sandbox, from a resolved policy to the program's exit (sandbox.h).
 *
 * Shared by run, check and enter, so that check and enter start the very
 * sandbox run starts: a check that built its own would prove nothing
 * about run.
 *
 * Parse, then act (docs/design.md, "The processes of one run"): the run
 * is first a value (which parts it has: parts.h), then a plan each
 * wanted part adds its share to, sealed before anything forks; only then
 * do the parts start, in the table's order: the processes lnk forks
 * before bwrap and before any thread, bwrap, then (bwrap's child
 * exec'd, still before any thread) the processes whose fork need not
 * delay bwrap, and while it makes the sandbox the threads and the
 * registration (the hold). Each part's steps
 * are in a file of its own (part_*.c); lnk's own are in run.c. Any step
 * that fails ends the run before the program runs, everything undone
 * (fail closed).
 */
#include "launch/sandbox.h"

#include "launch/run.h"

int sandbox_run(const struct sandbox_req *req, int *status, struct lnk_err *err)
{
	struct run r;
	struct spawn_result res;
	int rc;

	*status = LNK_EXIT_FAIL;
	run_init(&r, req, err);
	/* Parse: the request, each part's plan, the launch plan whole. */
	if ((rc = run_check(&r)) < 0 || (rc = parts_plan(&r)) < 0 ||
	    (rc = parts_bind(&r)) < 0 || (rc = run_seal(&r)) < 0)
		return run_fail(&r, rc, status);
	/* Act: signals blocked first, so the threads and processes to come
	 * leave them to the supervisor; the processes forked before bwrap;
	 * then bwrap, whose hold forks and starts the rest, and whose end
	 * ends every part. */
	spawn_block_signals();
	if ((rc = parts_start(&r)) < 0)
		return run_fail(&r, rc, status);
	rc = run_spawn(&r, &res);
	parts_end(&r, true);
	return run_finish(&r, rc, &res, status);
}
