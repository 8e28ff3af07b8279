/* The resolver of a sandbox without a network grant (nonet.h). */
#include "wire/nonet.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/compat.h"
#include "common/util.h"
#include "confine/kit.h"
#include "net/grammar.h"
#include "proto/handoff.h"
#include "wire/dnsd.h"
#include "wire/said.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

#define RCODE_NXDOMAIN 3
/* A TCP client has this long to send its query: the resolver serves one
 * at a time, and a program that holds a connection open delays only its
 * own lookups. */
#define TCP_QUERY_MS 2000
/* Why every name is refused, as the terminal line says it (said.c). */
#define NONET_WHY "this sandbox has no network grant"

void nonet_listeners(struct init_listener **l, size_t *n)
{
	*n = 1;
	*l = xcalloc(1, sizeof(**l));
	(*l)[0] = (struct init_listener){.kind = INIT_L_DNS, .port = 53};
}

struct nonet {
	const char *name; /* the sandbox's, printable */
	int udp, tcp, life;
	uint64_t netns; /* our own network namespace's cookie */
	struct wire_said said;
	uint8_t in[DNSD_MSG_MAX + 2], out[DNSD_MSG_MAX + 2];
};

static uint64_t own_netns(void)
{
	uint64_t c = 0;
	socklen_t l = sizeof(c);
	int s = socket_cloexec(AF_INET, SOCK_DGRAM, 0, 0);
	if (s < 0)
		return 0;
	if (getsockopt(s, SOL_SOCKET, SO_NETNS_COOKIE, &c, &l) < 0)
		c = 0;
	close(s);
	return c;
}

/* Binds a socket lnk-init sent to the sandbox's 127.0.0.1:53 (a TCP one
 * listens): only an unbound IPv4 socket of another network namespace,
 * which cannot be a port of this machine. The socket's type, -1 when
 * refused. */
static int bind_dns(const struct nonet *n, int fd)
{
	int type = 0, dom = 0;
	uint64_t c = 0;
	socklen_t l = sizeof(int), cl = sizeof(c);
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	if (!n->netns ||
	    getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, &c, &cl) < 0 ||
	    c == n->netns ||
	    getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &l) < 0 ||
	    dom != AF_INET ||
	    getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &l) < 0 ||
	    (type != SOCK_DGRAM && type != SOCK_STREAM) ||
	    getsockname(fd, (struct sockaddr *)&sa, &sl) < 0 ||
	    sa.sin_port != 0)
		return -1;
	sa = (struct sockaddr_in){.sin_family = AF_INET,
				  .sin_port = htons(53),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    (type == SOCK_STREAM && listen(fd, 16) < 0))
		return -1;
	return type;
}

/* Receives the two sockets (or the lifeline closes: 1). 0 or -errno. */
static int take_sockets(struct nonet *n, int handoff, struct lnk_err *err)
{
	struct handoff_listener *v = NULL;
	size_t nv = 0;
	int r;
	do {
		struct pollfd p[2] = {{.fd = handoff, .events = POLLIN},
				      {.fd = n->life, .events = POLLIN}};
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		if (p[1].revents) {
			r = 1; /* the run ended before the sandbox was made */
			break;
		}
		r = handoff_recv_one(handoff, &v, &nv, err);
	} while (r > 0);
	for (size_t i = 0; i < nv; i++) {
		int fd = v[i].fd, t = -1;
		if (r == 0 && v[i].tag.kind == INIT_L_DNS)
			t = bind_dns(n, fd);
		if (t == SOCK_DGRAM && n->udp < 0)
			n->udp = fd;
		else if (t == SOCK_STREAM && n->tcp < 0)
			n->tcp = fd;
		else
			close(fd);
	}
	free(v);
	if (r == 0 && n->udp < 0 && n->tcp < 0)
		r = err_set(err, -EADDRINUSE,
			    "cannot serve the sandbox's 127.0.0.1:53");
	return r;
}

/* The answer to a query of len bytes in m: NXDOMAIN for every name, the
 * name said on lnk's stderr. 0 when nothing is to be answered (not a
 * query), else the answer's length in n->out. */
static size_t answer(struct nonet *n, const uint8_t *m, size_t len,
		     uint8_t *out, size_t cap)
{
	struct dnsd_question q;
	int r = dnsd_parse(m, len, &q);
	if (r < 0)
		return 0;
	if (r > 0) {
		q.qlen = 0;
		return dnsd_answer(m, &q, r, NULL, 0, out, cap);
	}
	char host[HOST_MAX + 1];
	const char *why = NULL;
	struct lnk_addr lit;
	/* a name, not an address's reverse lookup, and in the grants'
	 * spelling: what --internet-host would take */
	if (host_normalize(q.name, host, &why) == 0 &&
	    addr_parse_literal(host, &lit) == LIT_NAME && !strchr(host, '*')) {
		char line[1024];
		wire_said_line(&n->said, n->name, host, 0, NONET_WHY, line,
			       sizeof(line));
		if (line[0])
			term_write(STDERR_FILENO, line);
	}
	return dnsd_answer(m, &q, RCODE_NXDOMAIN, NULL, 0, out, cap);
}

static void serve_udp(struct nonet *n)
{
	struct sockaddr_storage from;
	socklen_t fl = sizeof(from);
	ssize_t got = recvfrom(n->udp, n->in, DNSD_MSG_MAX, MSG_DONTWAIT,
			       (struct sockaddr *)&from, &fl);
	if (got <= 0)
		return;
	size_t len = answer(n, n->in, (size_t)got, n->out, 512);
	if (len)
		(void)sendto(n->udp, n->out, len, MSG_DONTWAIT,
			     (struct sockaddr *)&from, fl);
}

