/* The wire's confinement: what the wire may still do once it starts to
 * read bytes the sandboxed program chose.
 *
 * The threat: the wire parses HTTP requests, SOCKS5 greetings, names for
 * DNS and the handoff from inside the sandbox, outside the sandbox and as
 * the user (or root). A bug there must not become code execution with the
 * user's rights. So, as OpenBSD's daemons restrict themselves after setup,
 * the wire first opens everything it needs (its database, its control
 * socket, its epoll, its resolver, the list of this machine's addresses),
 * and then, before it reads a byte from inside, gives up for good:
 *
 *  1. the file system (Landlock): only its database and its -wal and -shm
 *     files (read, write, truncate), and /etc/hosts and /etc/resolv.conf
 *     (read: c-ares reads /etc/hosts on every lookup). Nothing can be
 *     executed, created, removed or listed (the keeper removes the
 *     control socket: with that right the wire could remove the other
 *     sandboxes' sockets beside it); signals and abstract unix sockets
 *     outside its domain are refused (ABI 6).
 *  2. capabilities: every set emptied, the bounding set too when it can
 *     (as root), and the ambient set. As root the wire keeps uid 0 (its
 *     files, lnk.db and the socket, are root's) but no power over others'.
 *  3. no_new_privs: nothing it could run would gain rights.
 *  4. seccomp, an allow-list (below, one group per need): a call outside
 *     it kills the wire (SECCOMP_RET_KILL_PROCESS), and so does any other
 *     architecture (i386, x32). Kill rather than EPERM: the wire never
 *     makes those calls, so one is a bug or an attack, and an attacker
 *     who gets EPERM learns the list and keeps going, while a bug answered
 *     with EPERM degrades in silence. A killed wire fails closed: the
 *     sandbox has no network and lnk says so on its terminal. Two calls
 *     have their own answers: clone3 is ENOSYS (glibc then uses clone,
 *     whose flags a filter can read), and ioctl allows two requests and
 *     refuses (EPERM) those below and above them, the seccomp listener's
 *     own among them: the wire can never answer its own calls.
 *  5. connect(), and sendto() with an address, are not made by the wire
 *     at all: the filter hands them to the keeper (keeper.c), the
 *     unconfined parent, which reads the address, refuses this machine
 *     (loopback, its own addresses, the unspecified address) but for the
 *     granted --port and the DNS servers, and makes the call itself on
 *     the same socket. Neither seccomp nor Landlock can look at an
 *     address, and checking it and letting the wire make the call would
 *     race with the wire rewriting it.
 *
 * Run-time libseccomp, not lnk-init's filter compiled at build time: the
 * wire is an ordinary dynamic process outside the sandbox, already linked
 * with libseccomp, and the list stays here in one readable place.
 */
#include "wire/confine.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/landlock.h>
#include <linux/netlink.h>
#include <linux/sched.h>
#include <seccomp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/landlock_defs.h"
#include "common/util.h"

/* ---- 1. Landlock ---- */

struct ll_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

/* One rule for path; a missing optional file is no error. */
static int ll_allow(int ruleset, const char *path, uint64_t rights,
		    uint64_t handled, bool optional, struct lnk_err *err)
{
	int fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0) {
		if (optional && errno == ENOENT)
			return 0;
		return err_set(err, -errno, "cannot open '%s': %s", path,
			       strerror(errno));
	}
	struct landlock_path_beneath_attr pb = {
	    .allowed_access = rights & handled,
	    .parent_fd = fd,
	};
	int r = 0;
	if (syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH,
		    &pb, 0) < 0)
		r = err_set(err, -errno, "landlock rule for '%s': %s", path,
			    strerror(errno));
	close(fd);
	return r;
}

