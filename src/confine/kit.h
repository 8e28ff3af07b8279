/* The confinement kit: how every process of lnk's that reads bytes the
 * sandboxed program chose gives up its rights once set up, so that a bug
 * in its parsing cannot become the user's (or root's) power outside.
 *
 * The threat is the same for each of them (the wire, the tools broker's
 * reader): a parser outside the sandbox, running as the user, fed hostile
 * bytes. The answer is the same too, in the order OpenBSD's daemons and
 * OpenSSH's privilege separation use: set up first, then restrict for
 * good, before the first hostile byte is read:
 *
 *  1. no_new_privs: nothing it could ever run gains rights;
 *  2. Landlock: only the files the plan names, with the rights it names;
 *     nothing else can be opened, run, created, removed or listed, and
 *     signals and abstract unix sockets outside its domain are refused
 *     (ABI 6);
 *  3. capabilities: every set emptied, the bounding and ambient sets too
 *     where it may (as root);
 *  4. seccomp, an allow-list: the plan's calls, the kit's base (memory,
 *     the end, signal returns), its own rules with arguments; any other
 *     call, and any other architecture, kills the process. Kill, not
 *     EPERM: the process never makes those calls, so one is a bug or an
 *     attack, and EPERM would teach an attacker the list.
 *
 * Each process states only its own rules (struct kit_plan); the kit is
 * the one place the mechanism is written. Linux only: on macOS the wire
 * has a Seatbelt profile of its own (src/wire/confine_macos.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

/* The rights a path of the plan may be given. */
#define KIT_READ (1ULL << 2) /* LANDLOCK_ACCESS_FS_READ_FILE */
#define KIT_RW \
	((1ULL << 1) | (1ULL << 2) | (1ULL << 14)) /* + write, truncate */

struct kit_path {
	const char *path;
	uint64_t rights; /* KIT_READ or KIT_RW */
	bool optional;	 /* a missing file is no error */
};

struct kit_plan {
	const char *who; /* "the wire": messages name it */
	/* Landlock: the only files it may reach; none for no file at all. */
	const struct kit_path *paths;
	size_t npaths;
	/* System calls allowed whatever their arguments, beyond the base. */
	const int *allow;
	size_t nallow;
	/* Threads: clone with CLONE_THREAD (clone3 answers ENOSYS so that
	 * glibc falls back to clone, whose flags a filter can read). */
	bool threads;
	/* The process's own rules with arguments, added to the same filter
	 * (ctx is libseccomp's scmp_filter_ctx): 0 or a negative errno. */
	int (*rules)(void *ctx, void *arg);
	void *arg;
	/* With rules that notify: the listener, for the caller to hand to
	 * whoever answers (out), else NULL. */
	int *notify_fd;
};

/* Confines the calling process for good, in the order above. Call it
 * with one thread only: threads started later inherit all of it.
 * 0 or -errno with a message naming plan->who; a process that cannot be
 * confined must not go on to read the program's bytes. */
int kit_confine(const struct kit_plan *plan, struct lnk_err *err);

/* For a test of the run's parts: whether the calling process is confined
 * as the kit confines (no_new_privs, a seccomp filter, no effective,
 * permitted or ambient capability), read from /proc/self/status. */
bool kit_is_confined(void);
