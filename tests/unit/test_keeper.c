/* The keeper's check of the addresses the confined wire connects and sends
 * to (src/wire/keeper.c): this machine never, but for the granted loopback
 * ports and the DNS servers; never a cloud metadata address. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/fdpass.h"
#include "proto/keeper.h"
#include "wire/confine.h"
#include "wire/keeper.h"
#include "wire/route.h"

struct row {
	int domain;
	const char *addr; /* NULL: netlink, nl_pid in port */
	uint16_t port;
	int want; /* 0 or -errno */
};

static const struct row rows[] = {
    /* the internet and the LAN: the wire's filter decided those */
    {AF_INET, "198.18.0.10", 443, 0},
    {AF_INET, "10.1.2.3", 22, 0},
    {AF_INET6, "2001:db8::1", 80, 0},
    /* this machine */
    {AF_INET, "127.0.0.1", 22, -EACCES},
    {AF_INET, "127.9.9.9", 8080, -EACCES},
    {AF_INET, "0.0.0.0", 22, -EACCES},
    {AF_INET6, "::1", 22, -EACCES},
    {AF_INET6, "::", 22, -EACCES},
    {AF_INET6, "::ffff:127.0.0.1", 22, -EACCES},
    {AF_INET, "192.0.2.77", 22, -EACCES}, /* "its own address" below */
    {AF_INET6, "::ffff:192.0.2.77", 22, -EACCES},
    /* granted --port 8080, on loopback only */
    {AF_INET, "127.0.0.1", 8080, 0},
    {AF_INET6, "::1", 8080, 0},
    {AF_INET, "192.0.2.77", 8080, -EACCES},
    /* the DNS server, exactly */
    {AF_INET, "127.0.0.53", 53, 0},
    {AF_INET, "127.0.0.53", 54, -EACCES},
    {AF_INET, "127.0.0.1", 53, -EACCES},
    /* metadata, whatever the grants */
    {AF_INET, "169.254.169.254", 80, -EACCES},
    {AF_INET6, "fd00:ec2::254", 80, -EACCES},
    {AF_INET, "169.254.170.2", 80, -EACCES},
    {AF_INET, "168.63.129.16", 80, -EACCES},
    {AF_INET, "168.63.129.16", 32526, -EACCES},
    {AF_INET, "169.254.169.254", 53, -EACCES},
    /* but Azure's platform resolver, at the WireServer's address, when
     * it is this machine's DNS server: its port 53 only */
    {AF_INET, "168.63.129.16", 53, 0},
    /* netlink: the kernel only */
    {AF_NETLINK, NULL, 0, 0},
    {AF_NETLINK, NULL, 4242, -EACCES},
    /* other sockets */
    {AF_UNIX, "198.18.0.10", 80, -EACCES},
};

/* This machine, for the rows: loopback is decided by class, 192.0.2.77
 * stands for an address of one of its interfaces. */
static bool fake_local(void *ctx, const struct lnk_addr *a)
{
	(void)ctx;
	static const uint8_t own[4] = {192, 0, 2, 77};
	return a->family == AF_INET && memcmp(a->a, own, 4) == 0;
}

static struct keeper_rules rules(void)
{
	static const uint16_t ports[] = {8080};
	struct keeper_rules kr;
	memset(&kr, 0, sizeof(kr));
	kr.ports = ports;
	kr.nports = 1;
	kr.dns[0].family = AF_INET;
	inet_pton(AF_INET, "127.0.0.53", kr.dns[0].a);
	kr.dns_port[0] = 53;
	kr.dns[1].family = AF_INET;
	inet_pton(AF_INET, "168.63.129.16", kr.dns[1].a);
	kr.dns_port[1] = 53;
	kr.ndns = 2;
	kr.is_local = fake_local;
	return kr;
}

/* An answer whose socket the wire cannot receive (no descriptor left)
 * fails its own call at once: its cookie is kept, so the call gets its
 * row now, not at its connect's timeout. */
