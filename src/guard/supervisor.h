/* The seccomp user-notification supervisor (security core): what its
 * files share. supervise.c runs the threads, dispatch.c takes one
 * notification, task.c reads the task, where.c resolves its paths,
 * reach.c tells what its grants reach, refuse.c decides and reports,
 * open.c, create.c, socket.c and attr.c perform the calls.
 *
 *
 * lnk-init's filter notifies every creating syscall (open/openat with
 * O_CREAT, creat, mkdir(at), mknod(at), symlink(at), link(at),
 * rename(at|at2), bind), and connect. For each one we:
 *  1. pin the task (/proc/TID), read its path arguments ONCE
 *     (process_vm_readv) and check the notification is still valid, so the
 *     pid was not reused;
 *  2. resolve the parent folder on descriptors inside the task's root
 *     (resolve.c), rewriting the magic links it cannot follow for the task;
 *  3. refuse (EPERM) a listed dot-file name in a guarded folder, matched on
 *     the parent's (dev, ino);
 *  4. otherwise perform the call ourselves relative to that parent fd, with
 *     the task's umask, never following a symlink in our own root, and
 *     answer with the result, opens by injecting the fd (ADDFD_FLAG_SEND).
 * The kernel never re-reads the task's memory, so a thread that swaps the
 * path after our read changes nothing: race-free by construction. We never
 * use SECCOMP_USER_NOTIF_FLAG_CONTINUE for a call we decide; only
 * executions, which Landlock decides, continue after we named a refused
 * one (exec.c). Fail closed: any error before the
 * operation answers EPERM. Every notification is answered
 * (docs/kernel-facts.md, answer-every-notification).
 *
 * The confused deputy. Whatever we open, we open for the program, but with our
 * credentials and outside its Landlock domain: open("/proc/1/mem",
 * O_RDWR|O_CREAT) would hand the program a pid 1 to write code into
 * (tests/e2e/test_inv5_processes.py, test_pid1_memory_*). Three layers keep
 * us from granting more than the program's own call would get:
 *  - split duty: what already exists (an O_CREAT open of an existing file,
 *    /dev/null, a reopened /dev/stdout) is opened by an EXECUTOR thread
 *    that runs in a Landlock domain of its own (make_ruleset in
 *    supervise.c), never by the worker. Landlock lets a restricted
 *    thread ptrace, and open the ptrace-guarded /proc files (mem, maps,
 *    environ, fd/, ...) of, only processes of its own domain or nested
 *    ones: the executor
 *    reaches no process at all, as the program reaches none outside the
 *    sandbox. The worker keeps what needs ptrace rights over the task
 *    (its memory, its root, cwd, fds and socket, opened O_PATH), resolves
 *    on O_PATH descriptors, and creates only NEW objects (O_EXCL, mkdir,
 *    ...), which open nothing that was there. A thread cannot shed a
 *    Landlock domain, hence two threads;
 *  - file systems: we never open or create anything on a pseudo file system
 *    (procfs, sysfs, ...): only on the on-disk, network and memory file
 *    systems of guard_fs_ok, checked on the parent folder and on an existing
 *    object (EACCES, as Landlock answers the program natively);
 *  - devices: /dev/tty would be OUR controlling terminal (the user's real
 *    one, past the program's pty): it is mapped to the task's own
 *    controlling terminal, found among its open descriptors, or ENXIO.
 * No setuid or setgid bit is ever created (a --write folder is on the host;
 * lnk-init's filter refuses them too).
 *
 * Inside the grants only. The sandbox's mount tree is what its grants
 * show, but the program also holds descriptors of the host's (its stdin,
 * stdout, stderr: `./prog < deploy.sh`), and a walk from one stays on
 * the host. So every folder we act in, and every object we link or
 * connect to, must lie on a mount of the task's mount namespace
 * (reach.c); a host object named by the task's own descriptor
 * (/dev/stdin, /dev/fd/N) is reopened with at most that descriptor's
 * access mode, taken from the very open file (pidfd_getfd). Socket
 * addresses are read by the socket's family, as the kernel reads them
 * (sockaddr.c); a pathname unix socket is connected only when a socket
 * of the sandbox's network namespace is bound to it (socket.c).
 *
 * Threads: a pool of worker/executor pairs (a FIFO open blocks its pair until a
 * peer opens it: docs/kernel-facts.md, fifo-needs-a-pool; the pool grows when
 * all are busy, up to POOL_MAX). Blocking FIFO opens are capped at FIFO_MAX at
 * a time; beyond that the program gets EAGAIN, so a flood of them cannot starve
 * every other creation. Each worker unshares CLONE_FS, since umask and fchdir
 * are per process otherwise. Capabilities are dropped in the receiver before
 * any worker exists (workers inherit them): a root supervisor would otherwise
 * create files with DAC override where the sandboxed root could not
 * (docs/kernel-facts.md, root-guard-drops-capabilities).
 *
 * Known differences from the native calls (none of them creates more than
 * the native call could):
 *  - mount points: the kernel's EBUSY for renaming one only applies in the
 *    caller's mount namespace, so rename checks them itself (statx
 *    STATX_MNT_ID against the parent);
 *  - opened files carry our f_cred; O_NOCTTY is forced; symlinks we follow
 *    by hand skip protected_symlinks;
 *  - an intermediate symlink into /proc/self, and /proc/<pid>/... with the
 *    task's own pid, fail (ELOOP/ENOENT): only /proc/self, thread-self,
 *    /dev/fd and /dev/std* are mapped; a /proc or /sys file opened with
 *    O_CREAT (a shell's `echo 1 > /proc/self/...`) fails with EACCES;
 *  - a blocking open of an existing FIFO waits without being interrupted
 *    by the program's signals (only a kill ends it), and past FIFO_MAX of
 *    them at once the next fails with EAGAIN;
 *  - ports below 1024: refused unless the task holds CAP_NET_BIND_SERVICE
 *    (ip_unprivileged_port_start of the sandbox is not read);
 *  - an open whose fd cannot be injected (EMFILE) has created the file;
 *  - connect: a server inside sees the client's pid as 0 (SO_PEERCRED
 *    names us, outside its pid namespace), and a blocking connect waits
 *    without being interrupted by the program's signals;
 *  - bind and connect of socket families other than unix, IPv4, IPv6,
 *    netlink, AF_ALG and vsock: EPERM (their checks were not audited for
 *    what our privilege in the sandbox's namespaces would pass).
 */
