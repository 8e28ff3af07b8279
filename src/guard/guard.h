/* The dot-file guard: at the top of each --write folder, the dot files that
 * run outside the sandbox (src/policy/dotfiles.c) are read only and can never
 * be created (docs/design.md, invariant 2).
 *
 * Two halves:
 *  - existing names are made read only by the mounts: the bwrap argv
 *    ro-binds each path guard_mounts() lists over itself (a mount point
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
#include <stdint.h>
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
struct guard_rule {
	dev_t dev;
	ino_t ino;
	char *dir;    /* the --write folder (or the guarded folder), for
		     * messages */
	char *name;   /* NULL: every listed dot file; else only this name (the
		     * missing target of a dot-file symlink at the top, a
		     * folder on the way to a protected entry, ...) */
	bool any_dot; /* with name NULL: every name that starts with a dot
		       * too, beside the listed ones (the top of the home
		       * folder and the folders above it) */
	const char *why; /* static text: what runs or trusts the name; NULL
			  * for the listed dot files at the top */
	bool always;	 /* not lifted by --write-dot-files (a folder that
			  * holds a hidden one) */
};

/* Called from a worker thread on the first refusal of each name (without
 * regard to case) in each guarded folder, as stderr says it: g is the
 * guard that refused (g->dir the --write folder; g->name set when name is
 * the missing target of a dot-file link), name the name as the program
 * spelled it, one component at the top of g->dir. Also, once per entry,
 * for a change refused on an existing entry kept read only
 * (guard_kept): then name is the entry's path below g->dir (".git",
 * ".venv/bin") and g->why the whole reason with the flag that lifts it,
 * valid during the call only (copy it). Must be
 * thread-safe, and must never block (no I/O that can wait, no SQLite):
 * the program's call waits on it. */
typedef void (*guard_refusal_fn)(void *ctx, const struct guard_rule *g,
				 const char *name);

/* Called from a worker thread the first time the program executes a file
 * [commands] does not allow (Landlock refuses it: the guard only names
 * it), with the path the sandbox sees it at. The same rules as for
 * guard_refusal_fn. */
typedef void (*guard_exec_fn)(void *ctx, const char *path);

/* Called once per (verb, target) when the guard refuses a datagram
 * socket's connect to an address outside the sandbox (verb "udp" or
 * "icmp", target "ADDRESS:PORT"). Thread-safe, never blocking, as
 * guard_refusal_fn. */
typedef void (*guard_net_fn)(void *ctx, const char *verb, const char *target,
			     const char *why);

/* A file or folder [commands] allows: the file itself, or every file
 * beneath the folder (as Landlock's EXECUTE rule on it). */
struct guard_exec_id {
	dev_t dev;
	ino_t ino;
	bool dir;
};

/* An existing entry kept read only (a read-only bind over itself: the
 * kernel refuses every write in it, EROFS, and its removal or a rename
 * over it, EBUSY): known by what it is, so that the guard names it, with
 * the flag that lifts it, when the kernel refuses the program a change. */
struct guard_kept {
	dev_t dev;
	ino_t ino;
	char *path;	 /* absolute, as planned (the same path inside) */
	char *top;	 /* the write folder it lies in (the innermost) */
	const char *why; /* static text: what runs or trusts it; NULL for a
			  * listed dot file (or its link's target) */
};

struct guard_plan {
	struct guard_rule *guards;
	size_t n;
	struct guard_kept *kept; /* guard_protect's read-only entries */
	size_t nkept;
	bool quiet;		     /* true: do not print refusals on stderr */
	guard_refusal_fn on_refusal; /* optional: the call log's queue */
	guard_net_fn on_net_refusal; /* optional, with on_refusal_ctx */
	uint16_t tcp_port; /* the wire's transparent listener inside, or 0
			    * without a wire (src/guard/tproxy.c) */
	bool no_network;   /* no network grant: a TCP connect outside is
			    * named on stderr (src/guard/nonet.c) */
	void *on_refusal_ctx;
	/* With exec_note, executions are notified and the ones these do
	 * not allow are named (guard_plan_exec). */
	bool exec_note;
	struct guard_exec_id *exec_ids;
	size_t nexec;
	guard_exec_fn on_exec; /* optional: the call log's queue */
	void *on_exec_ctx;
	/* The tools broker's socket (launch/tools.h), bound in by lnk: the
	 * one unix socket from outside the program may connect to; 0 when
	 * the sandbox has no tools. */
	dev_t tool_sock_dev;
	ino_t tool_sock_ino;
};

