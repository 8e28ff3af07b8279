/* The parts of one run, and the passes over them (parts.h). */
#include "launch/parts.h"

#include "launch/run.h"

void run_want_make(struct run_want *w, const struct policy *pol,
		   const struct run_facts *f)
{
	*w = (struct run_want){
	    /* Without a network grant the sandbox has no network at all:
	     * no proxy, no listener, no wire. */
	    .wire = policy_list(pol, K_INTERNET_HOSTS)->n ||
		    policy_list(pol, K_INTERNET_MODELS)->n ||
		    policy_list(pol, K_LAN_HOSTS)->n ||
		    policy_list(pol, K_LOCALHOST_PORTS)->n,
	    .tools = policy_wants_tools(pol),
	    .nonet = !f->probe && !(policy_list(pol, K_INTERNET_HOSTS)->n ||
				    policy_list(pol, K_INTERNET_MODELS)->n ||
				    policy_list(pol, K_LAN_HOSTS)->n ||
				    policy_list(pol, K_LOCALHOST_PORTS)->n),
	    .asks = policy_wants_tools(pol) && !f->probe && !f->no_one_to_ask,
	    /* run-<pid> is ours alone, and --name the person's choice: only
	     * a spec's own name gives way */
	    .name_moves =
		f->named && !pol->k[K_NAME].from_flag && pol->spec_path,
	    .probe = f->probe,
	    .root = f->root,
	    .cgroup = f->cgroup,
	};
}

static bool always(const struct run_want *w)
{
	(void)w;
	return true;
}

static bool with_wire(const struct run_want *w)
{
	return w->wire;
}

static bool without_network(const struct run_want *w)
{
	return w->nonet;
}

static bool with_tools(const struct run_want *w)
{
	return w->tools;
}

/* A person may be asked; the broker forks it only when it finds a
 * desktop session. */
static bool with_asks(const struct run_want *w)
{
	return w->asks;
}

static bool as_root(const struct run_want *w)
{
	return w->root;
}

static bool cgroup2(const struct run_want *w)
{
	return w->cgroup == LIMITS_CGROUP2;
}

static bool cgroup1(const struct run_want *w)
{
	return w->cgroup == LIMITS_CGROUP1;
}

