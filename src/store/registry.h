/* The registry of running sandboxes, and which wires are closed and why
 * (paused by hand, by stop, tripped), and whether a stop is in force.
 *
 * Kept in ~/.lnk/sandbox/lnk.db beside the call log, in tables of its own
 * (ctl_sandboxes, ctl_stop), on a connection of its own (WAL, busy
 * timeout), so the wires, `lnk sandbox run` and the commands can all write.
 * ~/.lnk is 0700: only its owner reads or changes it (invariant 6: nothing
 * inside a sandbox can).
 *
 * Processes are named by pid AND start time (field 22 of /proc/PID/stat),
 * so a recycled pid is never mistaken for a sandbox's: an entry whose
 * supervisor is gone is stale and cleaned, and stop signals through a
 * pidfd opened and then checked against the start time (no pid-reuse race).
 *
 * Every sandbox is registered from its start to its end, with a network
 * grant or without (a wireless one has no wire: pid 0, no socket):
 *   `lnk sandbox run` (launch/sandbox.c), before anything starts:
 *       registry_register with the supervisor (itself); -EEXIST: that name
 *       runs already; at its end registry_unregister. When lnk is killed the
 *       entry stays until a reader finds its supervisor gone (stale).
 *
 * How the wire uses this
 *   at start, before accepting any call:
 *       struct registry *st; registry_open(home, &st, &err);
 *       struct registry_entry e = {0}; snprintf(e.name, ..., name);
 *       e.uid = getuid();
 *       registry_proc_self(getppid(), &e.supervisor);   lnk sandbox run
 *       registry_proc_self(getpid(), &e.wire);
 *       (e.sandbox: bwrap's pid when known, else pid 0)
 *       e.started_ms = now (unix ms); socket path from ctl_socket_path
 *       registry_register_wire(st, &e, &err);  joins the supervisor's entry
 *       bool stopped; registry_stop_get(st, &stopped, NULL, &err);
 *       if (stopped) close the wire, cause stop: a stop is in force
 *       (registering first, then reading the stop, means a concurrent
 *       `lnk sandbox stop` either sees this entry or this wire sees it)
 *   `lnk sandbox run`, once bwrap runs (optional: stop's SIGKILL to the
 *   supervisor ends the sandbox anyway, through lnk-init's lifeline):
 *       registry_set_sandbox(st, name, bwrap_pid, &err)
 *   whenever the wire closes or opens:
 *       registry_set_closed(st, name, cause, rule, detail, unix_ms, &err)
 *       registry_set_open(st, name, &err)
 *   at exit: registry_unregister_wire(st, name, &err); registry_close(st)
 *   Rare, small writes (one row): fine on the loop.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/err.h"
#include "net/grammar.h"
#include "proto/ctl.h"

#define REGISTRY_NAME_MAX SANDBOX_NAME_MAX

/* A sandbox name, by the grammar's rule (sandbox_name_check): names become
 * file names (the control socket): no '/' or "..". */
bool registry_name_valid(const char *name);

struct registry_proc {
	pid_t pid;	/* 0 when unknown */
	uint64_t start; /* start time, clock ticks after boot */
};

struct registry_entry {
	char name[REGISTRY_NAME_MAX + 1];
	uid_t uid;
	/* supervisor: `lnk sandbox run` (stop sends it SIGTERM, which it
	 * forwards to the program, then SIGKILL); sandbox: bwrap, optional
	 * (also SIGKILLed); wire: the wire's process. */
	struct registry_proc supervisor, sandbox, wire;
	char socket[512];
	int64_t started_ms; /* unix ms */
	/* The wire's state. */
	bool closed;
	enum ctl_cause cause;
	enum trip_rule rule;
	char detail[CTL_DETAIL_MAX];
	int64_t closed_ms; /* unix ms */
};

struct registry;

/* Opens (creating the folder 0700, the file and the tables). */
int registry_open(const char *home, struct registry **out, struct lnk_err *err);
/* The same for a database file at path (tests). */
int registry_open_at(const char *path, struct registry **out,
		     struct lnk_err *err);
void registry_close(struct registry *s);

/* Registers e. A live entry with the same name is -EEXIST; a stale one is
 * replaced. */
int registry_register(struct registry *s, const struct registry_entry *e,
		      struct lnk_err *err);
/* The wire joins the entry its supervisor registered (same name, same
 * supervisor): its pid and socket are filled in. Without such an entry it
 * registers e as registry_register does. */
int registry_register_wire(struct registry *s, const struct registry_entry *e,
			   struct lnk_err *err);
int registry_set_sandbox(struct registry *s, const char *name, pid_t pid,
			 struct lnk_err *err);
int registry_unregister(struct registry *s, const char *name,
			struct lnk_err *err);
/* The wire at its end: removes name's entry only when no supervisor
 * registered it; a supervisor's entry is removed by that supervisor at its
 * own end, or by the next reader when it was killed (until then a sandbox
 * whose wire died stays listed, its wire "down", and stop still reaches
 * it). */
int registry_unregister_wire(struct registry *s, const char *name,
			     struct lnk_err *err);

int registry_set_closed(struct registry *s, const char *name,
			enum ctl_cause cause, enum trip_rule rule,
			const char *detail, int64_t at_ms, struct lnk_err *err);
int registry_set_open(struct registry *s, const char *name,
		      struct lnk_err *err);

/* Removes entries whose supervisor is gone (pid dead or recycled); *removed
 * (if not NULL) counts them. */
int registry_clean_stale(struct registry *s, size_t *removed,
			 struct lnk_err *err);
/* Every live entry, by name, after cleaning stale ones. free() *out. */
int registry_list(struct registry *s, struct registry_entry **out, size_t *n,
		  struct lnk_err *err);
/* One live entry; -ENOENT when no sandbox of that name runs (an invalid
 * name is also -ENOENT). */
int registry_find(struct registry *s, const char *name,
		  struct registry_entry *out, struct lnk_err *err);

/* Whether e's sandbox has a wire (a network grant): its control socket is
 * registered (by the supervisor, before the wire starts) or the wire's
 * pid (once it joined; wire.pid is 0 until then). */
bool registry_entry_has_wire(const struct registry_entry *e);

/* The stop that persists: while on, every wire starts closed. */
int registry_stop_set(struct registry *s, bool on, int64_t at_ms,
		      struct lnk_err *err);
int registry_stop_get(struct registry *s, bool *on, int64_t *since_ms,
		      struct lnk_err *err);

/* Processes. */
/* Fills p with pid and its start time; -ESRCH if it does not run. */
int registry_proc_self(pid_t pid, struct registry_proc *p);
/* True when p's pid runs and started at p's start time. */
bool registry_proc_alive(const struct registry_proc *p);
/* A pidfd (O_CLOEXEC) for p, checked against the start time after it is
 * opened; -ESRCH when p no longer runs. */
int registry_proc_pidfd(const struct registry_proc *p);

/* A pidfd for p, only once p is proven to be one of this user's lnk
 * processes: it runs (start time checked after the pidfd is opened), its
 * real and effective uid are ours, and it runs lnk's own executable; or,
 * with parent (bwrap, which is no lnk), it is parent's child and parent is
 * such a process. Threat: a registry row that names some other process
 * (a forged row, a bug) must never make `stop` signal it. -ESRCH when p is
 * gone, -EPERM when it is not lnk's, with a message. */
int registry_proc_open(const struct registry_proc *p,
		       const struct registry_proc *parent, struct lnk_err *err);

/* Wall clock, unix ms. */
int64_t registry_now_ms(void);
