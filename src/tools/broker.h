/* The tools broker: a process of lnk's, outside the sandbox, that takes
 * the calls of the clients inside (proto/toolcall.h) and runs the real tools as the
 * user, with lnk's own environment.
 *
 * It reads no network bytes and holds no grant of the program's: what it
 * trusts is the plan lnk made at start (which tools, their real paths,
 * which calls run at once). Everything a client sends is hostile: the
 * call is decoded with bounds (call.c), exactly three descriptors are
 * taken and any more refuse the call (the kernel drops the rest), and a
 * tool runs only under the name of a granted tool, at the path found on
 * the host at start, never a path the call names. */
#pragma once

struct refusals_shared;
struct shut;
struct tripbox;

#include <sys/types.h>

#include "common/err.h"
#include "common/util.h"
#include "tools/allow.h"
#include "tools/view.h"

struct tools_broker_in {
	const struct tools_plan *plan;
	int listen_fd;	      /* bound and listening (tools_listen) */
	int lifeline_fd;      /* read end: hangs up when the sandbox is over */
	const int *close_fds; /* lnk's other descriptors the broker must not
			       * hold (the wire's lifeline), -1 ended */
	const char *db;	      /* the call log's database */
	/* the sandbox's one cap on logged refusals, shared with its wire
	 * (store/refusals.h), or NULL: the broker's own */
	struct refusals_shared *cap;
	/* whether the sandbox's wire is closed (store/shut.h), or NULL
	 * without a wire: while it is, no call is carried */
	const struct shut *shut;
	/* where its refusals go to the wire's tripwires (store/tripbox.h),
	 * or NULL without a wire: then the tripwires are the broker's own,
	 * with these thresholds (0: the defaults) */
	struct tripbox *trips;
	unsigned trip_calls, trip_targets;
	const char *sandbox;	   /* its name in the log */
	char *const *env;	   /* lnk's own environment, for the tools */
	const struct strv *grants; /* --read and --write folders, real */
	const struct strv *writes; /* --write folders */
	/* --write-dot-files folders: their tops keep no dot file, so no tool
	 * acts there (folder.h) */
	const struct strv *write_dot_files;
	const struct strv *hidden; /* folders closed inside, real */
	/* the write folders, where a tool follows no link (view.h) */
	const struct tools_nofollow *nofollow;
	const char *fallback; /* where a tool runs when the program's
				    * folder is no grant: the first --write
				    * folder, or "/" */
	bool can_ask; /* someone at a terminal to ask (sandbox.c says who) */
	/* The write end of the pipe to lnk's prompt on its terminal
	 * (launch/askterm.h: each question's id, and how it ended), or -1:
	 * then a question is said on stderr. */
	int ask_fd;
	/* The read end of the pipe on which lnk's prompt sends the answers
	 * typed on its terminal ("y ID" or "n ID", tools/answer.h), or -1. */
	int answer_fd;
	/* A desktop session's bus, where the program may be asked on the
	 * desktop (desktop.h), or NULL. */
	const char *bus;
	const char *dialog;   /* zenity or kdialog, or NULL */
	const char *asks_dir; /* ~/.lnk/sandbox/asks */
	unsigned ask_wait_s;  /* a question's wait, then no */
	/* tools_listen's folder: removed at the end, also when lnk was
	 * killed. */
	char *sock_dir;
};

/* A unix socket at <dir>/tools.sock in a new private folder of home's
 * ~/.lnk/sandbox/run, listening. *dir is for tools_unlisten. 0 or
 * -errno. */
int tools_listen(const char *home, int *fd, char **dir, struct lnk_err *err);
/* Removes what tools_listen made. */
void tools_unlisten(char *dir);

/* Forks the broker. It serves until lifeline_fd hangs up, then ends every
 * tool still running (its whole process group) and exits. 0 or -errno. */
int tools_broker_start(const struct tools_broker_in *in, pid_t *pid,
		       struct lnk_err *err);
