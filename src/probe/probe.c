/* lnk-probe: what `lnk sandbox check` runs inside the sandbox it tests.
 *
 *   lnk-probe TRY...      each TRY is "ID<TAB>KIND<TAB>ARG..." (tabs)
 *
 * For each try, in order, it prints one line on stdout:
 *
 *   ID<TAB>reached<TAB>what it got     the call went through
 *   ID<TAB>refused<TAB>why             the call was refused (EACCES, EPERM,
 *                                      EROFS, ENOENT, a proxy's 403, ...)
 *   ID<TAB>error<TAB>why               it failed another way (a timeout, a
 *                                      proxy's 502)
 *
 * It only reports what happened: lnk, outside, knows what each try should
 * do and decides blocked, allowed, failed, missed, open or leaked. What it
 * got is escaped (\xNN for tabs, newlines and anything not printable) and
 * cut at 200 bytes, so a hostile file cannot forge a line of the report.
 *
 * Small and on its own (libc only): it must not bring lnk's own code into
 * the sandbox it tests. Every call is bounded by a timeout.
 *
 * Over 1000 lines: lnk-probe is a static program of its own that shares no
 * code with lnk (it runs inside the sandbox it tests), so its tries live in
 * one file.
 */
#include <arpa/inet.h>
#include <linux/magic.h>
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#define MAXWORDS 8
#define NET_TIMEOUT_MS 3000
#define BANNER_TIMEOUT_MS 700

static void put(const char *id, const char *res, const char *data, size_t n)
{
	char esc[4 * 200 + 1];
	size_t k = 0;
	for (size_t i = 0; i < n && i < 200; i++) {
		unsigned char c = (unsigned char)data[i];
		if (c >= 0x20 && c < 0x7f && c != '\\')
			esc[k++] = (char)c;
		else
			k += (size_t)snprintf(esc + k, 5, "\\x%02x", c);
	}
	esc[k] = '\0';
	printf("%s\t%s\t%s\n", id, res, esc);
	fflush(stdout);
}

static void putf(const char *id, const char *res, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void putf(const char *id, const char *res, const char *fmt, ...)
{
	char b[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(b, sizeof(b), fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	put(id, res, b, (size_t)n < sizeof(b) ? (size_t)n : sizeof(b) - 1);
}

/* The errors that mean "the sandbox said no" for files and exec. */
static bool file_refusal(int e)
{
	return e == EACCES || e == EPERM || e == EROFS || e == ENOENT ||
	       e == EBUSY || e == ENOTDIR || e == EXDEV;
}

static void report_errno(const char *id, int e, bool refusal)
{
	putf(id, refusal ? "refused" : "error", "%s",
	     strerrorname_np(e) ? strerrorname_np(e) : strerror(e));
}

static void t_read(const char *id, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		report_errno(id, errno, file_refusal(errno));
		return;
	}
	char b[200];
	ssize_t n = read(fd, b, sizeof(b));
	int e = errno;
	close(fd);
	if (n < 0)
		report_errno(id, e, file_refusal(e));
	else
		put(id, "reached", b, (size_t)n);
}

static void t_write(const char *id, const char *path, const char *text,
		    int flags)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY | flags, 0600);
	if (fd < 0) {
		report_errno(id, errno, file_refusal(errno));
		return;
	}
	ssize_t n = write(fd, text, strlen(text));
	int e = errno;
	close(fd);
	if (n < 0)
		report_errno(id, e, file_refusal(e));
	else
		putf(id, "reached", "wrote %zd bytes", n);
}

static void t_rename(const char *id, const char *from, const char *to)
{
	if (rename(from, to) < 0)
		report_errno(id, errno, file_refusal(errno));
	else
		putf(id, "reached", "renamed");
}

static void t_chmod(const char *id, const char *path, const char *mode)
{
	if (chmod(path, (mode_t)strtoul(mode, NULL, 8)) < 0)
		report_errno(id, errno, file_refusal(errno));
	else
		putf(id, "reached", "changed");
}

static void t_env(const char *id, const char *name)
{
	const char *v = getenv(name);
	if (!v)
		putf(id, "refused", "not set");
	else
		put(id, "reached", v, strlen(v));
}

/* Every descriptor above 2: what it is and the first bytes it reads. */
static void t_fds(const char *id)
{
	DIR *d = opendir("/proc/self/fd");
	if (!d) {
		report_errno(id, errno, false);
		return;
	}
	char got[400] = "";
	size_t k = 0;
	int self = dirfd(d);
	struct dirent *de;
	while ((de = readdir(d))) {
		int fd = atoi(de->d_name);
		if (fd <= 2 || fd == self || de->d_name[0] == '.')
			continue;
		char b[120];
		ssize_t n = pread(fd, b, sizeof(b) - 1, 0);
		if (n < 0)
			n = 0;
		b[n] = '\0';
		k += (size_t)snprintf(got + k, sizeof(got) - k, "fd %d: %s; ",
				      fd, b);
		if (k >= sizeof(got))
			k = sizeof(got) - 1;
	}
	closedir(d);
	if (k)
		put(id, "reached", got, k);
	else
		putf(id, "refused", "no descriptor above 2");
}

