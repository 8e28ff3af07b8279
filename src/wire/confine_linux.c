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
 *     race with the wire rewriting it. The relayed calls' sockets the
 *     keeper makes, connects and hands over itself (keeper.h), so the
 *     wire's loop never stops for them.
 *
 * The mechanism is the confinement kit's (src/confine/kit.h), shared with
 * every other process of lnk's that reads the program's bytes; what is
 * here is the wire's own plan: its files, its calls, its rules.
 */
#include "wire/confine.h"

#include <errno.h>
#include <linux/netlink.h>
#include <seccomp.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "common/util.h"
#include "confine/kit.h"

/* Calls allowed whatever their arguments, beyond the kit's base. */
static const int wire_calls[] = {
    /* the event loop: epoll over every socket, the tick's clock */
    SCMP_SYS(epoll_wait),
    SCMP_SYS(epoll_pwait),
    SCMP_SYS(epoll_pwait2),
    SCMP_SYS(epoll_ctl),
    SCMP_SYS(epoll_create1),
    SCMP_SYS(clock_getres),
    SCMP_SYS(gettimeofday),
    SCMP_SYS(time),
    /* descriptors: reading, writing (stderr too), O_NONBLOCK and the
     * splice pipe's size, SQLite's byte-range locks */
    SCMP_SYS(read),
    SCMP_SYS(write),
    SCMP_SYS(readv),
    SCMP_SYS(writev),
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
    /* the log's reserve, taken again once there is room (db.h) */
    SCMP_SYS(fallocate),
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
    /* the free space left for the log (a full disk refuses calls
     * rather than relay them unlogged) */
    SCMP_SYS(statfs),
    SCMP_SYS(fstatfs),
    /* threads (the log writer: glibc sets its cancellation signal's
     * handler at the first thread) and their locks; SQLite's busy wait */
    SCMP_SYS(futex),
    SCMP_SYS(set_robust_list),
    SCMP_SYS(rseq),
    SCMP_SYS(rt_sigaction),
    SCMP_SYS(sched_yield),
    SCMP_SYS(nanosleep),
    SCMP_SYS(clock_nanosleep),
};

static int rule(scmp_filter_ctx ctx, uint32_t action, int nr, unsigned n,
		const struct scmp_arg_cmp *cmp)
{
	return seccomp_rule_add_array(ctx, action, nr, n, cmp);
}

/* The wire's rules with arguments. */
static int wire_rules(void *c, void *arg)
{
	scmp_filter_ctx ctx = c;
	int r = 0;

	(void)arg;
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
	return r;
}

int confine_wire(const struct confine_plan *cp, int *notify_fd,
		 struct lnk_err *err)
{
	_cleanup_free_ char *wal = xasprintf("%s-wal", cp->db_path);
	_cleanup_free_ char *shm = xasprintf("%s-shm", cp->db_path);
	/* SQLite: the database and, in WAL mode, its two companions (they
	 * exist: the wire wrote to the database during setup, and no
	 * connection deletes them, see DB_PRAGMAS); c-ares reads
	 * /etc/hosts on every lookup. */
	const struct kit_path paths[] = {
	    {cp->db_path, KIT_RW, false},
	    {wal, KIT_RW, true},
	    {shm, KIT_RW, true},
	    {"/etc/hosts", KIT_READ, true},
	    {"/etc/resolv.conf", KIT_READ, true},
	};
	const struct kit_plan kp = {
	    .who = "the wire",
	    .paths = paths,
	    .npaths = ARRAY_SIZE(paths),
	    .allow = wire_calls,
	    .nallow = ARRAY_SIZE(wire_calls),
	    .threads = true,
	    .rules = wire_rules,
	    .notify_fd = notify_fd,
	};
	return kit_confine(&kp, err);
}
