/* One run of a sandbox, as its parts share it: what sandbox_run plans,
 * holds and ends (parts.h walks the rows; each part's steps are in a
 * file of its own). Internal to src/launch: no one outside sees it.
 *
 * Each part owns its block of fields below; another part reads one only
 * where the plan needs both (the guard learns the wire's port and the
 * broker's socket, bwrap's plan reads what each part planned). */
#pragma once

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "changes/run.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/util.h"
#include "guard/guard.h"
#include "launch/devnodes.h"
#include "launch/host.h"
#include "launch/hostview.h"
#include "launch/limits.h"
#include "launch/parts.h"
#include "launch/plan.h"
#include "launch/sandbox.h"
#include "launch/spawn.h"
#include "launch/tools.h"
#include "wire/wire.h"

struct registry;
struct db_queue;
struct refusals_shared;
struct shut;
struct tripbox;

/* The registration (part_registry.c): on a thread of its own while lnk
 * plans, or run in bwrap's hold. */
struct enter_job {
	const char *home;
	char **name;
	bool may_move, wire, stopped;
	char *moved_from;
	struct registry *reg;
	int r;
	struct lnk_err err;
	pthread_t th;
	bool threaded; /* on a thread of its own */
	bool deferred; /* run by enter_wait, after bwrap is forked */
};

struct run {
	const struct sandbox_req *req;
	const struct policy *pol; /* req->pol, or probe_pol */
	struct run_want want;
	struct lnk_err *err;
	/* What lnk exits with when a step fails (LNK_EXIT_FAIL unless the
	 * step says otherwise: a usage error, a program not found). */
	int exit;
	char *name;

	/* lnk, the supervisor (run.c) */
	struct policy probe_pol; /* the policy plus the probe, for check */
	bool probe_pol_init;
	struct host_facts host;
	struct limits lim;
	struct limits_where lw;
	struct strv extra_env; /* the program's variables the parts add */
	struct launch_plan plan;
	struct buf cfg; /* the init config, encoded */
	bool elsewhere; /* the program starts outside the current folder */
	int64_t started_ms;
	int hold_r; /* the hold's failure: the program never ran */
	struct changes_run chg;
	bool chg_begun;

	/* the registry entry (part_registry.c) */
	struct enter_job ej;
	struct enter_job *enter; /* the registration not yet waited for */
	bool enter_first;	 /* its refusal is the run's error */
	const char *home;	 /* set once registered: leave at the end */
	struct registry *reg;	 /* the kept connection, or NULL */

	/* the keeper and the wire (part_wire.c) */
	struct wire_plan wp;
	bool wp_init;
	struct init_listener *listeners;
	size_t nlisteners;
	int wire_pair[2], lifeline[2];
	pid_t wire_pid;
	/* The one cap on logged refusals the wire and the broker share. */
	struct refusals_shared *cap;
	/* Whether the wire is closed, shared with the broker (store/shut.h);
	 * NULL without a wire. */
	struct shut *shut;
	/* The tools broker's refusals for the wire's tripwires
	 * (store/tripbox.h); NULL without a wire. */
	struct tripbox *trips;

	/* the tools broker (part_tools.c) */
	struct sb_tools tools;

	/* the guard (part_guard.c) */
	struct guard_plan np;
	struct strv ro_over; /* dot files kept read only by bwrap */
	bool guard_dot;	     /* it takes creations and writing opens */
	bool guard_connects; /* it takes connect() alone */
	bool exec_note;	     /* it names what [commands] refuses */
	int guard_pair[2];
	struct guard *guard;
	struct db_queue *logq; /* its refusals, for `lnk sandbox log` */
	struct guard_stats gs; /* kept when it stops */

	/* device nodes and bwrap's view of the host (part_devnodes.c) */
	struct devnodes dev;
	struct hostview view;
	bool dev_swept;

	/* the cgroup (part_cgroup.c) */
	struct limits_cgroup cg;
	char *cg_tag;
	bool cg_swept;
};

/* lnk, the supervisor (run.c). */
void run_init(struct run *r, const struct sandbox_req *req,
	      struct lnk_err *err);
/* The request checked before anything starts (not inside a sandbox, the
 * grants bwrap would refuse, the hidden folders still the ones recorded),
 * the sandbox's name, and the run's value (r->want). */
int run_check(struct run *r);
/* The host's facts, the limits, the name settled, what is said first. */
int run_plan_host(struct run *r);
/* The plan is whole: the init config encoded. */
int run_seal(struct run *r);
/* bwrap started and waited for; the parts' holds and ends run from it. */
int run_spawn(struct run *r, struct spawn_result *res);
/* What the run's end says, and its status. */
int run_finish(struct run *r, int rc, const struct spawn_result *res,
	       int *status);
/* A step failed: everything undone, *status what lnk exits with. */
int run_fail(struct run *r, int rc, int *status);
/* The shared cap on logged refusals, made once before the first fork
 * that takes it (store/refusals.h); NULL when it cannot be mapped. */
struct refusals_shared *run_shared_cap(struct run *r);

/* The registry entry (part_registry.c). */
int registry_part_plan(struct run *r);
int registry_part_start(struct run *r);
int registry_part_spawned(struct run *r);
int registry_part_hold(struct run *r);
void registry_part_end(struct run *r, bool gone);
/* Waits for the registration, once: 0 or its failure (j->err says
 * why; the caller decides whether that is the run's error). */
int registry_part_wait(struct run *r);

/* The keeper and the wire (part_wire.c). */
int wire_part_plan(struct run *r);
int wire_part_ends(struct run *r);
int wire_part_start(struct run *r);
void wire_part_stop(struct run *r, bool gone);
void wire_part_end(struct run *r, bool gone);
/* The resolver without network (part_wire.c): the wire's place in the
 * handoff, lifeline and pid, so the wire's stop and end serve it. */
int nonet_part_plan(struct run *r);
int nonet_part_start(struct run *r);
int nonet_part_hold(struct run *r);
void nonet_part_end(struct run *r, bool gone);

/* The tools broker (part_tools.c). */
int tools_part_plan(struct run *r);
int tools_part_bind(struct run *r);
int tools_part_start(struct run *r);
void tools_part_stop(struct run *r, bool gone);

/* The guard (part_guard.c). */
int guard_part_plan(struct run *r);
int guard_part_start(struct run *r);
int guard_part_hold(struct run *r);
void guard_part_stop(struct run *r, bool gone);
void guard_part_end(struct run *r, bool gone);

/* The device nodes and bwrap's view (part_devnodes.c). */
int devnodes_part_plan(struct run *r);
int devnodes_part_bind(struct run *r);
void devnodes_part_end(struct run *r, bool gone);

/* The cgroup (part_cgroup.c): v2 made before bwrap, v1 while bwrap
 * makes the sandbox and handed to lnk-init. */
int cgroup_part_bind(struct run *r);
int cgroup2_part_start(struct run *r);
int cgroup1_part_hold(struct run *r);
void cgroup_part_end(struct run *r, bool gone);

/* bwrap and the program (part_bwrap.c). */
int bwrap_part_plan(struct run *r);
int bwrap_part_bind(struct run *r);
int program_part_bind(struct run *r);
