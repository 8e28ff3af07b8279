/* The seccomp user-notification supervisor (security core).
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
 * use SECCOMP_USER_NOTIF_FLAG_CONTINUE. Fail closed: any error before the
 * operation answers EPERM. Every notification is answered
 * (docs/kernel-facts.md, answer-every-notification).
 *
 * The confused deputy. Whatever we open, we open for the program, but with our
 * credentials and outside its Landlock domain: open("/proc/1/mem",
 * O_RDWR|O_CREAT) would hand the program a pid 1 to write code into
 * (tests/e2e/test_attacks.py, test_pid1_memory_*). Three layers keep us from
 * granting more than the program's own call would get:
 *  - split duty: what already exists (an O_CREAT open of an existing file,
 *    /dev/null, a reopened /dev/stdout) is opened by an EXECUTOR thread
 *    that runs in a Landlock domain of its own (see make_ruleset), never
 *    by the worker. Landlock lets a restricted thread ptrace, and open
 *    the ptrace-guarded /proc files (mem, maps, environ, fd/, ...) of,
 *    only processes of its own domain or nested ones: the executor
 *    reaches no process at all, as the program reaches none outside the
 *    sandbox. The worker keeps what needs ptrace rights over the task
 *    (its memory, its root, cwd, fds and socket, opened O_PATH), resolves
 *    on O_PATH descriptors, and creates only NEW objects (O_EXCL, mkdir,
 *    ...), which open nothing that was there. A thread cannot shed a
 *    Landlock domain, hence two threads;
 *  - file systems: we never open or create anything on a pseudo file system
 *    (procfs, sysfs, ...): only on the on-disk, network and memory file
 *    systems of nt_fs_ok, checked on the parent folder and on an existing
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
 * (on_sandbox_mounts); a host object named by the task's own descriptor
 * (/dev/stdin, /dev/fd/N) is reopened with at most that descriptor's
 * access mode, taken from the very open file (pidfd_getfd). Socket
 * addresses are read by the socket's family, as the kernel reads them
 * (sockaddr.c); a pathname unix socket is connected only when a socket
 * of the sandbox's network namespace is bound to it (do_connect).
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
#include "notify/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <dirent.h>
#include <time.h>
#include <unistd.h>

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>

#include "common/esc.h"
#include "common/fdpass.h"

#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif
#ifndef RENAME_WHITEOUT
#define RENAME_WHITEOUT (1 << 2)
#endif

/* fchmodat2 (Linux 6.6): the same number on x86_64 and aarch64. */
#define NR_FCHMODAT2 452
/* The largest extended attribute value (XATTR_SIZE_MAX). */
#define XATTR_MAX 65536

#define POOL_START 4
#define POOL_MAX 128 /* worker/executor pairs */
/* Blocking FIFO opens at once: well under POOL_MAX, so that ordinary
 * creations always find a free pair (tests/e2e/test_attacks.py floods it
 * with 300). */
#define FIFO_MAX 48
#define NT_SIG SIGURG /* ignored by default; interrupts a stuck worker */

enum op_kind {
	OP_OPEN,
	OP_MKDIR,
	OP_MKNOD,
	OP_SYMLINK,
	OP_LINK,
	OP_RENAME,
	OP_BIND,
	OP_CONNECT,
	OP_ATTR /* mode, owner, xattrs: see attr_ops */
};

/* Which argument is which; -1 for none. The syscall table here must match
 * what lnk-init's filter notifies (src/init/seccomp_policy.h): a syscall
 * notified but missing here is answered ENOSYS, never continued. */
struct op {
	long nr;
	enum op_kind kind;
	signed char dfd1, p1, dfd2, p2, flags, mode, dev;
	int fixed_flags; /* creat: O_CREAT|O_WRONLY|O_TRUNC */
};

static const struct op ops[] = {
#ifdef __NR_open
    {__NR_open, OP_OPEN, -1, 0, -1, -1, 1, 2, -1, 0},
#endif
#ifdef __NR_creat
    {__NR_creat, OP_OPEN, -1, 0, -1, -1, -1, 1, -1,
     O_CREAT | O_WRONLY | O_TRUNC},
#endif
    {__NR_openat, OP_OPEN, 0, 1, -1, -1, 2, 3, -1, 0},
#ifdef __NR_mkdir
    {__NR_mkdir, OP_MKDIR, -1, 0, -1, -1, -1, 1, -1, 0},
#endif
    {__NR_mkdirat, OP_MKDIR, 0, 1, -1, -1, -1, 2, -1, 0},
#ifdef __NR_mknod
    {__NR_mknod, OP_MKNOD, -1, 0, -1, -1, -1, 1, 2, 0},
#endif
    {__NR_mknodat, OP_MKNOD, 0, 1, -1, -1, -1, 2, 3, 0},
/* symlink: p1 is the link's text (never resolved), p2 the new name */
#ifdef __NR_symlink
    {__NR_symlink, OP_SYMLINK, -1, 0, -1, 1, -1, -1, -1, 0},
#endif
    {__NR_symlinkat, OP_SYMLINK, -1, 0, 1, 2, -1, -1, -1, 0},
#ifdef __NR_link
    {__NR_link, OP_LINK, -1, 0, -1, 1, -1, -1, -1, 0},
#endif
    {__NR_linkat, OP_LINK, 0, 1, 2, 3, 4, -1, -1, 0},
#ifdef __NR_rename
    {__NR_rename, OP_RENAME, -1, 0, -1, 1, -1, -1, -1, 0},
#endif
#ifdef __NR_renameat
    {__NR_renameat, OP_RENAME, 0, 1, 2, 3, -1, -1, -1, 0},
#endif
    {__NR_renameat2, OP_RENAME, 0, 1, 2, 3, 4, -1, -1, 0},
    /* bind: p1 is the socket fd, p2 the address, flags its length */
    {__NR_bind, OP_BIND, -1, 0, -1, 1, 2, -1, -1, 0},
    /* connect: as bind */
    {__NR_connect, OP_CONNECT, -1, 0, -1, 1, 2, -1, -1, 0},
/* metadata: arguments in attr_ops */
#ifdef __NR_chmod
    {__NR_chmod, OP_ATTR, -1, -1, -1, -1, -1, -1, -1, 0},
#endif
    {__NR_fchmod, OP_ATTR, -1, -1, -1, -1, -1, -1, -1, 0},
    {__NR_fchmodat, OP_ATTR, -1, -1, -1, -1, -1, -1, -1, 0},
    {NR_FCHMODAT2, OP_ATTR, -1, -1, -1, -1, -1, -1, -1, 0},
#ifdef __NR_chown
    {__NR_chown, OP_ATTR, -1, -1, -1, -1, -1, -1, -1, 0},
#endif
#ifdef __NR_lchown
    {__NR_lchown, OP_ATTR, -1, -1, -1, -1, -1, -1, -1, 0},
#endif
    {__NR_fchown, OP_ATTR, -1, -1, -1, -1, -1, -1, -1, 0},
    {__NR_fchownat, OP_ATTR, -1, -1, -1, -1, -1, -1, -1, 0},
    {__NR_setxattr, OP_ATTR, -1, -1, -1, -1, -1, -1, -1, 0},
    {__NR_lsetxattr, OP_ATTR, -1, -1, -1, -1, -1, -1, -1, 0},
    {__NR_fsetxattr, OP_ATTR, -1, -1, -1, -1, -1, -1, -1, 0},
    {__NR_removexattr, OP_ATTR, -1, -1, -1, -1, -1, -1, -1, 0},
    {__NR_lremovexattr, OP_ATTR, -1, -1, -1, -1, -1, -1, -1, 0},
    {__NR_fremovexattr, OP_ATTR, -1, -1, -1, -1, -1, -1, -1, 0},
};

/* The calls that change an object's mode, owner or extended attributes
 * (a POSIX ACL is one). On the top of a write folder and on the folders
 * and entries the guard protects they are refused: `chmod 0777 .` or an
 * ACL would let any local account plant, after the run, what the guard
 * keeps the program from planting. Elsewhere we perform them on the
 * object we resolved (never CONTINUE: the path could change between our
 * check and the kernel's use). */
enum attr_kind { ATTR_MODE, ATTR_OWNER, ATTR_XSET, ATTR_XREMOVE };

struct attr_op {
	long nr;
	enum attr_kind kind;
	signed char fd;		/* the object's fd (f* calls), else -1 */
	signed char dfd, path;	/* the dirfd (-1: AT_FDCWD) and path */
	signed char flags;	/* AT_* flags, -1 for none */
	bool nofollow;		/* lchown, lsetxattr, lremovexattr */
	signed char a, b, c, d; /* mode | uid, gid | name, value, size,
				 * xattr flags | name */
};

static const struct attr_op attr_ops[] = {
#ifdef __NR_chmod
    {__NR_chmod, ATTR_MODE, -1, -1, 0, -1, false, 1, -1, -1, -1},
#endif
    {__NR_fchmod, ATTR_MODE, 0, -1, -1, -1, false, 1, -1, -1, -1},
    {__NR_fchmodat, ATTR_MODE, -1, 0, 1, -1, false, 2, -1, -1, -1},
    {NR_FCHMODAT2, ATTR_MODE, -1, 0, 1, 3, false, 2, -1, -1, -1},
#ifdef __NR_chown
    {__NR_chown, ATTR_OWNER, -1, -1, 0, -1, false, 1, 2, -1, -1},
#endif
#ifdef __NR_lchown
    {__NR_lchown, ATTR_OWNER, -1, -1, 0, -1, true, 1, 2, -1, -1},
#endif
    {__NR_fchown, ATTR_OWNER, 0, -1, -1, -1, false, 1, 2, -1, -1},
    {__NR_fchownat, ATTR_OWNER, -1, 0, 1, 4, false, 2, 3, -1, -1},
    {__NR_setxattr, ATTR_XSET, -1, -1, 0, -1, false, 1, 2, 3, 4},
    {__NR_lsetxattr, ATTR_XSET, -1, -1, 0, -1, true, 1, 2, 3, 4},
    {__NR_fsetxattr, ATTR_XSET, 0, -1, -1, -1, false, 1, 2, 3, 4},
    {__NR_removexattr, ATTR_XREMOVE, -1, -1, 0, -1, false, 1, -1, -1, -1},
    {__NR_lremovexattr, ATTR_XREMOVE, -1, -1, 0, -1, true, 1, -1, -1, -1},
    {__NR_fremovexattr, ATTR_XREMOVE, 0, -1, -1, -1, false, 1, -1, -1, -1},
};

static const struct attr_op *find_attr_op(long nr)
{
	for (size_t i = 0; i < ARRAY_SIZE(attr_ops); i++)
		if (attr_ops[i].nr == nr)
			return &attr_ops[i];
	return NULL;
}

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
	struct notify *n;
};

struct notify {
	struct notify_plan plan; /* deep copy */
	int sock, listener, stopfd;
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

	unsigned long notifications, refused;
	struct strv refused_pairs; /* "dir\tname", printed once each */
};

/* ---- one sandboxed task ---- */

/* Everything the executor needs of the task, opened beforehand by the
 * worker: the executor itself cannot reach the task (its Landlock domain
 * forbids ptrace-like access), so it never opens /proc/TID. */
struct task {
	pid_t tid;
	uint64_t id;	   /* the notification's */
	int procfd;	   /* /proc/TID, O_PATH: pinned to this task; -1 in the
		     * executor's hands */
	struct nt_ctx ctx; /* rootfd: the task's root, opened by the worker */
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
	int ctty; /* O_PATH on its controlling terminal; NT_CTTY_UNKNOWN
		   * until asked for, NT_CTTY_NONE when it has none */
};