/* Processes outside: a process named comm, or an environment holding
 * token, anywhere in /proc. */
static void t_procs(const char *id, const char *comm, const char *token)
{
	DIR *d = opendir("/proc");
	if (!d) {
		report_errno(id, errno, true);
		return;
	}
	int seen = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		if (*end || pid <= 0 || pid == (long)getpid())
			continue;
		seen++;
		char path[64], b[4096];
		snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			ssize_t n = read(fd, b, sizeof(b) - 1);
			close(fd);
			if (n > 0) {
				b[n] = '\0';
				b[strcspn(b, "\n")] = '\0';
				if (strcmp(b, comm) == 0) {
					closedir(d);
					putf(id, "reached",
					     "process %ld is named %s", pid, b);
					return;
				}
			}
		}
		snprintf(path, sizeof(path), "/proc/%ld/environ", pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			ssize_t n = read(fd, b, sizeof(b) - 1);
			close(fd);
			if (n > 0 &&
			    memmem(b, (size_t)n, token, strlen(token))) {
				closedir(d);
				putf(id, "reached",
				     "process %ld has the secret: %s", pid,
				     token);
				return;
			}
		}
	}
	closedir(d);
	putf(id, "refused", "%d processes, none outside", seen);
}

/* TIOCSTI on a terminal of our own that is our controlling terminal: the
 * kernel would let it through, so only the seccomp filter can refuse it.
 * (Injecting into our own pty harms nobody; the filter refuses the call
 * whatever the terminal, which is what protects the user's.) */
static void t_tiocsti(const char *id, unsigned long cmd_high)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0) {
		report_errno(id, errno, false);
		return;
	}
	pid_t pid = fork();
	if (pid == 0) {
		int r = -1, e = 0;
		int m = posix_openpt(O_RDWR | O_NOCTTY);
		char name[64];
		if (m >= 0 && grantpt(m) == 0 && unlockpt(m) == 0 &&
		    ptsname_r(m, name, sizeof(name)) == 0 && setsid() >= 0) {
			int s = open(name, O_RDWR);
			if (s >= 0 && ioctl(s, TIOCSCTTY, 0) == 0) {
				char c = ' ';
				unsigned long cmd = cmd_high | TIOCSTI;
				r = (int)syscall(SYS_ioctl, s, cmd, &c);
				e = errno;
			} else {
				e = -errno;
			}
		} else {
			e = -errno;
		}
		int msg[2] = {r, e};
		if (write(p[1], msg, sizeof(msg)) < 0)
			_exit(1);
		_exit(0);
	}
	close(p[1]);
	int msg[2] = {0, 0};
	ssize_t n = pid > 0 ? read(p[0], msg, sizeof(msg)) : -1;
	close(p[0]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	if (n != sizeof(msg))
		putf(id, "error", "the test process did not answer");
	else if (msg[0] == 0)
		putf(id, "reached", "a byte was pushed into the terminal");
	else if (msg[1] < 0)
		putf(id, "error", "no terminal to try on: %s",
		     strerror(-msg[1]));
	else
		report_errno(id, msg[1], msg[1] == EPERM || msg[1] == EACCES);
}

/* One try of a refusal of the seccomp policy: check sends the call's
 * number and arguments (src/init/seccomp_policy.c, seccomp_try_get: the
 * policy is their one source), chosen so that the kernel itself would
 * answer differently (EINVAL, EBADF, EFAULT, or success) than the filter's
 * EPERM or ENOSYS. Anything but those two means the call reached the
 * kernel. args is six numbers separated by commas. */
static void t_sys(const char *id, const char *name, const char *nrs,
		  const char *args)
{
	long nr, a[6];
	char *end;
	const char *p = args;

	errno = 0;
	nr = strtol(nrs, &end, 10);
	bool bad = errno || end == nrs || *end || nr < 0;
	for (int i = 0; i < 6 && !bad; i++) {
		a[i] = strtol(p, &end, 0);
		bad = end == p || *end != (i < 5 ? ',' : '\0');
		p = end + 1;
	}
	if (bad) {
		putf(id, "error", "bad system call try for %s", name);
		return;
	}
	errno = 0;
	long r = syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	int e = errno;
	if (nr == SYS_clone && r == 0)
		_exit(0); /* a child the filter let through: gone at once */
	if (nr == SYS_clone && r > 0)
		waitpid((pid_t)r, NULL, __WALL);
	if (r >= 0)
		putf(id, "reached", "%s returned %ld", name, r);
	else if (e == EPERM || e == ENOSYS)
		report_errno(id, e, true);
	else
		putf(id, "reached", "%s reached the kernel (%s)", name,
		     strerrorname_np(e) ? strerrorname_np(e) : "?");
}

