/* The sandbox's seccomp policy: what the program may never call, and (with
 * the dot-file guard) which calls are handed to the supervisor.
 *
 * The whole policy is in seccomp_policy.c, one readable file. The table of
 * notified syscalls is exported here so that the supervisor (src/notify)
 * handles exactly the calls the filter sends it, and nothing else.
 */
#pragma once

#include <linux/filter.h>
#include <stdbool.h>
#include <stddef.h>

#include "common/err.h"

/* What the main filter hands to the supervisor. SN_ALL is 1, so a bool
 * "dot_guard" of true still means every notified call. */
enum seccomp_notify {
	SN_NONE = 0,	/* nothing: no listener */
	SN_ALL = 1,	/* every call of seccomp_notified (dot files kept) */
	SN_CONNECT = 2, /* connect only: a folder is granted, but no dot
			 * file is kept (creations run natively) */
};

/* One syscall the filter notifies (SCMP_ACT_NOTIFY) when dot_guard is set. */
struct seccomp_notified {
	const char *name; /* "openat" */
	int nr;		  /* native syscall number (SCMP_SYS) */
	/* -1: every call is notified. Otherwise the index of the flags
	 * argument: the call is notified only when (args[i] & O_CREAT) is set
	 * (open: 1, openat: 2); calls without O_CREAT run natively. */
	int creat_flag_arg;
};

extern const struct seccomp_notified seccomp_notified[];
extern const size_t seccomp_notified_count;

/* The entry for a native syscall number, or NULL if it is not notified. */
const struct seccomp_notified *seccomp_notified_lookup(int nr);

/* The compiled filter (the main one, built with libseccomp at run time).
 * dot_guard adds the notify rules. *prog is malloc'd; 0 or -errno with err filled.
 * In seccomp_policy.c: lnk and the build's generator (seccomp_gen.c) only;
 * lnk-init does not link libseccomp. */
int seccomp_policy_export(enum seccomp_notify notify, struct sock_filter **prog,
			  size_t *len, struct lnk_err *err);

/* The same two filters as compiled at build time by seccomp_gen.c from
 * seccomp_policy_export (the generated seccomp_prebuilt.c): what lnk-init
 * loads. The rest is in seccomp_load.c, which needs no libseccomp. */
extern const struct sock_filter seccomp_prebuilt_plain[];
extern const size_t seccomp_prebuilt_plain_len;
extern const struct sock_filter seccomp_prebuilt_guard[];
extern const size_t seccomp_prebuilt_guard_len;
extern const struct sock_filter seccomp_prebuilt_connect[];
extern const size_t seccomp_prebuilt_connect_len;
void seccomp_policy_prebuilt(enum seccomp_notify notify,
			     const struct sock_filter **prog, size_t *len);

/* The small hand-written filter stacked under the main one: personality()
 * may only query (0xffffffff) or set the default (PER_LINUX 0); libseccomp
 * cannot express "neither of two values" on one argument. */
void seccomp_policy_personality(const struct sock_filter **prog, size_t *len);

/* Installs both filters (the built-in main one, seccomp_policy_prebuilt) in
 * the calling thread (NO_NEW_PRIVS must be set).
 * With dot_guard the main filter is loaded with NEW_LISTENER and
 * WAIT_KILLABLE_RECV and *listener receives the notification fd (CLOEXEC);
 * otherwise *listener is -1. 0 or -errno with err filled. */
int seccomp_policy_install(enum seccomp_notify notify, int *listener,
			   struct lnk_err *err);
