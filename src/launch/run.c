/* lnk, the supervisor of one run (run.h): the request checked, the host
 * read, the plan sealed, bwrap started and waited for, and what the end
 * says. The parts' own steps are theirs (part_*.c); sandbox.c walks
 * them. */
#include "launch/run.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "common/esc.h"
#include "common/pathenv.h"
#include "launch/env.h"
#include "launch/etchosts.h"
#include "launch/grantcheck.h"
#include "launch/stopnote.h"
#include "proto/initcfg.h"
#include "store/hidden.h"
#include "store/paths.h"
#include "store/refusals.h"
#include "store/registry.h"
#include "store/shut.h"
#include "store/tripbox.h"

void run_init(struct run *r, const struct sandbox_req *req, struct lnk_err *err)
{
	*r = (struct run){
	    .req = req,
	    .pol = req->pol,
	    .err = err,
	    .exit = LNK_EXIT_FAIL,
	    .wire_pair = {-1, -1},
	    .guard_pair = {-1, -1},
	    .lifeline = {-1, -1},
	    .wire_pid = -1,
	    .cg = LIMITS_CGROUP_INIT,
	    .tools = SB_TOOLS_INIT,
	};
}

int run_check(struct run *r)
{
	const struct sandbox_req *req = r->req;
	int rc;

	if (req->probe && !policy_any_command(r->pol)) {
		/* [commands] allow lists what the program may run; the probe
		 * is check's, so it is added to a copy, never to the
		 * request's policy. */
		policy_copy(&r->probe_pol, r->pol);
		r->probe_pol_init = true;
		policy_push(&r->probe_pol.k[K_COMMANDS_ALLOW], req->probe,
			    (struct toml_pos){0});
		r->pol = &r->probe_pol;
	}
	if (grantcheck_inside_sandbox())
		return err_set(r->err, -EPERM,
			       "this is already inside a lnk sandbox, and a "
			       "sandbox cannot start inside another; run lnk "
			       "outside it");
	if ((rc = grantcheck(r->pol, r->err)) < 0) {
		if (rc == -EINVAL)
			r->exit = LNK_EXIT_USAGE;
		return rc;
	}
	/* The folders every sandbox hides must be the ones lnk saw before:
	 * one moved or swapped would be shown where it is now. */
	if ((rc = hidden_check(req->home, r->err)) < 0)
		return rc;
	r->name =
	    req->name ? xstrdup(req->name) : xasprintf("run-%d", (int)getpid());
	limits_find(&r->lw);
	struct run_facts f = {
	    .named = req->name != NULL,
	    .probe = req->probe != NULL,
	    .no_one_to_ask = req->no_one_to_ask,
	    .root = getuid() == 0,
	    .cgroup = r->lw.kind,
	};
	run_want_make(&r->want, r->pol, &f);
	return 0;
}

int run_plan_host(struct run *r)
{
	const struct sandbox_req *req = r->req;
	_cleanup_free_ char *vcache = paths_bwrap_cache(req->home);
	_cleanup_free_ char *ncache = paths_etc_names_cache(req->home);
	int rh = host_gather(&r->host, vcache, ncache, r->err);
	limits_defaults(&r->lim);
	_cleanup_free_ char *settings = paths_settings(req->home);
	int rl = rh < 0 ? 0 : limits_load_settings(settings, &r->lim, r->err);

	if (rh < 0 || rl < 0)
		return rh < 0 ? rh : rl;
	/* From here a refused name is the run's error, before any other. */
	r->enter_first = true;
	int rc;
	if (r->ej.may_move && (rc = registry_part_wait(r)) < 0) {
		if (r->err)
			*r->err = r->ej.err;
		return rc;
	}
	if (r->ej.may_move && r->ej.moved_from) {
		warnx_("a sandbox named '%s' is already running; this one is "
		       "'%s'",
		       r->ej.moved_from, r->name);
		free(steal_pointer(&r->ej.moved_from));
	}
	struct strv notes = {0};
	limits_lower(&r->lim, r->pol, &notes);
	for (size_t i = 0; i < notes.n; i++)
		warnx_("%s", notes.v[i]);
	strv_free(&notes);
	path_relative_notes(env_lookup(req->host_env, "PATH"), req->home,
			    &notes);
	for (size_t i = 0; i < notes.n; i++)
		warnx_("%s", notes.v[i]);
	strv_free(&notes);
	/* its own name resolves inside (launch/etchosts.h) */
	return etchosts_name(&r->host, r->name, r->err);
}