#pragma once

#include <limits.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "guard/internal.h"

/* fchmodat2 (Linux 6.6): the same number on x86_64 and aarch64. */
#define NR_FCHMODAT2 452

/* One pair at the start: each pair is two threads that unshare, restrict
 * themselves and wait, made while the sandbox starts on the same CPUs, and
 * most programs make their calls one at a time. The pool grows by a pair
 * whenever the last idle worker takes a call (supervise.c). */
#define POOL_START 1
#define POOL_MAX 128 /* worker/executor pairs */

struct job;

/* A worker (receives, reads the task, resolves, creates) and its executor
 * (restricted: opens what already exists), one request at a time. */
struct worker {
	pthread_t th, exec_th;
	atomic_bool busy;
	bool started;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool pending;		     /* a request for the executor */
	int req_o, req_flags, req_r; /* open what O_PATH req_o names */
	bool req_fifo;
	bool quit;	/* the executor ends */
	bool exec_done; /* the executor returned (with mu: kill is safe) */
	struct job *jb; /* this pair's one job (two paths: 8 KiB) */
	struct guard *n;
};

/* The running supervisor of one sandbox (guard_start). */
/* A folder a rule guards names in, watched for names made in it (late.c). */
struct late_watch {
	int wd, fd; /* the watch; the folder (O_PATH) */
	dev_t dev;
	ino_t ino;
};

/* A guarded name made or put in place outside during the run (late.c). */
struct late_entry {
	/* kept: the entry (dev, ino) and all it holds; or, with kept_name,
	 * the name kept_name in the folder (dev, ino): never made, renamed
	 * or replaced (a folder or name on a late link's way) */
	dev_t dev;
	ino_t ino;
	char *kept_name;
	const struct guard_rule *rule; /* in plan.guards */
	int wd;			       /* the watch of its folder */
	char *name;		       /* its name there */
	char *path;		       /* for messages */
	const char *top;	       /* its write folder, for messages */
};

struct guard {
	struct guard_plan plan; /* deep copy */
	int sock, listener, stopfd;
	int endedfd; /* written once the filter is gone */
	pthread_t receiver;
	bool receiver_started;