#define NT_CTTY_UNKNOWN (-2)
#define NT_CTTY_NONE (-3)

static void task_close(struct task *t)
{
	if (t->procfd >= 0)
		close(t->procfd);
	if (t->ctx.rootfd >= 0)
		close(t->ctx.rootfd);
	for (int i = 0; i < 2; i++)
		if (t->base[i] >= 0)
			close(t->base[i]);
	if (t->sfd >= 0)
		close(t->sfd);
	if (t->pidfd >= 0)
		close(t->pidfd);
	if (t->ctty >= 0)
		close(t->ctty);
}

static int task_status(struct task *t)
{
	char buf[4096];
	ssize_t n;
	bool um = false, tg = false, ce = false;

	if (t->status_read)
		return 0;
	int fd = openat(t->procfd, "status", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	/* strstr + strtoull: sscanf on every line showed in profiles */
	const char *p;
	char *end;
	if ((p = strstr(buf, "\nUmask:\t"))) {
		t->umask = (mode_t)(strtoul(p + 8, &end, 8) & 0777);
		um = end != p + 8;
	}
	if ((p = strstr(buf, "\nTgid:\t"))) {
		t->tgid = (pid_t)strtol(p + 7, &end, 10);
		tg = end != p + 7 && t->tgid > 0;
	}
	if ((p = strstr(buf, "\nCapEff:\t"))) {
		t->capeff = strtoull(p + 9, &end, 16);
		ce = end != p + 9;
	}
	if (!um || !tg || !ce)
		return -EIO; /* fail closed: a kernel without Umask: */
	t->status_read = true;
	return 0;
}

/* Reads a NUL-terminated string at addr from the task, page by page (a
 * string that ends just before an unmapped page is valid). */
static int read_str(pid_t tid, uint64_t addr, char *buf, size_t cap)
{
	size_t got = 0;
	long page = sysconf(_SC_PAGESIZE);

	if (!addr)
		return -EFAULT;
	while (got < cap) {
		uint64_t a = addr + got;
		size_t chunk = (size_t)page - (size_t)(a % (uint64_t)page);
		if (chunk > cap - got)
			chunk = cap - got;
		struct iovec l = {buf + got, chunk};
		struct iovec r = {(void *)(uintptr_t)a, chunk};
		ssize_t n = process_vm_readv(tid, &l, 1, &r, 1, 0);
		if (n <= 0)
			return n < 0 && errno != EFAULT ? -EPERM : -EFAULT;
		char *z = memchr(buf + got, '\0', (size_t)n);
		if (z)
			return 0;
		got += (size_t)n;
	}
	return -ENAMETOOLONG;
}

static int read_mem(pid_t tid, uint64_t addr, void *buf, size_t len)
{
	struct iovec l = {buf, len};
	struct iovec r = {(void *)(uintptr_t)addr, len};
	ssize_t n = process_vm_readv(tid, &l, 1, &r, 1, 0);

	if (n < 0)
		return errno == EFAULT ? -EFAULT : -EPERM;
	return (size_t)n == len ? 0 : -EFAULT;
}

/* ---- refusals ---- */

/* What stderr says of a refused name: which rule, and how to lift it.
 * The program chose the name, and a repository's files the deeper
 * folders: both escaped (common/esc.h). */
static char *refusal_text(const struct notify_guard *g, const char *rawname)
{
	_cleanup_free_ char *name = esc_dup(rawname);
	_cleanup_free_ char *dir = esc_dup(g->dir);

	if (g->always)
		return xasprintf("lnk: refused to create %s in %s: %s\n", name,
				 dir, g->why);
	if (g->why)
		return xasprintf("lnk: refused to create %s in %s: %s; "
				 "--write-dot-files on its write folder "
				 "allows it\n",
				 name, dir, g->why);
	return xasprintf("lnk: refused to create %s at the top of %s: it "
			 "would run outside the sandbox; --write-dot-files %s "
			 "allows it\n",
			 name, dir, dir);
}

/* Reported once per folder and name, on stderr and to on_refusal. Names
 * match without regard to case (nt_decide), and so are counted: else
 * .envrc, .Envrc, .ENVRC, ... (2^19 spellings of .pre-commit-config.yaml)
 * would each be a new line on the user's terminal and in the call log,
 * and a longer list to search under the lock. */
static void refuse(struct notify *n, const struct notify_guard *g,
		   const char *name)
{
	bool first;
	_cleanup_free_ char *pair = xasprintf("%s\t%s", g->dir, name);

	for (char *c = strchr(pair, '\t') + 1; *c; c++)
		if (*c >= 'A' && *c <= 'Z')
			*c = (char)(*c - 'A' + 'a');
	pthread_mutex_lock(&n->mu);
	n->refused++;
	first = !strv_contains(&n->refused_pairs, pair);
	if (first)
		strv_push(&n->refused_pairs, pair);
	pthread_mutex_unlock(&n->mu);
	if (first && !n->plan.quiet) {
		_cleanup_free_ char *msg = refusal_text(g, name);
		term_write(STDERR_FILENO, msg);
	}
	if (first && n->plan.on_refusal)
		n->plan.on_refusal(n->plan.on_refusal_ctx, g, name);
}

/* 0 when creating `last` in parent is allowed. For a guarded name:
 * -EEXIST (unreported) when it exists already, since then nothing can be
 * created and the native call fails the same way (open without O_EXCL
 * retries without O_CREAT); else -EPERM, reported. -EPERM when the parent
 * cannot be checked (fail closed). */
static int check(struct notify *n, int parent, const char *last)
{
	struct stat st;
	struct statfs sf;

	if (fstat(parent, &st) < 0 || fstatfs(parent, &sf) < 0)
		return -EPERM;
	/* Never create on /proc, /sys or another pseudo file system: what
	 * it makes (or opens) is a kernel object, not a file. */
	if (!nt_fs_ok((unsigned long)sf.f_type, false))
		return -EACCES;
	const struct notify_guard *g =
	    nt_decide(n->plan.guards, n->plan.n, st.st_dev, st.st_ino, last);
	if (!g)
		return 0;
	if (fstatat(parent, last, &st, AT_SYMLINK_NOFOLLOW) == 0)
		return -EEXIST;
	refuse(n, g, last);
	return -EPERM;
}

static bool guarded(struct notify *n, int parent, const char *last)
{
	struct stat st;

	if (fstat(parent, &st) < 0)
		return true;
	return nt_decide(n->plan.guards, n->plan.n, st.st_dev, st.st_ino,
			 last) != NULL;
}

/* 1 when name in dir is the root of a mount (seen from dir, that is in
 * the task's mount tree), 0 when not or missing, -EPERM when it cannot be
 * told (fail closed). */
static int mount_point_at(int dir, const char *name)
{
	struct statx a, b;

	if (statx(dir, "", AT_EMPTY_PATH, STATX_MNT_ID, &a) < 0 ||
	    !(a.stx_mask & STATX_MNT_ID))
		return -EPERM;
	if (statx(dir, name, AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &b) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!(b.stx_mask & STATX_MNT_ID))
		return -EPERM;
	if (b.stx_mnt_id != a.stx_mnt_id)
		return 1;
	return (b.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
		       (b.stx_attributes & STATX_ATTR_MOUNT_ROOT)
		   ? 1
		   : 0;
}

static bool is_dots(const char *s)
{
	return strcmp(s, ".") == 0 || strcmp(s, "..") == 0;
}

/* ---- paths of one call ---- */

struct where {
	int parent; /* -1 for a magic link */
	char last[NAME_MAX + 1];
	bool slash;
	int magic; /* when the path IS a magic link (/dev/stdout): O_PATH on
		    * what it names (the task's base, not ours to close);
		    * else -1 */
};

static void where_close(struct where *w)
{
	if (w->parent >= 0)
		close(w->parent);
	w->parent = -1;
}

/* Where a path starts, as the task sees it: *fd is set to the task's
 * descriptor it starts at (-1 for its cwd) and 0 returned; 1 when it
 * starts at the task's root (absolute); -EBADF for a bad dirfd. Pure. */
static int base_of(int dirfd, const char *path, int *fd)
{
	struct nt_path np;

	nt_rewrite(path, &np);
	switch (np.base) {
	case NT_BASE_ROOT:
		return 1;
	case NT_BASE_FD:
		*fd = np.fd;
		return 0;
	case NT_BASE_CWD:
		*fd = -1;
		return 0;
	case NT_BASE_DIRFD:
		if (dirfd == AT_FDCWD)
			*fd = -1;
		else if (dirfd < 0)
			return -EBADF;
		else
			*fd = dirfd;
		return 0;
	}
	return -EBADF;
}

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

/* The task's own descriptor fd, as the very open file it holds
 * (pidfd_getfd): its access mode is then the one it was opened with, and
 * what we act on is what we looked at (opening /proc/TID/fd/N by name
 * could meet another file dup2'ed there meanwhile). A thread with a
 * descriptor table of its own (unshare(CLONE_FILES)) is asked by its tid;
 * before Linux 6.9 (no PIDFD_THREAD), by its thread group. */
static int task_getfd(struct task *t, int fd)
{
	if (t->pidfd < 0) {
		t->pidfd = (int)syscall(SYS_pidfd_open, t->tid, PIDFD_THREAD);
		if (t->pidfd < 0 && errno == EINVAL && task_status(t) == 0)
			t->pidfd = (int)syscall(SYS_pidfd_open, t->tgid, 0);
		if (t->pidfd < 0)
			return -EPERM;
		/* pidfd_open takes a number, which a task killed since
		 * prep's check could have passed on to another process: the
		 * notification still pending means the task still lives, so
		 * the pidfd is its own. */
		uint64_t id = t->id;
		if (ioctl(t->w->n->listener, SECCOMP_IOCTL_NOTIF_ID_VALID,
			  &id) < 0)
			return -ENOENT;
	}
	int r = (int)syscall(SYS_pidfd_getfd, t->pidfd, fd, 0);
	if (r < 0)
		return errno == EBADF ? -EBADF : -EPERM;
	return r;
}

/* The worker's half: opens where path starts. -1 when it starts at the
 * root, else an fd (O_PATH on the cwd, or the task's descriptor itself,
 * its access mode in *acc) or -errno (kept for the executor to report at
 * the same point as the native call would). */
static int base_prepare(struct task *t, int dirfd, const char *path, int *acc)
{
	int fdnum, fd;
	int r = base_of(dirfd, path, &fdnum);

	*acc = O_PATH;
	if (r != 0)
		return r > 0 ? -1 : r;
	if (fdnum < 0) {
		fd = openat(t->procfd, "cwd", O_PATH | O_CLOEXEC);
		return fd < 0 ? -EPERM : fd;
	}
	fd = task_getfd(t, fdnum);
	if (fd < 0)
		return fd;
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0) {
		close(fd);
		return -EPERM;
	}
	*acc = (fl & O_PATH) ? O_PATH : (fl & O_ACCMODE);
	return fd;
}

/* ---- what the sandbox's grants reach ---- */

#ifndef STATX_MNT_ID_UNIQUE
#define STATX_MNT_ID_UNIQUE 0x00004000U
#endif
#ifndef NS_GET_MNTNS_ID
#define NS_GET_MNTNS_ID _IOR(0xb7, 0x5, uint64_t)
#endif
#define NR_STATMOUNT 457 /* the shared table of new syscalls */

struct nt_mnt_id_req {
	uint32_t size, spare;
	uint64_t mnt_id, param, mnt_ns_id;
};

/* The old (non-unique) mount id of fd in /proc/TID/mountinfo: kernels
 * without statmount (before 6.11). The id cannot be reused while fd holds
 * its mount. 1 found, 0 not, -EPERM unknown. */
static int mount_in_mountinfo(struct task *t, int fd)
{
	struct statx sx;
	char line[8192];
	int r = 0;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &sx) < 0 ||
	    !(sx.stx_mask & STATX_MNT_ID))
		return -EPERM;
	int mfd = openat(t->procfd, "mountinfo", O_RDONLY | O_CLOEXEC);
	if (mfd < 0)
		return -EPERM;
	FILE *f = fdopen(mfd, "r");
	if (!f) {
		close(mfd);
		return -EPERM;
	}
	bool start = true; /* line holds the start of a line */
	while (r == 0 && fgets(line, sizeof(line), f)) {
		char *end;
		unsigned long long id = strtoull(line, &end, 10);
		if (start && end != line && *end == ' ' && id == sx.stx_mnt_id)
			r = 1;
		start = strchr(line, '\n') != NULL;
	}
	fclose(f);
	return r;
}