static int confine_landlock(const struct confine_plan *cp, struct lnk_err *err)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
			   LANDLOCK_CREATE_RULESET_VERSION);
	if (abi < 1)
		return err_set(err, -ENOSYS,
			       "landlock is not available (%s): the wire "
			       "cannot confine itself; it needs Linux 5.13 or "
			       "newer with landlock in lsm=",
			       strerror(errno));
	struct ll_attr attr = {.handled_access_fs =
				   landlock_fs_rights((int)abi)};
	if (abi >= 6)
		attr.scoped =
		    LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL;
	size_t asz = abi >= 6 ? sizeof(attr) : 2 * sizeof(uint64_t);
	if (abi < 4)
		asz = sizeof(uint64_t);
	int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, asz, 0);
	if (rs < 0)
		return err_set(err, -errno, "landlock: %s", strerror(errno));
	uint64_t h = attr.handled_access_fs;
	const uint64_t rw = LANDLOCK_ACCESS_FS_READ_FILE |
			    LANDLOCK_ACCESS_FS_WRITE_FILE |
			    LANDLOCK_ACCESS_FS_TRUNCATE;
	_cleanup_free_ char *wal = xasprintf("%s-wal", cp->db_path);
	_cleanup_free_ char *shm = xasprintf("%s-shm", cp->db_path);
	int r;
	/* SQLite: the database and, in WAL mode, its two companions (they
	 * exist: the wire wrote to the database during setup, and no
	 * connection deletes them, see DB_PRAGMAS). */
	if ((r = ll_allow(rs, cp->db_path, rw, h, false, err)) < 0 ||
	    (r = ll_allow(rs, wal, rw, h, true, err)) < 0 ||
	    (r = ll_allow(rs, shm, rw, h, true, err)) < 0 ||
	    /* c-ares reads /etc/hosts on every lookup */
	    (r = ll_allow(rs, "/etc/hosts", LANDLOCK_ACCESS_FS_READ_FILE, h,
			  true, err)) < 0 ||
	    (r = ll_allow(rs, "/etc/resolv.conf", LANDLOCK_ACCESS_FS_READ_FILE,
			  h, true, err)) < 0) {
		close(rs);
		return r;
	}
	if (syscall(SYS_landlock_restrict_self, rs, 0) < 0) {
		r = err_set(err, -errno, "landlock: %s", strerror(errno));
		close(rs);
		return r;
	}
	close(rs);
	return 0;
}

/* ---- 2. capabilities ---- */

static int confine_caps(struct lnk_err *err)
{
	/* The bounding set first: dropping from it needs CAP_SETPCAP, which
	 * an unprivileged wire never had (EPERM: nothing to drop then). */
	for (int c = 0; prctl(PR_CAPBSET_READ, c, 0, 0, 0) >= 0; c++)
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0 && errno != EPERM)
			return err_set(err, -errno,
				       "cannot drop capability %d: %s", c,
				       strerror(errno));
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 &&
	    errno != EINVAL)
		return err_set(err, -errno,
			       "cannot clear ambient capabilities: %s",
			       strerror(errno));
	struct __user_cap_header_struct hdr = {.version =
						   _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct data[2];
	memset(data, 0, sizeof(data));
	if (syscall(SYS_capset, &hdr, data) < 0)
		return err_set(err, -errno, "cannot drop capabilities: %s",
			       strerror(errno));
	return 0;
}

/* ---- 4. seccomp ---- */

