/* The parts of one run: every process, thread or held thing a sandbox may
 * have, one row each, and the passes sandbox_run makes over them.
 *
 * In the spirit of relayd's procs[] (one table names each process and
 * what starts it) and of bubblewrap's parse-then-act (every option parsed
 * into a list of operations before the first one acts): a run is first a
 * value (struct run_want, a pure function of the policy and two facts of
 * the host), then a plan each wanted part adds its share to, and only
 * then acts, part by part, in the table's order. What a part is wanted
 * for is a pure predicate on that value, so the parts of a run and their
 * order are golden-tested (tests/unit/test_run_plan.c) without a host.
 *
 * Each row also says whether the part reads bytes the program controls,
 * and how it is confined: tests/unit/test_parts.c fails when such a part
 * is unconfined or docs/security-map.md does not name its files
 * (invariant 9). A part added later is a row here first. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "common/util.h"
#include "launch/limits.h"
#include "policy/policy.h"

enum part_confine {
	PART_UNCONFINED, /* reads nothing of the program's */
	PART_KIT,	 /* confine/kit.h: no_new_privs, Landlock, no
			    * capability, a seccomp allow-list that kills */
	PART_GUARD,	 /* the guard's threads: every capability dropped
			    * before a worker starts, existing objects opened
			    * only by a Landlock-confined executor, every call
			    * performed by it, never continued */
	PART_SANDBOX,	 /* inside: the sandbox's namespaces, Landlock and
			    * seccomp (lnk-init's filter) */
	PART_TOOL_VIEW,	 /* a tool: the user's own powers, in a view of
			    * its own where lnk's settings and the hidden
			    * folders do not exist */
};

/* When a part starts, against bwrap. */
enum part_when {
	PART_LNK,	   /* lnk itself, from the first moment */
	PART_PLANNING,	   /* beside the planning, on a thread of lnk's */
	PART_BEFORE_BWRAP, /* forked by lnk before bwrap and before any
			    * thread (a child forked later would inherit
			    * the threads' locks) */
	PART_AS_BWRAP,	   /* forked by lnk once bwrap's child has exec'd,
			    * before any thread */
	PART_WITH_BWRAP,   /* while bwrap makes the sandbox, before the
			    * program may run */
	PART_BWRAP,	   /* bwrap, exec'd by lnk's child */
	PART_BY_PARENT,	   /* started by another part (its row's starts) */
};

/* What the request and the host say of a run, beside its policy. */
struct run_facts {
	bool named;		 /* the sandbox was named (sandbox_req.name) */
	bool probe;		 /* check's run: lnk-probe is the program */
	bool no_one_to_ask;	 /* enter's forced command: nobody answers */
	bool root;		 /* run by root */
	enum limits_kind cgroup; /* where the sandbox's limits go */
};

/* What a run is made of: the policy's answers to "which parts", and the
 * facts that decide the rest. A value: built once, before anything
 * acts, and never changed. */
struct run_want {
	bool wire;	 /* a network grant: the keeper and the wire */
	bool nonet;	 /* none, and not check's run: the resolver that
			  * refuses every name at once and says which */
	bool tools;	 /* a tool or page grant: the tools broker */
	bool asks;	 /* the broker may ask a person (not check's run,
			  * not enter's forced command) */
	bool name_moves; /* a spec's own name, which gives way when taken */
	bool probe;	 /* check's run: lnk-probe is the program */
	bool root;	 /* run by root: device nodes of the sandbox's own */
	enum limits_kind cgroup; /* where the sandbox's limits go */
};

/* The run's value from the policy (resolved) and the facts. Pure. */
void run_want_make(struct run_want *w, const struct policy *pol,
		   const struct run_facts *f);

struct run;

struct part {
	const char *name;
	bool (*wanted)(const struct run_want *w); /* pure */
	enum part_when when;
	const char *starts; /* when and by whom, in words */
	/* The steps, each NULL when the part has none, all 0 or -errno with
	 * the run's error set. plan: its share of the plan, before anything
	 * forks (what it names for bwrap and lnk-init); bind: what it adds
	 * to the launch plan once that is built; start: before bwrap is
	 * forked (a process forked, or what bwrap's child inherits);
	 * spawned: once bwrap's child has exec'd, before any other step
	 * and before any thread (a process forked while bwrap starts: its
	 * fork leaves the start's critical path); hold: while bwrap makes
	 * the sandbox, before the program may run;
	 * stop: asked to end, never waits; end: waited for and released.
	 * stop and end run as soon as every process of the sandbox has
	 * ended (gone false) and again once bwrap has exited (gone true);
	 * each is safe to run twice, and after a failed start. */
	int (*plan)(struct run *r);
	int (*bind)(struct run *r);
	int (*start)(struct run *r);
	int (*spawned)(struct run *r);
	int (*hold)(struct run *r);
	void (*stop)(struct run *r, bool gone);
	void (*end)(struct run *r, bool gone);
	bool reads_program; /* parses bytes the program chose */
	enum part_confine confine;
	/* The files that read those bytes, or that make the part what it
	 * is; NULL ended. */
	const char *files[8];
};

/* The table, in the order of every pass; *n is its length. */
const struct part *parts_table(size_t *n);
const char *part_confine_name(enum part_confine c);
const char *part_when_name(enum part_when w);

/* The wanted parts of a run, one line each in the table's order:
 * "NAME: WHEN" (the golden form). */
void parts_wanted(const struct run_want *w, struct strv *out);

/* The passes: each wanted row's step, top down; the first failure ends
 * the pass and is returned. parts_end asks every part to stop, then ends
 * each. */
int parts_plan(struct run *r);
int parts_bind(struct run *r);
int parts_start(struct run *r);
int parts_spawned(struct run *r);
int parts_hold(struct run *r);
void parts_end(struct run *r, bool gone);