int run_seal(struct run *r)
{
	int rc = initcfg_encode(&r->plan.init, &r->cfg);
	if (rc < 0)
		return err_set(r->err, rc,
			       "cannot prepare the sandbox's settings: %s",
			       strerror(-rc));
	return 0;
}

struct refusals_shared *run_shared_cap(struct run *r)
{
	if (!r->cap)
		r->cap = refusals_shared_new(refusals_clock_ms());
	return r->cap;
}

/* spawn_run's hold: while bwrap makes the sandbox, each part's hold,
 * then what is said before the program runs. The program waits for it
 * (lnk-init reads the answer first), so a refused name still ends the
 * run before anything of the program starts. */
static int hold(void *arg)
{
	struct run *r = arg;
	/* first, before any thread: what is forked as bwrap starts */
	int rc = parts_spawned(r);
	if (rc < 0)
		return r->hold_r = rc;
	/* the run's start on each write folder's clock, while bwrap makes
	 * the sandbox and before the program may run */
	changes_run_stamp(&r->chg);
	rc = parts_hold(r);
	if (rc < 0)
		return r->hold_r = rc;
	/* bwrap holds its own copies of the /etc files now. */
	host_close_etc(&r->host);
	if (r->elsewhere)
		warnx_("the current folder is not granted: the program starts "
		       "in '%s' (grant it with --read . or --write .)",
		       r->plan.bw.chdir);
	if (!r->want.probe && r->ej.stopped)
		warnx_("a stop is in force ('lnk sandbox stop'): this "
		       "sandbox's network stays closed until 'lnk sandbox "
		       "stop --off'");
	return 0;
}

/* Every process of the sandbox has ended: lnk's own end of it, while the
 * kernel still takes the sandbox's namespaces down and bwrap has not
 * exited, so that none of it waits for them (about 0.8 ms, measured). */
static void ended(void *arg)
{
	parts_end(arg, false);
}

static int ended_fd(void *arg)
{
	const struct run *r = arg;
	return guard_ended_fd(r->guard);
}

int run_spawn(struct run *r, struct spawn_result *res)
{
	const struct sandbox_req *req = r->req;
#ifdef LNK_TEST_HOOKS
	/* TEST BUILDS ONLY (meson -Dtest_hooks=true): LNK_TEST_BEFORE_SPAWN=
	 * a shell command run once the plan is whole and before bwrap starts,
	 * where another sandbox's program could swap a granted folder. */
	const char *before = getenv("LNK_TEST_BEFORE_SPAWN");
	if (before && system(before) != 0)
		warnx_("LNK_TEST_BEFORE_SPAWN failed");
#endif
	struct spawn_req sreq = {
	    .bwrap = r->plan.bwrap,
	    .opts = &r->plan.bw.opts,
	    .tail = &r->plan.tail,
	    .config = r->cfg.p,
	    .config_len = r->cfg.len,
	    .passwd = r->plan.passwd,
	    .group = r->plan.group,
	    .wire_fd = r->wire_pair[1],
	    .guard_fd = r->guard_pair[1],
	    .files = r->plan.files,
	    .nfiles = r->plan.nfiles,
	    .pty = r->plan.pty,
	    .end_on_hangup = req->end_on_hangup,
	    .cgroup_procs = {r->cg.procs[0], r->cg.procs[1]},
	    .view = r->view.on ? &r->view : NULL,
	    .ask = r->tools.ask,
	    .hold = hold,
	    .hold_ctx = r,
	    .ended_fd = ended_fd,
	    .ended = ended,
	    .ended_ctx = r,
	};
	/* the report's plan; its clock is read in hold() */
	changes_run_begin(&r->chg, req->probe ? CHANGES_OFF : req->changes,
			  r->pol);
	r->chg_begun = true;
	return spawn_run(&sreq, res, r->err);
}