static int wait_fd(int fd, short ev, int ms)
{
	struct pollfd p = {.fd = fd, .events = ev};
	int r;
	while ((r = poll(&p, 1, ms)) < 0 && errno == EINTR)
		;
	return r;
}

/* Connects with a timeout. 0, or -errno (-ETIMEDOUT). */
static int connect_to(int fd, const struct sockaddr *sa, socklen_t len)
{
	if (connect(fd, sa, len) == 0)
		return 0;
	if (errno != EINPROGRESS)
		return -errno;
	if (wait_fd(fd, POLLOUT, NET_TIMEOUT_MS) <= 0)
		return -ETIMEDOUT;
	int e = 0;
	socklen_t el = sizeof(e);
	getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el);
	return -e;
}

/* Whatever the other end says within ms: its length, 0 at end of file,
 * -ETIMEDOUT when it said nothing (the connection is still up). */
static ssize_t read_some(int fd, char *b, size_t cap, int ms)
{
	size_t k = 0;
	while (k < cap) {
		if (wait_fd(fd, POLLIN, k ? 150 : ms) <= 0)
			return k ? (ssize_t)k : -ETIMEDOUT;
		ssize_t n = read(fd, b + k, cap - k);
		if (n <= 0)
			return (ssize_t)k;
		k += (size_t)n;
	}
	return (ssize_t)k;
}

static bool net_refusal(int e)
{
	return e == ECONNREFUSED || e == ENETUNREACH || e == EHOSTUNREACH ||
	       e == EACCES || e == EPERM || e == EADDRNOTAVAIL ||
	       e == EAFNOSUPPORT || e == ENOENT;
}

static int parse_addr(const char *host, const char *port,
		      struct sockaddr_storage *ss, socklen_t *len)
{
	long p = strtol(port, NULL, 10);
	memset(ss, 0, sizeof(*ss));
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
	if (inet_pton(AF_INET, host, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons((uint16_t)p);
		*len = sizeof(*a4);
		return AF_INET;
	}
	if (inet_pton(AF_INET6, host, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)p);
		*len = sizeof(*a6);
		return AF_INET6;
	}
	return -1;
}

/* The socket of a network try to host:port (nonblocking), with the
 * address in *ss; -1 after reporting the try when the address does not
 * parse or the socket is refused. */
static int try_socket(const char *id, const char *host, const char *port,
		      int type, struct sockaddr_storage *ss, socklen_t *len)
{
	int fam = parse_addr(host, port, ss, len);
	if (fam < 0) {
		putf(id, "error", "'%s' is not an address", host);
		return -1;
	}
	int fd = socket(fam, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		report_errno(id, errno, net_refusal(errno));
	return fd;
}

/* Connects fd (nonblocking) to the try's address and reads what the other
 * end says first, within BANNER_TIMEOUT_MS, into *n (read_some's answer:
 * the bytes read, or -errno, -ETIMEDOUT when nothing was said in time);
 * fd is closed either way. False after reporting a refused or failed
 * connect. */
static bool connect_read(const char *id, int fd, const struct sockaddr *sa,
			 socklen_t len, char *b, size_t cap, ssize_t *n)
{
	int r = connect_to(fd, sa, len);
	if (r < 0) {
		close(fd);
		report_errno(id, -r, net_refusal(-r));
		return false;
	}
	*n = read_some(fd, b, cap, BANNER_TIMEOUT_MS);
	close(fd);
	return true;
}

/* A direct connection, and what the other end says first. For a port the
 * sandbox forwards (--port), the connection to its own listener always
 * succeeds: only an answer, or one held open, shows it reached the host. */
static void t_tcp(const char *id, const char *host, const char *port)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd = try_socket(id, host, port, SOCK_STREAM, &ss, &len);
	if (fd < 0)
		return;
	char b[200];
	ssize_t n;
	if (!connect_read(id, fd, (struct sockaddr *)&ss, len, b, sizeof(b),
			  &n))
		return;
	if (n > 0)
		put(id, "reached", b, (size_t)n);
	else if (n == -ETIMEDOUT)
		putf(id, "reached", "connected; nothing said");
	else
		putf(id, "error", "connected, then closed at once");
}

/* A raw TCP client by name, without proxy settings: the name resolved by
 * the sandbox's resolver, then t_tcp on its first address. */