	pthread_mutex_t mu;	/* workers[], receiver_done, stats */
	pthread_cond_t done_cv; /* the receiver ended */
	struct worker *workers[POOL_MAX];
	/* A NETLINK_SOCK_DIAG socket lnk-init made in the sandbox's network
	 * namespace (which unix sockets were bound inside), or -1; one
	 * query at a time, under diag_mu. */
	int diag;
	uint32_t diag_seq;
	pthread_mutex_t diag_mu;
	/* The sandbox's mount namespace (nested ones cannot be made: lnk-init
	 * refuses CLONE_NEWNS) and mounts found in it (unique ids, never
	 * reused): opening /proc/TID/ns/mnt and statmount cost more than
	 * the rest of a call. Under mnt_mu. */
	pthread_mutex_t mnt_mu;
	uint64_t mntns;
	uint64_t mnt_in[64];
	size_t nmnt_in;
	size_t nworkers;
	atomic_size_t idle;
	atomic_int fifo_blocked; /* executors in a blocking FIFO open */
	atomic_bool finishing;
	/* The executors' Landlock ruleset (executor_restrict); -1 when this
	 * kernel has no Landlock, -2 when it could not be made (every call
	 * is then refused). */
	int ll_ruleset;
	bool receiver_done, broken;

	unsigned long notifications, refused, exec_named, objects_named;
	unsigned long kept_named;  /* entries guard_name_kept named */
	struct strv refused_pairs; /* "dir\tname", printed once each */
	unsigned refusal_lines;	   /* of them said on stderr (refuse.c) */
	struct strv dgram_refused; /* "verb target", logged once each */
	struct strv nonet_said;	   /* addresses named without a grant */
	bool nonet_more;	   /* and the line that says there are more */
	/* Guarded names made outside during the run (late.c), under
	 * late_mu; late_fd the inotify descriptor or -1. */
	pthread_mutex_t late_mu;
	int late_fd;
	bool late_wanted;  /* a rule guards names: watches are to be made */
	bool late_started; /* made (at the first call that may change) */
	struct timespec late_t0; /* the guard's start, coarse realtime */
	struct late_watch *late_watches;
	size_t nlate_watches;
	struct late_entry *late;
	size_t nlate;
};

/* Everything the executor needs of the task, opened beforehand by the
 * worker: the executor itself cannot reach the task (its Landlock domain
 * forbids ptrace-like access), so it never opens /proc/TID. */
struct task {
	pid_t tid;
	uint64_t id; /* the notification's */
	int procfd;  /* /proc/TID, O_PATH: pinned to this task; -1 in the
		     * executor's hands */
	struct guard_ctx
	    ctx; /* rootfd: the task's root, opened by the worker */
	bool status_read;
	mode_t umask;
	pid_t tgid;
	uint64_t capeff;
	/* O_PATH on where each path argument starts (its dirfd, cwd, or
	 * the fd of /dev/fd/N, ...), or -errno; -1 when it starts at the
	 * root or is unused */
	int base[2];
	/* The access mode (O_ACCMODE, or O_PATH) of the task's descriptor
	 * each base is, when a path names that descriptor (/dev/stdin,
	 * /dev/fd/N, a dirfd); O_PATH for its cwd or root. */
	int base_acc[2];
	int pidfd;	     /* the task (pidfd_open), or -1 until needed */
	struct worker *w;    /* whose executor opens existing objects */
	int sfd;	     /* bind: the task's socket, or -1 */
	int sdomain, sproto; /* its family and protocol */
	int ctty; /* O_PATH on its controlling terminal; GUARD_CTTY_UNKNOWN
		   * until asked for, GUARD_CTTY_NONE when it has none */
};

#define GUARD_CTTY_UNKNOWN (-2)
#define GUARD_CTTY_NONE (-3)

struct where {
	int parent; /* -1 for a magic link */
	char last[NAME_MAX + 1];
	bool slash;
	int magic; /* when the path IS a magic link (/dev/stdout): O_PATH on
		    * what it names (the task's base, not ours to close);
		    * else -1 */
	bool proc_self; /* guard_path.proc_self: set even when the
			 * lookup fails */
};

/* One notification on its way from a worker to its executor. */
struct job {
	const struct seccomp_notif *req;
	const struct op *op;
	struct task t;
	char p1[PATH_MAX], p2[PATH_MAX];
	struct sockaddr_storage ss; /* bind */
	size_t alen;
	struct guard_sockaddr sa; /* ss as the kernel reads it */
	void *xval;		  /* setxattr's value, read once (malloc'd) */
	size_t xlen;
};

/* ---- one sandboxed task (task.c) ---- */

/* The task of notification req, handled by worker w, with nothing opened
 * yet: every descriptor -1 (so guard_task_close is safe at once), its
 * bases at the root, its terminal not asked for. */
