/* The whole launch, planned before anything forks (docs/design.md,
 * "One model"): the bwrap options, the init config, the
 * generated /etc/passwd and /etc/group, and the descriptor layout.
 *
 * Descriptors reach bwrap in fixed slots, so the plan can name them before
 * any exists; spawn.c moves each into its slot in the child and closes
 * every other descriptor (invariant 4).
 */
#pragma once

#include <stdbool.h>

#include "common/err.h"
#include "common/util.h"
#include "proto/initcfg.h"
#include "launch/bwrap.h"
#include "launch/host.h"
#include "launch/limits.h"
#include "policy/policy.h"

enum launch_fd {
	LAUNCH_FD_ARGS = 3,	 /* bwrap --args: its options, sealed memfd */
	LAUNCH_FD_CONFIG = 4,	 /* init --config-fd: the init config, sealed */
	LAUNCH_FD_PASSWD = 5,	 /* --ro-bind-data: /etc/passwd */
	LAUNCH_FD_GROUP = 6,	 /* --ro-bind-data: /etc/group */
	LAUNCH_FD_INFO = 7,	 /* bwrap --info-fd: the sandbox's pid 1 */
	LAUNCH_FD_WIRE = 8,	 /* init's end of the wire socket */
	LAUNCH_FD_GUARD = 9,	 /* init's end of the guard's socket */
	LAUNCH_FD_LIFELINE = 10, /* init's read end of the lifeline pipe:
				  * hangs up when lnk dies (spawn.c) */
	LAUNCH_FD_INFO_PEER = 11, /* a read end of --info-fd's pipe for bwrap
				   * itself: its write never fails (spawn.c) */
	LAUNCH_FD_END = 12,	  /* from here: the /etc files bwrap copies
			       * (launch_plan.files), then nothing */
};

struct plan_in {
	const struct policy *pol;      /* resolved */
	const struct host_facts *host; /* host_gather */
	const char *home;	       /* absolute */
	const char *cwd;	       /* where lnk was started, absolute */
	char *const *host_env;	       /* lnk's environ */
	char *const *argv;	       /* the program and its arguments */
	int argc;
	bool pty;      /* the program gets a pty */
	bool wire;     /* a wire socket goes in LAUNCH_FD_WIRE */
	bool resolver; /* lnk-init serves lookups (no network grant) */
	bool guard;    /* the guard's socket in LAUNCH_FD_GUARD:
					 * the dot-file guard is on */
	bool guard_connect_only;      /* one for connect() alone (a folder is
			      * granted, no dot file kept) */
	const struct strv *extra_env; /* the wire's proxy variables */
	const struct init_listener *listeners; /* the wire's, copied */
	size_t nlisteners;
	const struct strv *ro_over;  /* dot files to keep read only */
	const struct limits *limits; /* NULL: none */
	const char *dev_nodes_dir;   /* launch/devnodes.h; NULL: none */
};

struct launch_plan {
	struct bwrap_out bw;
	struct init_config init;
	char *passwd, *group; /* generated files' text */
	struct strv tail;     /* "--" /run/lnk/init --config-fd N */
	char *bwrap;	      /* bubblewrap's path */
	bool pty;
	/* Descriptors for slots LAUNCH_FD_END + i: the host's open /etc files
	 * (host_facts.etc_fds, borrowed, not owned) that bw.files copies. */
	int *files;
	size_t nfiles;
};

/* Plans the launch. The program is resolved by commands_resolve on the
 * sandbox's PATH: a missing program gives -ENOENT (exit 127), one that is
 * not allowed or not executable -EACCES (exit 126). */
int plan_build(const struct plan_in *in, struct launch_plan *out,
	       struct lnk_err *err);
void plan_free(struct launch_plan *p);
