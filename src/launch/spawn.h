/* The supervisor: starts bwrap and stays with it to the end.
 *
 * It holds the terminal: when stdin and stdout are terminals, the program
 * gets a pseudo-terminal of its own that lnk relays (as sudo with use_pty
 * and su --pty do), so terminal injection (TIOCSTI) can reach only that pty
 * and window-size changes pass through. SIGINT, SIGTERM, SIGHUP and SIGQUIT
 * sent to lnk reach the program. lnk exits with the program's status, or
 * 128+N when a signal N ended it.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "common/err.h"
#include "common/util.h"

struct askterm;
struct hostview;

struct spawn_req {
	const char *bwrap;	 /* bubblewrap's path */
	const struct strv *opts; /* its options: go in a sealed memfd */
	const struct strv *tail; /* "--" init and its arguments */
	const char *config;	 /* the encoded init config */
	size_t config_len;
	const char *passwd, *group; /* generated /etc files, or NULL */
	int wire_fd, guard_fd;	    /* init's ends, or -1 */
	const int *files; /* to slots LAUNCH_FD_END + i (launch_plan.files) */
	size_t nfiles;
	bool pty;
	/* enter's sessions: when lnk's terminal hangs up (SIGHUP, or the
	 * pty's input ends) or, without a pty, nobody reads lnk's output any
	 * more (its stdout pipe or socket is closed at the other end), the
	 * connection is gone: the program gets SIGHUP, and
	 * SPAWN_HANGUP_GRACE_MS later the sandbox ends, whether or not the
	 * program ignored it. */
	bool end_on_hangup;
	/* cgroup.procs of the sandbox's cgroups, open for writing, or -1
	 * (launch/limits.h): bwrap moves itself in before it runs. Not
	 * for a cgroup the program's process moves into (sandbox.c). */
	int cgroup_procs[2];
	/* As root: the view of the host bwrap starts from
	 * (launch/hostview.h), or NULL. */
	const struct hostview *view;
	/* With a pty and tools that ask: the terminal as an answerer of the
	 * sandbox's questions (askterm.h), or NULL. */
	struct askterm *ask;
	/* Called once bwrap is forked, while it makes the sandbox: 0 lets
	 * the program run, anything else ends the sandbox before it does
	 * (lnk-init reads the answer on the lifeline before it forks the
	 * program). NULL: the program may run at once. */
	int (*hold)(void *ctx);
	void *hold_ctx;
	/* Asked once hold has answered: a descriptor that turns readable
	 * when every process of the sandbox has ended, before bwrap itself
	 * exits (the kernel still takes the sandbox's namespaces down), or
	 * -1. ended is called then, once, so that lnk's own teardown runs
	 * beside the kernel's. NULL: none. */
	int (*ended_fd)(void *ctx);
	void (*ended)(void *ctx);
	void *ended_ctx;
};

/* Time for a program that handles SIGHUP to save its state (a shell its
 * history, an editor its buffers) before its sandbox ends. */
#define SPAWN_HANGUP_GRACE_MS 2000

struct spawn_result {
	int status;   /* what lnk exits with */
	bool started; /* bwrap made the sandbox (it reported its pid 1) */
	bool held;    /* hold refused: the program never ran */
};

/* Blocks the signals the supervisor handles, so that every thread started
 * afterwards (the guard) leaves them to it. Call early. */
void spawn_block_signals(void);

/* Marks every descriptor above 2 close-on-exec: descriptors lnk inherited
 * (a directory, a socket) never reach bwrap, the wire or the program
 * (invariant 4). Call first thing in a command that starts a sandbox. */
void spawn_cloexec_inherited(void);

/* Whether run should give the program a pty: stdin and stdout are
 * terminals. */
bool spawn_wants_pty(void);

int spawn_run(const struct spawn_req *r, struct spawn_result *res,
	      struct lnk_err *err);