static void an_answer_without_room_fails_its_call(void **state)
{
	(void)state;
	pid_t p = fork();
	assert_true(p >= 0);
	if (p == 0) {
		int ch[2];
		if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, ch) < 0)
			_exit(2);
		int sock = socket(AF_INET, SOCK_STREAM, 0);
		uint8_t m[KEEPER_ANSWER_SIZE];
		keeper_reply_encode(
		    &(struct keeper_reply){.kind = KEEPER_R_ANSWER,
					   .answer = KEEPER_CONNECTING,
					   .cookie = 77},
		    m);
		if (sock < 0 || fd_send(ch[0], &sock, 1, m, sizeof(m)) < 0)
			_exit(3);
		close(sock);
		/* no descriptor above the ones open now */
		struct rlimit rl = {.rlim_cur = (rlim_t)ch[1] + 1,
				    .rlim_max = (rlim_t)ch[1] + 1};
		for (int fd = ch[1] + 1; fd < 64; fd++)
			close(fd);
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
			_exit(4);
		struct keeper_answer ans;
		if (keeper_take_answer(ch[1], &ans) != 1)
			_exit(5);
		_exit(ans.kind == KEEPER_FAILED && ans.error == EMFILE &&
			      ans.cookie == 77 && ans.fd < 0
			  ? 0
			  : 6);
	}
	int st;
	assert_int_equal(waitpid(p, &st, 0), p);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

static void rows_hold(void **state)
{
	(void)state;
	struct keeper_rules kr = rules();
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];
		struct sockaddr_storage ss;
		memset(&ss, 0, sizeof(ss));
		socklen_t len;
		if (!r->addr) {
			struct sockaddr_nl *nl = (struct sockaddr_nl *)&ss;
			nl->nl_family = AF_NETLINK;
			nl->nl_pid = r->port;
			len = sizeof(*nl);
		} else if (strchr(r->addr, ':')) {
			struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
			s6->sin6_family = AF_INET6;
			s6->sin6_port = htons(r->port);
			assert_int_equal(
			    inet_pton(AF_INET6, r->addr, &s6->sin6_addr), 1);
			len = sizeof(*s6);
		} else {
			struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
			s4->sin_family = AF_INET;
			s4->sin_port = htons(r->port);
			assert_int_equal(
			    inet_pton(AF_INET, r->addr, &s4->sin_addr), 1);
			len = sizeof(*s4);
		}
		const char *why;
		int got = keeper_dest_check(&kr, r->domain,
					    (struct sockaddr *)&ss, len, &why);
		if (got != r->want)
			fail_msg("%s port %u: got %d, want %d",
				 r->addr ? r->addr : "netlink", r->port, got,
				 r->want);
	}
}

static void short_addresses_refused(void **state)
{
	(void)state;
	struct keeper_rules kr = rules();
	struct sockaddr_in s4 = {.sin_family = AF_INET};
	const char *why;
	assert_int_equal(
	    keeper_dest_check(&kr, AF_INET, (struct sockaddr *)&s4, 8, &why),
	    -EINVAL);
	assert_int_equal(
	    keeper_dest_check(&kr, AF_INET, (struct sockaddr *)&s4, 1, &why),
	    -EINVAL);
}

/* The kernel's answer: loopback and an interface's address are this
 * machine, a documentation address is not. */
/* A scratch folder dir (a mkdtemp template) with an empty lnk.db in it,
 * its path in db: what confine_wire opens. */