/* Plans the guard for a resolved policy: every [files] write folder except
 * those in write_dot_files. Returns 1 when a guard is needed (then lnk-init
 * must install the filter that notifies: init_config.dot_guard), 0 when
 * not, or -errno with err set. np must be zeroed; free it with
 * guard_plan_free. */
int guard_plan(const struct policy *p, struct guard_plan *np,
	       struct lnk_err *err);
/* Adds one folder (absolute, symlinks resolved) to a plan. 0 or -errno. */
int guard_plan_add(struct guard_plan *np, const char *dir, struct lnk_err *err);

/* What each name of dot_files() is at the top of dir: its type
 * (st_mode & S_IFMT, not following it), or 0 when missing. Once each, so
 * that the passes that plan one write folder (guard_plan_add_seen,
 * guard_mounts_seen, and guard_protect's own) ask once, not each again.
 * Returns a new array of dot_files()'s length; free it. */
mode_t *guard_dot_types(const char *dir);
/* guard_plan_add and guard_mounts_in, with the types guard_dot_types gave
 * for that folder. */
int guard_plan_add_seen(struct guard_plan *np, const char *dir,
			const mode_t *types, struct lnk_err *err);
void guard_mounts_seen(const char *write_dir, const struct strv *write_dirs,
		       const mode_t *types, struct strv *ro_paths);
void guard_plan_free(struct guard_plan *np);
/* Sets np to name executions the allowed list (Landlock's EXECUTE paths:
 * files, and folders for everything beneath) does not cover. Paths that
 * are missing are left out: nothing there can run. */
void guard_plan_exec(struct guard_plan *np, const struct strv *allowed);
/* Adds one guard (copied; dir and name duplicated), once. */
void guard_plan_push(struct guard_plan *np, const struct guard_rule *g);

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
	const char *link_cache;	   /* guard/linkcache.h's file, or NULL */
	const struct strv *write;  /* the write folders, absolute, real */
	const struct strv *lifted; /* --write-dot-files */
	const struct strv *hidden; /* always hidden and --hide, absolute */
	const struct strv *grants; /* --read and --write folders: mounted
				    * too, where another write folder may
				    * hold them; may be NULL */
	const char *home;
	const char *path_env; /* lnk's PATH, the user's shell's; may be NULL */
	char *const *env;     /* lnk's environment, the user's (guard/envconf.h
			       * names what it reads); may be NULL */
	struct fs_facts *facts; /* the policy's mounts and real paths,
				 * asked once a run (policy/facts.h); may
				 * be NULL */
};
int guard_protect(const struct protect_in *in, struct guard_plan *np,
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
 * dot-file symlink is guarded by guard_plan instead (its target name may
 * not be created). write_dirs may be NULL. */
void guard_mounts(const char *write_dir, struct strv *ro_paths);
void guard_mounts_in(const char *write_dir, const struct strv *write_dirs,
		     struct strv *ro_paths);

struct guard;

/* Starts the supervisor: a receiver thread takes the seccomp listener from
 * sock (fd_recv, one descriptor) and serves notifications with a pool of
 * workers until the filter is gone (every sandboxed task exited) or
 * guard_stop. The plan is copied. sock stays the caller's to close after
 * guard_stop. Capabilities are dropped in the supervisor's own threads only.
 * 0 or -errno. */
int guard_start(const struct guard_plan *np, int sock, struct guard **out,
		struct lnk_err *err);

/* Stops serving (call it once the sandbox has exited: a task still
 * blocked in a notified call would then get ENOSYS from the kernel), joins
 * every thread and frees n. NULL is fine. */
void guard_stop(struct guard *n);
/* Asks the threads to end without waiting for them, so that they end
 * while the caller does something else; guard_stop then joins them.
 * NULL is fine. */
void guard_stop_begin(struct guard *n);

/* Blocks until the listener reports that the filter is gone (or it never
 * arrived). Optional: guard_stop alone is enough. */
void guard_wait(struct guard *n);

/* A descriptor that turns readable once the listener reports the filter
 * gone: every process of the sandbox has ended, though the kernel may still
 * be taking its namespaces down (and bwrap has not exited yet). Owned by
 * n; -1 for NULL. */
int guard_ended_fd(struct guard *n);

/* Refusals so far: count of refused calls and a copy of the distinct
 * (dir, name) pairs ("dir\tname" each, the name in lower case). */
struct guard_stats {
	unsigned long notifications; /* handled */
	unsigned long refused;	     /* refused calls, all names */
	unsigned long exec_named;    /* programs named as [commands]
				      * refuses them */
};
void guard_get_stats(struct guard *n, struct guard_stats *st,
		     struct strv *refused_pairs);
