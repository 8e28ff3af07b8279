/* The tools broker of one run (run.h, parts.c; launch/tools.h does the
 * work): its tools planned (their real paths) and listened for before
 * anything forks, so a tool missing on this machine stops the start; its
 * clients bound inside; forked before bwrap; ended with the sandbox. */
#include <errno.h>
#include <unistd.h>

#include "common/esc.h"
#include "launch/env.h"
#include "launch/run.h"
#include "proto/toolcall.h"

int tools_part_plan(struct run *r)
{
	const struct sandbox_req *req = r->req;
	int rc =
	    sb_tools_plan(&r->tools, r->pol, req->home, req->host_env, r->err);
	if (rc < 0) {
		if (rc == -EINVAL || rc == -ENOENT)
			r->exit = LNK_EXIT_USAGE;
		return rc;
	}
	/* What a pattern with free arguments gives the program, said
	 * before it runs (tools/allow.h). */
	struct strv tw = {0};
	tools_plan_warnings(&r->tools.plan, &tw);
	for (size_t i = 0; i < tw.n; i++)
		warnx_("%s", tw.v[i]);
	strv_free(&tw);
	/* Their clients come first on PATH inside. */
	strv_pushf(&r->extra_env, "PATH=%s:%s", TOOLS_BIN_INSIDE,
		   ENV_SANDBOX_PATH);
	if (r->tools.plan.pages.n)
		strv_pushf(&r->extra_env, "BROWSER=%s/www-browser",
			   TOOLS_BIN_INSIDE);
	return 0;
}

int tools_part_bind(struct run *r)
{
	sb_tools_mount(&r->tools, &r->plan,
		       r->req->probe ? NULL : r->req->argv[0]);
	return 0;
}

int tools_part_start(struct run *r)
{
	const struct sandbox_req *req = r->req;
	/* The wire's ends, made before and forked later (-1 without a
	 * wire, which ends the list): none is the broker's. */
	int keep_out[] = {r->wire_pair[0], r->wire_pair[1], r->lifeline[0],
			  r->lifeline[1], -1};
	/* Someone to ask: lnk holds the terminal it started from (a pty: it
	 * asks there, with a code), or, without a pty, its stderr is a
	 * terminal whose foreground lnk is (a person watches, and answers
	 * from another shell; a job in the background has no one); or a
	 * desktop session (the broker finds out whether there is one). */
	bool may_ask = r->want.asks;
	bool watched =
	    isatty(STDERR_FILENO) && tcgetpgrp(STDERR_FILENO) == getpgrp();
	bool can_ask = (req->pty || watched) && may_ask;

	r->tools.cap = run_shared_cap(r);
	r->tools.shut = r->shut;
	r->tools.trips = r->trips;
	r->tools.trip_calls = r->lim.trip_calls;
	r->tools.trip_targets = r->lim.trip_targets;
	return sb_tools_start(&r->tools, r->name, req->home, req->host_env,
			      keep_out, can_ask, req->pty, may_ask, r->err);
}

/* The sandbox is gone: its tools end with it. */
void tools_part_stop(struct run *r, bool gone)
{
	if (gone)
		sb_tools_end(&r->tools);
}
