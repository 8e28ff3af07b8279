/* lnk-wire-harness: runs the wire for one command in a network namespace
 * of its own, the way `lnk sandbox run` does but without bwrap, so the
 * wire's tests and benchmarks can drive real clients through it.
 *
 *   lnk-wire-harness --name N --db PATH [--home DIR] [--internet-host P]...
 *       [--lan-host H]... [--port P]... [--http-port N] [--socks-port N]
 *       -- CMD ARGS...
 *
 * The command runs in a new network namespace (a new user namespace too
 * when not root) with loopback only, its listeners handed to the wire
 * with handoff_send exactly as lnk-init does, and the proxy variables of
 * wire_plan_env in its environment. Exits with the command's status.
 * With --home, the wire also registers and serves its control socket
 * under DIR/.lnk, as under `lnk sandbox run`. */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "net/grammar.h"
#include "proto/handoff.h"
#include "wire/wire.h"

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int r = write_all(fd, s, strlen(s));
	close(fd);
	return r;
}

static int enter_netns(void)
{
	uid_t uid = getuid();
	gid_t gid = getgid();
	if (geteuid() == 0) {
		if (unshare(CLONE_NEWNET) < 0)
			return -errno;
	} else {
		if (unshare(CLONE_NEWUSER | CLONE_NEWNET) < 0)
			return -errno;
		char m[64];
		snprintf(m, sizeof(m), "%u %u 1\n", uid, uid);
		write_file("/proc/self/setgroups", "deny");
		if (write_file("/proc/self/uid_map", m) < 0)
			return -errno;
		snprintf(m, sizeof(m), "%u %u 1\n", gid, gid);
		write_file("/proc/self/gid_map", m);
	}
	/* loopback up: 127.0.0.1 and ::1 */
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct ifreq ifr = {0};
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (s < 0 || ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
		return -errno;
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
		return -errno;
	close(s);
	return 0;
}

static uint16_t num(const char *s)
{
	uint16_t v;
	if (port_parse(s, strlen(s), &v) < 0)
		diex(LNK_EXIT_USAGE, "'%s' is not a port: give " PORT_RULE, s);
	return v;
}

int main(int argc, char **argv)
{
	struct strv hosts = {0}, lan = {0};
	uint16_t ports[64];
	size_t nports = 0;
	const char *name = "harness", *db = NULL, *home = NULL;
	uint16_t http = 0, socks = 0;
	int i;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--") == 0) {
			i++;
			break;
		}
		if (i + 1 >= argc)
			diex(LNK_EXIT_USAGE, "'%s' needs a value", a);
		const char *v = argv[++i];
		if (strcmp(a, "--name") == 0)
			name = v;
		else if (strcmp(a, "--db") == 0)
			db = v;
		else if (strcmp(a, "--home") == 0)
			home = v;
		else if (strcmp(a, "--internet-host") == 0)
			strv_push(&hosts, v);
		else if (strcmp(a, "--lan-host") == 0)
			strv_push(&lan, v);
		else if (strcmp(a, "--port") == 0 && nports < 64)
			ports[nports++] = num(v);
		else if (strcmp(a, "--http-port") == 0)
			http = num(v);
		else if (strcmp(a, "--socks-port") == 0)
			socks = num(v);
		else
			diex(LNK_EXIT_USAGE, "unknown option '%s'", a);
	}
	if (!db || i >= argc)
		diex(LNK_EXIT_USAGE,
		     "usage: lnk-wire-harness --db PATH [grants] -- CMD...");
	struct wire_plan wp;
	struct lnk_err err = {0};
	if (wire_plan_make(name, db, &hosts, &lan, ports, nports, &wp, &err) <
	    0)
		diex(LNK_EXIT_FAIL, "%s", err.msg);
	if (home)
		wp.home = xstrdup(home);
	if (http)
		wp.http_port = http;
	if (socks)
		wp.socks_port = socks;

	int sp[2], life[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0 ||
	    pipe2(life, O_CLOEXEC) < 0)
		diex(LNK_EXIT_FAIL, "cannot make sockets: %s", strerror(errno));
	pid_t wpid;
	if (wire_start(&wp, sp[0], life[0], &wpid, &err) < 0)
		diex(LNK_EXIT_FAIL, "%s", err.msg);
	close(sp[0]);
	close(life[0]);

	pid_t child = fork();
	if (child < 0)
		diex(LNK_EXIT_FAIL, "fork: %s", strerror(errno));
	if (child == 0) {
		close(life[1]);
		int r = enter_netns();
		if (r < 0)
			diex(LNK_EXIT_FAIL,
			     "cannot make a network namespace: %s",
			     strerror(-r));
		struct init_listener *l;
		size_t n;
		wire_plan_listeners(&wp, &l, &n);
		if (handoff_send(sp[1], l, n, NULL, NULL, NULL, &err) < 0)
			diex(LNK_EXIT_FAIL, "%s", err.msg);
		close(sp[1]);
		struct strv env = {0};
		wire_plan_env(&wp, &env);
		for (size_t k = 0; k < env.n; k++)
			putenv(xstrdup(env.v[k]));
		execvp(argv[i], argv + i);
		diex(LNK_EXIT_NOT_FOUND, "cannot run '%s': %s", argv[i],
		     strerror(errno));
	}
	close(sp[1]);
	int st = 0;
	while (waitpid(child, &st, 0) < 0 && errno == EINTR)
		;
	close(life[1]); /* the wire ends with its sandbox */
	int wst = 0;
	while (waitpid(wpid, &wst, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(wst) || WEXITSTATUS(wst) != 0)
		fprintf(stderr, "lnk-wire-harness: the wire ended badly (%d)\n",
			wst);
	wire_plan_free(&wp);
	strv_free(&hosts);
	strv_free(&lan);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}