/* 1 when fd lies on a mount of the task's mount namespace, 0 when not
 * (the host's: an inherited stdin, stdout or folder; a pipe or socket),
 * -EPERM when it cannot be told. The sandbox's mount tree is exactly
 * what its grants show, with their read-only, hidden and missing places
 * (write confinement is mount-based), and a walk on descriptors never
 * leaves the namespace of the mount it starts on. So this is the test of
 * "inside the grants" for whatever the guard is asked to act on. */
static int on_sandbox_mounts(struct task *t, int fd)
{
	struct notify *n = t->w->n;
	struct statx sx;
	uint64_t ns;

	pthread_mutex_lock(&n->mnt_mu);
	ns = n->mntns;
	pthread_mutex_unlock(&n->mnt_mu);
	if (!ns) {
		int nsfd = openat(t->procfd, "ns/mnt", O_RDONLY | O_CLOEXEC);
		if (nsfd < 0)
			return -EPERM;
		if (ioctl(nsfd, NS_GET_MNTNS_ID, &ns) < 0 || !ns)
			ns = UINT64_MAX; /* before 6.10: mountinfo */
		close(nsfd);
		pthread_mutex_lock(&n->mnt_mu);
		n->mntns = ns;
		pthread_mutex_unlock(&n->mnt_mu);
	}
	if (ns == UINT64_MAX ||
	    statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID_UNIQUE, &sx) < 0 ||
	    !(sx.stx_mask & STATX_MNT_ID_UNIQUE))
		return mount_in_mountinfo(t, fd);
	bool known = false;
	pthread_mutex_lock(&n->mnt_mu);
	for (size_t i = 0; i < n->nmnt_in && !known; i++)
		known = n->mnt_in[i] == sx.stx_mnt_id;
	pthread_mutex_unlock(&n->mnt_mu);
	if (known)
		return 1;
	struct nt_mnt_id_req req = {
	    .size = sizeof(req),
	    .mnt_id = sx.stx_mnt_id,
	    .param = 0x1, /* STATMOUNT_SB_BASIC: the least there is */
	    .mnt_ns_id = ns,
	};
	union {
		uint64_t align;
		char b[512];
	} buf;
	if (syscall(NR_STATMOUNT, &req, buf.b, sizeof(buf.b), 0) == 0) {
		pthread_mutex_lock(&n->mnt_mu);
		if (n->nmnt_in < ARRAY_SIZE(n->mnt_in))
			n->mnt_in[n->nmnt_in++] = sx.stx_mnt_id;
		pthread_mutex_unlock(&n->mnt_mu);
		return 1;
	}
	if (errno == ENOENT)
		return 0;
	if (errno == ENOSYS || errno == EINVAL)
		return mount_in_mountinfo(t, fd);
	return -EPERM;
}

/* 0 when the guard may act beneath or on fd for the task; -EACCES (what
 * Landlock answers the program natively) when fd is not inside its
 * grants. */
static int reach_ok(struct task *t, int fd)
{
	int r = on_sandbox_mounts(t, fd);

	return r > 0 ? 0 : r == 0 ? -EACCES : r;
}

/* An object the path names BY a descriptor of the task (/dev/stdout,
 * /dev/fd/N, /proc/self/fd/N), reopened with flags: inside the grants,
 * the mounts decide as for any path; outside them (the host's stdin or
 * stdout, a pipe) never more than the descriptor has, acc its access
 * mode: an inherited read-only deploy.sh stays read only, an append-only
 * log stays unread. */
static int fd_reopen_ok(struct task *t, int o, int acc, int flags)
{
	int r = on_sandbox_mounts(t, o);

	if (r < 0)
		return r;
	if (r > 0 || nt_access_within(flags, acc))
		return 0;
	return -EACCES;
}

/* The end of locate: the folder found must be inside the sandbox's
 * grants, whatever it was reached from (a descriptor of the host's folder
 * given as stdin: `mkdir /dev/fd/0/.git`). */
static int located(struct task *t, struct where *w, int r)
{
	if (r == 0 && (r = reach_ok(t, w->parent)) < 0)
		where_close(w);
	return r;
}

/* Resolves the parent of path as the task sees it; base is the prepared
 * start of this path (base_prepare). */
static int locate(struct task *t, int base, const char *path, struct where *w)
{
	struct nt_path np;
	char abs[PATH_MAX];

	w->parent = -1;
	w->magic = -1;
	w->slash = false;
	if (!*path)
		return -ENOENT;
	nt_rewrite(path, &np);
	if (np.base == NT_BASE_ROOT) {
		/* Absolute, or /proc/self/root/...: IN_ROOT from its root. */
		if ((size_t)snprintf(abs, sizeof(abs), "/%s", np.rest) >=
		    sizeof(abs))
			return -ENAMETOOLONG;
		return located(t, w,
			       nt_lookup_parent(&t->ctx, -1, abs, &w->parent,
						w->last, sizeof(w->last),
						&w->slash));
	}
	if (base < 0)
		return base == -1 ? -EBADF : base;
	if (!*np.rest) {
		/* The path is the magic link itself (/dev/stdout). */
		w->magic = base;
		return 0;
	}
	struct stat st;
	if (fstat(base, &st) < 0 || !S_ISDIR(st.st_mode))
		return -ENOTDIR;
	return located(t, w,
		       nt_lookup_parent(&t->ctx, base, np.rest, &w->parent,
					w->last, sizeof(w->last), &w->slash));
}

/* The error a non-mkdir creation gets natively for "name/" (the kernel
 * suppresses the create): EEXIST when it exists, else ENOENT. */
static int slash_err(const struct where *w)
{
	struct stat st;
	return fstatat(w->parent, w->last, &st, AT_SYMLINK_NOFOLLOW) == 0
		   ? -EEXIST
		   : -ENOENT;
}

/* Follows the symlink `w->last` in w->parent by hand: re-locates w on its
 * target, inside the task's root. */
static int follow(struct task *t, struct where *w)
{
	char target[PATH_MAX];
	ssize_t n = readlinkat(w->parent, w->last, target, sizeof(target) - 1);

	if (n < 0)
		return -errno;
	target[n] = '\0';
	if (n == 0)
		return -ENOENT;
	struct where nw;
	int r =
	    nt_lookup_parent(&t->ctx, target[0] == '/' ? -1 : w->parent, target,
			     &nw.parent, nw.last, sizeof(nw.last), &nw.slash);
	if (r < 0)
		return r;
	close(w->parent);
	w->parent = nw.parent;
	memcpy(w->last, nw.last, sizeof(w->last));
	w->slash = w->slash || nw.slash;
	return 0;
}

/* ---- the operations ---- */

/* Opens what the O_PATH fd o names as the program's own open would:
 * reopened through our own /proc/thread-self/fd, so the kernel checks the
 * permissions and runs the open (and its Landlock and ptrace checks) in
 * this restricted thread. Nothing is created. */
static int reopen(int o, int flags)
{
	char p[64];

	snprintf(p, sizeof(p), "/proc/thread-self/fd/%d", o);
	int fd = open(p, (flags & ~(O_CREAT | O_EXCL | O_NOFOLLOW)) |
			     O_CLOEXEC | O_NOCTTY);
	return fd < 0 ? -errno : fd;
}

/* A FIFO opened for reading, or for writing with no reader yet, blocks
 * until its peer comes (docs/kernel-facts.md, fifo-needs-a-pool), holding this
 * worker pair. At most FIFO_MAX wait at once; beyond, EAGAIN: a flood of them
 * (300 in tests/e2e/test_attacks.py) must not leave no pair for every other
 * creation. A writer first tries without blocking: with a reader there, it
 * never waits. */
static int open_fifo(struct notify *n, int o, int flags)
{
	int acc = flags & O_ACCMODE, fd;

	if ((flags & O_NONBLOCK) || acc == O_RDWR)
		return reopen(o, flags); /* never blocks */
	if (acc == O_WRONLY) {
		fd = reopen(o, flags | O_NONBLOCK);
		if (fd >= 0) {
			int fl = fcntl(fd, F_GETFL);
			if (fl < 0 ||
			    fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
				close(fd);
				return -EPERM;
			}
			return fd;
		}
		if (fd != -ENXIO)
			return fd;
	}
	if (atomic_fetch_add(&n->fifo_blocked, 1) >= FIFO_MAX) {
		atomic_fetch_sub(&n->fifo_blocked, 1);
		return -EAGAIN;
	}
	fd = reopen(o, flags);
	atomic_fetch_sub(&n->fifo_blocked, 1);
	return fd;
}

static int find_ctty(struct task *t);
static int exec_open(struct worker *w, int o, int flags, bool fifo);

/* The object (O_PATH) an O_CREAT open found already there: checked here,
 * then opened without O_CREAT by the executor (restricted). Returns an fd
 * or -errno. */
static int open_existing(struct notify *n, struct task *t, int o, int flags)
{
	struct stat st;
	struct statfs sf;
	int use = o;

	if (fstat(o, &st) < 0 || fstatfs(o, &sf) < 0)
		return -EPERM;
	/* /proc/1/mem, maps, environ, /sys/...: never (the confused
	 * deputy: tests/e2e/test_attacks.py, test_pid1_memory_*). EACCES, as
	 * Landlock answers the program's own open. */
	if (!nt_fs_ok((unsigned long)sf.f_type, true) || S_ISBLK(st.st_mode))
		return -EACCES;
	if (S_ISCHR(st.st_mode)) {
		switch (nt_chardev(st.st_rdev)) {
		case NT_DEV_OPEN:
			break;
		case NT_DEV_CTTY:
			/* /dev/tty names the CALLER's terminal: ours would
			 * be the user's real one, past the program's pty. */
			if (t->ctty == NT_CTTY_UNKNOWN)
				t->ctty = find_ctty(t);
			if (t->ctty < 0)
				return -ENXIO;
			use = t->ctty;
			if (fstat(use, &st) < 0 || fstatfs(use, &sf) < 0 ||
			    !nt_fs_ok((unsigned long)sf.f_type, true) ||
			    !S_ISCHR(st.st_mode) ||
			    nt_chardev(st.st_rdev) != NT_DEV_OPEN)
				return -ENXIO;
			break;
		case NT_DEV_REFUSE:
			return -EACCES;
		}
	}
	if (flags & O_PATH) {
		/* a new O_PATH file: `use` may be the task's own open file
		 * (pidfd_getfd), whose access a dup would hand over */
		char p[64];
		snprintf(p, sizeof(p), "/proc/thread-self/fd/%d", use);
		int fd = open(p, O_PATH | O_CLOEXEC);
		return fd < 0 ? -errno : fd;
	}
	if (S_ISDIR(st.st_mode) && (flags & O_CREAT))
		return -EISDIR;
	(void)n;
	return exec_open(t->w, use, flags, S_ISFIFO(st.st_mode));
}