static void t_tcpname(const char *id, const char *name, const char *port)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM};
	struct addrinfo *ai = NULL;
	char a[INET6_ADDRSTRLEN] = "";
	int r = getaddrinfo(name, NULL, &hints, &ai);
	if (r != 0) {
		putf(id, "refused", "%s", gai_strerror(r));
		return;
	}
	if (ai->ai_family == AF_INET)
		inet_ntop(AF_INET,
			  &((struct sockaddr_in *)ai->ai_addr)->sin_addr, a,
			  sizeof(a));
	else if (ai->ai_family == AF_INET6)
		inet_ntop(AF_INET6,
			  &((struct sockaddr_in6 *)ai->ai_addr)->sin6_addr, a,
			  sizeof(a));
	freeaddrinfo(ai);
	t_tcp(id, a, port);
}

/* A datagram to host:port on a connected socket (DNS to another server,
 * QUIC): reached when it was sent. */
static void t_udp(const char *id, const char *host, const char *port)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd = try_socket(id, host, port, SOCK_DGRAM, &ss, &len);
	if (fd < 0)
		return;
	/* a DNS query's header: no question, nothing a server answers */
	static const char q[12] = {0x12, 0x34};
	if (connect(fd, (struct sockaddr *)&ss, len) < 0 ||
	    send(fd, q, sizeof(q), 0) < 0) {
		int e = errno;
		close(fd);
		report_errno(id, e, net_refusal(e));
		return;
	}
	close(fd);
	putf(id, "reached", "a datagram was sent");
}

/* The socket of a try to the unix socket at path ("@name": the abstract
 * name), with its address in *sa and *len; -1 after reporting the try when
 * the path is too long or the socket is refused. */
static int unix_socket(const char *id, const char *path, int type,
		       struct sockaddr_un *sa, socklen_t *len)
{
	size_t n = strlen(path);
	*sa = (struct sockaddr_un){.sun_family = AF_UNIX};
	if (n >= sizeof(sa->sun_path)) {
		putf(id, "error", "path too long");
		return -1;
	}
	memcpy(sa->sun_path, path, n);
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
	if (path[0] == '@')
		sa->sun_path[0] = '\0'; /* abstract */
	else
		(*len)++;
	int fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
	if (fd < 0)
		report_errno(id, errno, false);
	return fd;
}

/* A datagram sent straight to path (sendto, no connect). */
static void t_unixdg(const char *id, const char *path)
{
	struct sockaddr_un sa;
	socklen_t len;
	int fd = unix_socket(id, path, SOCK_DGRAM | SOCK_NONBLOCK, &sa, &len);
	if (fd < 0)
		return;
	if (sendto(fd, "x", 1, 0, (struct sockaddr *)&sa, len) < 0) {
		int e = errno;
		close(fd);
		report_errno(id, e, net_refusal(e));
		return;
	}
	close(fd);
	putf(id, "reached", "a datagram was sent");
}

static void t_unix(const char *id, const char *path)
{
	struct sockaddr_un sa;
	socklen_t len;
	int fd = unix_socket(id, path, SOCK_STREAM | SOCK_NONBLOCK, &sa, &len);
	if (fd < 0)
		return;
	char b[200];
	ssize_t k;
	if (!connect_read(id, fd, (struct sockaddr *)&sa, len, b, sizeof(b),
			  &k))
		return;
	if (k > 0)
		put(id, "reached", b, (size_t)k);
	else
		putf(id, "reached", "connected");
}

static void t_dns(const char *id, const char *name)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM};
	struct addrinfo *ai = NULL;
	int r = getaddrinfo(name, NULL, &hints, &ai);
	if (r != 0) {
		putf(id, "refused", "%s", gai_strerror(r));
		return;
	}
	char a[INET6_ADDRSTRLEN] = "?";
	if (ai->ai_family == AF_INET)
		inet_ntop(AF_INET,
			  &((struct sockaddr_in *)ai->ai_addr)->sin_addr, a,
			  sizeof(a));
	else if (ai->ai_family == AF_INET6)
		inet_ntop(AF_INET6,
			  &((struct sockaddr_in6 *)ai->ai_addr)->sin6_addr, a,
			  sizeof(a));
	freeaddrinfo(ai);
	putf(id, "reached", "%s is %s", name, a);
}

/* The proxy named by var ("http://127.0.0.1:3128"): a connected socket,
 * or -errno. */
