/* The host's memory and processes: how much one sandbox may take.
 *
 * Threat: a program that fills its tmpfs (whose pages belong to no process,
 * so the OOM killer shoots the host's programs instead) or forks without
 * end takes the machine down with it. Three bounds:
 *
 * - Each tmpfs of the sandbox (/tmp, /var/tmp, /dev/shm, the empty home)
 *   holds at most tmp_size bytes (bwrap --size), always.
 * - Where lnk can make a cgroup with the memory and pids controllers (a
 *   cgroup v2 folder it may write, as systemd's user manager delegates one
 *   to each user, or as root the machine's; else, as root, the cgroup v1
 *   memory and pids hierarchies), each sandbox runs in a cgroup of its own
 *   with memory (tmpfs pages included) and tasks limited.
 * - Without one, lnk-init sets RLIMIT_NPROC for the program. The kernel
 *   counts it per user namespace (Linux 5.14 and newer), so it limits the
 *   tasks of this sandbox alone; it never applies to root (the kernel
 *   exempts uid 0), and nothing then limits memory but the tmpfs sizes.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "common/err.h"
#include "common/util.h"
#include "policy/policy.h"

struct limits {
	uint64_t memory;   /* bytes the sandbox may use; 0: no limit */
	uint64_t tasks;	   /* processes and threads; 0: no limit */
	uint64_t tmp_size; /* bytes of each tmpfs; 0: the kernel's default */
	/* The wire's tripwires (wire/trip.h): calls refused within a minute
	 * and different targets refused within 10 minutes; 0: the default
	 * (30 and 20). */
	unsigned trip_calls, trip_targets;
};

/* The defaults: half the machine's memory, 4096 tasks, an eighth of the
 * memory for each tmpfs (the four together half of it). */
void limits_defaults(struct limits *l);

/* "512M", "4G", "1048576": a size in bytes (K, M, G, T are powers of
 * 1024), or "0" for no limit; the grammar of key_parse_size, the one for
 * specs and flags too. 0 or -EINVAL. */
int limits_parse_size(const char *s, uint64_t *out);

/* [limits] and [tripwires] of the settings file at path over l:
 * memory = "4G", tasks = 2048, tmp_size = "1G"; refused_calls = 10,
 * refused_targets = 5. A missing file changes nothing. 0 or -errno with
 * err naming the file, line and key. */
int limits_load_settings(const char *path, struct limits *l,
			 struct lnk_err *err);

/* The [limits] and [tripwires] keys of policy p over the settings' l.
 * A spec comes from anyone, so it may only make the sandbox smaller and
 * its wire stricter: a value below the settings' replaces it; one above
 * is not taken, and a line for the person saying so (with where it was
 * written) is appended to notes. A 0 threshold keeps the settings'. */
void limits_lower(struct limits *l, const struct policy *p, struct strv *notes);

enum limits_kind {
	LIMITS_CGROUP2, /* a cgroup v2 folder lnk may write */
	LIMITS_CGROUP1, /* the cgroup v1 pids and memory hierarchies */
	LIMITS_RLIMIT,	/* RLIMIT_NPROC only */
	LIMITS_NONE,	/* nothing (root without a cgroup) */
};

/* Where the limits would apply here, found without writing anything. */
struct limits_where {
	enum limits_kind kind;
	char *parent[2]; /* v2: [0]; v1: [0] pids, [1] memory */
};

void limits_find(struct limits_where *w);
void limits_where_free(struct limits_where *w);
/* One line for `ready`: what applies, and where. */
char *limits_describe(const struct limits_where *w, const struct limits *l);

/* One sandbox's cgroup. Who moves in, by writing "0" to each procs
 * descriptor:
 * - cgroup v1 with the guard's socket (inside): made while bwrap makes
 *   the sandbox and sent to lnk-init on that socket
 *   (init_config.cgroup_on_guard); the program's own process, forked by
 *   lnk-init, moves in before anything of the program runs. The cgroup
 *   then holds the program's processes alone, not bwrap and not pid 1,
 *   so it is empty, and lnk removes it, as soon as they are gone: before
 *   bwrap exits, while the kernel takes pid 1 and its namespaces down.
 * - otherwise (cgroup v2, or no guard's socket): made before bwrap starts,
 *   and bwrap's process moves in (spawn.c) before it runs. Inside the
 *   sandbox's cgroup namespace v2 refuses a move to a cgroup outside it,
 *   so the whole sandbox is in it, and it is removed after bwrap exits. */
struct limits_cgroup {
	char *dir[2];
	int procs[2]; /* cgroup.procs (v1: tasks, limits.c says why), open
		       * for writing, or -1 */
	bool inside;  /* v1: the program's process moves in (see above) */
};

#define LIMITS_CGROUP_INIT                               \
	{                                                \
		.dir = {NULL, NULL}, .procs = { -1, -1 } \
	}

/* Makes the cgroup of sandbox tag ("<name>-<lnk's pid>": the pid lets a
 * later lnk remove what one killed with SIGKILL left) under w with l's
 * limits. For
 * LIMITS_RLIMIT and LIMITS_NONE it makes nothing and returns 0. 0 or
 * -errno with err set. */
int limits_cgroup_make(const struct limits_where *w, const struct limits *l,
		       const char *tag, struct limits_cgroup *cg,
		       struct lnk_err *err);
/* Closes the descriptors and removes the folders (once bwrap has exited:
 * the sandbox's processes are gone then). */
void limits_cgroup_end(struct limits_cgroup *cg);
/* One try of limits_cgroup_end that never waits: 0 when every folder is
 * gone (or none was made), -EBUSY when a process is still in one (the
 * folders are kept for limits_cgroup_end). */
int limits_cgroup_try_end(struct limits_cgroup *cg);
/* Removes the cgroups lnks killed with SIGKILL left under w's parents
 * (their pid no longer runs). Reading the parents costs: called as the
 * sandbox ends (sandbox.c), not on the way to its start. */
void limits_cgroup_sweep(const struct limits_where *w);