static int do_open(struct notify *n, struct task *t, int base, int acc,
		   const char *path, int flags, mode_t mode)
{
	struct where w;
	int r = locate(t, base, path, &w);

	/* O_PATH ignores O_CREAT and O_EXCL: a lookup, nothing made. */
	if (flags & O_PATH)
		flags &= O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	bool excl = (flags & O_CREAT) && (flags & O_EXCL);
	bool follow_final = !(flags & O_NOFOLLOW) && !excl;
	int oflags = (flags & ~O_CLOEXEC) | O_CLOEXEC | O_NOCTTY;

	/* Belt and braces over lnk-init's filter: a --write folder is on
	 * the host, where a setuid file would stay setuid. */
	mode &= (mode_t) ~(S_ISUID | S_ISGID);
	if (r < 0)
		return r;
	if (w.magic >= 0) {
		/* Reopening the task's own open file or cwd: nothing is
		 * created. Native semantics for a final symlink first. */
		if (excl)
			return -EEXIST;
		if (flags & O_NOFOLLOW)
			return -ELOOP;
		if ((r = fd_reopen_ok(t, w.magic, acc, flags)) < 0)
			return r;
		return open_existing(n, t, w.magic, flags);
	}
	for (int hop = 0;; hop++) {
		if (hop > 40) {
			r = -ELOOP;
			break;
		}
		if ((flags & O_CREAT) && w.slash) {
			r = -EISDIR;
			break;
		}
		if (is_dots(w.last)) {
			r = -EISDIR;
			break;
		}
		/* -EEXIST: an existing guarded name, opened as it is, never
		 * created (should it vanish meanwhile: ENOENT, not a new
		 * .envrc). */
		r = check(n, w.parent, w.last);
		bool guarded_name = r == -EEXIST;
		if (r < 0 && !(guarded_name && !excl))
			break;
		/* Look before opening: an existing object is checked, and
		 * opened by reopen(), never by an open that could block or
		 * create. */
		int o =
		    openat(w.parent, w.last, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (o >= 0) {
			struct stat st;
			if (excl) {
				close(o);
				r = -EEXIST;
				break;
			}
			if (fstat(o, &st) < 0) {
				close(o);
				r = -EPERM;
				break;
			}
			if (S_ISLNK(st.st_mode) && follow_final) {
				close(o);
				r = follow(t, &w);
				if (r < 0)
					break;
				continue;
			}
			if (S_ISLNK(st.st_mode) && !(flags & O_PATH)) {
				close(o);
				r = -ELOOP;
				break;
			}
			r = open_existing(n, t, o, flags);
			close(o);
			break;
		}
		r = -errno;
		if (r != -ENOENT || !(flags & O_CREAT) || guarded_name)
			break;
		if (task_status(t) < 0) {
			r = -EPERM;
			break;
		}
		umask(t->umask);
		int fd = openat(w.parent, w.last,
				oflags | O_CREAT | O_EXCL | O_NOFOLLOW, mode);
		if (fd >= 0) {
			r = fd;
			break;
		}
		r = -errno;
		/* Made by someone else meanwhile: look again (a hop). */
		if (r != -EEXIST || (flags & O_EXCL))
			break;
	}
	where_close(&w);
	return r;
}

static int do_mkdir(struct notify *n, struct task *t, int base,
		    const char *path, mode_t mode)
{
	struct where w;
	int r = locate(t, base, path, &w);

	mode &= (mode_t) ~(S_ISUID | S_ISGID); /* see do_open */
	if (r < 0)
		return r;
	if (w.magic >= 0 || is_dots(w.last))
		r = -EEXIST;
	else if ((r = check(n, w.parent, w.last)) == 0) {
		if (task_status(t) < 0)
			r = -EPERM;
		else {
			umask(t->umask);
			r = mkdirat(w.parent, w.last, mode) < 0 ? -errno : 0;
		}
	}
	where_close(&w);
	return r;
}

static int do_mknod(struct notify *n, struct task *t, int base,
		    const char *path, mode_t mode, dev_t dev)
{
	struct where w;
	int r = locate(t, base, path, &w);

	mode &= (mode_t) ~(S_ISUID | S_ISGID); /* see do_open */
	if (r < 0)
		return r;
	if (w.magic >= 0 || is_dots(w.last))
		r = -EEXIST;
	else if (S_ISCHR(mode) || S_ISBLK(mode))
		r = -EACCES; /* never granted by the sandbox's Landlock either
			      * (a whiteout 0:0 needs no capability) */
	else if ((r = check(n, w.parent, w.last)) == 0) {
		if (w.slash)
			r = slash_err(&w);
		else if (task_status(t) < 0)
			r = -EPERM;
		else {
			umask(t->umask);
			r = mknodat(w.parent, w.last, mode, dev) < 0 ? -errno
								     : 0;
		}
	}
	where_close(&w);
	return r;
}

static int do_symlink(struct notify *n, struct task *t, const char *target,
		      int base, const char *path)
{
	struct where w;
	int r = locate(t, base, path, &w);

	if (r < 0)
		return r;
	if (w.magic >= 0 || is_dots(w.last))
		r = -EEXIST;
	else if ((r = check(n, w.parent, w.last)) == 0) {
		if (w.slash)
			r = slash_err(&w);
		else
			r = symlinkat(target, w.parent, w.last) < 0 ? -errno
								    : 0;
	}
	where_close(&w);
	return r;
}

/* A name may be given to an existing object only when it is an ordinary
 * one: never a setuid or setgid program (an O_TMPFILE made with one, say,
 * should lnk-init's filter ever miss it), nothing on a pseudo file
 * system. */
static int link_source_ok(int fd)
{
	struct stat st;
	struct statfs sf;

	if (fstat(fd, &st) < 0 || fstatfs(fd, &sf) < 0)
		return -EPERM;
	if (!nt_fs_ok((unsigned long)sf.f_type, true))
		return -EACCES;
	if (S_ISREG(st.st_mode) &&
	    ((st.st_mode & S_ISUID) ||
	     (st.st_mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP)))
		return -EPERM;
	return 0;
}

/* An O_PATH fd on what `old` names, following a final symlink by hand. */
static int open_old_followed(struct task *t, struct where *w)
{
	for (int hop = 0; hop <= 40; hop++) {
		if (is_dots(w->last))
			return -EPERM; /* a folder: cannot be linked */
		int fd =
		    openat(w->parent, w->last, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		struct stat st;
		if (fstat(fd, &st) < 0) {
			close(fd);
			return -EPERM;
		}
		if (!S_ISLNK(st.st_mode))
			return fd;
		close(fd);
		int r = follow(t, w);
		if (r < 0)
			return r;
	}
	return -ELOOP;
}

static int do_link(struct notify *n, struct task *t, int obase, const char *old,
		   int nbase, const char *newp, int flags)
{
	struct where o = {.parent = -1}, nw = {.parent = -1};
	char src[64];
	int r, srcfd = -1;

	if (flags & ~(AT_SYMLINK_FOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	r = locate(t, nbase, newp, &nw);
	if (r < 0)
		return r;
	if (nw.magic >= 0 || is_dots(nw.last)) {
		r = -EEXIST;
		goto out;
	}
	r = check(n, nw.parent, nw.last);
	if (r < 0)
		goto out;
	if (nw.slash) {
		r = slash_err(&nw);
		goto out;
	}

	if (!*old && (flags & AT_EMPTY_PATH)) {
		/* flink: old is the dirfd itself (O_TMPFILE + linkat), or
		 * its cwd: the worker opened it (O_PATH) as obase. */
		if (obase < 0) {
			r = obase == -1 ? -EBADF : obase;
			goto out;
		}
		snprintf(src, sizeof(src), "/proc/thread-self/fd/%d", obase);
	} else {
		r = locate(t, obase, old, &o);
		if (r < 0)
			goto out;
		if (o.magic >= 0) {
			if (!(flags & AT_SYMLINK_FOLLOW)) {
				r = -EXDEV; /* linking a proc symlink */
				goto out;
			}
			snprintf(src, sizeof(src), "/proc/thread-self/fd/%d",
				 o.magic);
		} else if (flags & AT_SYMLINK_FOLLOW) {
			srcfd = open_old_followed(t, &o);
			if (srcfd < 0) {
				r = srcfd;
				goto out;
			}
			snprintf(src, sizeof(src), "/proc/thread-self/fd/%d",
				 srcfd);
		} else {
			if (is_dots(o.last)) {
				r = -EPERM;
				goto out;
			}
			srcfd = openat(o.parent, o.last,
				       O_PATH | O_NOFOLLOW | O_CLOEXEC);
			if (srcfd < 0) {
				r = -errno;
				goto out;
			}
			/* linked below by this descriptor, never again by
			 * name: a swap of o.last in between cannot change
			 * what gets the new name (a symlink's own O_PATH
			 * file links the symlink itself) */
			snprintf(src, sizeof(src), "/proc/thread-self/fd/%d",
				 srcfd);
		}
	}
	{
		/* what the proc link names, checked like any source: an
		 * ordinary object, inside the grants (an inherited host
		 * file is not given a name in a write folder) */
		int chk = open(src, O_PATH | O_CLOEXEC);
		if (chk < 0) {
			r = -errno;
			goto out;
		}
		r = link_source_ok(chk);
		if (r == 0 && (r = on_sandbox_mounts(t, chk)) >= 0)
			r = r > 0 ? 0 : -EXDEV;
		close(chk);
		if (r < 0)
			goto out;
	}
	/* The kernel follows only a proc link naming an object the task (or
	 * we, for it) already hold: never a path the task controls. */
	r = linkat(AT_FDCWD, src, nw.parent, nw.last, AT_SYMLINK_FOLLOW) < 0
		? -errno
		: 0;
out:
	if (srcfd >= 0)
		close(srcfd);
	where_close(&o);
	where_close(&nw);
	return r;
}

static int do_rename(struct notify *n, struct task *t, int obase,
		     const char *old, int nbase, const char *newp,
		     unsigned flags)
{
	struct where o = {.parent = -1}, nw = {.parent = -1};
	char ol[NAME_MAX + 2], nl[NAME_MAX + 2];
	int r;

	r = locate(t, obase, old, &o);
	if (r < 0)
		return r;
	r = locate(t, nbase, newp, &nw);
	if (r < 0)
		goto out;
	if (o.magic >= 0 || nw.magic >= 0) {
		r = -EXDEV;
		goto out;
	}
	if (is_dots(o.last) || is_dots(nw.last)) {
		r = (flags & RENAME_NOREPLACE) ? -EEXIST : -EBUSY;
		goto out;
	}
	/* Mount points: the kernel refuses to rename one (EBUSY) only when it
	 * is a mount point in the CALLER's namespace, and we are not in the
	 * sandbox's. Without this check, the read-only bind of an existing
	 * .envrc or .git (or a --hide over a folder) could be renamed away on
	 * the host through us. Measured: it was. */
	if ((r = mount_point_at(o.parent, o.last)) != 0 ||
	    (r = mount_point_at(nw.parent, nw.last)) != 0) {
		r = r > 0 ? -EBUSY : r;
		goto out;
	}
	/* An existing dot file that is not a mount (a symlink at the top) is
	 * not renamed away either. */
	if (guarded(n, o.parent, o.last)) {
		r = -EBUSY;
		goto out;
	}
	/* The new name is created; with EXCHANGE or WHITEOUT the old name is
	 * (re)created too. */
	r = check(n, nw.parent, nw.last);
	if (r == 0 && (flags & (RENAME_EXCHANGE | RENAME_WHITEOUT)))
		r = check(n, o.parent, o.last);
	if (r < 0) {
		/* replacing an existing guarded entry is a change too */
		r = r == -EEXIST ? -EPERM : r;
		goto out;
	}
	snprintf(ol, sizeof(ol), "%s%s", o.last, o.slash ? "/" : "");
	snprintf(nl, sizeof(nl), "%s%s", nw.last, nw.slash ? "/" : "");
	r = syscall(SYS_renameat2, o.parent, ol, nw.parent, nl, flags) < 0
		? -errno
		: 0;
out:
	where_close(&o);
	where_close(&nw);
	return r;
}

#define CAP_BIT(c) (1ULL << (c))

/* Socket families the guard binds for: those whose bind checks no
 * capability the guard would hold in the sandbox's namespaces (it owns
 * their user namespace, so any ns_capable() there passes for it) that
 * it does not check by hand below. Any other family is refused: a
 * sandbox has no device for them, and their binds were not audited. */
static bool bind_family_ok(int domain)
{
	return domain == AF_UNIX || domain == AF_INET || domain == AF_INET6 ||
	       domain == AF_NETLINK || domain == AF_ALG || domain == AF_VSOCK;
}

/* t->sfd is the task's socket (pidfd_getfd, by the worker), sa its
 * address as the kernel reads it for that socket (nt_sockaddr_parse);
 * base where a path address starts. */
static int do_bind(struct notify *n, struct task *t, int base,
		   const struct nt_sockaddr *sa,
		   const struct sockaddr_storage *ss, size_t alen)
{
	const struct sockaddr_un *un = (const struct sockaddr_un *)ss;
	int r, sfd = t->sfd;

	if (sfd < 0)
		return -EBADF;
	if (!bind_family_ok(t->sdomain))
		return -EPERM;
	/* Checks by hand what our bind would pass with the privilege we
	 * hold in the sandbox's network namespace: a port below 1024
	 * (CAP_NET_BIND_SERVICE), netlink multicast groups that need
	 * CAP_NET_ADMIN there. */
	if (sa->kind == NT_SA_PORT && sa->port && sa->port < 1024 &&
	    !(t->capeff & CAP_BIT(CAP_NET_BIND_SERVICE)))
		return -EACCES;
	if (sa->kind == NT_SA_GROUPS && !(t->capeff & CAP_BIT(CAP_NET_ADMIN)) &&
	    !nt_netlink_groups_ok(t->sproto, sa->groups))
		return -EPERM;

	if (sa->kind != NT_SA_PATH) {
		/* No path: a port, abstract or autobind, netlink. */
		return bind(sfd, (const struct sockaddr *)ss, (socklen_t)alen) <
			       0
			   ? -errno
			   : 0;
	}
	struct where w;
	r = locate(t, base, sa->path, &w);
	if (r < 0)
		return r;
	if (w.magic >= 0 || is_dots(w.last))
		r = -EADDRINUSE;
	else if ((r = check(n, w.parent, w.last)) == -EEXIST)
		r = -EADDRINUSE;
	else if (r == 0) {
		if (w.slash) {
			r = slash_err(&w) == -EEXIST ? -EADDRINUSE : -ENOENT;
		} else if (strlen(w.last) >= sizeof(un->sun_path)) {
			r = -ENAMETOOLONG;
		} else if (fchdir(w.parent) < 0) {
			r = -EPERM; /* this executor's cwd is its own */
		} else {
			struct sockaddr_un a = {.sun_family = AF_UNIX};
			snprintf(a.sun_path, sizeof(a.sun_path), "%s", w.last);
			umask(t->umask);
			r = bind(sfd, (struct sockaddr *)&a,
				 (socklen_t)(offsetof(struct sockaddr_un,
						      sun_path) +
					     strlen(w.last) + 1)) < 0
				? -errno
				: 0;
			(void)!chdir("/");
		}
	}
	where_close(&w);
	return r;
}

/* The kernel's dev_t (MAJOR << 20 | MINOR), as sock_diag reports it. */
static uint32_t kernel_dev(dev_t d)
{
	return (uint32_t)((major(d) << 20) | (minor(d) & 0xfffff));
}

/* 1 when a unix socket of the sandbox's network namespace is bound to the
 * socket file st describes, 0 when none is (a host daemon's socket, or
 * one whose socket is gone), -EPERM when it cannot be told. Asks the
 * kernel (UNIX_DIAG, on lnk-init's netlink socket in that namespace)
 * rather than a list of our own binds: a name we bound can be replaced
 * by rename before we could read its inode, a socket's own binding
 * cannot. The inode number is 32 bits wide there. */
static int sandbox_socket(struct notify *n, const struct stat *st)
{
	struct {
		struct nlmsghdr nlh;
		struct unix_diag_req r;
	} req = {
	    .nlh = {.nlmsg_len = sizeof(req),
		    .nlmsg_type = SOCK_DIAG_BY_FAMILY,
		    .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP},
	    .r = {.sdiag_family = AF_UNIX,
		  .udiag_states = ~0u,
		  .udiag_show = UDIAG_SHOW_VFS},
	};
	union {
		struct nlmsghdr h;
		char b[16384];
	} buf;
	uint32_t want_dev = kernel_dev(st->st_dev);
	uint32_t want_ino = (uint32_t)st->st_ino;
	int found = 0, r = -EPERM;
	bool done = false;

	if (n->diag < 0)
		return -EPERM;
	pthread_mutex_lock(&n->diag_mu);
	req.nlh.nlmsg_seq = ++n->diag_seq;
	if (send(n->diag, &req, sizeof(req), 0) != (ssize_t)sizeof(req))
		goto out;
	while (!done) {
		ssize_t len = recv(n->diag, buf.b, sizeof(buf.b), 0);
		if (len <= 0)
			goto out;
		for (struct nlmsghdr *h = &buf.h; NLMSG_OK(h, (size_t)len);
		     h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_seq != req.nlh.nlmsg_seq)
				continue; /* an old answer */
			if (h->nlmsg_type == NLMSG_DONE) {
				done = true;
				break;
			}
			if (h->nlmsg_type == NLMSG_ERROR)
				goto out;
			if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
			    h->nlmsg_len <
				NLMSG_LENGTH(sizeof(struct unix_diag_msg)))
				continue;
			struct unix_diag_msg *m = NLMSG_DATA(h);
			int alen =
			    (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*m)));
			for (struct rtattr *a = (struct rtattr *)(m + 1);
			     RTA_OK(a, alen); a = RTA_NEXT(a, alen)) {
				struct unix_diag_vfs v;
				if (a->rta_type != UNIX_DIAG_VFS ||
				    RTA_PAYLOAD(a) < sizeof(v))
					continue;
				memcpy(&v, RTA_DATA(a), sizeof(v));
				if (v.udiag_vfs_ino == want_ino &&
				    v.udiag_vfs_dev == want_dev)
					found = 1;
			}
		}
	}
	r = found;
out:
	pthread_mutex_unlock(&n->diag_mu);
	return r;
}

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