static int proxy_connect(const char *var)
{
	const char *v = getenv(var);
	if (!v)
		return -ENOENT;
	const char *h = strstr(v, "://");
	h = h ? h + 3 : v;
	char host[128];
	const char *colon = strrchr(h, ':');
	if (!colon || (size_t)(colon - h) >= sizeof(host))
		return -EINVAL;
	memcpy(host, h, (size_t)(colon - h));
	host[colon - h] = '\0';
	char port[8];
	snprintf(port, sizeof(port), "%.*s", (int)strcspn(colon + 1, "/"),
		 colon + 1);
	struct sockaddr_storage ss;
	socklen_t len;
	char *hb = host;
	if (hb[0] == '[') {
		hb++;
		hb[strcspn(hb, "]")] = '\0';
	}
	int fam = parse_addr(hb, port, &ss, &len);
	if (fam < 0)
		return -EINVAL;
	int fd = socket(fam, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	int r = connect_to(fd, (struct sockaddr *)&ss, len);
	if (r < 0) {
		close(fd);
		return r;
	}
	return fd;
}

static int send_all(int fd, const void *b, size_t n)
{
	const char *p = b;
	while (n) {
		if (wait_fd(fd, POLLOUT, NET_TIMEOUT_MS) <= 0)
			return -ETIMEDOUT;
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		if (k > 0) {
			p += k;
			n -= (size_t)k;
		}
	}
	return 0;
}

/* Reads an HTTP head (up to the blank line), returns the status code. */
static int http_head(int fd, char *rest, size_t cap, size_t *restlen)
{
	char b[4096];
	size_t k = 0;
	*restlen = 0;
	while (k < sizeof(b) - 1) {
		if (wait_fd(fd, POLLIN, NET_TIMEOUT_MS + 2000) <= 0)
			return -ETIMEDOUT;
		ssize_t n = read(fd, b + k, sizeof(b) - 1 - k);
		if (n <= 0)
			break;
		k += (size_t)n;
		b[k] = '\0';
		char *end = strstr(b, "\r\n\r\n");
		if (end) {
			size_t body = (size_t)(end + 4 - b);
			*restlen = k - body < cap ? k - body : cap;
			memcpy(rest, end + 4, *restlen);
			break;
		}
	}
	b[k] = '\0';
	int code;
	if (sscanf(b, "HTTP/%*d.%*d %d", &code) != 1)
		return -EPROTO;
	return code;
}

static void proxy_verdict(const char *id, int fd, int code, const char *rest,
			  size_t restlen, bool tunnel)
{
	if (code == 403 || code == 407) {
		putf(id, "refused", "the proxy answered %d", code);
	} else if (code < 0) {
		report_errno(id, -code, false);
	} else if (tunnel && code != 200) {
		putf(id, "error", "the proxy answered %d", code);
	} else if (!tunnel && (code == 502 || code == 504)) {
		putf(id, "error", "the proxy answered %d", code);
	} else {
		char b[200];
		size_t k = restlen < sizeof(b) ? restlen : sizeof(b);
		memcpy(b, rest, k);
		ssize_t n =
		    read_some(fd, b + k, sizeof(b) - k, BANNER_TIMEOUT_MS);
		if (n > 0)
			k += (size_t)n;
		if (k)
			put(id, "reached", b, k);
		else
			putf(id, "reached", "the proxy answered %d", code);
	}
}

/* HTTP CONNECT target (host:port, as a program would write it). */
static void t_http(const char *id, const char *target)
{
	int fd = proxy_connect("HTTP_PROXY");
	if (fd < 0) {
		putf(id, "refused", "no HTTP proxy: %s", strerror(-fd));
		return;
	}
	char req[600];
	int n =
	    snprintf(req, sizeof(req),
		     "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target);
	int r = send_all(fd, req, (size_t)n);
	char rest[200];
	size_t restlen = 0;
	int code = r < 0 ? r : http_head(fd, rest, sizeof(rest), &restlen);
	proxy_verdict(id, fd, code, rest, restlen, true);
	close(fd);
}

/* An absolute-form request: GET http://target/ */
static void t_httpget(const char *id, const char *target)
{
	int fd = proxy_connect("HTTP_PROXY");
	if (fd < 0) {
		putf(id, "refused", "no HTTP proxy: %s", strerror(-fd));
		return;
	}
	char req[600];
	int n = snprintf(req, sizeof(req),
			 "GET http://%s/ HTTP/1.1\r\nHost: %s\r\nConnection: "
			 "close\r\n\r\n",
			 target, target);
	int r = send_all(fd, req, (size_t)n);
	char rest[200];
	size_t restlen = 0;
	int code = r < 0 ? r : http_head(fd, rest, sizeof(rest), &restlen);
	proxy_verdict(id, fd, code, rest, restlen, false);
	close(fd);
}

/* SOCKS5: atyp "ip4", "ip6" or "name". */
static void t_socks(const char *id, const char *atyp, const char *host,
		    const char *port)
{
	int fd = proxy_connect("ALL_PROXY");
	if (fd < 0) {
		putf(id, "refused", "no SOCKS proxy: %s", strerror(-fd));
		return;
	}
	unsigned char req[300];
	size_t k = 0;
	req[k++] = 5;
	req[k++] = 1;
	req[k++] = 0;
	int r = send_all(fd, req, k);
	unsigned char rep[300];
	if (r == 0 && read_some(fd, (char *)rep, 2, NET_TIMEOUT_MS) != 2)
		r = -EPROTO;
	if (r == 0 && (rep[0] != 5 || rep[1] != 0))
		r = -EPROTO;
	k = 0;
	req[k++] = 5;
	req[k++] = 1;
	req[k++] = 0;
	if (!strcmp(atyp, "ip4")) {
		req[k++] = 1;
		if (inet_pton(AF_INET, host, req + k) != 1)
			r = -EINVAL;
		k += 4;
	} else if (!strcmp(atyp, "ip6")) {
		req[k++] = 4;
		if (inet_pton(AF_INET6, host, req + k) != 1)
			r = -EINVAL;
		k += 16;
	} else {
		size_t n = strlen(host) > 255 ? 255 : strlen(host);
		req[k++] = 3;
		req[k++] = (unsigned char)n;
		memcpy(req + k, host, n);
		k += n;
	}
	uint16_t p = htons((uint16_t)strtol(port, NULL, 10));
	memcpy(req + k, &p, 2);
	k += 2;
	if (r == 0)
		r = send_all(fd, req, k);
	ssize_t n =
	    r == 0 ? read_some(fd, (char *)rep, 4, NET_TIMEOUT_MS + 2000) : r;
	if (n < 0) {
		close(fd);
		report_errno(id, (int)-n, false);
		return;
	}
	if (n < 2 || rep[0] != 5) {
		close(fd);
		putf(id, "error", "the proxy answered no SOCKS reply");
		return;
	}
	if (rep[1] == 0x02) {
		close(fd);
		putf(id, "refused", "the proxy answered: not allowed");
		return;
	}
	if (rep[1] != 0) {
		close(fd);
		putf(id, "error", "the proxy answered code %u", rep[1]);
		return;
	}
	/* The rest of the reply: its bound address, then the other end. */
	size_t need = rep[3] == 1 ? 6 : rep[3] == 4 ? 18 : 0;
	if (rep[3] == 3) {
		unsigned char l;
		if (read_some(fd, (char *)&l, 1, NET_TIMEOUT_MS) == 1)
			need = (size_t)l + 2;
	}
	if (need)
		read_some(fd, (char *)rep, need, NET_TIMEOUT_MS);
	char b[200];
	ssize_t got = read_some(fd, b, sizeof(b), BANNER_TIMEOUT_MS);
	close(fd);
	if (got > 0)
		put(id, "reached", b, (size_t)got);
	else
		putf(id, "reached", "the proxy connected it");
}

/* Runs a program (with its arguments) and says whether it could execute:
 * Landlock's execute right ([commands] allow) refuses it with EACCES. */
static void t_exec(const char *id, char **argv)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0) {
		report_errno(id, errno, false);
		return;
	}
	pid_t pid = fork();
	if (pid == 0) {
		int nul = open("/dev/null", O_RDWR);
		if (nul >= 0) {
			dup2(nul, 0);
			dup2(nul, 1);
			dup2(nul, 2);
		}
		alarm(5);
		execv(argv[0], argv);
		int e = errno;
		if (write(p[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(p[1]);
	int e = 0;
	ssize_t n = pid > 0 ? read(p[0], &e, sizeof(e)) : -1;
	close(p[0]);
	int st = 0;
	if (pid > 0)
		waitpid(pid, &st, 0);
	if (pid < 0)
		report_errno(id, errno, false);
	else if (n == sizeof(e))
		report_errno(id, e, file_refusal(e));
	else
		putf(id, "reached", "%s ran (status %d)", argv[0],
		     WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
}

/* Opens path for writing and writes nothing: a kernel setting
 * (/proc/sys, /proc/sysrq-trigger) acts only on a write, so the try is
 * harmless even where the open goes through. */
static void t_openw(const char *id, const char *path)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		report_errno(id, errno, file_refusal(errno));
		return;
	}
	close(fd);
	putf(id, "reached", "opened for writing (nothing written)");
}

/* Writes one page past the size of the file system in memory at dir, if
 * that size is at most max; a tmpfs checks a fallocate against its size
 * before it takes a page, so the try costs nothing when the bound holds.
 * A larger (or unbounded) one is reported, never filled. */
static void t_fill(const char *id, const char *dir, const char *maxs)
{
	unsigned long long max = strtoull(maxs, NULL, 10);
	struct statfs sf;
	if (statfs(dir, &sf) < 0) {
		report_errno(id, errno, false);
		return;
	}
	if (sf.f_type != TMPFS_MAGIC) {
		putf(id, "error", "%s is not a file system in memory", dir);
		return;
	}
	unsigned long long size =
	    (unsigned long long)sf.f_blocks * (unsigned long long)sf.f_bsize;
	if (size == 0 || size > max) {
		putf(id, "reached",
		     "%s holds %llu bytes (0: no bound), more than %llu; not "
		     "filled",
		     dir, size, max);
		return;
	}
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0) {
		report_errno(id, errno, false);
		return;
	}
	off_t len = (off_t)(size + (unsigned long long)sf.f_bsize);
	int r = fallocate(fd, 0, 0, len);
	int e = errno;
	close(fd);
	if (r == 0)
		putf(id, "reached", "wrote %lld bytes in %s, which holds %llu",
		     (long long)len, dir, size);
	else
		report_errno(id, e, e == ENOSPC || e == EFBIG);
}

/* The task limit a process inside sees (RLIMIT_NPROC), read, not tried:
 * refused when fork fails past at most max tasks. */
static void t_tasks(const char *id, const char *maxs)
{
	unsigned long long max = strtoull(maxs, NULL, 10);
	struct rlimit rl;
	if (getrlimit(RLIMIT_NPROC, &rl) < 0) {
		report_errno(id, errno, false);
		return;
	}
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur <= max)
		putf(id, "refused", "fork fails past %llu tasks (RLIMIT_NPROC)",
		     (unsigned long long)rl.rlim_cur);
	else if (rl.rlim_cur == RLIM_INFINITY)
		putf(id, "reached", "no task limit (RLIMIT_NPROC unlimited)");
	else
		putf(id, "reached", "RLIMIT_NPROC is %llu, more than %llu",
		     (unsigned long long)rl.rlim_cur, max);
}

/* Binds host:port in the sandbox's own network namespace, with the
 * address len bytes long (IPv6: 24 and 28 both accepted by the kernel).
 * Harmless where it goes through: the port is the sandbox's own. */
static void t_bind(const char *id, const char *host, const char *port,
		   const char *lens)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fam = parse_addr(host, port, &ss, &len);
	if (fam < 0) {
		putf(id, "error", "'%s' is not an address", host);
		return;
	}
	long want = strtol(lens, NULL, 10);
	if (want > 0 && (size_t)want <= sizeof(ss))
		len = (socklen_t)want;
	int fd = socket(fam, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		report_errno(id, errno, false);
		return;
	}
	int r = bind(fd, (struct sockaddr *)&ss, len);
	int e = errno;
	close(fd);
	if (r == 0)
		putf(id, "reached", "bound with a %u-byte address",
		     (unsigned)len);
	else
		report_errno(id, e, e == EACCES || e == EPERM);
}