struct task guard_task_new(const struct seccomp_notif *req, struct worker *w);
void guard_task_close(struct task *t);
/* Reads the task's umask, thread group and effective capabilities once.
 * 0, or -errno (fail closed). */
int guard_task_status(struct task *t);
/* The task's memory, read once: a NUL-terminated string, or len bytes. */
int guard_read_str(pid_t tid, uint64_t addr, char *buf, size_t cap);
int guard_read_mem(pid_t tid, uint64_t addr, void *buf, size_t len);
/* The task's descriptor fd as the very open file it holds; fd or -errno. */
int guard_task_getfd(struct task *t, int fd);
/* The task's controlling terminal, O_PATH, or GUARD_CTTY_NONE. */
int guard_find_ctty(struct task *t);

/* ---- refusals (refuse.c) ---- */

/* 0 when creating last in parent is allowed; -EEXIST for an existing
 * guarded name, -EPERM (reported) for a new one, -EACCES on a pseudo
 * file system. */
int guard_check(struct guard *n, int parent, const char *last);
/* Whether the plan guards last in parent (true when it cannot tell). */
bool guard_refuses(struct guard *n, int parent, const char *last);
/* Reports a refused change of g's folder's mode, owner or ACL. */
void guard_refuse_attr(struct guard *n, const struct guard_rule *g);
/* 1 when name in dir is a mount point, 0 when not, -EPERM unknown. */
int guard_mount_point_at(int dir, const char *name);
bool guard_is_dots(const char *s);

/* Says msg (a refusal) on stderr while fewer than ten were said, then
 * once that the rest are in the log. */
void guard_say_refusal(struct guard *n, const char *msg);

/* ---- guarded names made outside during the run (late.c) ---- */

/* Watches each folder a rule guards names in (not a folder kept from
 * being renamed only). Before the receiver starts; an error when a watch
 * cannot be made (guard_late_stop undoes what was). */
int guard_late_start(struct guard *n, struct lnk_err *err);
/* After every worker is gone. */
void guard_late_stop(struct guard *n);
/* -EROFS (named once) when last in dir, or dir, or a folder above it, is
 * a guarded name made or replaced outside during the run; -EPERM when
 * that cannot be told; else 0. The events queued so far are read first. */
int guard_late_check(struct guard *n, int dir, const char *last);
/* Whether last in dir, or dir, or a folder above it, is a guarded name
 * made or replaced outside during the run (as known now: no events
 * read). */
bool guard_late_holds(struct guard *n, int dir, const char *last);
/* The same for an object the task holds (obj, an fd of ours: a
 * descriptor it reopens through /proc/self/fd, a file whose mode or
 * attributes it changes): the object, or a folder above it, made or
 * replaced outside during the run. */
int guard_late_object(struct guard *n, struct task *t, int obj);
/* Whether any entry was made outside during the run (the events queued
 * so far read first). */
bool guard_late_any(struct guard *n);
/* An existing guarded name (last in dir) is never written: -EROFS, named
 * (as made during the run, or as a kept entry). */
int guard_late_write_refused(struct guard *n, int dir, const char *last,
			     const char *verb);

/* ---- entries kept read only (kept.c) ---- */

/* Climbs from the folder dir up to the top of the task's tree (".." on
 * descriptors, in its mount tree), asking found() of each folder by what
 * it is (device and inode): what found() first returns, or NULL with *r
 * 0 at the top, -EPERM when a folder cannot be read or after max
 * folders. */
const void *guard_climb(int dir, int max,
			const void *(*found)(const void *ctx,
					     const struct stat *st),
			const void *ctx, int *r);

/* Names, once per entry (at most 64), on stderr and to on_refusal, a
 * change the kernel refuses because it lies in an entry kept read only
 * (struct guard_kept): dir a folder the call acted in (any fd the
 * worker holds), last the name in it or NULL when dir itself was
 * changed, verb what the program did ("write", "remove", ...). Nothing
 * when no kept entry is or holds it. Decides nothing. */
void guard_name_kept(struct guard *n, int dir, const char *last,
		     const char *verb);

/* ---- files with more than one name (shared.c) ---- */

/* A regular file with another name (a hard link), maybe outside. */
bool guard_is_shared(const struct stat *st);
/* Whether an open with flags writes (O_TRUNC with O_RDONLY too). */
bool guard_open_writes(int flags);
/* Gives name in dir, the shared file O_PATH o (st), a file of its own: a
 * copy of it (empty when truncating) with its mode, renamed over the name.
 * Only a name the program could replace itself: not on a read-only mount
 * (-EROFS), not a mount point (-EBUSY), not a name the guard keeps
 * (-EPERM). *out: the new file (read and write); 0 or -errno, nothing
 * left behind. */