static void close_pair(int p[2])
{
	for (int i = 0; i < 2; i++)
		if (p[i] >= 0) {
			close(p[i]);
			p[i] = -1;
		}
}

static void run_free(struct run *r)
{
	/* The guard's workers add to the queue: stop them first. */
	guard_part_end(r, false);
	if (r->probe_pol_init)
		policy_free(&r->probe_pol);
	host_facts_free(&r->host);
	plan_free(&r->plan);
	refusals_shared_free(r->cap);
	r->cap = NULL;
	shut_free(r->shut);
	r->shut = NULL;
	tripbox_free(r->trips);
	r->trips = NULL;
	if (r->wp_init)
		wire_plan_free(&r->wp);
	guard_plan_free(&r->np);
	strv_free(&r->extra_env);
	strv_free(&r->ro_over);
	free(r->listeners);
	close_pair(r->wire_pair);
	close_pair(r->guard_pair);
	close_pair(r->lifeline);
	buf_free(&r->cfg);
	limits_cgroup_end(&r->cg);
	limits_where_free(&r->lw);
	free(r->cg_tag);
	devnodes_remove(&r->dev);
	hostview_free(&r->view);
	sb_tools_end(&r->tools);
	registry_part_end(r, true);
	free(r->ej.moved_from);
	free(r->name);
}

int run_fail(struct run *r, int rc, int *status)
{
	struct enter_job *j = r->enter;
	int st = r->exit;

	/* A registration not yet made is not made for a run that ends before
	 * its refusal would come first. */
	if (j && j->deferred && !r->enter_first)
		r->enter = NULL;
	else if (j && registry_part_wait(r) < 0 && r->enter_first) {
		if (r->err)
			*r->err = j->err;
		st = LNK_EXIT_FAIL;
		rc = j->r;
	}
	*status = st;
	run_free(r);
	return rc;
}

int run_finish(struct run *r, int rc, const struct spawn_result *res,
	       int *status)
{
	const struct sandbox_req *req = r->req;
	int64_t stop_since = 0;

	r->exit = LNK_EXIT_FAIL;
	if (rc < 0 || res->held) /* held: the program never ran */
		return run_fail(r, rc < 0 ? rc : r->hold_r, status);
	if (!res->started && res->status != 0 && res->status < 128) {
		/* Why bwrap could not make the sandbox, and where to look. */
		_cleanup_free_ char *hint = host_userns_hint();
		if (hint)
			rc = err_set(r->err, -EIO,
				     "the sandbox could not start: %s; run "
				     "'lnk sandbox ready' to fix it",
				     hint);
		else
			rc = err_set(r->err, -EIO,
				     "the sandbox could not start: bubblewrap "
				     "(%s) failed (its message is above); run "
				     "'lnk sandbox ready' to check this "
				     "machine",
				     r->plan.bwrap);
		return run_fail(r, rc, status);
	}
	/* Ended by a signal while a stop began: say who ended it, or the
	 * user sees a program gone without a word. */
	if (!req->probe && res->status > 128 &&
	    stopnote_in_force(req->home, &stop_since) &&
	    stop_since >= r->started_ms)
		warnx_("stopped by 'lnk sandbox stop'");
	/* after the program's own output, before lnk exits; never its
	 * status */
	if (res->started)
		changes_run_end(&r->chg, r->name, req->home, req->host_env);
	else
		changes_run_end(&r->chg, NULL, NULL, NULL);
	/* 126 is what shells (and npm, make, env) exit with when a program
	 * cannot run; under [commands] that is most often Landlock refusing
	 * one. The guard names the ones it saw (exec.c); for the rest (an
	 * interpreter a script names, fexecve) say where to look. */
	if (!req->probe && res->status == LNK_EXIT_CANNOT_EXEC &&
	    !policy_any_command(r->pol) && r->gs.exec_named == 0)
		warnx_("the program exited with 126 (a program could not "
		       "run): if its message above says 'Permission denied' "
		       "for a program, [commands] does not allow it; add "
		       "--command NAME, or its folder with a trailing slash");
	*status = res->status;
	run_free(r);
	return 0;
}
