/* The guard of one run (run.h, parts.c; src/guard does the work): what
 * runs outside later planned (read-only binds and guarded names), its
 * socket made for bwrap's child to inherit, its threads and the call
 * log's queue started while bwrap makes the sandbox, stopped as soon as
 * every process of the sandbox has ended.
 *
 * Every sandbox has one: whatever else it does, it decides every change
 * of a mode, an owner or an extended attribute, so that through a
 * descriptor it was given (its stdin, a terminal) the program changes
 * no file outside its grants (plan.c). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "launch/env.h"
#include "launch/keptnow.h"
#include "launch/run.h"
#include "store/db.h"
#include "store/paths.h"
#include "store/refusals.h"
#include "store/tripbox.h"

/* "FOLDER/NAME" for the call log: the --write folder and the one name at
 * its top, never a deeper path (invariant 7 keeps request paths out of the
 * log; this is no request, but the rule stays simple). A folder too long
 * for the column loses its start, never the name. The name is the
 * program's, kept as it is: `lnk sandbox log` escapes what it prints
 * (common/esc.h). */
static void log_target(char *out, size_t cap, const char *dir, const char *name)
{
	size_t dl = strlen(dir), nl = strlen(name);

	if (dl + 1 + nl < cap)
		snprintf(out, cap, "%s/%s", dir, name);
	else if (nl + 5 < cap)
		snprintf(out, cap, "...%s/%s", dir + dl - (cap - 5 - nl), name);
	else
		snprintf(out, cap, "%s", name);
}

/* A refusal's row through the sandbox's one cap on logged refusals
 * (store/refusals.h), shared with the wire and the tools broker. Threat:
 * the program chooses how many refusals it causes (a datagram to a new
 * address each time, a new name under .git): each a row of lnk.db, past
 * its folders, until the disk is full. Past the burst they are counted,
 * and the count is a row of its own (guard_part_end, or the wire's). */
static void guard_log(struct run *r, const char *verb, const char *target,
		      const char *why)
{
	if (!r->cap || refusals_shared_take(r->cap, refusals_clock_ms()))
		db_queue_add(r->logq, verb, target, DB_REFUSED, why);
}

/* The guard's hook (a worker thread, while the program waits): queue only,
 * the queue's own thread writes to SQLite. */
static void log_refusal(void *ctx, const struct guard_rule *g, const char *name)
{
	char target[DB_TARGET_MAX];

	log_target(target, sizeof(target), g->dir, name);
	guard_log(ctx, "file", target,
		  g->why ? g->why
			 : "a file that runs outside, at the top of a "
			   "--write folder; "
			   "--write-dot-files allows it");
}

static void log_exec(void *ctx, const char *path)
{
	char target[DB_TARGET_MAX];
	size_t len = strlen(path);

	/* A long path keeps its end: the program's name. */
	if (len < sizeof(target))
		snprintf(target, sizeof(target), "%s", path);
	else
		snprintf(target, sizeof(target), "...%s",
			 path + len - (sizeof(target) - 4));
	guard_log(ctx, "exec", target,
		  "[commands] does not allow it; --command allows it");
}

/* A datagram the guard refused (src/guard/socket.c), once per target: a
 * refused call, which the wire's tripwires count as their own
 * (store/tripbox.h); a program sending to address after address is
 * probing as one connecting to them is. */
static void log_net_refusal(void *ctx, const char *verb, const char *target,
			    const char *why)
{
	struct run *r = ctx;
	tripbox_put(r->trips, target);
	guard_log(r, verb, target, why);
}