/* One act per kind: w[0] is the first argument after the kind. */
struct act {
	const char *kind;
	int nargs; /* at least so many */
	void (*fn)(const char *id, char **w);
};

static void a_read(const char *id, char **w)
{
	t_read(id, w[0]);
}
static void a_create(const char *id, char **w)
{
	t_write(id, w[0], w[1], O_CREAT | O_EXCL);
}
static void a_append(const char *id, char **w)
{
	t_write(id, w[0], w[1], O_APPEND);
}
/* A file named by a descriptor (/dev/stdin) opened with O_CREAT, which
 * sends it to the guard, not the kernel. */
static void a_appendc(const char *id, char **w)
{
	t_write(id, w[0], w[1], O_CREAT | O_APPEND);
}
static void a_openw(const char *id, char **w)
{
	t_openw(id, w[0]);
}
static void a_rename(const char *id, char **w)
{
	t_rename(id, w[0], w[1]);
}
static void a_chmod(const char *id, char **w)
{
	t_chmod(id, w[0], w[1]);
}
static void a_env(const char *id, char **w)
{
	t_env(id, w[0]);
}
static void a_fds(const char *id, char **w)
{
	(void)w;
	t_fds(id);
}
static void a_procs(const char *id, char **w)
{
	t_procs(id, w[0], w[1]);
}
static void a_tiocsti(const char *id, char **w)
{
	t_tiocsti(id, w[0] ? strtoul(w[0], NULL, 16) : 0);
}
static void a_sys(const char *id, char **w)
{
	t_sys(id, w[0], w[1], w[2]);
}
static void a_tcp(const char *id, char **w)
{
	t_tcp(id, w[0], w[1]);
}
static void a_unix(const char *id, char **w)
{
	t_unix(id, w[0]);
}
static void a_unixdg(const char *id, char **w)
{
	t_unixdg(id, w[0]);
}
static void a_dns(const char *id, char **w)
{
	t_dns(id, w[0]);
}
static void a_http(const char *id, char **w)
{
	t_http(id, w[0]);
}
static void a_httpget(const char *id, char **w)
{
	t_httpget(id, w[0]);
}
static void a_socks(const char *id, char **w)
{
	t_socks(id, w[0], w[1], w[2]);
}
static void a_exec(const char *id, char **w)
{
	t_exec(id, w);
}
static void a_fill(const char *id, char **w)
{
	t_fill(id, w[0], w[1]);
}
static void a_tasks(const char *id, char **w)
{
	t_tasks(id, w[0]);
}
static void a_tcpname(const char *id, char **w)
{
	t_tcpname(id, w[0], w[1]);
}
static void a_udp(const char *id, char **w)
{
	t_udp(id, w[0], w[1]);
}
static void a_bind(const char *id, char **w)
{
	t_bind(id, w[0], w[1], w[2]);
}