static void scratch_db(char *dir, char *db, size_t dbsz)
{
	assert_non_null(mkdtemp(dir));
	snprintf(db, dbsz, "%s/lnk.db", dir);
	int fd = open(db, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	close(fd);
}

static void kernel_knows_this_machine_on(struct route_sock *rs)
{
	struct lnk_addr a = {.family = AF_INET};
	inet_pton(AF_INET, "127.0.0.1", a.a);
	assert_true(keeper_is_local(rs, &a));
	inet_pton(AF_INET, "198.51.100.1", a.a);
	assert_false(keeper_is_local(rs, &a));
	struct ifaddrs *ifa, *i;
	assert_int_equal(getifaddrs(&ifa), 0);
	for (i = ifa; i; i = i->ifa_next)
		if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET) {
			memcpy(a.a,
			       &((struct sockaddr_in *)i->ifa_addr)->sin_addr,
			       4);
			assert_true(keeper_is_local(rs, &a));
		}
	freeifaddrs(ifa);
}

/* With a socket of its own per call, and with the keeper's one socket
 * reused for every call. */
static void kernel_knows_this_machine(void **state)
{
	(void)state;
	kernel_knows_this_machine_on(NULL);
	struct route_sock rs;
	assert_int_equal(route_open(&rs), 0);
	for (int i = 0; i < 3; i++)
		kernel_knows_this_machine_on(&rs);
	route_close(&rs);
}

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif

/* A confined child and the real keeper: a DNS server named during setup
 * is reached, one named after it (a wire gone bad adding its own
 * exceptions) is not, and the keeper reports how the child ended. */
static void setup_closes_with_the_listener(void **state)
{
	(void)state;
#ifdef SANITIZED
	print_message("skipped: the sanitizer runtime makes calls outside "
		      "the wire's list\n");
	skip();
#endif
	char dir[] = "/tmp/lnk-test-keeper-XXXXXX", db[128];
	scratch_db(dir, db, sizeof(db));
	int srv[2];
	struct sockaddr_in sa[2];
	for (int i = 0; i < 2; i++) {
		srv[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		memset(&sa[i], 0, sizeof(sa[i]));
		sa[i].sin_family = AF_INET;
		sa[i].sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		socklen_t l = sizeof(sa[i]);
		assert_int_equal(bind(srv[i], (struct sockaddr *)&sa[i], l), 0);
		assert_int_equal(listen(srv[i], 4), 0);
		assert_int_equal(
		    getsockname(srv[i], (struct sockaddr *)&sa[i], &l), 0);
	}
	int ch[2];
	assert_int_equal(
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ch), 0);
	pid_t p = fork();
	assert_true(p >= 0);
	if (p == 0) {
		close(ch[0]);
		struct lnk_addr lo = {.family = AF_INET, .a = {127, 0, 0, 1}};
		struct lnk_err err = {0};
		struct confine_plan cp = {.db_path = db};
		int nfd;
		if (keeper_send_dns(ch[1], &lo, ntohs(sa[0].sin_port)) < 0 ||
		    confine_wire(&cp, &nfd, &err) < 0 ||
		    keeper_send_listener(ch[1], nfd, &err) < 0)
			_exit(100);
		close(nfd);
		/* after setup: ignored */
		if (keeper_send_dns(ch[1], &lo, ntohs(sa[1].sin_port)) < 0)
			_exit(101);
		int a = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (connect(a, (struct sockaddr *)&sa[0], sizeof(sa[0])) != 0)
			_exit(102);
		int b = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (connect(b, (struct sockaddr *)&sa[1], sizeof(sa[1])) == 0)
			_exit(103);
		_exit(errno == EACCES ? 0 : 104);
	}
	close(ch[1]);
	int st = keeper_run("test", NULL, NULL, 0, false, ch[0], p,
			    &(struct keeper_heard){KEEPER_HEARD_NONE, -1, -1});
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	close(srv[0]);
	close(srv[1]);
	unlink(db);
	rmdir(dir);
}

/* The keeper binds a low --port listener of the sandbox's only for a
 * granted port: a wire gone bad that hands it a socket of the sandbox's
 * namespace with another port gets a no, and the socket stays unbound.
 * The confined child stands for the wire, in network (and user)
 * namespaces of its own as the sandbox's are. */