/* 1 when socket sfd lives in the sandbox's network namespace (that of
 * lnk-init's sock_diag socket), 0 when not (one the program inherited
 * from the host), -EPERM when it cannot be told. */
static int in_sandbox_netns(struct notify *n, int sfd)
{
	uint64_t a, b;
	socklen_t la = sizeof(a), lb = sizeof(b);

	if (n->diag < 0 ||
	    getsockopt(n->diag, SOL_SOCKET, SO_NETNS_COOKIE, &a, &la) < 0 ||
	    getsockopt(sfd, SOL_SOCKET, SO_NETNS_COOKIE, &b, &lb) < 0)
		return -EPERM;
	return a == b;
}

/* connect(2) for the task. A read-only mount does not stop connect() on
 * a unix socket in it, so a host daemon's socket under a granted folder
 * (a gpg-agent under --read '~') would answer: a path is resolved here
 * like any other (in the task's root, inside its grants, symlinks
 * followed by hand), and connected only when the socket file is bound by
 * a socket of the sandbox's own network namespace; then by our
 * descriptor on that very file (/proc/thread-self/fd/N), never by the
 * name again. Every other address (abstract ones are in the sandbox's
 * network namespace, a port) is connected as given, read as bind reads
 * it. */
static int do_connect(struct notify *n, struct task *t, int base,
		      const struct nt_sockaddr *sa,
		      const struct sockaddr_storage *ss, size_t alen)
{
	int r, o = -1, sfd = t->sfd;
	struct where w = {.parent = -1};

	if (sfd < 0)
		return -EBADF;
	if (!bind_family_ok(t->sdomain))
		return -EPERM;
	if (sa->kind == NT_SA_GROUPS && !(t->capeff & CAP_BIT(CAP_NET_ADMIN)) &&
	    !nt_netlink_groups_ok(t->sproto, sa->groups))
		return -EPERM;
	/* An abstract name is looked up in the socket's network namespace:
	 * the sandbox's own holds only the program's, but a unix socket it
	 * inherited from the host reaches the host's (a D-Bus or X11
	 * abstract socket), which the program's Landlock domain refuses
	 * natively (its abstract-socket scope) and ours would not. */
	if (sa->kind == NT_SA_ABSTRACT && (r = in_sandbox_netns(n, sfd)) <= 0)
		return r == 0 ? -EPERM : r;
	if (sa->kind != NT_SA_PATH)
		return connect(sfd, (const struct sockaddr *)ss,
			       (socklen_t)alen) < 0
			   ? -errno
			   : 0;

	r = locate(t, base, sa->path, &w);
	if (r < 0)
		return r;
	if (w.magic >= 0) {
		/* /proc/self/fd/N of an O_PATH socket file it holds */
		if ((r = reach_ok(t, w.magic)) < 0)
			goto out;
		o = fcntl(w.magic, F_DUPFD_CLOEXEC, 0);
		if (o < 0) {
			r = -EPERM;
			goto out;
		}
	} else if (w.slash) {
		r = slash_err(&w) == -EEXIST ? -ECONNREFUSED : -ENOENT;
		goto out;
	} else if ((o = open_old_followed(t, &w)) < 0) {
		r = o == -EPERM ? -ECONNREFUSED : o;
		goto out;
	}
	struct stat st;
	if (fstat(o, &st) < 0) {
		r = -EPERM;
		goto out;
	}
	if (!S_ISSOCK(st.st_mode)) {
		r = -ECONNREFUSED; /* as the kernel answers a non-socket */
		goto out;
	}
	r = sandbox_socket(n, &st);
	if (r == 0 && n->plan.tool_sock_ino &&
	    st.st_ino == n->plan.tool_sock_ino &&
	    st.st_dev == n->plan.tool_sock_dev)
		r = 1; /* the tools broker's, bound in by lnk */
	if (r <= 0) {
		r = r == 0 ? -EACCES : r;
		goto out;
	}
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	snprintf(a.sun_path, sizeof(a.sun_path), "/proc/thread-self/fd/%d", o);
	r = connect(sfd, (struct sockaddr *)&a, sizeof(a)) < 0 ? -errno : 0;
out:
	if (o >= 0)
		close(o);
	where_close(&w);
	return r;
}

/* ---- one notification ---- */

