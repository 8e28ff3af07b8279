/* The resolver of a sandbox without network, inside it (resolver.h). */
#include "init/resolver.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/compat.h"
#include "common/util.h"
#include "init/reaper.h"
#include "net/addr.h"
#include "net/grammar.h"
#include "net/said.h"
#include "proto/dnsmsg.h"

/* A TCP client has this long to send its query: the resolver serves one
 * at a time, and a program that holds a connection open delays only its
 * own lookups. */
#define TCP_QUERY_MS 2000
/* Why every name is refused, as the terminal line says it (said.c). */
#define NONET_WHY "this sandbox has no network grant"

struct resolver {
	int udp, tcp;
	struct wire_said said;
	uint8_t in[DNSD_MSG_MAX + 2], out[DNSD_MSG_MAX + 2];
};

/* The answer to a query of len bytes in m: NXDOMAIN for every name, the
 * name said on stderr. 0 when nothing is to be answered (not a query),
 * else the answer's length in out. */
static size_t answer(struct resolver *n, const uint8_t *m, size_t len,
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
		/* no sandbox's name: it only names a paused wire */
		wire_said_line(&n->said, "", host, 0, NONET_WHY, line,
			       sizeof(line));
		if (line[0])
			term_write(STDERR_FILENO, line);
	}
	return dnsd_answer(m, &q, DNSD_RCODE_NXDOMAIN, NULL, 0, out, cap);
}

static void serve_udp(struct resolver *n)
{
	struct sockaddr_storage from;
	socklen_t fl = sizeof(from);
	ssize_t got = recvfrom(n->udp, n->in, DNSD_MSG_MAX, MSG_DONTWAIT,
			       (struct sockaddr *)&from, &fl);
	if (got <= 0)
		return;
	size_t len = answer(n, n->in, (size_t)got, n->out, DNSD_UDP_ANSWER_MAX);
	if (len)
		(void)sendto(n->udp, n->out, len, MSG_DONTWAIT,
			     (struct sockaddr *)&from, fl);
}

/* Reads exactly want bytes of c by the deadline. */
static bool read_by(int c, uint8_t *b, size_t want, int64_t end)
{
	size_t got = 0;
	while (got < want) {
		int64_t left = end - mono_ms();
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

static void serve_tcp(struct resolver *n)
{
	int c = accept4(n->tcp, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (c < 0)
		return;
	int64_t end = mono_ms() + TCP_QUERY_MS;
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

__attribute__((noreturn)) static void serve(struct resolver *n)
{
	for (;;) {
		struct pollfd p[2] = {{.fd = n->udp, .events = POLLIN},
				      {.fd = n->tcp, .events = POLLIN}};
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			_exit(LNK_EXIT_FAIL);
		}
		/* a socket that hung up (never bound: lnk could not) is
		 * nothing to serve */
		if (p[0].revents & (POLLERR | POLLHUP | POLLNVAL))
			n->udp = -1;
		if (p[1].revents & (POLLERR | POLLHUP | POLLNVAL))
			n->tcp = -1;
		if (n->udp < 0 && n->tcp < 0)
			_exit(0);
		if (p[0].revents & POLLIN)
			serve_udp(n);
		if (p[1].revents & POLLIN)
			serve_tcp(n);
	}
}

/* The child: serves dns until the sandbox ends. */
__attribute__((noreturn)) static void child(const int dns[2], int abi)
{
	/* Out of the terminal's session, as pid 1 is: the terminal's ^C and
	 * hang-up are the program's. */
	setsid();
	proc_set_name("lnk-nonet-dns");
	/* Only stderr and its two sockets, as 3 and 4: nothing of pid
	 * 1's. Moved up first, so that neither lands on the other. */
	int hi[2] = {-1, -1};
	for (int i = 0; i < 2; i++)
		if (dns[i] >= 0 &&
		    (hi[i] = fcntl(dns[i], F_DUPFD_CLOEXEC, 100)) < 0)
			_exit(LNK_EXIT_FAIL);
	int udp = hi[0] >= 0 ? dup_cloexec_to(hi[0], 3) : -1;
	int tcp = hi[1] >= 0 ? dup_cloexec_to(hi[1], 4) : -1;
	if ((hi[0] >= 0 && udp < 0) || (hi[1] >= 0 && tcp < 0))
		_exit(LNK_EXIT_FAIL);
	close(0);
	close(1);
	close_from(5);
	/* pid 1's signals are not its own */
	for (int fd = 3; fd <= 4; fd++) {
		int fl = fcntl(fd, F_GETFL);
		if (fl >= 0)
			(void)fcntl(fd, F_SETFL, fl & ~O_ASYNC);
	}
	/* The program's own nesting (reaper.h): it cannot trace or signal
	 * pid 1, nor pid 1's lifeline be reached through it. */
	struct lnk_err e = {0};
	if (reaper_scope_child(abi, &e) < 0) {
		fprintf(stderr, "lnk: %s\n", e.msg);
		_exit(LNK_EXIT_FAIL);
	}
	sigset_t none;
	sigemptyset(&none);
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGTSTP, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	sigprocmask(SIG_SETMASK, &none, NULL);
	struct resolver r = {.udp = udp, .tcp = tcp};
	r.said.nolog = true;
	serve(&r);
}

int resolver_arm(struct resolver_watch *w)
{
	for (int i = 0; i < 2; i++) {
		int fl;
		if (w->dns[i] < 0)
			continue;
		if (fcntl(w->dns[i], F_SETOWN, getpid()) < 0 ||
		    fcntl(w->dns[i], F_SETSIG, SIGIO) < 0 ||
		    (fl = fcntl(w->dns[i], F_GETFL)) < 0 ||
		    fcntl(w->dns[i], F_SETFL, fl | O_ASYNC) < 0)
			return -errno;
	}
	return 0;
}

void resolver_start(struct resolver_watch *w)
{
	if (w->dns[0] < 0 && w->dns[1] < 0)
		return;
	fflush(NULL);
	if (fork() == 0)
		child(w->dns, w->abi);
	/* a fork that failed leaves port 53 closed: lookups fail at once,
	 * only without the line */
	for (int i = 0; i < 2; i++)
		if (w->dns[i] >= 0) {
			close(w->dns[i]);
			w->dns[i] = -1;
		}
}

void resolver_on_io(void *arg)
{
	struct resolver_watch *w = arg;
	struct pollfd p[2] = {{.fd = w->dns[0], .events = POLLIN},
			      {.fd = w->dns[1], .events = POLLIN}};
	if (w->dns[0] < 0 && w->dns[1] < 0)
		return;
	if (poll(p, 2, 0) > 0 &&
	    ((p[0].revents & POLLIN) || (p[1].revents & POLLIN)))
		resolver_start(w);
}