static void binds_only_a_granted_port(void **state)
{
	(void)state;
#ifdef SANITIZED
	print_message("skipped: the sanitizer runtime makes calls outside "
		      "the wire's list\n");
	skip();
#endif
	char dir[] = "/tmp/lnk-test-keeper-XXXXXX", db[128];
	scratch_db(dir, db, sizeof(db));
	int ch[2];
	assert_int_equal(
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ch), 0);
	pid_t p = fork();
	assert_true(p >= 0);
	if (p == 0) {
		close(ch[0]);
		if (unshare(getuid() == 0 ? CLONE_NEWNET
					  : CLONE_NEWUSER | CLONE_NEWNET) < 0)
			_exit(77);
		/* the sandbox's loopback is up (bwrap brings it up) */
		int c = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		struct ifreq ifr;
		memset(&ifr, 0, sizeof(ifr));
		snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
		ifr.ifr_flags = IFF_UP;
		if (c < 0 || ioctl(c, SIOCSIFFLAGS, &ifr) < 0)
			_exit(78);
		close(c);
		int a = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		int b = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		struct lnk_err err = {0};
		struct confine_plan cp = {.db_path = db};
		int nfd;
		if (a < 0 || b < 0 || confine_wire(&cp, &nfd, &err) < 0 ||
		    keeper_send_listener(ch[1], nfd, &err) < 0)
			_exit(100);
		close(nfd);
		if (keeper_bind_port(ch[1], a, 8443, &err) < 0)
			_exit(101); /* granted: bound */
		if (keeper_bind_port(ch[1], b, 8444, &err) == 0)
			_exit(102); /* not granted: bound all the same */
		struct sockaddr_in sa;
		socklen_t l = sizeof(sa);
		if (getsockname(a, (struct sockaddr *)&sa, &l) < 0 ||
		    ntohs(sa.sin_port) != 8443 ||
		    sa.sin_addr.s_addr != htonl(INADDR_LOOPBACK))
			_exit(103);
		l = sizeof(sa);
		if (getsockname(b, (struct sockaddr *)&sa, &l) < 0 ||
		    sa.sin_port != 0)
			_exit(104);
		_exit(0);
	}
	close(ch[1]);
	const uint16_t ports[] = {8443};
	int st = keeper_run("test", NULL, ports, 1, false, ch[0], p,
			    &(struct keeper_heard){KEEPER_HEARD_NONE, -1, -1});
	unlink(db);
	rmdir(dir);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) == 77 || WEXITSTATUS(st) == 78) {
		print_message(
		    "skipped: no network namespace of its own here\n");
		skip();
	}
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* Waits until pid is stopped (its state in /proc is T). */
static bool wait_stopped(pid_t pid)
{
	char path[64], buf[256];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	for (int i = 0; i < 2000; i++) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return false;
		ssize_t n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			return false;
		buf[n] = '\0';
		const char *p = strrchr(buf, ')');
		if (p && p[1] == ' ' && (p[2] == 'T' || p[2] == 't'))
			return true;
		usleep(1000);
	}
	return false;
}

/* A connect the wire asked before it closed is never made: the asks and
 * the close are read in one batch (the keeper is stopped while the wire
 * sends them, by a helper outside the wire's confinement), and each ask
 * is answered ECANCELED with no connect to the granted port. Threat: the
 * wire paused for a tripwire while connects it had asked were still in
 * the keeper's channel; the keeper made them all the same, and the hosts
 * saw handshakes the log called refused. */