static const struct part parts[] = {
    {.name = "the registry entry",
     .wanted = always,
     .when = PART_PLANNING,
     .starts = "on a thread while lnk plans when the name may move or lnk "
	       "forks a part (ended before the first fork), else while bwrap "
	       "makes the sandbox; `stop` and the log find the sandbox by it "
	       "before the program runs",
     .plan = registry_part_plan,
     .start = registry_part_start,
     .spawned = registry_part_spawned,
     .hold = registry_part_hold,
     .end = registry_part_end,
     .files = {"src/launch/part_registry.c", "src/store/registry.c", NULL}},
    {.name = "lnk, the supervisor",
     .wanted = always,
     .when = PART_LNK,
     .starts = "first: plans, then starts every other part; relays the pty",
     .plan = run_plan_host,
     .files = {"src/launch/sandbox.c", "src/launch/run.c", "src/launch/spawn.c",
	       "src/launch/plan.c", NULL}},
    {.name = "the keeper",
     .wanted = with_wire,
     .when = PART_AS_BWRAP,
     .starts = "forked as bwrap starts (its ends made before), before any "
	       "thread",
     .plan = wire_part_plan,
     .start = wire_part_ends,
     .spawned = wire_part_start,
     .stop = wire_part_stop,
     .end = wire_part_end,
     /* fixed-size messages and addresses from the wire (decoded by
      * src/proto/keeper.c), never the program's bytes */
     .files = {"src/wire/keeper.c", "src/proto/keeper.c",
	       "src/launch/part_wire.c", NULL}},
    {.name = "the wire",
     .wanted = with_wire,
     .when = PART_BY_PARENT,
     .starts = "forked by the keeper before bwrap; confined before its "
	       "first read",
     .reads_program = true,
     .confine = PART_KIT,
     .files = {"src/wire/wire.c", "src/wire/http.c", "src/wire/socks5.c",
	       "src/wire/dnsd.c", "src/proto/usage.c", "src/wire/model.c",
	       "src/proto/tproxy.c", NULL}},
    {.name = "the tools broker's starter",
     .wanted = with_tools,
     .when = PART_BEFORE_BWRAP,
     .starts = "forked before bwrap; decides, logs, runs tools",
     .plan = tools_part_plan,
     .bind = tools_part_bind,
     .start = tools_part_start,
     .stop = tools_part_stop,
     /* only the reader's canonical hand-over, decoded with bounds and
      * checked again */
     .files = {"src/tools/broker.c", "src/tools/calllog.c",
	       "src/tools/closed.c", "src/store/shut.c", "src/store/tripbox.c",
	       "src/proto/toolpass.c", "src/launch/part_tools.c", NULL}},
    {.name = "the tools broker's reader",
     .wanted = with_tools,
     .when = PART_BY_PARENT,
     .starts = "forked by the starter first; confined before its first "
	       "read",
     .reads_program = true,
     .confine = PART_KIT,
     .files = {"src/tools/reader.c", "src/proto/toolcall.c", "src/tools/page.c",
	       "src/proto/toolpass.c", NULL}},
    {.name = "the desktop process",
     .wanted = with_asks,
     .when = PART_BY_PARENT,
     .starts = "forked by the starter when there is a desktop session",
     /* the question's text comes escaped from the starter; the rest is
      * the session bus's */
     .files = {"src/tools/desktop.c", NULL}},
    {.name = "a tool",
     .wanted = with_tools,
     .when = PART_BY_PARENT,
     .starts = "forked by the starter for a call allowed or answered yes",
     .confine = PART_TOOL_VIEW,
     .files = {"src/tools/view.c", "src/tools/folder.c", NULL}},
    {.name = "the guard",
     .wanted = always,
     .when = PART_WITH_BWRAP,
     .starts = "threads of lnk, while bwrap makes the sandbox (its socket "
	       "made before, for bwrap's child to inherit)",
     .plan = guard_part_plan,
     .start = guard_part_start,
     .hold = guard_part_hold,
     .stop = guard_part_stop,
     .end = guard_part_end,
     .reads_program = true,
     .confine = PART_GUARD,
     .files = {"src/guard/dispatch.c", "src/guard/task.c", "src/guard/where.c",
	       "src/guard/sockaddr.c", "src/guard/tproxy.c", "src/guard/exec.c",
	       NULL}},
    {.name = "the device nodes",
     .wanted = as_root,
     .when = PART_PLANNING,
     .starts = "made while lnk plans (the plan names their folder), bound "
	       "in bwrap's view of the host",
     .plan = devnodes_part_plan,
     .bind = devnodes_part_bind,
     .end = devnodes_part_end,
     .files = {"src/launch/devnodes.c", "src/launch/hostview.c",
	       "src/launch/part_devnodes.c", NULL}},
    {.name = "the cgroup (v2)",
     .wanted = cgroup2,
     .when = PART_BEFORE_BWRAP,
     .starts = "made before bwrap, whose process moves in",
     .start = cgroup2_part_start,
     .end = cgroup_part_end,
     .files = {"src/launch/limits.c", "src/launch/part_cgroup.c", NULL}},
    {.name = "the cgroup (v1)",
     .wanted = cgroup1,
     .when = PART_WITH_BWRAP,
     .starts = "made while bwrap makes the sandbox, handed to lnk-init on "
	       "the guard's socket; the program's process moves in",
     .bind = cgroup_part_bind,
     .hold = cgroup1_part_hold,
     .end = cgroup_part_end,
     .files = {"src/launch/limits.c", "src/launch/part_cgroup.c", NULL}},
    {.name = "the resolver's sockets",
     .wanted = without_network,
     .when = PART_WITH_BWRAP,
     .starts = "its pair made before bwrap; lnk binds the sockets "
	       "lnk-init sends on it while bwrap makes the sandbox, after the "
	       "other parts' holds (it waits for lnk-init) and before the "
	       "go-ahead",
     .plan = nonet_part_plan,
     .start = nonet_part_start,
     .hold = nonet_part_hold,
     .end = nonet_part_end,
     /* lnk-init's handoff, sent before the program exists */
     .files = {"src/launch/part_nonet.c", "src/proto/handoff.c", NULL}},
    {.name = "bwrap",
     .wanted = always,
     .when = PART_BWRAP,
     .starts = "exec'd by lnk's child",
     .plan = bwrap_part_plan,
     .bind = bwrap_part_bind,
     .files = {"src/launch/bwrap.c", "src/launch/part_bwrap.c", NULL}},
    {.name = "lnk-init",
     .wanted = always,
     .when = PART_BY_PARENT,
     .starts = "bwrap's pid 1 inside",
     .confine = PART_SANDBOX,
     .files = {"src/init/main.c", "src/init/reaper.c", NULL}},
    {.name = "the program",
     .wanted = always,
     .when = PART_BY_PARENT,
     .starts = "lnk-init's child, last",
     .bind = program_part_bind,
     .reads_program = true,
     .confine = PART_SANDBOX,
     .files = {"src/init/exec.c", NULL}},
    {.name = "the resolver without network",
     .wanted = without_network,
     .when = PART_BY_PARENT,
     .starts = "forked by lnk-init at the first lookup, on the sockets lnk "
	       "bound",
     .reads_program = true,
     /* inside, with the sandbox's every layer: nothing to gain there */
     .confine = PART_SANDBOX,
     .files = {"src/init/resolver.c", "src/proto/dnsmsg.c", "src/net/said.c",
	       NULL}},
};