static int64_t now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Reads exactly want bytes of c by the deadline. */
static bool read_by(int c, uint8_t *b, size_t want, int64_t end)
{
	size_t got = 0;
	while (got < want) {
		int64_t left = end - now_ms();
		struct pollfd p = {.fd = c, .events = POLLIN};
		if (left <= 0 || poll(&p, 1, (int)left) <= 0)
			return false;
		ssize_t r =
		    recvfrom(c, b + got, want - got, MSG_DONTWAIT, NULL, NULL);
		if (r < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (r <= 0)
			return false;
		got += (size_t)r;
	}
	return true;
}

static void serve_tcp(struct nonet *n)
{
	int c = accept4(n->tcp, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (c < 0)
		return;
	int64_t end = now_ms() + TCP_QUERY_MS;
	/* one query: its length, then itself (bounded) */
	if (read_by(c, n->in, 2, end)) {
		size_t len = (size_t)n->in[0] << 8 | n->in[1];
		if (len >= 12 && len <= DNSD_MSG_MAX &&
		    read_by(c, n->in + 2, len, end)) {
			size_t a =
			    answer(n, n->in + 2, len, n->out + 2, DNSD_MSG_MAX);
			if (a) {
				n->out[0] = (uint8_t)(a >> 8);
				n->out[1] = (uint8_t)a;
				(void)sendto(c, n->out, a + 2,
					     MSG_DONTWAIT | MSG_NOSIGNAL, NULL,
					     0);
			}
		}
	}
	close(c);
}

/* Once confined, beyond the kit's base: wait on its sockets, accept,
 * receive and send, say on stderr. No file, no process, no new socket. */
static const int nonet_calls[] = {
    SCMP_SYS(poll),	SCMP_SYS(ppoll),  SCMP_SYS(accept4),
    SCMP_SYS(recvfrom), SCMP_SYS(sendto), SCMP_SYS(write),
};

/* And whether stderr is a terminal in raw mode (term_write: a relayed
 * pty), asked of stderr only. */
static int nonet_rules(void *ctx, void *arg)
{
	(void)arg;
	return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 2,
				SCMP_A0(SCMP_CMP_EQ, STDERR_FILENO),
				SCMP_A1(SCMP_CMP_EQ, TCGETS));
}

/* Gives up every right for good (src/confine/kit.h). Called before the
 * first byte of the program's is read, not at start: most runs never look
 * a name up, and building the filter costs more CPU than the rest of the
 * resolver's start together, on the way to the program's. Until then the
 * process holds only its two sockets, stderr and the lifeline, and reads
 * nothing but lnk-init's handoff (src/proto/handoff.c). */
static int confine(void)
{
	struct lnk_err e = {0};
	const struct kit_plan kp = {
	    .who = "the resolver of a sandbox without network",
	    .allow = nonet_calls,
	    .nallow = ARRAY_SIZE(nonet_calls),
	    .rules = nonet_rules,
	};
	if (kit_confine(&kp, &e) < 0) {
		/* never read the program's bytes unconfined */
		_cleanup_free_ char *m = xasprintf("lnk: %s\n", e.msg);
		term_write(STDERR_FILENO, m);
		return -1;
	}
	return 0;
}

static int nonet_main(struct nonet *n, int handoff)
{
	struct lnk_err e = {0};
	int r = take_sockets(n, handoff, &e);
	close(handoff);
	if (r == 1)
		return 0;
	if (r < 0) {
		/* the lookups then fail at once still (nothing listens),
		 * only without the line that says why */
		_cleanup_free_ char *m = xasprintf(
		    "lnk: %s; lookups fail without a word of why\n", e.msg);
		term_write(STDERR_FILENO, m);
		return 0;
	}
	bool confined = false;
	for (;;) {
		struct pollfd p[3] = {{.fd = n->life, .events = POLLIN},
				      {.fd = n->udp, .events = POLLIN},
				      {.fd = n->tcp, .events = POLLIN}};
		if (poll(p, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			return LNK_EXIT_FAIL;
		}
		if (p[0].revents)
			return 0; /* lnk closed the lifeline: the run ended */
		if (!confined) {
			if (confine() < 0)
				return LNK_EXIT_FAIL;
			confined = true;
		}
		if (p[1].revents)
			serve_udp(n);
		if (p[2].revents)
			serve_tcp(n);
	}
}

int nonet_start(const char *name, int handoff_fd, int lifeline_fd, pid_t *pid,
		struct lnk_err *err)
{
	fflush(NULL);
	pid_t p = fork();
	if (p < 0)
		return err_set(err, -errno,
			       "cannot start the sandbox's resolver: %s",
			       strerror(errno));
	if (p > 0) {
		*pid = p;
		return 0;
	}
	/* Only stderr, the handoff and the lifeline: nothing else of lnk's
	 * (the terminal's pipes, the guard's socket) is its to hold. */
	setsid(); /* the terminal's ^C is for the program */
	proc_set_name("lnk-nonet-dns");
	int h = fcntl(handoff_fd, F_DUPFD_CLOEXEC, 100);
	int l = fcntl(lifeline_fd, F_DUPFD_CLOEXEC, 100);
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (h < 0 || l < 0 || null < 0 || dup2(null, 0) < 0 ||
	    dup2(null, 1) < 0 || dup_cloexec_to(h, 3) < 0 ||
	    dup_cloexec_to(l, 4) < 0)
		_exit(LNK_EXIT_FAIL);
	close_from(5);
	(void)die_with_parent(SIGKILL);
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGTSTP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	struct nonet *n = xcalloc(1, sizeof(*n));
	*n = (struct nonet){.name = name, .udp = -1, .tcp = -1, .life = 4};
	n->netns = own_netns();
	n->said.nolog = true;
	_exit(nonet_main(n, 3));
}
