/* One sandbox, from a resolved policy to the program's exit (sandbox.h).
 *
 * Shared by run, check and enter, so that check and enter start the very
 * sandbox run starts: a check that built its own
 * would prove nothing about run.
 *
 * Over 1000 lines: sandbox_run still decides and starts each part by hand;
 * it is to become a loop over the rows of src/launch/parts.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "changes/run.h"
#include "common/fdpass.h"
#include "common/buf.h"
#include "common/esc.h"
#include "common/pathenv.h"
#include "proto/initcfg.h"
#include "launch/env.h"
#include "launch/devnodes.h"
#include "launch/hostview.h"
#include "launch/grantcheck.h"
#include "launch/host.h"
#include "launch/limits.h"
#include "launch/plan.h"
#include "launch/sandbox.h"
#include "launch/spawn.h"
#include "launch/etchosts.h"
#include "launch/stopnote.h"
#include "guard/guard.h"
#include "launch/tools.h"
#include "wire/nonet.h"
#include "store/refusals.h"
#include "store/db.h"
#include "store/hidden.h"
#include "store/paths.h"
#include "store/registry.h"
#include "tools/proto.h"
#include "wire/ctl.h"
#include "wire/wire.h"

/* The network grants that need a wire: without any, the sandbox has no
 * network at all (no proxy, no listener). */
static bool needs_wire(const struct policy *p)
{
	return policy_list(p, K_INTERNET_HOSTS)->n ||
	       policy_list(p, K_INTERNET_MODELS)->n ||
	       policy_list(p, K_LAN_HOSTS)->n ||
	       policy_list(p, K_LOCALHOST_PORTS)->n;
}

/* Every sandbox is in the registry from its start to its end, with a
 * network grant or without: `stop` must reach the ones that can still
 * change files, and `paused` and `traffic` list them. Registered before
 * anything starts (a name that runs already is refused here, not once the
 * program runs). registry_register checks the name and enters it in one
 * transaction, so two sandboxes starting with one name cannot both have
 * it. A spec's fixed name would keep two commands of one spec (npm run dev
 * and npm test) from running at once: while it is taken, a run of the
 * spec takes the next free one, "app-2", and says so; a name given with
 * --name is the person's choice and is refused instead. Whether a stop
 * is in force is read on the same connection, after the entry is made
 * (so a concurrent `stop` either sees the entry or is seen here). One
 * open of lnk.db for all of it, kept in *keep for the removal at the end
 * (registry_leave), so that a run opens lnk.db once, unless a child that
 * uses SQLite is forked (keep_from_forks). When lnk is killed the entry
 * stays until a reader finds its supervisor gone (store/registry.h). */
static int registry_enter(const char *home, char **name, bool may_move,
			  bool wire, bool *stopped, char **moved_from,
			  struct registry **keep, struct lnk_err *err)
{
	struct registry *st;
	int r = registry_open(home, &st, err);
	if (r < 0)
		return r;
	struct registry_entry e;
	memset(&e, 0, sizeof(e));
	e.uid = getuid();
	e.started_ms = registry_now_ms();
	if ((r = registry_proc_self(getpid(), &e.supervisor)) < 0) {
		registry_close(st);
		return err_set(err, r, "cannot read this process's start time");
	}
	_cleanup_free_ char *try = xstrdup(*name);
	for (int i = 2;; i++) {
		snprintf(e.name, sizeof(e.name), "%s", try);
		/* A wire to come is said at once (its socket), so that until
		 * it joins, the sandbox is not taken for one without a
		 * wire. */
		e.socket[0] = '\0';
		if (wire) {
			_cleanup_free_ char *sock = ctl_socket_path(home, try);
			if (sock)
				snprintf(e.socket, sizeof(e.socket), "%s",
					 sock);
		}
		r = registry_register(st, &e, err);
		if (r != -EEXIST || !may_move || i >= 100)
			break;
		free(try);
		try = xasprintf("%s-%d", *name, i);
		if (strlen(try) > REGISTRY_NAME_MAX)
			break; /* no longer a valid name: refuse as taken */
	}
	*stopped = false;
	if (r == 0) {
		struct lnk_err ignored = {0};
		if (registry_stop_get(st, stopped, NULL, &ignored) < 0)
			*stopped = false;
		*keep = steal_pointer(&st);
	}
	registry_close(st);
	if (r == -EEXIST)
		return err_set(err, r,
			       "a sandbox named '%s' is already running here; "
			       "choose another --name",
			       *name);
	if (r < 0)
		return r;
	if (strcmp(try, *name) != 0) {
		*moved_from = *name;
		*name = steal_pointer(&try);
	}
	return 0;
}

/* registry_enter runs beside other work, never before it:
 *
 * - A sandbox with neither a wire nor tools registers after bwrap is
 *   forked (hold_for_entry), on the supervisor's own thread, while bwrap
 *   makes the sandbox: that takes ten times longer, so the registration
 *   costs the start nothing, and no thread is made for it. (On a thread
 *   from the start, it competed with the planning for the second core and
 *   waited for it to wake: 0.9 ms more, measured.)
 * - With a wire or tools, whose children are forked and must not inherit
 *   an open connection (keep_from_forks), it runs on a thread of its own
 *   while the supervisor reads the host and plans the sandbox, and has
 *   ended (enter_wait) before the first of those forks.
 *
 * A name that may move is waited for at once, as everything after names
 * the sandbox; a fixed one (run-<pid>, --name) is only taken or refused,
 * and a refusal ends the run before anything of the program starts. The
 * registration prints nothing. */
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