int guard_own_copy(struct guard *n, int dir, const char *name, int o,
		   const struct stat *st, bool truncating, int *out);
/* Reports a refused change of a shared file's owner or attributes. */
void guard_refuse_shared(struct guard *n, int obj);
/* Reports, once per file and reason, a refused change of the object obj
 * (an fd): "lnk: refused to change the WHAT of FILE: WHY". */
void guard_refuse_object(struct guard *n, int obj, const char *what,
			 const char *why);

/* ---- paths of one call (where.c) ---- */

void guard_where_close(struct where *w);
/* Opens where path starts for the task (the worker's half): -1 at its
 * root, an fd, or -errno kept for the call to report. */
int guard_base_prepare(struct task *t, int dirfd, const char *path, int *acc);
/* Resolves the parent of path inside the task's root and grants. */
int guard_locate(struct task *t, int base, const char *path, struct where *w);
/* What a non-mkdir creation of "name/" gets natively. */
int guard_slash_err(const struct where *w);
/* Follows the symlink w->last by hand: w re-located on its target. */
int guard_follow(struct task *t, struct where *w);

/* ---- what the sandbox's grants reach (reach.c) ---- */

/* 1 when fd lies on a mount of the task's mount namespace, 0 when not,
 * -EPERM when it cannot be told. */
int guard_on_sandbox_mounts(struct task *t, int fd);
/* 0, or -EACCES when fd is not inside the task's grants. */
int guard_reach_ok(struct task *t, int fd);
/* Whether the task's descriptor o (access mode acc) may be reopened with
 * flags: 0 or -errno. */
int guard_fd_reopen_ok(struct task *t, int o, int acc, int flags);

/* ---- the operations (open.c, create.c, socket.c, attr.c) ---- */

/* Each returns the answer: -errno, 0, or (opens) an fd to inject. */
int guard_reopen(int o, int flags);
int guard_open_fifo(struct guard *n, int o, int flags);
int guard_do_open(struct guard *n, struct task *t, int base, int acc,
		  const char *path, int flags, mode_t mode);
int guard_do_mkdir(struct guard *n, struct task *t, int base, const char *path,
		   mode_t mode);
int guard_do_mknod(struct guard *n, struct task *t, int base, const char *path,
		   mode_t mode, dev_t dev);
int guard_do_symlink(struct guard *n, struct task *t, const char *target,
		     int base, const char *path);
int guard_do_link(struct guard *n, struct task *t, int obase, const char *old,
		  int nbase, const char *newp, int flags);
int guard_do_rename(struct guard *n, struct task *t, int obase, const char *old,
		    int nbase, const char *newp, unsigned flags);
/* An O_PATH fd on what w names, a final symlink followed by hand. */
int guard_open_old_followed(struct task *t, struct where *w);
int guard_do_bind(struct guard *n, struct task *t, int base,
		  const struct guard_sockaddr *sa,
		  const struct sockaddr_storage *ss, size_t alen);
int guard_do_connect(struct guard *n, struct task *t, int base,
		     const struct guard_sockaddr *sa,
		     const struct sockaddr_storage *ss, size_t alen);
/* The worker's half of a metadata call, then the call. */
int guard_prep_attr(struct guard *n, struct job *j);
int guard_do_attr(struct guard *n, struct job *j);

/* ---- executions, named (exec.c) ---- */

/* Whether nr is execve or execveat. */
bool guard_is_exec(long nr);
/* Names the file an execution runs when [commands] does not allow it;
 * never answers (the caller lets the kernel run it). */
void guard_exec_note(struct guard *n, struct worker *w,
		     const struct seccomp_notif *req);
/* Counts one refused call; true the first time key is refused (then it
 * is reported). */
bool guard_count_refusal(struct guard *n, const char *key);

/* ---- one notification (dispatch.c) ---- */

/* Whether the notification id is still pending (its task alive). */
bool guard_id_valid(struct guard *n, uint64_t id);
/* Handles and answers one notification (every one is answered). */
void guard_serve(struct guard *n, struct worker *w,
		 const struct seccomp_notif *req, bool broken);

/* ---- threads (supervise.c) ---- */

/* Opens (in w's executor, restricted) what O_PATH o names. */
int guard_exec_open(struct worker *w, int o, int flags, bool fifo);