int guard_part_plan(struct run *r)
{
	const struct policy *pol = r->pol;
	const struct sandbox_req *req = r->req;
	struct strv hidden = {0}, grants = {0};
	_cleanup_free_ char *links = NULL;
	struct protect_in pro;
	kept_protect_in(pol, req->home, req->host_env, &pro, &hidden, &grants,
			&links);
	int rc = guard_protect(&pro, &r->np, &r->ro_over, r->err);
	strv_free(&hidden);
	strv_free(&grants);
	if (rc < 0)
		return rc;
	/* Without a network grant it names a connect outside
	 * (src/guard/nonet.c). */
	r->np.no_network = !r->want.wire;
	/* It also decides connect() on unix sockets, since a read-only
	 * mount does not stop it: a host daemon's socket under a granted
	 * folder must not answer. With a write folder it takes every
	 * creation and every open that writes even when no name is kept
	 * there (--write-dot-files): a file with another name, maybe
	 * outside (pnpm's store, a cp -al backup), gets one of its own
	 * before a write (src/guard/shared.c). With --read folders alone,
	 * connect() alone. */
	r->guard_dot = rc == 1 || policy_list(pol, K_FILES_WRITE)->n > 0;
	bool folders = policy_list(pol, K_FILES_READ)->n > 0 ||
		       policy_list(pol, K_FILES_WRITE)->n > 0;
	/* With a wire it also brings every TCP connect of the program to
	 * another address to the wire (src/guard/tproxy.c). */
	r->guard_connects = (folders || r->want.wire) && !r->guard_dot;
	/* With [commands], it also names each program Landlock refuses to
	 * run (a shell would only say "Permission denied"). */
	r->exec_note = !policy_any_command(pol);
	/* The broker's socket is lnk's, bound in on purpose: the guard lets
	 * the program connect to that one file. */
	if (r->want.tools) {
		r->np.tool_sock_dev = r->tools.sock_dev;
		r->np.tool_sock_ino = r->tools.sock_ino;
	}
	if (r->want.wire)
		r->np.tcp_port = r->wp.tcp_port;
	return 0;
}

/* The guard's socket, after the forks of the wire and the broker (which
 * must not hold it), for bwrap's child to inherit. */
int guard_part_start(struct run *r)
{
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
		       r->guard_pair) < 0)
		return err_set(r->err, -errno,
			       "cannot start the dot-file protection: %s",
			       strerror(errno));
	return 0;
}

/* The threads and the call log's queue, while bwrap makes the sandbox:
 * lnk-init hands the guard its listener only after that, and waits for
 * lnk's go-ahead, which follows this. */
int guard_part_hold(struct run *r)
{
	/* Refusals are recorded whether or not the sandbox has a wire (the
	 * wire starts only with a network grant). */
	_cleanup_free_ char *dbp = paths_db(r->req->home);
	int rc = db_queue_start(dbp, r->name, 250, &r->logq, r->err);
	if (rc < 0)
		return rc;
	r->np.on_refusal = log_refusal;
	r->np.on_net_refusal = log_net_refusal;
	r->np.on_refusal_ctx = r;
	run_shared_cap(r);
	if (r->exec_note) {
		/* the tools' client runs inside under each tool's name: its
		 * file on the host is what the kernel runs */
		struct strv ex = {0};
		strv_copy(&ex, &r->plan.init.ll_exec);
		if (r->want.tools && r->tools.client)
			strv_push(&ex, r->tools.client);
		guard_plan_exec(&r->np, &ex);
		strv_free(&ex);
		r->np.on_exec = log_exec;
		r->np.on_exec_ctx = r;
	}
	return guard_start(&r->np, r->guard_pair[0], &r->guard, r->err);
}

/* The threads are asked to end first and joined after the entry's
 * removal (the registry's end comes between): waking a thread on the
 * other CPU takes longer than the removal itself on a small VM, and this
 * way neither waits. */
void guard_part_stop(struct run *r, bool gone)
{
	(void)gone;
	if (r->guard)
		guard_get_stats(r->guard, &r->gs, NULL);
	guard_stop_begin(r->guard);
	db_queue_stop_begin(r->logq);
}

/* The guard's workers add to the queue: they stop first. */
void guard_part_end(struct run *r, bool gone)
{
	(void)gone;
	guard_stop(r->guard);
	r->guard = NULL;
	/* the count of refusals past the cap, in a sandbox with neither a
	 * wire nor a broker, which write it otherwise (at their end, after
	 * the guard's: the count is one, the first to take it writes it) */
	uint64_t n =
	    r->cap && !r->want.wire && !r->want.tools
		? refusals_shared_due(r->cap, refusals_clock_ms(), true)
		: 0;
	if (n && r->logq) {
		char why[160];
		snprintf(why, sizeof(why),
			 "%llu more calls refused, not logged one by one "
			 "(after %d at once, one a second)",
			 (unsigned long long)n, REFUSAL_BURST);
		db_queue_add(r->logq, "guard", "-", DB_REFUSED, why);
	}
	db_queue_stop(r->logq); /* commits the refusals left */
	r->logq = NULL;
}