const struct part *parts_table(size_t *n)
{
	*n = ARRAY_SIZE(parts);
	return parts;
}

const char *part_confine_name(enum part_confine c)
{
	switch (c) {
	case PART_UNCONFINED:
		return "unconfined";
	case PART_KIT:
		return "the confinement kit";
	case PART_GUARD:
		return "the guard's";
	case PART_SANDBOX:
		return "the sandbox";
	case PART_TOOL_VIEW:
		return "a tool's view";
	}
	return "?";
}

const char *part_when_name(enum part_when w)
{
	switch (w) {
	case PART_LNK:
		return "lnk";
	case PART_PLANNING:
		return "while planning";
	case PART_BEFORE_BWRAP:
		return "before bwrap";
	case PART_AS_BWRAP:
		return "as bwrap starts";
	case PART_WITH_BWRAP:
		return "with bwrap";
	case PART_BWRAP:
		return "bwrap";
	case PART_BY_PARENT:
		return "by its parent";
	}
	return "?";
}

void parts_wanted(const struct run_want *w, struct strv *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(parts); i++)
		if (parts[i].wanted(w))
			strv_pushf(out, "%s: %s", parts[i].name,
				   part_when_name(parts[i].when));
}

/* One step of each wanted row, top down; offset picks the step. */
#define PASS(step)                                                \
	for (size_t i = 0; i < ARRAY_SIZE(parts); i++) {          \
		int rc;                                           \
		if (parts[i].step && parts[i].wanted(&r->want) && \
		    (rc = parts[i].step(r)) < 0)                  \
			return rc;                                \
	}                                                         \
	return 0

int parts_plan(struct run *r)
{
	PASS(plan);
}

int parts_bind(struct run *r)
{
	PASS(bind);
}

int parts_start(struct run *r)
{
	PASS(start);
}

int parts_spawned(struct run *r)
{
	PASS(spawned);
}

int parts_hold(struct run *r)
{
	PASS(hold);
}

void parts_end(struct run *r, bool gone)
{
	for (size_t i = 0; i < ARRAY_SIZE(parts); i++)
		if (parts[i].stop && parts[i].wanted(&r->want))
			parts[i].stop(r, gone);
	for (size_t i = 0; i < ARRAY_SIZE(parts); i++)
		if (parts[i].end && parts[i].wanted(&r->want))
			parts[i].end(r, gone);
}
