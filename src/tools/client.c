/* lnk-tool: the client of a tool inside the sandbox, on PATH under each
 * granted tool's name (proto/toolcall.h). It sends its arguments, its working
 * folder and its stdin, stdout and stderr to the broker outside, passes on
 * the signals sent to it, and exits with the tool's status. Static, libc
 * only: it runs in every sandbox with tools, whatever libraries it has.
 *
 * It holds no secret and decides nothing: the broker trusts none of it. */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/compat.h"
#include "common/fdpass.h"
#include "proto/toolcall.h"

static int fail(const char *tool, const char *what)
{
	fprintf(stderr, "lnk: %s: %s\n", tool, what);
	return TOOLS_EXIT_REFUSED;
}

/* The tool's name: the file it was run as under TOOLS_BIN_INSIDE (a
 * program may pass any argv[0]), else argv[0]'s last part. */
static const char *tool_name(const char *argv0, char *buf, size_t cap)
{
	ssize_t n = readlink("/proc/self/exe", buf, cap - 1);
	size_t pre = strlen(TOOLS_BIN_INSIDE "/");

	if (n > 0) {
		buf[n] = '\0';
		if (strncmp(buf, TOOLS_BIN_INSIDE "/", pre) == 0 &&
		    !strchr(buf + pre, '/'))
			return buf + pre;
	}
	const char *s = strrchr(argv0, '/');
	return s ? s + 1 : argv0;
}

static void put(char **p, const char *s)
{
	size_t n = strlen(s) + 1;
	memcpy(*p, s, n);
	*p += n;
}

int main(int argc, char **argv)
{
	char exe[PATH_MAX], cwd[PATH_MAX];
	const char *tool =
	    tool_name(argc > 0 ? argv[0] : "tool", exe, sizeof(exe));
	size_t len = 12;

	if (!getcwd(cwd, sizeof(cwd)))
		snprintf(cwd, sizeof(cwd), "/");
	len += strlen(tool) + 1 + strlen(cwd) + 1;
	/* the call's strings: the tool's name, the folder, its arguments */
	if ((unsigned)argc + 1 > TOOLS_MAX_ARGS)
		return fail(tool, "the call has more than 4096 arguments: the "
				  "broker takes no more");
	for (int i = 1; i < argc; i++) {
		len += strlen(argv[i]) + 1;
		if (len > TOOLS_MAX_CALL)
			return fail(tool, "the call's arguments are larger "
					  "than 256 KiB: the broker takes no "
					  "more");
	}
	char *msg = malloc(len), *p = msg;
	if (!msg)
		return fail(tool, "out of memory");
	uint32_t v = htole32(TOOLS_VERSION), n = htole32((uint32_t)argc + 1);
	memcpy(p, TOOLS_MAGIC, 4);
	memcpy(p + 4, &v, 4);
	memcpy(p + 8, &n, 4);
	p += 12;
	put(&p, tool);
	put(&p, cwd);
	for (int i = 1; i < argc; i++)
		put(&p, argv[i]);

	/* A closed stdio descriptor is /dev/null for the tool. */
	int fds[TOOLS_NFDS];
	for (int i = 0; i < TOOLS_NFDS; i++) {
		fds[i] = i;
		if (fcntl(i, F_GETFD) < 0)
			fds[i] = open("/dev/null", i ? O_WRONLY : O_RDONLY);
	}

	/* Signals are read, not handled: each is passed on. */
	sigset_t set;
	sigemptyset(&set);
	int pass[] = {SIGINT,  SIGTERM, SIGHUP,	  SIGQUIT,
		      SIGUSR1, SIGUSR2, SIGWINCH, SIGCONT};
	for (size_t i = 0; i < sizeof(pass) / sizeof(pass[0]); i++)
		sigaddset(&set, pass[i]);
	sigaddset(&set, SIGPIPE);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sigdelset(&set, SIGPIPE);
	int sfd = sigfd_open(&set, 0);

	int s = socket_cloexec(AF_UNIX, SOCK_SEQPACKET, 0, 0);
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", TOOLS_SOCK_INSIDE);
	if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof(a)) < 0) {
		char m[200];
		snprintf(m, sizeof(m),
			 "cannot reach the sandbox's tools at %s: %s",
			 TOOLS_SOCK_INSIDE, strerror(errno));
		return fail(tool, m);
	}
	int sr = fd_send(s, fds, TOOLS_NFDS, msg, len);
	if (sr < 0) {
		char m[200];
		snprintf(m, sizeof(m), "cannot send the call: %s",
			 strerror(-sr));
		return fail(tool, m);
	}
	free(msg);

	for (;;) {
		struct pollfd pf[2] = {{.fd = s, .events = POLLIN},
				       {.fd = sfd, .events = POLLIN}};
		if (poll(pf, sfd >= 0 ? 2 : 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			return fail(tool, "cannot wait for the tool");
		}
		if (sfd >= 0 && pf[1].revents) {
			int sig = sigfd_next(sfd);
			if (sig > 0) {
				unsigned char m[2] = {'S', (unsigned char)sig};
				(void)send(s, m, 2, MSG_NOSIGNAL);
			}
		}
		if (!pf[0].revents)
			continue;
		char r[4096];
		ssize_t got = recv(s, r, sizeof(r) - 1, 0);
		if (got <= 0)
			return fail(tool, "the sandbox's tools ended the call");
		if (r[0] == 'X' && got == 2)
			return (unsigned char)r[1];
		if (r[0] == 'R') {
			r[got] = '\0';
			/* The broker's own words; printable already. */
			return fail(tool, r + 1);
		}
	}
}