static void asks_before_a_close_are_never_made(void **state)
{
	(void)state;
#ifdef SANITIZED
	print_message("skipped: the sanitizer runtime makes calls outside "
		      "the wire's list\n");
	skip();
#endif
	char dir[] = "/tmp/lnk-test-keeper-XXXXXX", db[128];
	scratch_db(dir, db, sizeof(db));
	int srv =
	    socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	struct sockaddr_in sa;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t l = sizeof(sa);
	assert_int_equal(bind(srv, (struct sockaddr *)&sa, l), 0);
	assert_int_equal(listen(srv, 8), 0);
	assert_int_equal(getsockname(srv, (struct sockaddr *)&sa, &l), 0);
	uint16_t port = ntohs(sa.sin_port);
	/* the keeper in a process of its own (the one stopped), the wire
	 * its child, the helper the wire's child */
	pid_t kp = fork();
	assert_true(kp >= 0);
	if (kp == 0) {
		int ch[2];
		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ch) <
		    0)
			_exit(90);
		pid_t keeper = getpid();
		pid_t p = fork();
		if (p < 0)
			_exit(91);
		if (p == 0) {
			close(ch[0]);
			close(srv);
			int to[2], from[2];
			if (pipe(to) < 0 || pipe(from) < 0)
				_exit(100);
			pid_t g = fork();
			if (g < 0)
				_exit(101);
			if (g == 0) {
				char c;
				if (read(to[0], &c, 1) != 1 ||
				    kill(keeper, SIGSTOP) < 0 ||
				    !wait_stopped(keeper) ||
				    write(from[1], "s", 1) != 1 ||
				    read(to[0], &c, 1) != 1 ||
				    kill(keeper, SIGCONT) < 0)
					_exit(1);
				_exit(0);
			}
			struct lnk_err err = {0};
			struct confine_plan cp = {.db_path = db};
			int nfd;
			if (confine_wire(&cp, &nfd, &err) < 0 ||
			    keeper_send_listener(ch[1], nfd, &err) < 0)
				_exit(102);
			close(nfd);
			char c;
			if (write(to[1], "S", 1) != 1 ||
			    read(from[0], &c, 1) != 1)
				_exit(103);
			struct lnk_addr lo = {.family = AF_INET,
					      .a = {127, 0, 0, 1}};
			for (uint64_t k = 1; k <= 3; k++)
				if (keeper_ask_connect(ch[1], k, &lo, port, 0) <
				    0)
					_exit(104);
			if (keeper_send_closed(ch[1]) < 0 ||
			    write(to[1], "C", 1) != 1)
				_exit(105);
			int got = 0;
			for (int i = 0; i < 5000 && got < 3; i++) {
				struct keeper_answer ans;
				int r = keeper_take_answer(ch[1], &ans);
				if (r < 0)
					_exit(106);
				if (r == 0) {
					usleep(1000);
					continue;
				}
				if (ans.kind != KEEPER_FAILED ||
				    ans.error != ECANCELED || ans.fd >= 0)
					_exit(107);
				got++;
			}
			_exit(got == 3 ? 0 : 108);
		}
		close(ch[1]);
		const uint16_t ports[] = {port};
		int st = keeper_run(
		    "test", NULL, ports, 1, false, ch[0], p,
		    &(struct keeper_heard){KEEPER_HEARD_NONE, -1, -1});
		if (!WIFEXITED(st))
			_exit(92);
		if (WEXITSTATUS(st))
			_exit(WEXITSTATUS(st));
		/* and nothing reached the port */
		int a = accept(srv, NULL, NULL);
		_exit(a < 0 && errno == EAGAIN ? 0 : 93);
	}
	int st;
	assert_int_equal(waitpid(kp, &st, 0), kp);
	unlink(db);
	rmdir(dir);
	close(srv);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(an_answer_without_room_fails_its_call),
	    cmocka_unit_test(rows_hold),
	    cmocka_unit_test(short_addresses_refused),
	    cmocka_unit_test(kernel_knows_this_machine),
	    cmocka_unit_test(setup_closes_with_the_listener),
	    cmocka_unit_test(binds_only_a_granted_port),
	    cmocka_unit_test(asks_before_a_close_are_never_made),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