static const struct op *find_op(long nr)
{
	for (size_t i = 0; i < ARRAY_SIZE(ops); i++)
		if (ops[i].nr == nr)
			return &ops[i];
	return NULL;
}

bool nt_handles(long nr, int *flags_arg)
{
	const struct op *op = find_op(nr);

	if (!op)
		return false;
	*flags_arg = op->kind == OP_OPEN && !op->fixed_flags ? op->flags : -1;
	return true;
}

static int arg_fd(const struct seccomp_notif *req, int i)
{
	return i < 0 ? AT_FDCWD : (int)req->data.args[i];
}

static bool id_valid(struct notify *n, uint64_t id)
{
	return ioctl(n->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

static void reply(struct notify *n, uint64_t id, int r)
{
	struct seccomp_notif_resp resp = {.id = id};

	if (r < 0)
		resp.error = r;
	else
		resp.val = r;
	(void)ioctl(n->listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
}

/* One notification on its way from a worker to its executor. */
struct job {
	const struct seccomp_notif *req;
	const struct op *op;
	struct task t;
	char p1[PATH_MAX], p2[PATH_MAX];
	struct sockaddr_storage ss; /* bind */
	size_t alen;
	struct nt_sockaddr sa; /* ss as the kernel reads it */
	void *xval;	       /* setxattr's value, read once (malloc'd) */
	size_t xlen;
};

/* ---- metadata (OP_ATTR) ---- */

/* The worker's half of a metadata call: reads the path, the attribute's
 * name and value once, and opens where the path starts (or takes the
 * task's descriptor). */
static int prep_attr(struct notify *n, struct job *j)
{
	const struct seccomp_notif *req = j->req;
	const struct attr_op *a = find_attr_op(req->data.nr);
	struct task *t = &j->t;
	int r = 0;

	if (!a)
		return -ENOSYS;
	if (a->path >= 0)
		r = read_str(t->tid, req->data.args[a->path], j->p1,
			     sizeof(j->p1));
	if (r == 0 && (a->kind == ATTR_XSET || a->kind == ATTR_XREMOVE))
		r = read_str(t->tid, req->data.args[a->a], j->p2,
			     sizeof(j->p2));
	if (r == 0 && a->kind == ATTR_XSET) {
		uint64_t len = req->data.args[a->c];
		if (len > XATTR_MAX)
			r = -E2BIG;
		else {
			j->xlen = (size_t)len;
			j->xval = xmalloc(len ? (size_t)len : 1);
			if (len)
				r = read_mem(t->tid, req->data.args[a->b],
					     j->xval, (size_t)len);
		}
	}
	if (!id_valid(n, req->id))
		return -ENOENT;
	if (r < 0)
		return r;
	if (task_status(t) < 0)
		return -EPERM;
	t->ctx.rootfd =
	    openat(t->procfd, "root", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (t->ctx.rootfd < 0)
		return -EPERM;
	if (a->fd >= 0) {
		t->sfd = task_getfd(t, (int)req->data.args[a->fd]);
		return t->sfd < 0 ? t->sfd : 0;
	}
	t->base[0] = base_prepare(
	    t, a->dfd >= 0 ? (int)req->data.args[a->dfd] : AT_FDCWD, j->p1,
	    &t->base_acc[0]);
	return 0;
}

/* An O_PATH fd on the object path names, following a final symlink by
 * hand unless nofollow. 0 or -errno. */
static int attr_object(struct task *t, int base, const char *path,
		       bool nofollow, int *out)
{
	struct where w;
	int r = locate(t, base, path, &w);

	if (r < 0)
		return r;
	if (w.magic >= 0) {
		*out = fcntl(w.magic, F_DUPFD_CLOEXEC, 3);
		return *out < 0 ? -EPERM : 0;
	}
	r = -ELOOP;
	for (int hop = 0; hop <= 40; hop++) {
		if (is_dots(w.last)) {
			/* "." or "..": a folder, resolved inside the root */
			r = nt_open_dir(&t->ctx, w.parent, w.last, out);
			break;
		}
		int o =
		    openat(w.parent, w.last, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		struct stat st;
		if (o < 0) {
			r = -errno;
			break;
		}
		if (fstat(o, &st) < 0) {
			close(o);
			r = -EPERM;
			break;
		}
		if (S_ISLNK(st.st_mode) && (!nofollow || w.slash)) {
			close(o);
			if ((r = follow(t, &w)) < 0)
				break;
			r = -ELOOP;
			continue;
		}
		if (w.slash && !S_ISDIR(st.st_mode)) {
			close(o);
			r = -ENOTDIR;
			break;
		}
		*out = o;
		r = 0;
		break;
	}
	where_close(&w);
	return r;
}

/* The guard whose folder st is (the top of a write folder, a folder on
 * the way to a protected entry), or NULL. */
static const struct notify_guard *attr_guard(struct notify *n,
					     const struct stat *st)
{
	for (size_t i = 0; i < n->plan.n; i++)
		if (n->plan.guards[i].dev == st->st_dev &&
		    n->plan.guards[i].ino == st->st_ino)
			return &n->plan.guards[i];
	return NULL;
}

static void refuse_attr(struct notify *n, const struct notify_guard *g)
{
	bool first;
	_cleanup_free_ char *pair = xasprintf("%s\t(metadata)", g->dir);

	pthread_mutex_lock(&n->mu);
	n->refused++;
	first = !strv_contains(&n->refused_pairs, pair);
	if (first)
		strv_push(&n->refused_pairs, pair);
	pthread_mutex_unlock(&n->mu);
	if (first && !n->plan.quiet) {
		_cleanup_free_ char *dir = esc_dup(g->dir);
		_cleanup_free_ char *msg = xasprintf(
		    "lnk: refused to change the mode, owner or ACL of %s: "
		    "other accounts could then plant what runs outside the "
		    "sandbox\n",
		    dir);
		term_write(STDERR_FILENO, msg);
	}
}

/* Performs the metadata call on obj, unless obj is protected. */
static int attr_apply(struct notify *n, struct job *j, const struct attr_op *a,
		      int obj)
{
	const struct seccomp_notif *req = j->req;
	struct stat st;
	struct statfs sf;
	char p[64];
	int r;

	if (fstat(obj, &st) < 0 || fstatfs(obj, &sf) < 0)
		return -EPERM;
	if (!nt_fs_ok((unsigned long)sf.f_type, true))
		return -EPERM;
	const struct notify_guard *g = attr_guard(n, &st);
	if (g) {
		refuse_attr(n, g);
		return -EPERM;
	}
	snprintf(p, sizeof(p), "/proc/thread-self/fd/%d", obj);
	bool fdcall = a->fd >= 0;
	switch (a->kind) {
	case ATTR_MODE: {
		mode_t mode = (mode_t)req->data.args[a->a] & 07777;
		if (mode & (S_ISUID | S_ISGID))
			return -EPERM; /* see lnk-init's filter */
		if (fdcall)
			r = fchmod(obj, mode);
		else if (S_ISLNK(st.st_mode))
			return -EOPNOTSUPP;
		else
			r = chmod(p, mode);
		break;
	}
	case ATTR_OWNER: {
		uid_t uid = (uid_t)req->data.args[a->a];
		gid_t gid = (gid_t)req->data.args[a->b];
		r = fdcall ? fchown(obj, uid, gid)
			   : fchownat(obj, "", uid, gid, AT_EMPTY_PATH);
		break;
	}
	case ATTR_XSET: {
		int xf = (int)req->data.args[a->d];
		if (fdcall)
			r = fsetxattr(obj, j->p2, j->xval, j->xlen, xf);
		else if (S_ISLNK(st.st_mode))
			return -EPERM; /* no user attributes on links */
		else
			r = setxattr(p, j->p2, j->xval, j->xlen, xf);
		break;
	}
	case ATTR_XREMOVE:
		if (fdcall)
			r = fremovexattr(obj, j->p2);
		else if (S_ISLNK(st.st_mode))
			return -EPERM;
		else
			r = removexattr(p, j->p2);
		break;
	default:
		return -ENOSYS;
	}
	return r < 0 ? -errno : 0;
}

static int do_attr(struct notify *n, struct job *j)
{
	const struct attr_op *a = find_attr_op(j->req->data.nr);
	struct task *t = &j->t;
	int obj, r;

	if (!a)
		return -ENOSYS;
	if (a->fd >= 0)
		return t->sfd < 0 ? -EBADF : attr_apply(n, j, a, t->sfd);
	int flags = a->flags >= 0 ? (int)j->req->data.args[a->flags] : 0;
	if (!*j->p1) {
		if (!(flags & AT_EMPTY_PATH))
			return -ENOENT;
		if (t->base[0] < 0)
			return t->base[0] == -1 ? -EBADF : t->base[0];
		return attr_apply(n, j, a, t->base[0]);
	}
	r = attr_object(t, t->base[0], j->p1,
			a->nofollow || (flags & AT_SYMLINK_NOFOLLOW), &obj);
	if (r < 0)
		return r;
	r = attr_apply(n, j, a, obj);
	close(obj);
	return r;
}

/* The worker's half: everything that needs ptrace rights over the task,
 * done before the executor (which has none) runs. Reads the task's memory
 * once (what we check is what we do), checks the notification is still
 * live (so /proc/TID is the task that asked), and opens O_PATH its root
 * and where each path starts. 0 or -errno (the answer). */
static int prep(struct notify *n, struct job *j)
{
	const struct seccomp_notif *req = j->req;
	const struct op *op = j->op;
	struct task *t = &j->t;
	char dir[32];
	int r = 0;

	snprintf(dir, sizeof(dir), "/proc/%d", t->tid);
	t->procfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (t->procfd < 0)
		return -EPERM;
	if (op->kind == OP_ATTR)
		return prep_attr(n, j);
	if (op->kind != OP_BIND && op->kind != OP_CONNECT) {
		r = read_str(t->tid, req->data.args[op->p1], j->p1,
			     sizeof(j->p1));
		if (r == 0 && op->p2 >= 0)
			r = read_str(t->tid, req->data.args[op->p2], j->p2,
				     sizeof(j->p2));
	} else {
		/* an int to the kernel: only the low 32 bits count */
		int alen = (int)(uint32_t)req->data.args[op->flags];
		if (alen > (int)sizeof(j->ss) ||
		    alen < (int)sizeof(sa_family_t))
			r = -EINVAL;
		else
			r = read_mem(t->tid, req->data.args[op->p2], &j->ss,
				     (size_t)alen);
		j->alen = (size_t)alen;
	}
	if (!id_valid(n, req->id))
		return -ENOENT;
	if (r < 0)
		return r;
	t->ctx.rootfd =
	    openat(t->procfd, "root", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (t->ctx.rootfd < 0)
		return -EPERM;

	switch (op->kind) {
	case OP_OPEN:
	case OP_MKDIR:
	case OP_MKNOD:
		if (task_status(t) < 0)
			return -EPERM;
		t->base[0] = base_prepare(t, arg_fd(req, op->dfd1), j->p1,
					  &t->base_acc[0]);
		break;
	case OP_SYMLINK:
		t->base[1] = base_prepare(t, arg_fd(req, op->dfd2), j->p2,
					  &t->base_acc[1]);
		break;
	case OP_LINK:
	case OP_RENAME:
		t->base[0] = base_prepare(t, arg_fd(req, op->dfd1), j->p1,
					  &t->base_acc[0]);
		t->base[1] = base_prepare(t, arg_fd(req, op->dfd2), j->p2,
					  &t->base_acc[1]);
		break;
	case OP_ATTR:
		break; /* prep_attr */
	case OP_BIND:
	case OP_CONNECT: {
		if (task_status(t) < 0)
			return -EPERM;
		t->sfd = task_getfd(t, (int)req->data.args[op->p1]);
		if (t->sfd < 0)
			return t->sfd;
		socklen_t sl = sizeof(int);
		if (getsockopt(t->sfd, SOL_SOCKET, SO_DOMAIN, &t->sdomain,
			       &sl) < 0)
			return errno == ENOTSOCK ? -ENOTSOCK : -EPERM;
		sl = sizeof(int);
		if (getsockopt(t->sfd, SOL_SOCKET, SO_PROTOCOL, &t->sproto,
			       &sl) < 0)
			return -EPERM;
		/* the address read by the socket's family, as the kernel
		 * will read the same bytes */
		r = nt_sockaddr_parse(t->sdomain, &j->ss, j->alen, &j->sa);
		if (r < 0)
			return r;
		if (j->sa.kind == NT_SA_PATH)
			t->base[0] = base_prepare(t, AT_FDCWD, j->sa.path,
						  &t->base_acc[0]);
		break;
	}
	}
	return 0;
}

/* The call itself, on what prep opened. Returns -errno, 0, or an fd to
 * inject (opens). */
static int execute(struct notify *n, struct job *j)
{
	const struct seccomp_notif *req = j->req;
	const struct op *op = j->op;
	struct task *t = &j->t;

	switch (op->kind) {
	case OP_OPEN: {
		int flags = op->fixed_flags ? op->fixed_flags
					    : (int)req->data.args[op->flags];
		return do_open(n, t, t->base[0], t->base_acc[0], j->p1, flags,
			       (mode_t)req->data.args[op->mode] & 07777);
	}
	case OP_MKDIR:
		return do_mkdir(n, t, t->base[0], j->p1,
				(mode_t)req->data.args[op->mode] & 07777);
	case OP_MKNOD:
		return do_mknod(n, t, t->base[0], j->p1,
				(mode_t)req->data.args[op->mode],
				(dev_t)(unsigned)req->data.args[op->dev]);
	case OP_SYMLINK:
		return do_symlink(n, t, j->p1, t->base[1], j->p2);
	case OP_LINK:
		return do_link(n, t, t->base[0], j->p1, t->base[1], j->p2,
			       op->flags >= 0 ? (int)req->data.args[op->flags]
					      : 0);
	case OP_RENAME:
		return do_rename(
		    n, t, t->base[0], j->p1, t->base[1], j->p2,
		    op->flags >= 0 ? (unsigned)req->data.args[op->flags] : 0);
	case OP_BIND:
		return do_bind(n, t, t->base[0], &j->sa, &j->ss, j->alen);
	case OP_CONNECT:
		return do_connect(n, t, t->base[0], &j->sa, &j->ss, j->alen);
	case OP_ATTR:
		return do_attr(n, j);
	}
	return -ENOSYS;
}

/* The task's controlling terminal, O_PATH, found among its open
 * descriptors (the worker's job: it needs ptrace rights over the task);
 * NT_CTTY_NONE when it has none or holds none open. */
static int find_ctty(struct task *t)
{
	char buf[1024];
	unsigned long nr;
	int fd = openat(t->procfd, "stat", O_RDONLY | O_CLOEXEC);
	ssize_t len;

	if (fd < 0)
		return NT_CTTY_NONE;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return NT_CTTY_NONE;
	buf[len] = '\0';
	if (nt_stat_tty_nr(buf, &nr) < 0 || nr == 0)
		return NT_CTTY_NONE;
	dev_t want = nt_tty_dev(nr);
	int dfd = openat(t->procfd, "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return NT_CTTY_NONE;
	DIR *d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return NT_CTTY_NONE;
	}
	int found = NT_CTTY_NONE;
	struct dirent *e;
	while (found < 0 && (e = readdir(d))) {
		struct stat st;
		if (e->d_name[0] == '.' ||
		    fstatat(dfd, e->d_name, &st, 0) < 0 ||
		    !S_ISCHR(st.st_mode) || st.st_rdev != want)
			continue;
		int o = openat(dfd, e->d_name, O_PATH | O_CLOEXEC);
		if (o < 0)
			continue;
		if (fstat(o, &st) == 0 && S_ISCHR(st.st_mode) &&
		    st.st_rdev == want)
			found = o;
		else
			close(o);
	}
	closedir(d);
	return found;
}

/* Returns the answer: -errno, 0, or for opens an fd of ours (>= 0 flagged
 * by *is_fd) to inject. */
static int handle(struct notify *n, struct worker *w,
		  const struct seccomp_notif *req, bool *is_fd, int *cloexec)
{
	const struct op *op = find_op(req->data.nr);
	struct job *j = w->jb;
	int r;

	*is_fd = false;
	if (!op)
		return -ENOSYS; /* notified but not ours: never continue */
	j->req = req;
	j->op = op;
	j->xval = NULL;
	j->xlen = 0;
	j->t = (struct task){.tid = (pid_t)req->pid,
			     .id = req->id,
			     .procfd = -1,
			     .ctx = {.rootfd = -1, .procfd = -1},
			     .base = {-1, -1},
			     .base_acc = {O_PATH, O_PATH},
			     .pidfd = -1,
			     .sfd = -1,
			     .ctty = NT_CTTY_UNKNOWN};
	j->t.w = w;
	r = prep(n, j);
	if (r == 0)
		r = execute(n, j);
	if (r >= 0 && op->kind == OP_OPEN) {
		int flags = op->fixed_flags ? op->fixed_flags
					    : (int)req->data.args[op->flags];
		*is_fd = true;
		*cloexec = flags & O_CLOEXEC;
	}
	task_close(&j->t);
	free(j->xval);
	j->xval = NULL;
	return r;
}

static void serve(struct notify *n, struct worker *w,
		  const struct seccomp_notif *req, bool broken)
{
	bool is_fd = false;
	int cloexec = 0;
	int r = broken ? -EPERM : handle(n, w, req, &is_fd, &cloexec);

	if (is_fd && r >= 0) {
		struct seccomp_notif_addfd a = {
		    .id = req->id,
		    .flags = SECCOMP_ADDFD_FLAG_SEND,
		    .srcfd = (unsigned)r,
		    .newfd_flags = cloexec ? O_CLOEXEC : 0,
		};
		int fr = ioctl(n->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &a);
		int e = errno;
		close(r);
		if (fr >= 0)
			goto done;
		/* Answer anyway (docs/kernel-facts.md,
		 * answer-every-notification): EMFILE in the task, or it was
		 * interrupted. The file exists now; natively EMFILE would come
		 * first, a small difference kept because the alternative is
		 * a task that hangs forever. */
		r = e == ENOENT ? -ENOENT : -e;
	}
	reply(n, req->id, r < 0 ? r : 0);
done:
	pthread_mutex_lock(&n->mu);
	n->notifications++;
	pthread_mutex_unlock(&n->mu);
}

/* ---- threads ---- */

static void nt_sig_handler(int sig)
{
	(void)sig; /* only interrupts a blocking open */
}

static int drop_caps(void)
{
	struct __user_cap_header_struct h = {.version =
						 _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	if (syscall(SYS_capset, &h, d) < 0)
		return -errno;
	return 0;
}

/* The executors' Landlock ruleset: it handles only the rights to make
 * device nodes (which the sandbox never grants either) and has no rule.
 * What it is for is the DOMAIN: a thread in a Landlock domain may ptrace,
 * and open ptrace-guarded /proc files (mem, maps, environ, fd/, ...) of,
 * only processes in its own domain or nested ones, so an executor reaches
 * no process at all, bwrap's pid 1 included, as the program reaches none
 * outside the sandbox. File access stays with the mounts: the sandbox's
 * Landlock file rules mirror bwrap's mounts exactly (src/launch/bwrap.c),
 * and the executor works in the sandbox's mount tree, so the same places
 * are read only, hidden or missing for it. Matching on the task's
 * credentials instead (an access()-like check) would not be sound: it
 * cannot see Landlock, and it would race the object it checked. */
static int make_ruleset(void)
{
	struct landlock_ruleset_attr attr = {
	    .handled_access_fs =
		LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_BLOCK,
	};
	int fd =
	    (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);

	if (fd >= 0)
		return fd;
	/* No Landlock in this kernel: lnk-init cannot use it either (and
	 * refuses to run unless told it is optional); the file-system and
	 * device checks still hold. */
	return errno == ENOSYS || errno == EOPNOTSUPP ? -1 : -2;
}

/* Restricts the calling executor thread: its own umask and cwd, no new
 * privileges, and the Landlock domain above. All three are per thread. */
static int executor_restrict(struct notify *n)
{
	if (unshare(CLONE_FS) < 0)
		return -errno;
	if (n->ll_ruleset == -2)
		return -EPERM;
	if (n->ll_ruleset == -1)
		return 0;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -errno;
	if (syscall(SYS_landlock_restrict_self, n->ll_ruleset, 0) < 0)
		return -errno;
	return 0;
}

static void *executor_main(void *arg)
{
	struct worker *w = arg;
	struct notify *n = w->n;
	bool broken = executor_restrict(n) < 0;
	sigset_t ss;

	/* NT_SIG interrupts a FIFO open whose peer never comes, when lnk
	 * stops. */
	sigemptyset(&ss);
	sigaddset(&ss, NT_SIG);
	pthread_sigmask(SIG_UNBLOCK, &ss, NULL);
	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->pending && !w->quit)
			pthread_cond_wait(&w->cv, &w->mu);
		if (!w->pending)
			break;
		int o = w->req_o, flags = w->req_flags;
		bool fifo = w->req_fifo;
		pthread_mutex_unlock(&w->mu);
		int r = broken ? -EPERM
			: fifo ? open_fifo(n, o, flags)
			       : reopen(o, flags);
		pthread_mutex_lock(&w->mu);
		w->req_r = r;
		w->pending = false;
		pthread_cond_broadcast(&w->cv);
	}
	w->exec_done = true;
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/* Opens (in the executor, restricted) what O_PATH o names. */
static int exec_open(struct worker *w, int o, int flags, bool fifo)
{
	int r;

	pthread_mutex_lock(&w->mu);
	w->req_o = o;
	w->req_flags = flags;
	w->req_fifo = fifo;
	w->pending = true;
	pthread_cond_broadcast(&w->cv);
	while (w->pending)
		pthread_cond_wait(&w->cv, &w->mu);
	r = w->req_r;
	pthread_mutex_unlock(&w->mu);
	return r;
}

/* With n->mu held. */
static int spawn_worker(struct notify *n);

/* Whether every task of the filter is gone: the listener then polls
 * POLLHUP (the kernel's seccomp_notify_poll, once the filter has no user
 * left). RECV answers ENOENT in two cases: the task that notified was
 * killed between our wake-up and the lookup (the filter lives on: wait for
 * the next), or the filter has no user left, when RECV no longer waits and
 * answers ENOENT at once, every time: retrying then spun both cores for
 * milliseconds at the end of every guarded run, until notify_stop. */
static bool filter_gone(int listener)
{
	struct pollfd p = {listener, 0, 0};

	return poll(&p, 1, 0) > 0 &&
	       (p.revents & (POLLHUP | POLLERR | POLLNVAL));
}

/* Each worker receives notifications itself (several threads may wait in
 * NOTIF_RECV; the kernel hands each notification to one): no hand-off
 * between workers on the hot path, which halved the cost per call here.
 * The one hand-off left is to its own executor. */
static void *worker_main(void *arg)
{
	struct worker *self = arg;
	struct notify *n = self->n;
	/* umask and cwd become this thread's own; if not, every call it
	 * takes is refused rather than racing another worker's umask. */
	bool broken = unshare(CLONE_FS) < 0;
	struct seccomp_notif req;
	sigset_t ss;

	sigemptyset(&ss);
	sigaddset(&ss, NT_SIG);
	pthread_sigmask(SIG_UNBLOCK, &ss, NULL);
	while (!atomic_load(&n->finishing)) {
		memset(&req, 0, sizeof(req));
		/* Blocks until a notification comes; notify_stop interrupts
		 * it with NT_SIG (EINTR) once the filter is gone. */
		if (ioctl(n->listener, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOENT && !filter_gone(n->listener))
				continue; /* that task was killed meanwhile */
			break;
		}
		atomic_store(&self->busy, true);
		/* The last idle worker took this one: start another, so a
		 * FIFO open that waits for its peer never stalls the rest. */
		if (atomic_fetch_sub(&n->idle, 1) == 1) {
			pthread_mutex_lock(&n->mu);
			(void)spawn_worker(n);
			pthread_mutex_unlock(&n->mu);
		}
		serve(n, self, &req, broken || n->broken);
		atomic_fetch_add(&n->idle, 1);
		atomic_store(&self->busy, false);
	}
	pthread_mutex_lock(&self->mu);
	self->quit = true;
	pthread_cond_broadcast(&self->cv);
	pthread_mutex_unlock(&self->mu);
	pthread_join(self->exec_th, NULL);
	return NULL;
}

static void worker_free(struct worker *w)
{
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	free(w->jb);
	free(w);
}

static int spawn_worker(struct notify *n)
{
	struct worker *w;
	int r;

	if (n->nworkers >= POOL_MAX || atomic_load(&n->finishing))
		return -EAGAIN;
	w = xcalloc(1, sizeof(*w));
	w->jb = xcalloc(1, sizeof(*w->jb));
	w->n = n;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	r = pthread_create(&w->exec_th, NULL, executor_main, w);
	if (r) {
		worker_free(w);
		return -r;
	}
	atomic_fetch_add(&n->idle, 1);
	r = pthread_create(&w->th, NULL, worker_main, w);
	if (r) {
		atomic_fetch_sub(&n->idle, 1);
		pthread_mutex_lock(&w->mu);
		w->quit = true;
		pthread_cond_broadcast(&w->cv);
		pthread_mutex_unlock(&w->mu);
		pthread_join(w->exec_th, NULL);
		worker_free(w);
		return -r;
	}
	w->started = true;
	n->workers[n->nworkers++] = w;
	return 0;
}

static int recv_listener(struct notify *n)
{
	struct pollfd p[2] = {{n->sock, POLLIN, 0}, {n->stopfd, POLLIN, 0}};
	char byte;
	int fds[2];
	size_t nfds = 2;

	for (;;) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (p[1].revents)
			return -ECANCELED;
		break;
	}
	/* the listener, and lnk-init's sock_diag socket when it could
	 * make one (without it, no pathname unix socket is connected) */
	ssize_t r = fd_recv(n->sock, fds, &nfds, &byte, 1);
	if (r <= 0 || nfds < 1) {
		if (r > 0)
			for (size_t i = 0; i < nfds; i++)
				close(fds[i]);
		return r < 0 ? (int)r : -EPIPE;
	}
	if (nfds == 2)
		n->diag = fds[1];
	return fds[0];
}

/* The manager: takes the listener, starts the pool, and watches for the
 * end (the filter gone, or notify_stop). */
static void *receiver_main(void *arg)
{
	struct notify *n = arg;
	sigset_t ss;

	/* Every signal stays with lnk's own threads (its signalfd would
	 * never see a SIGCHLD the kernel handed to one of ours); workers
	 * inherit this and take only NT_SIG. */
	sigfillset(&ss);
	pthread_sigmask(SIG_BLOCK, &ss, NULL);

	/* Before any worker exists: they inherit this thread's (empty)
	 * capability sets. If the drop fails, every call is refused. */
	bool broken = drop_caps() < 0;

	int l = recv_listener(n);
	pthread_mutex_lock(&n->mu);
	n->broken = broken;
	if (l >= 0) {
		n->listener = l;
		/* The woken task runs on our CPU: halves the cost of a
		 * notification on a 2-vCPU VM (docs/kernel-facts.md,
		 * notify-cost); absent on old
		 * kernels, which is fine. */
		(void)ioctl(l, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
			    SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
		for (int i = 0; i < POOL_START; i++)
			(void)spawn_worker(n);
	}
	pthread_mutex_unlock(&n->mu);

	if (l >= 0) {
		/* events 0: poll returns only for POLLHUP (every task of the
		 * filter exited) or the stop request. */
		struct pollfd p[2] = {{l, 0, 0}, {n->stopfd, POLLIN, 0}};
		for (;;) {
			if (poll(p, 2, -1) < 0) {
				if (errno == EINTR)
					continue;
				break;
			}
			if (p[1].revents ||
			    (p[0].revents & (POLLHUP | POLLERR | POLLNVAL)))
				break;
		}
	}

	pthread_mutex_lock(&n->mu);
	atomic_store(&n->finishing, true);
	n->receiver_done = true;
	pthread_cond_broadcast(&n->done_cv);
	pthread_mutex_unlock(&n->mu);
	return NULL;
}

static void plan_copy(struct notify_plan *dst, const struct notify_plan *src)
{
	*dst = *src;
	dst->guards = xcalloc(src->n ? src->n : 1, sizeof(*dst->guards));
	for (size_t i = 0; i < src->n; i++) {
		dst->guards[i] = src->guards[i];
		dst->guards[i].dir = xstrdup(src->guards[i].dir);
		dst->guards[i].name =
		    src->guards[i].name ? xstrdup(src->guards[i].name) : NULL;
	}
}

int notify_start(const struct notify_plan *np, int sock, struct notify **out,
		 struct lnk_err *err)
{
	struct notify *n = xcalloc(1, sizeof(*n));
	struct sigaction sa, old;
	int r;

	n->sock = sock;
	n->listener = -1;
	n->diag = -1;
	pthread_mutex_init(&n->diag_mu, NULL);
	pthread_mutex_init(&n->mnt_mu, NULL);
	n->stopfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (n->stopfd < 0) {
		r = -errno;
		free(n);
		return err_set(err, r,
			       "cannot start the dot-file protection: %s",
			       strerror(-r));
	}
	plan_copy(&n->plan, np);
	n->ll_ruleset = make_ruleset();
	pthread_mutex_init(&n->mu, NULL);
	pthread_cond_init(&n->done_cv, NULL);

	/* A no-op handler without SA_RESTART, so notify_stop can interrupt
	 * a worker stuck opening a FIFO whose peer died. Only installed
	 * over the default (ignore) disposition. */
	if (sigaction(NT_SIG, NULL, &old) == 0 && old.sa_handler == SIG_DFL) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = nt_sig_handler;
		sigemptyset(&sa.sa_mask);
		(void)sigaction(NT_SIG, &sa, NULL);
	}

	r = pthread_create(&n->receiver, NULL, receiver_main, n);
	if (r) {
		notify_plan_free(&n->plan);
		close(n->stopfd);
		if (n->ll_ruleset >= 0)
			close(n->ll_ruleset);
		free(n);
		return err_set(err, -r,
			       "cannot start the dot-file protection: %s",
			       strerror(r));
	}
	n->receiver_started = true;
	*out = n;
	return 0;
}

void notify_wait(struct notify *n)
{
	if (!n)
		return;
	pthread_mutex_lock(&n->mu);
	while (!n->receiver_done)
		pthread_cond_wait(&n->done_cv, &n->mu);
	pthread_mutex_unlock(&n->mu);
}

void notify_get_stats(struct notify *n, struct notify_stats *st,
		      struct strv *refused_pairs)
{
	pthread_mutex_lock(&n->mu);
	st->notifications = n->notifications;
	st->refused = n->refused;
	if (refused_pairs)
		strv_copy(refused_pairs, &n->refused_pairs);
	pthread_mutex_unlock(&n->mu);
}

static void timespec_add_ns(struct timespec *t, long ns)
{
	t->tv_nsec += ns;
	while (t->tv_nsec >= 1000000000L) {
		t->tv_nsec -= 1000000000L;
		t->tv_sec++;
	}
}

static bool timespec_before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec ||
	       (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/* Joins w's thread (which joins its executor), kicking both with NT_SIG
 * between short waits; false (and the thread detached) after 2 s. */
static bool join_worker(struct worker *w)
{
	struct timespec now, end, until;
	long wait_ns = 20 * 1000;

	if (pthread_tryjoin_np(w->th, NULL) == 0)
		return true;
	/* pthread_timedjoin_np takes a CLOCK_REALTIME deadline. */
	clock_gettime(CLOCK_REALTIME, &end);
	end.tv_sec += 2;
	for (;;) {
		pthread_kill(w->th, NT_SIG);
		pthread_mutex_lock(&w->mu);
		if (!w->exec_done)
			pthread_kill(w->exec_th, NT_SIG);
		pthread_mutex_unlock(&w->mu);
		clock_gettime(CLOCK_REALTIME, &now);
		if (!timespec_before(&now, &end))
			break;
		until = now;
		timespec_add_ns(&until, wait_ns);
		if (timespec_before(&end, &until))
			until = end;
		if (pthread_timedjoin_np(w->th, NULL, &until) == 0)
			return true;
		if (wait_ns < 10 * 1000 * 1000)
			wait_ns *= 2;
	}
	if (pthread_tryjoin_np(w->th, NULL) == 0)
		return true;
	pthread_detach(w->th);
	return false;
}

void notify_stop(struct notify *n)
{
	uint64_t one = 1;
	bool leak = false;

	if (!n)
		return;
	(void)!write(n->stopfd, &one, sizeof(one));
	if (n->receiver_started)
		pthread_join(n->receiver, NULL);
	atomic_store(&n->finishing, true);

	/* Workers have usually ended by themselves (RECV fails once the
	 * filter is gone), or wait in NOTIF_RECV, or sit in a FIFO open whose
	 * task is gone: interrupt them (NT_SIG, no SA_RESTART) until they
	 * exit, for up to two seconds each, then leave a stuck one be. The
	 * wait between kicks starts at 20 us and doubles up to 10 ms: a kick
	 * can land just before a thread blocks, so it is repeated, but the
	 * usual worker ends within microseconds of its first kick (a fixed
	 * 1 ms sleep cost up to 1 ms per worker at every guarded run's end). */
	pthread_mutex_lock(&n->mu);
	size_t nw = n->nworkers;
	pthread_mutex_unlock(&n->mu);
	for (size_t i = 0; i < nw; i++) {
		struct worker *w = n->workers[i];
		if (!join_worker(w)) {
			leak = true;
			continue;
		}
		worker_free(w);
	}
	if (leak)
		return; /* a thread still uses n: never free it under it */
	if (n->listener >= 0)
		close(n->listener);
	if (n->diag >= 0)
		close(n->diag);
	pthread_mutex_destroy(&n->diag_mu);
	pthread_mutex_destroy(&n->mnt_mu);
	close(n->stopfd);
	if (n->ll_ruleset >= 0)
		close(n->ll_ruleset);
	strv_free(&n->refused_pairs);
	notify_plan_free(&n->plan);
	pthread_mutex_destroy(&n->mu);
	pthread_cond_destroy(&n->done_cv);
	free(n);
}
