/* The sandbox's seccomp policy: what the program may never call, and (with
 * the dot-file guard) which calls are handed to the supervisor.
 *
 * The whole policy is in seccomp_policy.c, one readable file of tables
 * (libc only). seccomp_build.c builds the filter from them with libseccomp;
 * the tables are exported here so that the supervisor (src/guard) handles
 * exactly the calls the filter sends it, and `lnk sandbox check`
 * (lnk-probe) and the tests try exactly the refusals it makes.
 */
#pragma once

#include <linux/filter.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

/* What the main filter hands to the supervisor: SN_ALL or SN_CONNECT,
 * and SN_EXEC beside either (or alone); the calls that change a mode,
 * owner or extended attribute in every mode but SN_NONE, and alone with
 * SN_ATTR. SN_ALL is 1, so a bool "dot_guard" of true still means every
 * notified call. */
enum seccomp_notify {
	SN_NONE = 0,	/* nothing: no listener */
	SN_ALL = 1,	/* every call of seccomp_notified (dot files kept) */
	SN_CONNECT = 2, /* connect only: a folder is granted, but no dot
			 * file is kept (creations run natively) */
	SN_EXEC = 4,	/* execve and execveat too, only to be named: the
			 * supervisor lets the kernel run them (Landlock
			 * decides) and names a program [commands] refuses */
	SN_ATTR = 8,	/* a listener for the attribute calls alone: the
			 * program's descriptors of files outside (its stdin)
			 * keep their mode, owner and attributes */
};
#define SN_MODES 16 /* every combination of the bits above */

/* A call refused outright, with the arguments of its try. */
struct seccomp_refusal {
	const char *name; /* "io_uring_setup" */
	long nr;    /* native number; -1 when this architecture lacks it */
	int errnum; /* what the filter answers */
	long try_args[6];
};
extern const struct seccomp_refusal seccomp_refused[];
extern const size_t seccomp_refused_count;

/* A CLONE_NEW* flag, refused in unshare() and (unless unshare_only) in
 * clone(). */
struct seccomp_clone_flag {
	const char *name; /* "CLONE_NEWUSER" */
	uint64_t flag;
	bool unshare_only;
};
extern const struct seccomp_clone_flag seccomp_clone_flags[];
extern const size_t seccomp_clone_flags_count;

/* An ioctl request refused whatever the high 32 bits of the argument. */
struct seccomp_ioctl {
	const char *name; /* "TIOCSTI" */
	uint32_t cmd;
};
extern const struct seccomp_ioctl seccomp_refused_ioctls[];
extern const size_t seccomp_refused_ioctls_count;

/* A call that takes a mode: refused when the mode holds S_ISUID or
 * S_ISGID (and, when flags_arg >= 0, the flags create a file). */
struct seccomp_setid_rule {
	const char *name;
	long nr; /* -1 when this architecture lacks it */
	int mode_arg;
	int flags_arg; /* -1: every call; else only with O_CREAT/O_TMPFILE */
};
extern const struct seccomp_setid_rule seccomp_setid_rules[];
extern const size_t seccomp_setid_rules_count;

/* One try of one refusal: a call the filter refuses with errnum, and the
 * kernel without the filter answers otherwise. name is what check reports
 * ("bpf", "unshare CLONE_NEWUSER", "ioctl TIOCSTI", "chmod S_ISUID", ...). */
struct seccomp_try {
	char name[48];
	long nr;
	long args[6];
	int errnum;
};
/* The i-th try of every refusal of the policy (the tables above and the
 * personality filter): 0, or -ENOENT past the last. */
int seccomp_try_get(size_t i, struct seccomp_try *t);
/* The try called name: 0, or -ENOENT. */
int seccomp_try_find(const char *name, struct seccomp_try *t);

/* One syscall the filter notifies (SCMP_ACT_NOTIFY) when dot_guard is set. */
struct seccomp_notified {
	const char *name; /* "openat" */
	int nr;		  /* native syscall number; -1 when absent */
	/* -1: every call is notified. Otherwise the index of the flags
	 * argument: the call is notified only when (args[i] & O_CREAT) is set
	 * (open: 1, openat: 2); calls without O_CREAT run natively. */
	int creat_flag_arg;
	/* a call that changes a mode, owner or extended attribute: notified
	 * whenever there is a listener (enum seccomp_notify) */
	bool attr;
};

extern const struct seccomp_notified seccomp_notified[];
extern const size_t seccomp_notified_count;

/* The entry for a native syscall number, or NULL if it is not notified. */
const struct seccomp_notified *seccomp_notified_lookup(int nr);

/* The compiled filter (the main one, built with libseccomp at run time).
 * dot_guard adds the notify rules. *prog is malloc'd; 0 or -errno with err filled.
 * In seccomp_build.c: lnk and the build's generator (seccomp_gen.c) only;
 * lnk-init does not link libseccomp. */
int seccomp_policy_export(enum seccomp_notify notify, struct sock_filter **prog,
			  size_t *len, struct lnk_err *err);

/* The same two filters as compiled at build time by seccomp_gen.c from
 * seccomp_policy_export (the generated seccomp_prebuilt.c): what lnk-init
 * loads. The rest is in seccomp_load.c, which needs no libseccomp. */
struct seccomp_prebuilt {
	const struct sock_filter *prog;
	size_t len;
};
/* By mode (the bits of enum seccomp_notify; SN_ALL with SN_CONNECT is
 * SN_ALL, and SN_ATTR beside another bit is that bit alone): the table seccomp_prebuilt.c defines. */
extern const struct seccomp_prebuilt seccomp_prebuilt[SN_MODES];
void seccomp_policy_prebuilt(enum seccomp_notify notify,
			     const struct sock_filter **prog, size_t *len);

/* The small hand-written filter stacked under the main one: personality()
 * may only query (0xffffffff) or set the default (PER_LINUX 0); libseccomp
 * cannot express "neither of two values" on one argument. And every system
 * call from SYSCALL_FIRST_UNREVIEWED up answers ENOSYS: the main filter is
 * a list of refusals, written against the calls up to removexattrat (466,
 * Linux 6.13); a newer one (open_tree_attr 467, file_getattr and
 * file_setattr 468 and 469) is refused until it is reviewed and numbered
 * here. */
#define SYSCALL_FIRST_UNREVIEWED 467
void seccomp_policy_personality(const struct sock_filter **prog, size_t *len);

/* Installs both filters (the built-in main one, seccomp_policy_prebuilt) in
 * the calling thread (NO_NEW_PRIVS must be set).
 * With dot_guard the main filter is loaded with NEW_LISTENER and
 * WAIT_KILLABLE_RECV and *listener receives the notification fd (CLOEXEC);
 * otherwise *listener is -1. 0 or -errno with err filled. */
int seccomp_policy_install(enum seccomp_notify notify, int *listener,
			   struct lnk_err *err);
