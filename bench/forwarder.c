#define _GNU_SOURCE
/* forwarder: the floor the wire's new connections are measured against
 * (bench/conn_bench.sh). One thread, epoll, non-blocking: what a plain C
 * relay does for a new connection and no more (no checks, no log).
 *
 *   forwarder IP PORT   relays every client to IP:PORT
 *   forwarder connect   an HTTP CONNECT proxy: reads the head, connects
 *                       to the IPv4 address:port it names, answers 200
 *                       once connected, then relays
 *
 * Listens on 127.0.0.1:0 and prints its port. A benchmark helper: errors
 * print and exit 1. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define BUF 16384

struct end {
	int fd;
	struct pair *p;
	int up; /* 1: the upstream side */
};

struct dir {
	char b[BUF];
	size_t off, len;
	int eof, shut;
};

struct pair {
	struct end c, u;
	int connected, head_done, dead;
	struct pair *next_dead;
	char head[512];
	size_t hl;
	struct dir c2u, u2c;
};

static int ep;
static struct sockaddr_in target;
static int connect_mode;
static struct pair *graveyard; /* freed after the batch: events may wait */

static void die(const char *what)
{
	fprintf(stderr, "forwarder: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void watch(struct end *e, uint32_t ev, int op)
{
	struct epoll_event x = {.events = ev, .data.ptr = e};
	epoll_ctl(ep, op, e->fd, &x);
}

static void pair_close(struct pair *p)
{
	close(p->c.fd);
	if (p->u.fd >= 0)
		close(p->u.fd);
	p->dead = 1;
	p->next_dead = graveyard;
	graveyard = p;
}

static void start_upstream(struct pair *p, struct sockaddr_in *to)
{
	p->u.fd =
	    socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (p->u.fd < 0) {
		pair_close(p);
		return;
	}
	int one = 1;
	setsockopt(p->u.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(p->u.fd, (struct sockaddr *)to, sizeof(*to)) < 0 &&
	    errno != EINPROGRESS) {
		pair_close(p);
		return;
	}
	watch(&p->u, EPOLLOUT, EPOLL_CTL_ADD);
}

/* moves what it can from one side to the other; -1 when broken */
static int pump(struct dir *d, int src, int dst)
{
	for (;;) {
		if (d->len) {
			ssize_t n = send(dst, d->b + d->off, d->len,
					 MSG_NOSIGNAL | MSG_DONTWAIT);
			if (n < 0)
				return errno == EAGAIN ? 0 : -1;
			d->off += (size_t)n;
			d->len -= (size_t)n;
			continue;
		}
		if (d->eof) {
			if (!d->shut) {
				shutdown(dst, SHUT_WR);
				d->shut = 1;
			}
			return 0;
		}
		ssize_t n = recv(src, d->b, BUF, MSG_DONTWAIT);
		if (n == 0) {
			d->eof = 1;
			continue;
		}
		if (n < 0)
			return errno == EAGAIN ? 0 : -1;
		d->off = 0;
		d->len = (size_t)n;
	}
}

static void relay(struct pair *p)
{
	if (pump(&p->c2u, p->c.fd, p->u.fd) < 0 ||
	    pump(&p->u2c, p->u.fd, p->c.fd) < 0 ||
	    (p->c2u.shut && p->u2c.shut)) {
		pair_close(p);
		return;
	}
	watch(&p->c, (p->c2u.eof ? 0 : EPOLLIN) | (p->u2c.len ? EPOLLOUT : 0),
	      EPOLL_CTL_MOD);
	watch(&p->u, (p->u2c.eof ? 0 : EPOLLIN) | (p->c2u.len ? EPOLLOUT : 0),
	      EPOLL_CTL_MOD);
}

static void on_head(struct pair *p)
{
	ssize_t n = recv(p->c.fd, p->head + p->hl, sizeof(p->head) - 1 - p->hl,
			 MSG_DONTWAIT);
	if (n <= 0) {
		if (n < 0 && errno == EAGAIN)
			return;
		pair_close(p);
		return;
	}
	p->hl += (size_t)n;
	p->head[p->hl] = '\0';
	char *end = strstr(p->head, "\r\n\r\n");
	if (!end)
		return;
	char ip[64];
	int port;
	struct sockaddr_in to = {.sin_family = AF_INET};
	if (sscanf(p->head, "CONNECT %63[0-9.]:%d ", ip, &port) != 2 ||
	    inet_pton(AF_INET, ip, &to.sin_addr) != 1) {
		pair_close(p);
		return;
	}
	to.sin_port = htons((uint16_t)port);
	/* what came after the head goes upstream first */
	size_t after = p->hl - (size_t)(end + 4 - p->head);
	memcpy(p->c2u.b, end + 4, after);
	p->c2u.len = after;
	p->head_done = 1;
	watch(&p->c, 0, EPOLL_CTL_MOD);
	start_upstream(p, &to);
}

static void on_event(struct end *e, uint32_t ev)
{
	struct pair *p = e->p;
	(void)ev;
	if (p->dead)
		return;
	if (!e->up && !p->head_done) {
		on_head(p);
		return;
	}
	if (e->up && !p->connected) {
		int err = 0;
		socklen_t l = sizeof(err);
		getsockopt(p->u.fd, SOL_SOCKET, SO_ERROR, &err, &l);
		if (err) {
			pair_close(p);
			return;
		}
		p->connected = 1;
		if (connect_mode) {
			static const char ok[] =
			    "HTTP/1.1 200 Connection established\r\n\r\n";
			memcpy(p->u2c.b, ok, sizeof(ok) - 1);
			p->u2c.len = sizeof(ok) - 1;
		}
	}
	relay(p);
}

int main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_IGN);
	if (argc == 2 && strcmp(argv[1], "connect") == 0) {
		connect_mode = 1;
	} else if (argc == 3) {
		target.sin_family = AF_INET;
		target.sin_port = htons((uint16_t)atoi(argv[2]));
		if (inet_pton(AF_INET, argv[1], &target.sin_addr) != 1) {
			errno = EINVAL;
			die("address");
		}
	} else {
		fprintf(stderr,
			"usage: forwarder IP PORT | forwarder connect\n");
		return 2;
	}
	int ls = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof(a);
	if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(ls, 4096) < 0 ||
	    getsockname(ls, (struct sockaddr *)&a, &al) < 0)
		die("listen");
	printf("%d\n", ntohs(a.sin_port));
	fflush(stdout);
	ep = epoll_create1(EPOLL_CLOEXEC);
	struct end lend = {.fd = ls};
	watch(&lend, EPOLLIN, EPOLL_CTL_ADD);
	struct epoll_event evs[256];
	for (;;) {
		int n = epoll_wait(ep, evs, 256, -1);
		if (n < 0 && errno != EINTR)
			die("epoll_wait");
		for (int i = 0; i < n; i++) {
			struct end *e = evs[i].data.ptr;
			if (e != &lend) {
				on_event(e, evs[i].events);
				continue;
			}
			for (;;) {
				int fd = accept4(ls, NULL, NULL,
						 SOCK_NONBLOCK | SOCK_CLOEXEC);
				if (fd < 0)
					break;
				int one = 1;
				setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one,
					   sizeof(one));
				struct pair *p = calloc(1, sizeof(*p));
				p->c = (struct end){.fd = fd, .p = p, .up = 0};
				p->u = (struct end){.fd = -1, .p = p, .up = 1};
				if (connect_mode) {
					watch(&p->c, EPOLLIN, EPOLL_CTL_ADD);
				} else {
					p->head_done = 1;
					watch(&p->c, 0, EPOLL_CTL_ADD);
					start_upstream(p, &target);
				}
			}
		}
		while (graveyard) {
			struct pair *d = graveyard;
			graveyard = d->next_dead;
			free(d);
		}
	}
}
