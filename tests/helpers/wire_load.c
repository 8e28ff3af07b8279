/* wire_load: a small load generator and server for bench/wire_bench.py, in
 * C so that the figures measure the wire, not a Python client or server.
 *
 *   wire_load serve SIZE          listens on 127.0.0.1:0, prints its port,
 *                                 then serves: 'G' -> SIZE bytes (sendfile
 *                                 from a sparse memfd: page-cache zeros),
 *                                 'I' -> held until the client closes,
 *                                 anything else -> one byte back, close
 *   wire_load get PORT            one download; prints "BYTES SECONDS"
 *   wire_load conn PORT CONC N    N connect/ask/answer/close round trips on
 *                                 CONC threads; prints connections/s
 *   wire_load idle PORT N PID     holds N connections, then prints
 *                                 "HELD RSS_KIB" (PID's VmRSS)
 *
 * Loopback, unless WIRE_LOAD_ADDR names another IPv4 address to serve on
 * and dial (bench/transparent.sh: a test host in 198.18.0.0/15); with
 * WIRE_LOAD_PROXY=IP:PORT a client asks that HTTP proxy to CONNECT to it
 * first. A benchmark helper: errors print and exit 1. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void die(const char *what)
{
	fprintf(stderr, "wire_load: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void load_addr(struct sockaddr_in *a)
{
	const char *s = getenv("WIRE_LOAD_ADDR");
	a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (s && inet_pton(AF_INET, s, &a->sin_addr) != 1) {
		errno = EINVAL;
		die("WIRE_LOAD_ADDR");
	}
}

static int dial(int port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_port = htons((uint16_t)port)};
	load_addr(&a);
	const char *proxy = getenv("WIRE_LOAD_PROXY");
	struct sockaddr_in p = {.sin_family = AF_INET};
	if (proxy) {
		char ip[32];
		int pp = 0;
		if (sscanf(proxy, "%31[0-9.]:%d", ip, &pp) != 2 ||
		    inet_pton(AF_INET, ip, &p.sin_addr) != 1) {
			errno = EINVAL;
			die("WIRE_LOAD_PROXY");
		}
		p.sin_port = htons((uint16_t)pp);
	}
	if (fd < 0 ||
	    connect(fd, (struct sockaddr *)(proxy ? &p : &a), sizeof(a)) < 0)
		die("connect");
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (proxy) {
		char req[128], ip[32], b[256];
		inet_ntop(AF_INET, &a.sin_addr, ip, sizeof(ip));
		int n =
		    snprintf(req, sizeof(req),
			     "CONNECT %s:%d HTTP/1.1\r\nHost: %s:%d\r\n\r\n",
			     ip, port, ip, port);
		if (send(fd, req, (size_t)n, MSG_NOSIGNAL) != n)
			die("CONNECT");
		/* the answer, to its blank line, one byte at a time */
		size_t got = 0;
		while (got < sizeof(b) - 1) {
			if (recv(fd, b + got, 1, 0) != 1)
				die("CONNECT answer");
			got++;
			if (got >= 4 && memcmp(b + got - 4, "\r\n\r\n", 4) == 0)
				break;
		}
		if (got < 12 || memcmp(b + 9, "200", 3) != 0) {
			errno = EPROTO;
			die("CONNECT refused");
		}
	}
	return fd;
}

/* ---- the server ---- */

static long long g_size;
static int g_payload;

static void *send_big(void *arg)
{
	int fd = (int)(long)arg;
	off_t off = 0;
	while (off < g_size) {
		ssize_t n =
		    sendfile(fd, g_payload, &off, (size_t)(g_size - off));
		if (n <= 0)
			break;
	}
	close(fd);
	return NULL;
}

