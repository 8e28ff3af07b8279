/* The dot-file guard: at the top of each --write folder, the dot files that
 * run outside the sandbox (src/policy/dotfiles.c) are read only and can never
 * be created (docs/design.md, invariant 2).
 *
 * Two halves:
 *  - existing names are made read only by the mounts: the bwrap argv
 *    ro-binds each path dotguard_mounts() lists over itself (a mount point
 *    also cannot be unlinked or renamed: EBUSY);
 *  - names that do not exist are never created: lnk-init installs a seccomp
 *    filter that NOTIFIES every creating syscall and hands the listener to
 *    this supervisor, which performs each creation itself, relative to the
 *    parent folder it resolved and checked on descriptors, and injects the
 *    result (SECCOMP_IOCTL_NOTIF_ADDFD for opens). It never lets the kernel
 *    "continue" a call whose decision depends on a path: another thread of
 *    the program could swap the path between check and use
 *    (docs/kernel-facts.md, notify-perform-not-continue: that escape
 *    takes about a second).
 *
 * Nothing is ever created on the host to achieve this: no placeholders.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "common/err.h"
#include "common/util.h"
#include "policy/policy.h"

/* One guarded folder: creations whose parent folder is (dev, ino) and whose
 * name is a listed dot file (or, when name is set, exactly name) are
 * refused. Matching on (dev, ino) rather than on a path also catches the
 * folder reached through an alias (a second bind mount, /proc/self/cwd, a
 * symlink). */
struct notify_guard {
	dev_t dev;
	ino_t ino;
	char *dir;    /* the --write folder (or the guarded folder), for
		     * messages */
	char *name;   /* NULL: every listed dot file; else only this name (the
		     * missing target of a dot-file symlink at the top, a
		     * folder on the way to a protected entry, ...) */
	bool any_dot; /* with name NULL: every name that starts with a dot
		       * (the top of the home folder) */
	const char *why; /* static text: what runs or trusts the name; NULL
			  * for the listed dot files at the top */
	bool always;	 /* not lifted by --write-dot-files (a folder that
			  * holds a hidden one) */
};

/* Called from a worker thread on the first refusal of each name (without
 * regard to case) in each guarded folder, as stderr says it: g is the
 * guard that refused (g->dir the --write folder; g->name set when name is
 * the missing target of a dot-file link), name the name as the program
 * spelled it, always one component at the top of g->dir. Must be
 * thread-safe, and must never block (no I/O that can wait, no SQLite):
 * the program's call waits on it. */
typedef void (*notify_refusal_fn)(void *ctx, const struct notify_guard *g,
				  const char *name);

struct notify_plan {
	struct notify_guard *guards;
	size_t n;
	bool quiet; /* true: do not print refusals on stderr */
	notify_refusal_fn on_refusal; /* optional: the call log's queue */
	void *on_refusal_ctx;
	/* The tools broker's socket (launch/tools.h), bound in by lnk: the
	 * one unix socket from outside the program may connect to; 0 when
	 * the sandbox has no tools. */
	dev_t tool_sock_dev;
	ino_t tool_sock_ino;
};

/* Plans the guard for a resolved policy: every [files] write folder except
 * those in write_dot_files. Returns 1 when a guard is needed (then lnk-init
 * must install the notify filter: init_config.dot_guard), 0 when not, or
 * -errno with err set. np must be zeroed; free it with notify_plan_free. */
int notify_plan(const struct policy *p, struct notify_plan *np,
		struct lnk_err *err);
/* Adds one folder (absolute, symlinks resolved) to a plan. 0 or -errno. */
int notify_plan_add(struct notify_plan *np, const char *dir,
		    struct lnk_err *err);
void notify_plan_free(struct notify_plan *np);
/* Adds one guard (copied; dir and name duplicated), once. */
void notify_plan_push(struct notify_plan *np, const struct notify_guard *g);

/* Everything a run protects in its write folders, by class
 * (docs/runs-outside.md): the listed names at the top of each, a git
 * directory at the top, every repository the top one knows (submodules,
 * worktrees), the hooks folder and included files its config names, the
 * whole top of the home folder, the target chain of each protected link,
 * and the folders that hold a hidden one. Existing entries are appended
 * to ro_paths (to ro-bind over themselves), names that must not be
 * created or renamed become guards in np. home is the user's home folder.
 * Returns 1 when a guard is needed, 0 when not, or -errno with err set. */
struct protect_in {
	const struct strv *write;  /* the write folders, absolute, real */
	const struct strv *lifted; /* --write-dot-files */
	const struct strv *hidden; /* always hidden and --hide, absolute */
	const struct strv *grants; /* --read and --write folders: mounted
				    * too, where another write folder may
				    * hold them; may be NULL */
	const char *home;
};
int notify_protect(const struct protect_in *in, struct notify_plan *np,
		   struct strv *ro_paths, struct lnk_err *err);

/* The existing dot files at the top of write_dir to ro-bind over themselves
 * (`--ro-bind P P`, after the `--bind` of the write folders), appended to
 * ro_paths. Pure apart from lstat/realpath; call it while planning.
 *
 * A dot-file entry that is a symlink is never handed to bwrap as is: mount
 * follows symlinks, so `.envrc -> ~/.ssh/id_rsa` would bind (and expose) a
 * host file that no grant opens. Instead its target, fully resolved, is
 * listed only when it lies inside write_dir or one of write_dirs (then
 * writing through the link would change what runs outside); a target
 * elsewhere is already unwritable (or invisible) in the sandbox. A dangling
 * dot-file symlink is guarded by notify_plan instead (its target name may
 * not be created). write_dirs may be NULL. */
void dotguard_mounts(const char *write_dir, struct strv *ro_paths);
void dotguard_mounts_in(const char *write_dir, const struct strv *write_dirs,
			struct strv *ro_paths);

struct notify;

/* Starts the supervisor: a receiver thread takes the seccomp listener from
 * sock (fd_recv, one descriptor) and serves notifications with a pool of
 * workers until the filter is gone (every sandboxed task exited) or
 * notify_stop. The plan is copied. sock stays the caller's to close after
 * notify_stop. Capabilities are dropped in the supervisor's own threads only.
 * 0 or -errno. */
int notify_start(const struct notify_plan *np, int sock, struct notify **out,
		 struct lnk_err *err);

/* Stops serving (call it once the sandbox has exited: a task still
 * blocked in a notified call would then get ENOSYS from the kernel), joins
 * every thread and frees n. NULL is fine. */
void notify_stop(struct notify *n);

/* Blocks until the listener reports that the filter is gone (or it never
 * arrived). Optional: notify_stop alone is enough. */
void notify_wait(struct notify *n);

/* Refusals so far: count of refused calls and a copy of the distinct
 * (dir, name) pairs ("dir\tname" each, the name in lower case). */
struct notify_stats {
	unsigned long notifications; /* handled */
	unsigned long refused;	     /* refused calls, all names */
};
void notify_get_stats(struct notify *n, struct notify_stats *st,
		      struct strv *refused_pairs);