/* Calls allowed whatever their arguments. */
static const int allow_always[] = {
    /* the event loop: epoll over every socket, the tick's clock */
    SCMP_SYS(epoll_wait),
    SCMP_SYS(epoll_pwait),
    SCMP_SYS(epoll_pwait2),
    SCMP_SYS(epoll_ctl),
    SCMP_SYS(epoll_create1),
    SCMP_SYS(clock_gettime),
    SCMP_SYS(clock_getres),
    SCMP_SYS(gettimeofday),
    SCMP_SYS(time),
    SCMP_SYS(restart_syscall),
    /* descriptors: reading, writing (stderr too), closing, O_NONBLOCK
     * and the splice pipe's size, SQLite's byte-range locks */
    SCMP_SYS(read),
    SCMP_SYS(write),
    SCMP_SYS(readv),
    SCMP_SYS(writev),
    SCMP_SYS(close),
    SCMP_SYS(fcntl),
    SCMP_SYS(lseek),
    /* the relay: accept on the handed-over listeners, tunnels through a
     * pipe with splice, half-close, socket options and the addresses of
     * a socket (SO_ERROR after a non-blocking connect, TCP_NODELAY) */
    SCMP_SYS(accept4),
    SCMP_SYS(pipe2),
    SCMP_SYS(splice),
    SCMP_SYS(shutdown),
    SCMP_SYS(getsockopt),
    SCMP_SYS(setsockopt),
    SCMP_SYS(getsockname),
    SCMP_SYS(getpeername),
    /* receiving: c-ares's answers (recvfrom), the handoff's listeners
     * and the control socket's requests (recvmsg). Receiving reaches
     * nothing new. */
    SCMP_SYS(recvfrom),
    SCMP_SYS(recvmsg),
    /* SQLite: its files (opened under Landlock), positioned reads and
     * writes, the WAL's shared memory, durability, sizes and the checks
     * it makes of its files' existence and identity */
    SCMP_SYS(openat),
    SCMP_SYS(pread64),
    SCMP_SYS(pwrite64),
    SCMP_SYS(fsync),
    SCMP_SYS(fdatasync),
    SCMP_SYS(ftruncate),
    SCMP_SYS(fstat),
    SCMP_SYS(newfstatat),
    SCMP_SYS(statx),
    SCMP_SYS(access),
    SCMP_SYS(faccessat),
    SCMP_SYS(faccessat2),
    /* unlink: its control socket's, at the end, which Landlock refuses
     * (the keeper removes it); killing the wire for it would report a
     * normal end as a death */
    SCMP_SYS(unlink),
    SCMP_SYS(getcwd),
    SCMP_SYS(readlink),
    SCMP_SYS(geteuid),
    SCMP_SYS(getuid),
    SCMP_SYS(getpid),
    SCMP_SYS(gettid),
    /* the free space left for the log (a full disk refuses calls
     * rather than relay them unlogged) */
    SCMP_SYS(statfs),
    SCMP_SYS(fstatfs),
    /* memory: malloc, thread stacks, the -shm mapping; mmap and
     * mprotect are further below (never executable) */
    SCMP_SYS(brk),
    SCMP_SYS(munmap),
    SCMP_SYS(mremap),
    SCMP_SYS(madvise),
    /* threads (the log writer: glibc sets its cancellation signal's
     * handler at the first thread) and their locks; SQLite's busy wait */
    SCMP_SYS(futex),
    SCMP_SYS(set_robust_list),
    SCMP_SYS(rseq),
    SCMP_SYS(rt_sigaction),
    SCMP_SYS(sched_yield),
    SCMP_SYS(nanosleep),
    SCMP_SYS(clock_nanosleep),
    SCMP_SYS(rt_sigprocmask),
    SCMP_SYS(rt_sigreturn),
    SCMP_SYS(getrandom),
    /* the end */
    SCMP_SYS(exit),
    SCMP_SYS(exit_group),
};

static int rule(scmp_filter_ctx ctx, uint32_t action, int nr, unsigned n,
		const struct scmp_arg_cmp *cmp)
{
	return seccomp_rule_add_array(ctx, action, nr, n, cmp);
}