static int serve(long long size)
{
	g_size = size;
	g_payload = memfd_create("payload", MFD_CLOEXEC);
	if (g_payload < 0 || ftruncate(g_payload, size) < 0)
		die("memfd");
	int ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	struct sockaddr_in a = {.sin_family = AF_INET};
	load_addr(&a);
	socklen_t al = sizeof(a);
	if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(ls, 4096) < 0 ||
	    getsockname(ls, (struct sockaddr *)&a, &al) < 0)
		die("listen");
	printf("%d\n", ntohs(a.sin_port));
	fflush(stdout);
	int ep = epoll_create1(EPOLL_CLOEXEC);
	struct epoll_event ev = {.events = EPOLLIN, .data.fd = ls};
	epoll_ctl(ep, EPOLL_CTL_ADD, ls, &ev);
	struct epoll_event evs[256];
	for (;;) {
		int n = epoll_wait(ep, evs, 256, -1);
		for (int i = 0; i < n; i++) {
			int fd = evs[i].data.fd;
			if (fd == ls) {
				int c;
				while ((c = accept4(ls, NULL, NULL,
						    SOCK_CLOEXEC |
							SOCK_NONBLOCK)) >= 0) {
					struct epoll_event ce = {
					    .events = EPOLLIN, .data.fd = c};
					epoll_ctl(ep, EPOLL_CTL_ADD, c, &ce);
				}
				continue;
			}
			char b;
			ssize_t r = recv(fd, &b, 1, 0);
			if (r < 0 && errno == EAGAIN)
				continue;
			epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL);
			if (r == 1 && b == 'G') {
				/* the download gets a blocking socket and a
				 * thread of its own */
				int fl = fcntl(fd, F_GETFL);
				fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
				pthread_t t;
				if (pthread_create(&t, NULL, send_big,
						   (void *)(long)fd) != 0)
					close(fd);
				else
					pthread_detach(t);
				continue;
			}
			if (r == 1 && b == 'I') {
				/* held: the fd stays open, unwatched, until
				 * the client closes (the process ends) */
				continue;
			}
			if (r == 1)
				(void)!send(fd, "!", 1, MSG_NOSIGNAL);
			close(fd);
		}
	}
	return 0;
}

/* ---- the clients ---- */

static int get(int port)
{
	static char buf[1 << 20];
	double t = now();
	int fd = dial(port);
	if (send(fd, "G", 1, MSG_NOSIGNAL) != 1)
		die("send");
	long long n = 0;
	for (;;) {
		ssize_t r = recv(fd, buf, sizeof(buf), 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			die("recv");
		if (r == 0)
			break;
		n += r;
	}
	printf("%lld %.6f\n", n, now() - t);
	return 0;
}

static atomic_long g_left;
static int g_port;

static void *conn_worker(void *arg)
{
	(void)arg;
	while (atomic_fetch_sub(&g_left, 1) > 0) {
		int fd = dial(g_port);
		char b;
		if (send(fd, "x", 1, MSG_NOSIGNAL) != 1 ||
		    recv(fd, &b, 1, 0) != 1)
			die("round trip");
		close(fd);
	}
	return NULL;
}

static int conn(int port, int conc, long total)
{
	g_port = port;
	atomic_store(&g_left, total);
	pthread_t *t = calloc((size_t)conc, sizeof(*t));
	double t0 = now();
	for (int i = 0; i < conc; i++)
		pthread_create(&t[i], NULL, conn_worker, NULL);
	for (int i = 0; i < conc; i++)
		pthread_join(t[i], NULL);
	printf("%.0f\n", (double)total / (now() - t0));
	free(t);
	return 0;
}

static long rss_kib(int pid)
{
	char path[64], line[256];
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	FILE *f = fopen(path, "re");
	long v = 0;
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld", &v) == 1)
			break;
	fclose(f);
	return v;
}

static int idle(int port, int n, int pid)
{
	struct rlimit rl = {(rlim_t)n + 64, (rlim_t)n + 64};
	setrlimit(RLIMIT_NOFILE, &rl);
	int held = 0;
	for (int i = 0; i < n; i++) {
		int fd = dial(port);
		if (send(fd, "I", 1, MSG_NOSIGNAL) != 1)
			break;
		held++;
	}
	usleep(1500 * 1000);
	/* every tunnel still open: a peek finds no end of stream */
	printf("%d %ld\n", held, pid > 0 ? rss_kib(pid) : 0);
	return 0;
}

int main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_IGN);
	if (argc == 3 && strcmp(argv[1], "serve") == 0)
		return serve(atoll(argv[2]));
	if (argc == 3 && strcmp(argv[1], "get") == 0)
		return get(atoi(argv[2]));
	if (argc == 5 && strcmp(argv[1], "conn") == 0)
		return conn(atoi(argv[2]), atoi(argv[3]), atol(argv[4]));
	if (argc == 5 && strcmp(argv[1], "idle") == 0)
		return idle(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
	fprintf(stderr, "usage: wire_load serve SIZE | get PORT | conn PORT "
			"CONC N | idle PORT N PID\n");
	return 2;
}
