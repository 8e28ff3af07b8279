/* A sandbox's tools, as run sets them up (src/tools does the work): the
 * plan made at start, the socket and the clients bound inside, and the
 * broker process from start to end. */
#pragma once

struct refusals_shared;
struct shut;
struct tripbox;

#include <stdbool.h>
#include <sys/types.h>

#include "common/err.h"
#include "common/util.h"
#include "launch/plan.h"
#include "policy/policy.h"
#include "tools/allow.h"
#include "tools/view.h"

struct sb_tools {
	struct tools_plan plan;
	int listen_fd;
	char *dir;    /* the socket's private folder on the host */
	char *sock;   /* dir/tools.sock */
	char *client; /* lnk-tool on the host */
	dev_t sock_dev;
	ino_t sock_ino;
	struct strv grants, hidden, writes, dots;
	/* the write folders where a tool follows no link, apart from those
	 * that hold the home (around), whose own dot entries it follows */
	struct strv nofollow, around;
	char *home_real;
	bool home_dots_too;
	struct tools_nofollow nf;
	char *fallback;
	int life[2];
	pid_t pid;
	char *asks_dir;
	unsigned ask_wait_s;
	/* The terminal as an answerer (sb_tools_start's terminal), or NULL:
	 * the relay's (spawn_req.ask). */
	struct askterm *ask;
	char *bus; /* the desktop session's bus (desktop.h), or NULL */
	struct refusals_shared *cap; /* the sandbox's cap, shared; not owned */
	struct shut *shut; /* the wire's closed state, or NULL; not owned */
	/* its refusals for the wire's tripwires, or NULL; not owned */
	struct tripbox *trips;
	/* the tripwires' thresholds (launch/limits.h), for a broker
	 * without a wire, whose tripwires are its own */
	unsigned trip_calls, trip_targets;
	char *dialog; /* zenity or kdialog on lnk's PATH, or NULL */
};
#define SB_TOOLS_INIT                                        \
	{                                                    \
		.listen_fd = -1, .life = {-1, -1}, .pid = -1 \
	}

/* The tools the policy grants, their real paths found on lnk's PATH, and
 * the calls stored in ~/.lnk/sandbox/tools.toml; with any, the socket
 * made and listening. 1 when there are tools, 0 when none, or -errno. */
int sb_tools_plan(struct sb_tools *t, const struct policy *pol,
		  const char *home, char *const *host_env, struct lnk_err *err);
/* Whether argv0 (a name, as the command line gives it) is a tool. */
bool sb_tools_has(const struct sb_tools *t, const char *argv0);
/* The binds (the socket and a client under each tool's name) and the
 * Landlock rules of the clients, into the plan. A program that is a tool
 * itself (run -- gh ...) was planned as the client's host path, which is
 * made its inside path here. */
void sb_tools_mount(struct sb_tools *t, struct launch_plan *pl,
		    const char *argv0);
/* Forks the broker. close_fds: lnk's descriptors it must not keep, -1
 * ended. can_ask: someone at a terminal can answer its questions;
 * terminal: lnk holds the terminal it started from (a pty) and asks there
 * (t->ask); desktop: a question may also go to the desktop session, when
 * there is one. 0 or -errno. */
int sb_tools_start(struct sb_tools *t, const char *name, const char *home,
		   char *const *host_env, const int *close_fds, bool can_ask,
		   bool terminal, bool desktop, struct lnk_err *err);
/* Ends the broker (every tool still running ends with it) and removes
 * the socket. Safe to call more than once. */
void sb_tools_end(struct sb_tools *t);