static void *enter_main(void *arg)
{
	struct enter_job *j = arg;
	j->r = registry_enter(j->home, j->name, j->may_move, j->wire,
			      &j->stopped, &j->moved_from, &j->reg, &j->err);
	return NULL;
}

/* Best effort: an entry left behind is stale once this process ends. On
 * the connection registry_enter kept, or a new one. */
static void registry_leave(struct registry *kept, const char *home,
			   const char *name)
{
	struct registry *st = kept;
	struct lnk_err ignored = {0};
	if (!st && registry_open(home, &st, &ignored) < 0)
		return;
	(void)registry_unregister(st, name, &ignored);
	registry_close(st);
}

struct sb_state {
	bool swept;		 /* what killed lnks left: sb_ended */
	struct policy probe_pol; /* the policy plus the probe, for check */
	bool probe_pol_init;
	struct host_facts host;
	struct launch_plan plan;
	struct wire_plan wp;
	bool wp_init;
	struct guard_plan np;
	struct guard *guard;
	struct db_queue *logq; /* the guard's refusals, for `lnk sandbox log` */
	struct strv extra_env, ro_over;
	struct init_listener *listeners;
	size_t nlisteners;
	int wire_pair[2], guard_pair[2], lifeline[2];
	pid_t wire_pid;
	struct buf cfg;
	struct limits lim;
	struct limits_where lw;
	struct limits_cgroup cg;
	struct devnodes dev;
	struct hostview view;
	struct sb_tools tools;
	/* The one cap on logged refusals its wire and tools broker share. */
	struct refusals_shared *cap;
	struct guard_stats gs; /* the guard's, kept when it stops */
	const char *home;      /* set once registered: state_free leaves */
	char *name;
	struct registry *reg;	 /* registry_enter's connection, or NULL */
	struct enter_job *enter; /* the registration not yet waited for */
	/* its refusal is the run's error, before a later one's */
	bool enter_first;
	struct lnk_err *err;
};

/* Waits for the registration, once; from then on every way out removes
 * the entry (state_free). Its result. */
static int enter_wait(struct sb_state *s)
{
	struct enter_job *j = s->enter;
	if (!j)
		return 0;
	s->enter = NULL;
	if (j->threaded)
		pthread_join(j->th, NULL);
	else if (j->deferred)
		enter_main(j);
	if (j->r == 0) {
		s->home = j->home;
		s->reg = j->reg;
	}
	return j->r;
}

/* The wire, its keeper and the tools broker are forked, not exec'd, and
 * open lnk.db themselves: none may inherit an open connection, whose
 * per-process lock records (SQLite's, in memory) would be the parent's.
 * The child that becomes bwrap execs at once, and nothing in it reads
 * the database, so the kept connection may stay across that fork. */
static void keep_from_forks(struct sb_state *s)
{
	registry_close(s->reg);
	s->reg = NULL;
}

static void close_pair(int p[2])
{
	for (int i = 0; i < 2; i++)
		if (p[i] >= 0) {
			close(p[i]);
			p[i] = -1;
		}
}

/* The registry entry removed, once. */
static void sb_leave(struct sb_state *s)
{
	if (s->home)
		registry_leave(steal_pointer(&s->reg), s->home, s->name);
	s->home = NULL;
}

/* Every process of the sandbox has ended: lnk's own end of it, once. Run
 * as soon as the guard sees its filter gone (spawn's ended), while the
 * kernel still takes the sandbox's namespaces down and bwrap has not
 * exited, so that none of it waits for them (about 0.8 ms, measured);
 * or after bwrap has exited, when there is no guard. The wire is told to
 * end first (its last write to the log takes longest; run returns only
 * once it has ended, so the call log is whole), the guard's threads stop
 * while it does, and the entry leaves the registry: it needs nothing of
 * the wire's, whose own update of it then changes nothing. */
static void sb_ended(void *arg)
{
	struct sb_state *s = arg;
	if (s->wire_pid > 0)
		close_pair(s->lifeline);
	if (s->guard)
		guard_get_stats(s->guard, &s->gs, NULL);
	/* The threads are asked to end first and joined after the entry's
	 * removal: waking a thread on the other CPU takes longer than the
	 * removal itself on a small VM, and this way neither waits. */
	guard_stop_begin(s->guard);
	db_queue_stop_begin(s->logq);
	sb_leave(s);
	guard_stop(s->guard);
	s->guard = NULL;
	db_queue_stop(s->logq); /* commits the refusals left */
	s->logq = NULL;
	/* As root, the copies of the device nodes, and a cgroup only the
	 * program's processes were in (launch/limits.h): nothing inside uses
	 * them any more. One that cannot be removed yet is removed after
	 * bwrap has exited. */
	devnodes_remove(&s->dev);
	if (s->cg.inside)
		(void)limits_cgroup_try_end(&s->cg);
	/* What lnks killed with SIGKILL left (device nodes' folders, cgroups):
	 * swept now, while the kernel takes this sandbox down, and not while
	 * bwrap makes it, where the second CPU is better left to bwrap. */
	if (!s->swept) {
		s->swept = true;
		devnodes_sweep();
		limits_cgroup_sweep(&s->lw);
	}
}

static int sb_ended_fd(void *arg)
{
	const struct sb_state *s = arg;
	return guard_ended_fd(s->guard);
}