static int confine_seccomp(int *notify_fd, struct lnk_err *err)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_KILL_PROCESS);
	if (!ctx)
		return err_set(err, -ENOMEM, "seccomp: out of memory");
	int r = 0;
	/* Only the native architecture (x86_64 here): seccomp_init adds
	 * nothing else, the i386 entry and x32 calls are refused as a bad
	 * architecture, which kills. */
	r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH,
			     SCMP_ACT_KILL_PROCESS);
	/* A binary tree of syscall numbers rather than a list: cheaper to
	 * load, and to run on each of the wire's calls. */
	if (r == 0)
		r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	for (size_t i = 0; r == 0 && i < ARRAY_SIZE(allow_always); i++)
		r = rule(ctx, SCMP_ACT_ALLOW, allow_always[i], 0, NULL);

	/* New sockets: the internet and the LAN (TCP to relay, UDP and
	 * TCP to the DNS servers), and netlink's routing family (the
	 * routes and addresses of this machine). No unix sockets: the
	 * wire's own were all made during setup. */
	struct scmp_arg_cmp inet4 = SCMP_A0(SCMP_CMP_EQ, AF_INET);
	struct scmp_arg_cmp inet6 = SCMP_A0(SCMP_CMP_EQ, AF_INET6);
	struct scmp_arg_cmp nl[2] = {SCMP_A0(SCMP_CMP_EQ, AF_NETLINK),
				     SCMP_A2(SCMP_CMP_EQ, NETLINK_ROUTE)};
	if (r == 0)
		r = rule(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 1, &inet4);
	if (r == 0)
		r = rule(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 1, &inet6);
	if (r == 0)
		r = rule(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 2, nl);

	/* connect, and sendto with an address, go to the keeper (5.);
	 * sendto without one (send) goes where the socket is connected. */
	struct scmp_arg_cmp noaddr = SCMP_A4(SCMP_CMP_EQ, 0);
	struct scmp_arg_cmp addr = SCMP_A4(SCMP_CMP_NE, 0);
	if (r == 0)
		r = rule(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(connect), 0, NULL);
	if (r == 0)
		r = rule(ctx, SCMP_ACT_ALLOW, SCMP_SYS(sendto), 1, &noaddr);
	if (r == 0)
		r = rule(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(sendto), 1, &addr);

	/* Memory is never mapped or made executable: no code that was not
	 * loaded during setup. */
	struct scmp_arg_cmp noexec = SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0);
	if (r == 0)
		r = rule(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 1, &noexec);
	if (r == 0)
		r = rule(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mprotect), 1, &noexec);

	/* Threads, never processes: clone only with CLONE_THREAD; clone3
	 * hides its flags in memory, so it answers ENOSYS and glibc falls
	 * back to clone. */
	struct scmp_arg_cmp thread =
	    SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD);
	if (r == 0)
		r = rule(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1, &thread);
	if (r == 0)
		r = rule(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0,
			 NULL);

	/* ioctl: only how many bytes wait and non-blocking mode (c-ares).
	 * Requests below and above those two answer EPERM (the seccomp
	 * listener's own among them: the wire can never answer its own
	 * calls); the few between them kill, as unlisted calls do. */
	struct scmp_arg_cmp fionread = SCMP_A1(SCMP_CMP_EQ, FIONREAD);
	struct scmp_arg_cmp fionbio = SCMP_A1(SCMP_CMP_EQ, FIONBIO);
	struct scmp_arg_cmp below = SCMP_A1(SCMP_CMP_LT, FIONREAD);
	struct scmp_arg_cmp above = SCMP_A1(SCMP_CMP_GT, FIONBIO);
	if (r == 0)
		r = rule(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1, &fionread);
	if (r == 0)
		r = rule(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1, &fionbio);
	if (r == 0)
		r = rule(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
			 &below);
	if (r == 0)
		r = rule(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
			 &above);

	if (r == 0)
		r = seccomp_load(ctx);
	if (r == 0) {
		*notify_fd = seccomp_notify_fd(ctx);
		if (*notify_fd < 0)
			r = *notify_fd;
	}
	seccomp_release(ctx);
	if (r < 0)
		return err_set(err, r, "cannot load its seccomp filter: %s",
			       strerror(-r));
	return 0;
}

int confine_wire(const struct confine_plan *cp, int *notify_fd,
		 struct lnk_err *err)
{
	int r;
	*notify_fd = -1;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return err_set(err, -errno, "no_new_privs: %s",
			       strerror(errno));
	if ((r = confine_landlock(cp, err)) < 0 || (r = confine_caps(err)) < 0)
		return r;
	return confine_seccomp(notify_fd, err);
}