/* A tool call by hand, as a program could make one: the format of
 * src/proto/toolcall.h (lnk-probe stands alone, so it is spelt here), with
 * /dev/null for the tool's three descriptors (this stdout is the report).
 * Refused: the broker's words; reached: a tool ran. */
static void t_tool(const char *id, const char *tool, const char *arg)
{
	struct sockaddr_un sa;
	socklen_t salen;
	char msg[600], r[1024];
	uint32_t v = htole32(1), n = htole32(3);
	int len, fds[3];

	int s =
	    unix_socket(id, "/run/lnk/tools.sock", SOCK_SEQPACKET, &sa, &salen);
	if (s < 0)
		return;
	if (connect(s, (struct sockaddr *)&sa, salen) < 0) {
		int e = errno;
		close(s);
		report_errno(id, e, e == ENOENT || net_refusal(e));
		return;
	}
	memcpy(msg, "LNKC", 4);
	memcpy(msg + 4, &v, 4);
	memcpy(msg + 8, &n, 4);
	len =
	    12 +
	    snprintf(msg + 12, sizeof(msg) - 12, "%s%c/%c%s", tool, 0, 0, arg) +
	    1;
	for (int i = 0; i < 3; i++)
		fds[i] = open("/dev/null", O_RDWR | O_CLOEXEC);
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(fds))];
	} ctl;
	memset(&ctl, 0, sizeof(ctl));
	struct iovec iov = {.iov_base = msg, .iov_len = (size_t)len};
	struct msghdr mh = {.msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = ctl.b,
			    .msg_controllen = sizeof(ctl.b)};
	struct cmsghdr *h = CMSG_FIRSTHDR(&mh);
	h->cmsg_level = SOL_SOCKET;
	h->cmsg_type = SCM_RIGHTS;
	h->cmsg_len = CMSG_LEN(sizeof(fds));
	memcpy(CMSG_DATA(h), fds, sizeof(fds));
	ssize_t k = sendmsg(s, &mh, MSG_NOSIGNAL);
	for (int i = 0; i < 3; i++)
		close(fds[i]);
	if (k >= 0)
		k = read_some(s, r, sizeof(r), 5000);
	close(s);
	if (k > 1 && r[0] == 'R')
		put(id, "refused", r + 1, (size_t)k - 1);
	else if (k == 2 && r[0] == 'X')
		putf(id, "reached", "the tool ran (exit status %d)",
		     (unsigned char)r[1]);
	else
		putf(id, "error", "no answer from the tools' broker");
}