static void state_free(struct sb_state *s)
{
	/* The guard's workers add to the queue: stop them first. */
	guard_stop(s->guard);
	s->guard = NULL;
	db_queue_stop(s->logq);
	s->logq = NULL;
	if (s->probe_pol_init)
		policy_free(&s->probe_pol);
	host_facts_free(&s->host);
	plan_free(&s->plan);
	refusals_shared_free(s->cap);
	s->cap = NULL;
	if (s->wp_init)
		wire_plan_free(&s->wp);
	guard_plan_free(&s->np);
	strv_free(&s->extra_env);
	strv_free(&s->ro_over);
	free(s->listeners);
	close_pair(s->wire_pair);
	close_pair(s->guard_pair);
	close_pair(s->lifeline);
	buf_free(&s->cfg);
	limits_cgroup_end(&s->cg);
	limits_where_free(&s->lw);
	devnodes_remove(&s->dev);
	hostview_free(&s->view);
	sb_tools_end(&s->tools);
	sb_leave(s);
	registry_close(s->reg);
	s->reg = NULL;
	free(s->name);
}

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

/* The guard's hook (a worker thread, while the program waits): queue only,
 * the queue's own thread writes to SQLite. */
static void log_refusal(void *ctx, const struct guard_rule *g, const char *name)
{
	char target[DB_TARGET_MAX];

	log_target(target, sizeof(target), g->dir, name);
	db_queue_add(ctx, "file", target, DB_REFUSED,
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
	db_queue_add(ctx, "exec", target, DB_REFUSED,
		     "[commands] does not allow it; --command allows it");
}

/* A datagram the guard refused (src/guard/tproxy.c), once per target. */
static void log_net_refusal(void *ctx, const char *verb, const char *target,
			    const char *why)
{
	db_queue_add(ctx, verb, target, DB_REFUSED, why);
}

/* Whether the spec itself lets no program run: its [commands] has no allow
 * (or an empty one) and no --command beside it. Then any program is
 * refused, and saying which spec and which key beats "'true' is not
 * allowed" (a spec with no sections runs no program, and says so
 * clearly when asked to run one). */
static bool spec_runs_nothing(const struct policy *p)
{
	const struct key_value *a = &p->k[K_COMMANDS_ALLOW];

	return p->spec_path && !a->from_flag && a->list.n == 0;
}

static int refuse_no_commands(const struct policy *p, const char *program,
			      struct lnk_err *err)
{
	const struct key_value *a = &p->k[K_COMMANDS_ALLOW];
	const struct key_value *e = &p->k[K_COMMANDS_ENV];
	const char *spec = p->spec_name ? p->spec_name : p->spec_path;
	const char *base = strrchr(program, '/');

	base = base ? base + 1 : program;
	/* What each suggestion holds is pasted, into a spec or a shell: a
	 * TOML string, one shell word. */
	struct buf t = {0};
	buf_toml_str(&t, base, strlen(base));
	_cleanup_free_ char *toml = buf_steal(&t);
	_cleanup_free_ char *word = esc_word_dup(base);
	if (a->set)
		return err_set(
		    err, -EACCES,
		    "%s:%d: [commands] allow is empty, so it runs no "
		    "program: add %s to it, or --command %s",
		    spec, a->pos.line, toml, word);
	if (e->set && !e->from_flag)
		return err_set(err, -EACCES,
			       "%s's [commands] has no allow, so it runs no "
			       "program: add allow = [%s] to it, or "
			       "--command %s",
			       spec, toml, word);
	return err_set(err, -EACCES,
		       "%s has no [commands] section, so it runs no program: "
		       "add [commands] allow = [%s] to it, or --command %s",
		       spec, toml, word);
}

/* The program starts in the current folder only when the sandbox shows
 * it; otherwise in the first --write folder or the empty home, and a
 * command meant for one folder would act on another. Said every time, on
 * stderr (by hold_for_entry, once the run is not refused: *elsewhere); a
 * relative program path would name a different file there (or none), so
 * it is refused. */
static int say_where(const struct sandbox_req *req, const char *chdir_to,
		     bool *elsewhere, struct lnk_err *err)
{
	const char *prog = req->argv[0];

	*elsewhere = false;
	if (strcmp(chdir_to, req->cwd) == 0)
		return 0;
	if (prog[0] != '/' && strchr(prog, '/'))
		return err_set(err, -EINVAL,
			       "'%s' is relative to the current folder, which "
			       "no grant shows inside; grant it (--read . or "
			       "--write .) or give the program's absolute path",
			       prog);
	*elsewhere = true;
	return 0;
}

/* The guard's threads and the call log's queue, started while bwrap
 * makes the sandbox: lnk-init hands the guard its listener only after
 * that, and waits for lnk's go-ahead, which follows this. */
static int guard_begin(struct sb_state *s, const char *home, bool exec_note)
{
	/* Refusals are recorded whether or not the sandbox has a wire (the
	 * wire starts only with a network grant). */
	_cleanup_free_ char *dbp = paths_db(home);
	int r = db_queue_start(dbp, s->name, 250, &s->logq, s->err);
	if (r < 0)
		return r;
	s->np.on_refusal = log_refusal;
	s->np.on_net_refusal = log_net_refusal;
	s->np.on_refusal_ctx = s->logq;
	if (exec_note) {
		guard_plan_exec(&s->np, &s->plan.init.ll_exec);
		s->np.on_exec = log_exec;
		s->np.on_exec_ctx = s->logq;
	}
	return guard_start(&s->np, s->guard_pair[0], &s->guard, s->err);
}

/* spawn_run's hold: while bwrap makes the sandbox, the registration's
 * end, and what is said before the program runs. The program waits for
 * it (lnk-init reads the answer first), so a refused name still ends the
 * run before anything of the program starts, and `stop` and the log
 * find the sandbox by its name from the program's first instruction. */
struct hold_ctx {
	struct sb_state *s;
	const struct enter_job *j;
	const char *elsewhere; /* the folder the program starts in, or NULL */
	const char *home;
	bool probe;
	bool exec_note; /* guard_begin's */
	int guard_r;	/* its failure, or 0 */
	/* The cgroup's tag, when it is made here and goes to lnk-init on the
	 * guard's socket (sandbox_run), else NULL; cgroup_r: its failure. */
	const char *cgroup_tag;
	int cgroup_r;
	struct changes_run *chg; /* stamped here, before the program runs */
};

/* The sandbox's cgroup v1, made now and handed to lnk-init before the
 * go-ahead (init_config.cgroup_on_guard): "C" and the tasks file of each
 * hierarchy on the guard's socket. lnk's own copies are closed then: the
 * cgroup is removed as soon as the program's processes are gone
 * (sb_ended). */
static int cgroup_to_init(struct sb_state *s, const char *tag)
{
	int r = limits_cgroup_make(&s->lw, &s->lim, tag, &s->cg, s->err);
	if (r < 0)
		return r;
	s->cg.inside = true;
	if ((r = fd_send(s->guard_pair[0], s->cg.procs, 2, "C", 1)) < 0)
		return err_set(s->err, r,
			       "cannot hand the sandbox its cgroup: %s",
			       strerror(-r));
	for (int i = 0; i < 2; i++) {
		close(s->cg.procs[i]);
		s->cg.procs[i] = -1;
	}
	return 0;
}

static int hold_for_entry(void *arg)
{
	struct hold_ctx *h = arg;
	changes_run_stamp(h->chg);
	int r = enter_wait(h->s);
	if (r < 0)
		return r;
	if ((h->guard_r = guard_begin(h->s, h->home, h->exec_note)) < 0)
		return h->guard_r;
	if (h->cgroup_tag &&
	    (h->cgroup_r = cgroup_to_init(h->s, h->cgroup_tag)) < 0)
		return h->cgroup_r;
	/* With a wire or tools the connection was closed for their forks
	 * (keep_from_forks): opened again now, while bwrap makes the
	 * sandbox, so that removing the entry at the end does not pay for
	 * an open (about 1 ms) after the program. */
	struct lnk_err ignored = {0};
	if (!h->s->reg && h->s->home &&
	    registry_open(h->s->home, &h->s->reg, &ignored) < 0)
		h->s->reg = NULL;
	/* bwrap holds its own copies of the /etc files now. */
	host_close_etc(&h->s->host);
	if (h->elsewhere)
		warnx_("the current folder is not granted: the program starts "
		       "in '%s' (grant it with --read . or --write .)",
		       h->elsewhere);
	if (!h->probe && h->j->stopped)
		warnx_("a stop is in force ('lnk sandbox stop'): this "
		       "sandbox's network stays closed until 'lnk sandbox "
		       "stop --off'");
	return 0;
}

static int exit_for(int r)
{
	if (r == -ENOENT)
		return LNK_EXIT_NOT_FOUND;
	if (r == -EACCES)
		return LNK_EXIT_CANNOT_EXEC;
	if (r == -EISDIR || r == -ENOTDIR)
		return LNK_EXIT_USAGE; /* a --command folder, misspelt */
	return LNK_EXIT_FAIL;
}

/* check's probe: runs as the program, from a read-only bind beside init.
 * Landlock's lists name paths as the sandbox sees them, so the probe's
 * host path is replaced by SANDBOX_PROBE_PATH. */
static void plan_probe(struct sb_state *s, const char *probe)
{
	struct launch_plan *pl = &s->plan;
	bwrap_bind_after_init(&pl->bw.opts, probe, SANDBOX_PROBE_PATH);

	free(pl->init.argv.v[0]);
	pl->init.argv.v[0] = xstrdup(SANDBOX_PROBE_PATH);
	char real[PATH_MAX];
	const char *rp = realpath(probe, real) ? real : probe;
	for (size_t i = 0; i < pl->init.ll_exec.n; i++)
		if (strcmp(pl->init.ll_exec.v[i], rp) == 0 ||
		    strcmp(pl->init.ll_exec.v[i], probe) == 0) {
			free(pl->init.ll_exec.v[i]);
			pl->init.ll_exec.v[i] = xstrdup(SANDBOX_PROBE_PATH);
		}
	strv_push(&pl->init.ll_read, SANDBOX_PROBE_PATH);
}

#ifdef LNK_TEST_HOOKS
/* TEST BUILDS ONLY (meson -Dtest_hooks=true): LNK_TEST_WEAKEN weakens one
 * layer on purpose, so the tests can prove that `lnk sandbox check` sees
 * a real leak. A release build has no such code at all.
 *   env   the program gets lnk's whole environment
 *   home  the home folder is bound read only, ~/.lnk included */
static void test_weaken(const struct sandbox_req *req, struct launch_plan *pl)
{
	const char *w = env_lookup(req->host_env, "LNK_TEST_WEAKEN");
	if (!w)
		return;
	if (strcmp(w, "env") == 0) {
		for (size_t i = 0; req->host_env[i]; i++)
			strv_push(&pl->init.env, req->host_env[i]);
	} else if (strcmp(w, "home") == 0) {
		const char *words[] = {"--ro-bind", req->home, req->home};
		for (size_t i = 0; i < ARRAY_SIZE(words); i++)
			strv_push(&pl->bw.opts, words[i]);
		strv_push(&pl->init.ll_read, req->home);
	}
}
#endif

static int fail(struct sb_state *s, int status, int r, int *out)
{
	struct enter_job *j = s->enter;
	/* A registration not yet made is not made for a run that ends before
	 * its refusal would come first. */
	if (j && j->deferred && !s->enter_first)
		s->enter = NULL;
	else if (enter_wait(s) < 0 && s->enter_first) {
		if (s->err)
			*s->err = j->err;
		status = LNK_EXIT_FAIL;
		r = j->r;
	}
	*out = status;
	state_free(s);
	return r;
}

static int enter_fail(struct sb_state *s, const struct enter_job *j, int *out)
{
	if (s->err)
		*s->err = j->err;
	return fail(s, LNK_EXIT_FAIL, j->r, out);
}

int sandbox_run(const struct sandbox_req *req, int *status, struct lnk_err *err)
{
	struct sb_state s = {
	    .wire_pair = {-1, -1},
	    .guard_pair = {-1, -1},
	    .lifeline = {-1, -1},
	    .wire_pid = -1,
	    .cg = LIMITS_CGROUP_INIT,
	    .tools = SB_TOOLS_INIT,
	    .err = err,
	};
	const struct policy *pol = req->pol;
	int r;

	*status = LNK_EXIT_FAIL;
	if (req->probe && !policy_any_command(pol)) {
		/* [commands] allow lists what the program may run; the probe
		 * is check's, so it is added to a copy, never to pol. */
		policy_copy(&s.probe_pol, pol);
		s.probe_pol_init = true;
		policy_push(&s.probe_pol.k[K_COMMANDS_ALLOW], req->probe,
			    (struct toml_pos){0});
		pol = &s.probe_pol;
	}

	if (grantcheck_inside_sandbox()) {
		r = err_set(err, -EPERM,
			    "this is already inside a lnk sandbox, and a "
			    "sandbox cannot start inside another; run lnk "
			    "outside it");
		return fail(&s, LNK_EXIT_FAIL, r, status);
	}
	if ((r = grantcheck(pol, err)) < 0)
		return fail(&s, r == -EINVAL ? LNK_EXIT_USAGE : LNK_EXIT_FAIL,
			    r, status);
	/* The folders every sandbox hides must be the ones lnk saw before:
	 * one moved or swapped would be shown where it is now. */
	if ((r = hidden_check(req->home, err)) < 0)
		return fail(&s, LNK_EXIT_FAIL, r, status);

	s.name =
	    req->name ? xstrdup(req->name) : xasprintf("run-%d", (int)getpid());
	bool wire = needs_wire(pol);
	/* run-<pid> is ours alone: only a spec's own name gives way */
	struct enter_job ej = {
	    .home = req->home,
	    .name = &s.name,
	    .may_move =
		req->name && !pol->k[K_NAME].from_flag && pol->spec_path,
	    .wire = wire,
	};
	ej.deferred = !ej.may_move && !wire && !policy_wants_tools(pol);
	if (!ej.deferred) {
		/* With every signal blocked, as the thread inherits them: one
		 * that is the supervisor's (spawn_block_signals) must not end
		 * lnk on it while it runs. */
		sigset_t all, was;
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &was);
		ej.threaded =
		    pthread_create(&ej.th, NULL, enter_main, &ej) == 0;
		pthread_sigmask(SIG_SETMASK, &was, NULL);
		if (!ej.threaded)
			enter_main(&ej);
	}
	s.enter = &ej;

	_cleanup_free_ char *vcache = paths_bwrap_cache(req->home);
	_cleanup_free_ char *ncache = paths_etc_names_cache(req->home);
	int rh = host_gather(&s.host, vcache, ncache, err);
	limits_defaults(&s.lim);
	_cleanup_free_ char *settings = paths_settings(req->home);
	int rl = rh < 0 ? 0 : limits_load_settings(settings, &s.lim, err);

	if (rh < 0 || rl < 0) {
		r = fail(&s, LNK_EXIT_FAIL, rh < 0 ? rh : rl, status);
		free(ej.moved_from);
		return r;
	}
	s.enter_first = true;
	if (ej.may_move && enter_wait(&s) < 0)
		return enter_fail(&s, &ej, status);
	if (ej.may_move && ej.moved_from) {
		warnx_("a sandbox named '%s' is already running; this one is "
		       "'%s'",
		       ej.moved_from, s.name);
		free(ej.moved_from);
	}
	struct strv notes = {0};
	limits_lower(&s.lim, pol, &notes);
	for (size_t i = 0; i < notes.n; i++)
		warnx_("%s", notes.v[i]);
	strv_free(&notes);
	path_relative_notes(env_lookup(req->host_env, "PATH"), req->home,
			    &notes);
	for (size_t i = 0; i < notes.n; i++)
		warnx_("%s", notes.v[i]);
	strv_free(&notes);
	const char *name = s.name;
	if (wire) {
		if ((r = wire_plan(pol, name, req->home, &s.wp, err)) < 0)
			return fail(&s, LNK_EXIT_FAIL, r, status);
		s.wp_init = true;
		s.wp.trip_calls = s.lim.trip_calls;
		s.wp.trip_targets = s.lim.trip_targets;
		/* raw while lnk relays the pty (spawn.c) */
		s.wp.stderr_raw = req->pty && isatty(STDERR_FILENO);
		wire_plan_env(&s.wp, &s.extra_env);
		wire_plan_listeners(&s.wp, &s.listeners, &s.nlisteners);
	}
	/* Without a network grant, a resolver that refuses every name at
	 * once and says which (src/wire/nonet.h). */
	bool nonet = !wire && !req->probe;
	if (nonet)
		nonet_listeners(&s.listeners, &s.nlisteners);

	/* Tools outside: planned (their real paths) and listened for now,
	 * so a tool missing on this machine stops the start. Their clients
	 * come first on PATH inside. */
	int tools = sb_tools_plan(&s.tools, pol, req->home, req->host_env, err);
	if (tools < 0)
		return fail(&s,
			    tools == -EINVAL || tools == -ENOENT
				? LNK_EXIT_USAGE
				: LNK_EXIT_FAIL,
			    tools, status);
	if (tools) {
		/* What a pattern with free arguments gives the program, said
		 * before it runs (tools/allow.h). */
		struct strv tw = {0};
		tools_plan_warnings(&s.tools.plan, &tw);
		for (size_t i = 0; i < tw.n; i++)
			warnx_("%s", tw.v[i]);
		strv_free(&tw);
		strv_pushf(&s.extra_env, "PATH=%s:%s", TOOLS_BIN_INSIDE,
			   ENV_SANDBOX_PATH);
	}
	if (tools && s.tools.plan.pages.n)
		strv_pushf(&s.extra_env, "BROWSER=%s/www-browser",
			   TOOLS_BIN_INSIDE);

	/* Prompts and scripts can tell they run in a sandbox, and which:
	 * the name is checked (letters, digits, '.', '_', '-'; at most 64,
	 * which is also the kernel's limit for a host name). */
	strv_pushf(&s.extra_env, "LNK_SANDBOX=%s", name);

	/* What runs outside later: read-only binds and guarded names. */
	struct strv hidden = {0};
	strv_copy(&hidden, &pol->always_hidden);
	paths_always_hidden(req->home, &hidden);
	const struct strv *hd = policy_list(pol, K_FILES_HIDE);
	for (size_t i = 0; i < hd->n; i++)
		strv_push(&hidden, hd->v[i]);
	struct strv grants = {0};
	strv_copy(&grants, policy_list(pol, K_FILES_READ));
	const struct strv *wl = policy_list(pol, K_FILES_WRITE);
	for (size_t i = 0; i < wl->n; i++)
		strv_push(&grants, wl->v[i]);
	struct protect_in pro = {
	    .write = wl,
	    .lifted = policy_list(pol, K_FILES_WRITE_DOT_FILES),
	    .hidden = &hidden,
	    .grants = &grants,
	    .home = req->home,
	    .path_env = env_lookup(req->host_env, "PATH"),
	    .env = req->host_env,
	    .facts = pol->facts,
	};
	r = guard_protect(&pro, &s.np, &s.ro_over, err);
	strv_free(&hidden);
	strv_free(&grants);
	if (r < 0)
		return fail(&s, LNK_EXIT_FAIL, r, status);
	/* The supervisor also decides connect() on unix sockets, since a
	 * read-only mount does not stop it: a host daemon's socket under a
	 * granted folder must not answer. So it runs whenever any folder
	 * is granted. With a write folder it takes every creation and every
	 * open that writes even when no name is kept there
	 * (--write-dot-files): a file with another name, maybe outside
	 * (pnpm's store, a cp -al backup), gets one of its own before a
	 * write (src/guard/shared.c). With --read folders alone, connect()
	 * alone. */
	bool dot = r == 1 || policy_list(pol, K_FILES_WRITE)->n > 0;
	/* The broker's socket is lnk's, bound in on purpose: the guard lets
	 * the program connect to that one file. */
	if (tools) {
		s.np.tool_sock_dev = s.tools.sock_dev;
		s.np.tool_sock_ino = s.tools.sock_ino;
	}
	bool folders = policy_list(pol, K_FILES_READ)->n > 0 ||
		       policy_list(pol, K_FILES_WRITE)->n > 0;
	/* With [commands], it also names each program Landlock refuses to
	 * run (a shell would only say "Permission denied"). */
	bool exec_note = !policy_any_command(pol);
	/* With a wire it also brings every TCP connect of the program to
	 * another address to the wire (src/guard/tproxy.c). */
	bool connects = folders || wire;
	/* And whatever else it does, it decides every change of a mode, an
	 * owner or an extended attribute: through a descriptor it was given
	 * (its stdin, a terminal), the program must not change a file outside
	 * its grants. So every sandbox has one (plan.c). */
	if (wire) {
		s.np.tcp_port = s.wp.tcp_port;
		/* and its resolver is the wire's (src/wire/dnsd.h) */
		if ((r = host_add_etc_text(&s.host, "/etc/resolv.conf",
					   "# the sandbox's wire answers "
					   "for the names it may reach\n"
					   "nameserver 127.0.0.1\n",
					   err)) < 0)
			return fail(&s, LNK_EXIT_FAIL, r, status);
	}
	/* Without one, it names a connect outside (src/guard/nonet.c), and
	 * the resolver without network answers (src/wire/nonet.h). */
	s.np.no_network = !wire;
	if (nonet &&
	    (r = host_add_etc_text(&s.host, "/etc/resolv.conf",
				   "# no network grant: lnk answers every "
				   "name 'no such name' and says which\n"
				   "nameserver 127.0.0.1\n",
				   err)) < 0)
		return fail(&s, LNK_EXIT_FAIL, r, status);
	/* its own name resolves inside (launch/etchosts.h) */
	if ((r = etchosts_name(&s.host, name, err)) < 0)
		return fail(&s, LNK_EXIT_FAIL, r, status);

	/* Made now, though nothing else acts before the plan is whole: the
	 * plan names the folder mkdtemp chooses. */
	if ((r = devnodes_make(&s.dev, err)) < 0)
		return fail(&s, LNK_EXIT_FAIL, r, status);
	/* bwrap finds them in place in its view of the host, or binds them
	 * itself (launch/hostview.h). */
	hostview_plan(&s.view, s.dev.dir);

	struct strv argv = {0};
	if (req->probe)
		strv_push(&argv, req->probe);
	else if (tools && sb_tools_has(&s.tools, req->argv[0]))
		strv_push(&argv, s.tools.client); /* made its inside path */
	else
		strv_push(&argv, req->argv[0]);
	for (int i = 1; i < req->argc; i++)
		strv_push(&argv, req->argv[i]);
	struct plan_in pin = {
	    .pol = pol,
	    .host = &s.host,
	    .home = req->home,
	    .cwd = req->cwd,
	    .host_env = req->host_env,
	    .argv = argv.v,
	    .argc = (int)argv.n,
	    .pty = req->pty,
	    .wire = wire || nonet, /* the handoff of the listeners */
	    .guard = dot,
	    .guard_connect_only = connects && !dot,
	    .extra_env = &s.extra_env,
	    .listeners = s.listeners,
	    .nlisteners = s.nlisteners,
	    .ro_over = &s.ro_over,
	    .limits = &s.lim,
	    .dev_nodes_dir = s.view.on ? NULL : s.dev.dir,
	};
	r = plan_build(&pin, &s.plan, err);
	strv_free(&argv);
	/* A program not found stays 127 (a typo is the likelier mistake);
	 * one that would not be allowed is refused for the spec's sake. */
	if (r == -EACCES && !req->probe && spec_runs_nothing(pol))
		r = refuse_no_commands(pol, req->argv[0], err);
	if (r < 0)
		return fail(&s, exit_for(r), r, status);
	s.view.detach_sys = !s.plan.bw.shows_sys;
	/* bwrap's --unshare-all gives the sandbox its own UTS namespace. */
	strv_push(&s.plan.bw.opts, "--hostname");
	strv_push(&s.plan.bw.opts, name);
	/* The wire and the tools broker are forked, not exec'd: the
	 * registration must have ended before (keep_from_forks). Without
	 * them it runs on beside bwrap's setup (hold_for_entry). */
	if ((wire || tools) && enter_wait(&s) < 0)
		return enter_fail(&s, &ej, status);
	bool elsewhere = false;
	if (!req->probe &&
	    (r = say_where(req, s.plan.bw.chdir, &elsewhere, err)) < 0)
		return fail(&s, LNK_EXIT_USAGE, r, status);
	struct hold_ctx hold = {
	    .s = &s,
	    .j = &ej,
	    .elsewhere = elsewhere ? s.plan.bw.chdir : NULL,
	    .probe = req->probe != NULL,
	};
	int64_t stop_since = 0, started_ms = registry_now_ms();
	if (req->probe)
		plan_probe(&s, req->probe);
	if (tools)
		sb_tools_mount(&s.tools, &s.plan,
			       req->probe ? NULL : req->argv[0]);
#ifdef LNK_TEST_HOOKS
	test_weaken(req, &s.plan);
#endif

	/* The sandbox's cgroup. With cgroup v1 and the guard's socket, it
	 * is made while bwrap makes the sandbox (mkdir in the memory
	 * hierarchy alone takes a third of a millisecond) and goes to
	 * lnk-init on that socket, whose child for the program moves in
	 * (launch/limits.h says why); else now, and bwrap's process moves
	 * in. */
	limits_find(&s.lw);
	_cleanup_free_ char *tag = xasprintf("%s-%d", name, (int)getpid());
	bool cg_later = s.lw.kind == LIMITS_CGROUP1;
	s.plan.init.cgroup_on_guard = cg_later;
	if (!cg_later &&
	    (r = limits_cgroup_make(&s.lw, &s.lim, tag, &s.cg, err)) < 0)
		return fail(&s, LNK_EXIT_FAIL, r, status);
	hold.cgroup_tag = cg_later ? tag : NULL;

	if ((r = initcfg_encode(&s.plan.init, &s.cfg)) < 0) {
		err_set(err, r, "cannot prepare the sandbox's settings: %s",
			strerror(-r));
		return fail(&s, LNK_EXIT_FAIL, r, status);
	}

	/* Act: the wire and the tools broker (processes, before any
	 * thread), then bwrap, and while it makes the sandbox the
	 * registration and the guard's threads (hold_for_entry). Signals are
	 * blocked first, so the threads leave them to the supervisor. */
	spawn_block_signals();
	if (wire || tools)
		keep_from_forks(&s);
	/* One cap for the log's refusals, however many channels refuse:
	 * mapped shared before the forks (store/refusals.h). */
	if ((wire || tools) &&
	    (s.cap = refusals_shared_new(refusals_clock_ms()))) {
		s.wp.cap = s.cap;
		s.tools.cap = s.cap;
	}
	if (wire) {
		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
			       s.wire_pair) < 0 ||
		    pipe2(s.lifeline, O_CLOEXEC) < 0) {
			r = err_set(err, -errno, "cannot connect the wire: %s",
				    strerror(errno));
			return fail(&s, LNK_EXIT_FAIL, r, status);
		}
		if ((r = wire_start(&s.wp, s.wire_pair[0], s.lifeline[0],
				    &s.wire_pid, err)) < 0)
			return fail(&s, LNK_EXIT_FAIL, r, status);
		/* The wire's ends are its own now. */
		close(s.wire_pair[0]);
		s.wire_pair[0] = -1;
		close(s.lifeline[0]);
		s.lifeline[0] = -1;
	}
	/* The resolver without a network grant takes the wire's place in
	 * the handoff and the lifeline, and its pid is waited for as the
	 * wire's is. */
	if (nonet) {
		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
			       s.wire_pair) < 0 ||
		    pipe2(s.lifeline, O_CLOEXEC) < 0) {
			r = err_set(err, -errno,
				    "cannot start the sandbox's resolver: %s",
				    strerror(errno));
			return fail(&s, LNK_EXIT_FAIL, r, status);
		}
		if ((r = nonet_start(name, s.wire_pair[0], s.lifeline[0],
				     &s.wire_pid, err)) < 0)
			return fail(&s, LNK_EXIT_FAIL, r, status);
		close(s.wire_pair[0]);
		s.wire_pair[0] = -1;
		close(s.lifeline[0]);
		s.lifeline[0] = -1;
	}
	if (tools) {
		/* The wire's ends (-1 without a wire, which ends the list). */
		int keep_out[] = {s.wire_pair[1], s.lifeline[1], -1};
		/* Someone to ask: lnk holds the terminal it started from
		 * (a pty: it asks there, with a code), or, without a pty,
		 * its stderr is a terminal whose foreground lnk is (a
		 * person watches, and answers from another shell; a job in
		 * the background has no one); or a desktop session (the
		 * broker finds out whether there is one). */
		bool may_ask = !req->probe && !req->no_one_to_ask;
		bool watched = isatty(STDERR_FILENO) &&
			       tcgetpgrp(STDERR_FILENO) == getpgrp();
		bool can_ask = (req->pty || watched) && may_ask;
		if ((r = sb_tools_start(&s.tools, name, req->home,
					req->host_env, keep_out, can_ask,
					req->pty, may_ask, err)) < 0)
			return fail(&s, LNK_EXIT_FAIL, r, status);
	}
	/* The guard's socket now, for bwrap's child to inherit; its threads
	 * start while bwrap makes the sandbox (guard_begin). */
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
		       s.guard_pair) < 0) {
		r = err_set(err, -errno,
			    "cannot start the dot-file protection: %s",
			    strerror(errno));
		return fail(&s, LNK_EXIT_FAIL, r, status);
	}
	hold.exec_note = exec_note;
	hold.home = req->home;

	struct spawn_req sreq = {
	    .bwrap = s.plan.bwrap,
	    .opts = &s.plan.bw.opts,
	    .tail = &s.plan.tail,
	    .config = s.cfg.p,
	    .config_len = s.cfg.len,
	    .passwd = s.plan.passwd,
	    .group = s.plan.group,
	    .wire_fd = s.wire_pair[1],
	    .guard_fd = s.guard_pair[1],
	    .files = s.plan.files,
	    .nfiles = s.plan.nfiles,
	    .pty = s.plan.pty,
	    .end_on_hangup = req->end_on_hangup,
	    .cgroup_procs = {s.cg.procs[0], s.cg.procs[1]},
	    .view = s.view.on ? &s.view : NULL,
	    .ask = s.tools.ask,
	    .hold = hold_for_entry,
	    .hold_ctx = &hold,
	    .ended_fd = sb_ended_fd,
	    .ended = sb_ended,
	    .ended_ctx = &s,
	};
	struct spawn_result res;
	/* the run's start on each write folder's clock: hold_for_entry */
	struct changes_run chg;
	changes_run_begin(&chg, req->probe ? CHANGES_OFF : req->changes, pol);
	hold.chg = &chg;
	r = spawn_run(&sreq, &res, err);
	limits_cgroup_end(&s.cg);
	devnodes_remove(&s.dev);

	/* The sandbox is gone: its tools end with it. */
	sb_tools_end(&s.tools);
	sb_ended(&s);
	if (s.wire_pid > 0) {
		int st;
		while (waitpid(s.wire_pid, &st, 0) < 0 && errno == EINTR)
			;
	}
	if (r < 0)
		return fail(&s, LNK_EXIT_FAIL, r, status);
	if (res.held && hold.guard_r < 0) /* the program never ran */
		return fail(&s, LNK_EXIT_FAIL, hold.guard_r, status);
	if (res.held && hold.cgroup_r < 0)
		return fail(&s, LNK_EXIT_FAIL, hold.cgroup_r, status);
	if (res.held) /* the name refused: the program never ran */
		return enter_fail(&s, &ej, status);
	if (!res.started && res.status != 0 && res.status < 128) {
		/* Why bwrap could not make the sandbox, and where to look. */
		_cleanup_free_ char *hint = host_userns_hint();
		if (hint)
			r = err_set(err, -EIO,
				    "the sandbox could not start: %s; run 'lnk "
				    "sandbox ready' to fix it",
				    hint);
		else
			r = err_set(err, -EIO,
				    "the sandbox could not start: bubblewrap "
				    "(%s) failed (its message is above); run "
				    "'lnk sandbox ready' to check this machine",
				    s.plan.bwrap);
		return fail(&s, LNK_EXIT_FAIL, r, status);
	}
	/* Ended by a signal while a stop began: say who ended it, or the
	 * user sees a program gone without a word. */
	if (!req->probe && res.status > 128 &&
	    stopnote_in_force(req->home, &stop_since) &&
	    stop_since >= started_ms)
		warnx_("stopped by 'lnk sandbox stop'");
	/* after the program's own output, before lnk exits; never its
	 * status */
	if (res.started)
		changes_run_end(&chg, name, req->home, req->host_env);
	else
		changes_run_end(&chg, NULL, NULL, NULL);
	/* 126 is what shells (and npm, make, env) exit with when a program
	 * cannot run; under [commands] that is most often Landlock refusing
	 * one. The guard names the ones it saw (exec.c); for the rest (an
	 * interpreter a script names, fexecve) say where to look. */
	if (!req->probe && res.status == LNK_EXIT_CANNOT_EXEC &&
	    !policy_any_command(pol) && s.gs.exec_named == 0)
		warnx_("the program exited with 126 (a program could not "
		       "run): if its message above says 'Permission denied' "
		       "for a program, [commands] does not allow it; add "
		       "--command NAME, or its folder with a trailing slash");
	*status = res.status;
	state_free(&s);
	return 0;
}
