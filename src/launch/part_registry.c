/* The registry entry of one run (run.h, parts.c).
 *
 * Every sandbox is in the registry from its start to its end, with a
 * network grant or without: `stop` must reach the ones that can still
 * change files, and `paused` and `traffic` list them. Registered before
 * the program runs (a name that runs already is refused here, not once
 * the program runs). registry_register checks the name and enters it in
 * one transaction, so two sandboxes starting with one name cannot both
 * have it. A spec's fixed name would keep two commands of one spec (npm
 * run dev and npm test) from running at once: while it is taken, a run
 * of the spec takes the next free one, "app-2", and says so; a name
 * given with --name is the person's choice and is refused instead.
 * Whether a stop is in force is read on the same connection, after the
 * entry is made (so a concurrent `stop` either sees the entry or is seen
 * here). One open of lnk.db for all of it, kept for the removal at the
 * end, so that a run opens lnk.db once, unless a child that uses SQLite
 * is forked (registry_part_start). When lnk is killed the entry stays
 * until a reader finds its supervisor gone (store/registry.h).
 *
 * The registration runs beside other work, never before it:
 *
 * - A sandbox with neither a wire nor tools registers after bwrap is
 *   forked (registry_part_hold), on the supervisor's own thread, while
 *   bwrap makes the sandbox: that takes ten times longer, so the
 *   registration costs the start nothing, and no thread is made for it.
 *   (On a thread from the start, it competed with the planning for the
 *   second core and waited for it to wake: 0.9 ms more, measured.)
 * - With a wire or tools, whose children are forked and must not inherit
 *   an open connection, it runs on a thread of its own while the
 *   supervisor reads the host and plans the sandbox, and has ended
 *   (registry_part_start) before the first of those forks.
 *
 * A name that may move is waited for at once, as everything after names
 * the sandbox; a fixed one (run-<pid>, --name) is only taken or refused,
 * and a refusal ends the run before anything of the program starts. The
 * registration prints nothing. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launch/run.h"
#include "store/registry.h"
#include "wire/ctl.h"

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

static void *enter_main(void *arg)
{
	struct enter_job *j = arg;
	j->r = registry_enter(j->home, j->name, j->may_move, j->wire,
			      &j->stopped, &j->moved_from, &j->reg, &j->err);
	return NULL;
}

/* lnk forks a process that opens lnk.db itself (the wire, the broker). */
static bool forks(const struct run *r)
{
	return r->want.wire || r->want.tools;
}

int registry_part_plan(struct run *r)
{
	struct enter_job *j = &r->ej;

	*j = (struct enter_job){
	    .home = r->req->home,
	    .name = &r->name,
	    .may_move = r->want.name_moves,
	    .wire = r->want.wire,
	};
	j->deferred = !j->may_move && !forks(r);
	if (!j->deferred) {
		/* With every signal blocked, as the thread inherits them: one
		 * that is the supervisor's (spawn_block_signals) must not end
		 * lnk on it while it runs. */
		sigset_t all, was;
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &was);
		j->threaded = pthread_create(&j->th, NULL, enter_main, j) == 0;
		pthread_sigmask(SIG_SETMASK, &was, NULL);
		if (!j->threaded)
			enter_main(j);
	}
	r->enter = j;
	return 0;
}

int registry_part_wait(struct run *r)
{
	struct enter_job *j = r->enter;
	if (!j)
		return 0;
	r->enter = NULL;
	if (j->threaded)
		pthread_join(j->th, NULL);
	else if (j->deferred)
		enter_main(j);
	if (j->r == 0) {
		r->home = j->home;
		r->reg = j->reg;
	}
	return j->r;
}

/* Its refusal is the run's error. */
static int wait_or_refuse(struct run *r)
{
	int rc = registry_part_wait(r);
	if (rc < 0 && r->err)
		*r->err = r->ej.err;
	return rc;
}

/* The wire, its keeper and the tools broker are forked, not exec'd, and
 * open lnk.db themselves: none may inherit an open connection, whose
 * per-process lock records (SQLite's, in memory) would be the parent's,
 * nor be forked while the registration's thread runs (it holds SQLite's
 * and malloc's locks). So before the first of those forks the thread is
 * joined and the connection closed: before bwrap for the broker (forked
 * before bwrap), as bwrap starts for the keeper alone (forked then, so
 * that neither the registration nor the fork delays bwrap). The child
 * that becomes bwrap execs at once, and nothing in it reads the
 * database, so the kept connection may stay across that fork. */
static int ready_to_fork(struct run *r)
{
	int rc = wait_or_refuse(r);
	if (rc < 0)
		return rc;
	registry_close(r->reg);
	r->reg = NULL;
	return 0;
}

int registry_part_start(struct run *r)
{
	return r->want.tools ? ready_to_fork(r) : 0;
}

int registry_part_spawned(struct run *r)
{
	return r->want.wire && !r->want.tools ? ready_to_fork(r) : 0;
}

int registry_part_hold(struct run *r)
{
	int rc = wait_or_refuse(r);
	if (rc < 0)
		return rc;
	/* With a wire or tools the connection was closed for their forks:
	 * opened again now, while bwrap makes the sandbox, so that removing
	 * the entry at the end does not pay for an open (about 1 ms) after
	 * the program. */
	struct lnk_err ignored = {0};
	if (!r->reg && r->home && registry_open(r->home, &r->reg, &ignored) < 0)
		r->reg = NULL;
	return 0;
}

/* The entry removed, once; best effort: an entry left behind is stale
 * once this process ends. On the kept connection, or a new one. */
void registry_part_end(struct run *r, bool gone)
{
	(void)gone;
	if (r->home) {
		struct registry *st = steal_pointer(&r->reg);
		struct lnk_err ignored = {0};
		if (st || registry_open(r->home, &st, &ignored) == 0) {
			(void)registry_unregister(st, r->name, &ignored);
			registry_close(st);
		}
	}
	r->home = NULL;
	registry_close(r->reg);
	r->reg = NULL;
}