static void a_tool(const char *id, char **w)
{
	t_tool(id, w[0], w[1]);
}

static const struct act acts[] = {
    {"read", 1, a_read},       {"create", 2, a_create},
    {"append", 2, a_append},   {"appendc", 2, a_appendc},
    {"openw", 1, a_openw},     {"rename", 2, a_rename},
    {"chmod", 2, a_chmod},     {"env", 1, a_env},
    {"fds", 0, a_fds},	       {"procs", 2, a_procs},
    {"tiocsti", 0, a_tiocsti}, {"sys", 3, a_sys},
    {"tcp", 2, a_tcp},	       {"unix", 1, a_unix},
    {"unixdg", 1, a_unixdg},   {"dns", 1, a_dns},
    {"http", 1, a_http},       {"httpget", 1, a_httpget},
    {"socks", 3, a_socks},     {"exec", 1, a_exec},
    {"fill", 2, a_fill},       {"tasks", 1, a_tasks},
    {"bind", 3, a_bind},       {"tcpname", 2, a_tcpname},
    {"udp", 2, a_udp},	       {"tool", 2, a_tool},
};

static void one(char *spec)
{
	char *w[MAXWORDS + 1] = {0};
	int n = 0;
	for (char *s = spec; n < MAXWORDS && s;) {
		w[n++] = s;
		s = strchr(s, '\t');
		if (s)
			*s++ = '\0';
	}
	const char *id = w[0], *k = n > 1 ? w[1] : "";
	for (size_t i = 0; i < sizeof(acts) / sizeof(acts[0]); i++) {
		if (strcmp(k, acts[i].kind) != 0)
			continue;
		if (n < acts[i].nargs + 2) {
			putf(id, "error", "%s needs %d arguments", k,
			     acts[i].nargs);
			return;
		}
		acts[i].fn(id, w + 2);
		return;
	}
	putf(id, "error", "unknown try '%s'", k);
}

int main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_IGN);
	for (int i = 1; i < argc; i++)
		one(argv[i]);
	return 0;
}
