/* lnk-init: runs inside bubblewrap as the sandbox's pid 1 (--as-pid-1),
 * before the program.
 *
 *   /run/lnk/init --config-fd N
 *
 * bwrap starts it in the sandbox's namespaces; it reads its whole
 * configuration from the sealed memfd N (made by lnk with initcfg_encode),
 * then, in this order (docs/design.md, "The processes of one run"):
 *
 *   1. the wire's listening sockets, made here in the sandbox's network
 *      namespace and handed out on wire_fd;
 *   2. PR_SET_NO_NEW_PRIVS;
 *   3. Landlock;
 *   4. seccomp, last (with the guard, whenever a folder is granted, its
 *      listener goes out on guard_fd);
 *   5. close every descriptor above 2 but the lifeline (a pipe that hangs
 *      up when lnk dies: then the sandbox ends, reaper.c), wait for lnk's
 *      go-ahead on it (its one byte, once the sandbox is in the
 *      registry; with cgroup v1 limits, take the sandbox's cgroup that
 *      lnk sent on the guard's socket before it), then fork: the
 *      child (confined by 1-4, inherited) enters a Landlock domain nested in this one, takes a
 *      process group of its own, chdirs and execs the program; without
 *      a network grant, a second child serves the sandbox's lookups
 *      (resolver.h) on the sockets of step 1 that lnk bound, forked at
 *      the first lookup; this
 *      process stays as pid 1, reaps, forwards lnk's signals and exits
 *      with the program's status (reaper.c says why it is safe).
 *
 * Fail closed: if any layer cannot be applied, the program is not run.
 * Exit codes: the program's status (128+N when signal N ended it); 125
 * lnk's own failure (a layer, the config), 126 the program cannot be
 * executed, 127 it is not there.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>

#include <time.h>
#include <unistd.h>

#include "common/esc.h"
#include "common/fdpass.h"
#include "common/util.h"
#include "init/exec.h"
#include "proto/initcfg.h"
#include "confine/layers.h"
#include "init/landlock.h"
#include "init/pins.h"
#include "init/reaper.h"
#include "init/relro.h"
#include "init/resolver.h"
#include "init/seccomp_policy.h"
#include "proto/handoff.h"

__attribute__((noreturn)) static void fail_layer(const char *layer,
						 const struct lnk_err *err)
{
	fprintf(stderr,
		"lnk: the sandbox cannot apply %s: %s; see 'lnk sandbox "
		"ready'\n",
		layer, err->msg);
	exit(LNK_EXIT_FAIL);
}

/* Each folder and entry bwrap bound by path is the one lnk checked, and
 * is bound there (init/pins.h), or the program never runs. */
static void check_pins(const struct init_config *c)
{
	for (size_t i = 0; i < c->npins; i++) {
		const struct init_pin *p = &c->pins[i];
		if (pin_holds(p))
			continue;
		char q[PATH_MAX + 16];
		esc_to(q, sizeof(q), p->path);
		fprintf(stderr,
			"lnk: '%s' was replaced while the sandbox was made "
			"(a link or another folder put in its place, perhaps "
			"by a program of another sandbox with --write "
			"there): the program was not started; look at what "
			"is there, and run again\n",
			q);
		exit(LNK_EXIT_FAIL);
	}
}

static int parse_fd(const char *s, int *fd)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 3 || v > INITCFG_MAX_FD)
		return -EINVAL;
	*fd = (int)v;
	return 0;
}

/* The memfd was written by lnk, so its offset is at the end: read by
 * position, never from the current offset. */
static int read_config(int fd, char **out, size_t *len, struct lnk_err *err)
{
	struct stat st;
	char *data;
	size_t n, got = 0;

	if (fstat(fd, &st) < 0)
		return err_set(err, -errno, "cannot read the init config: %s",
			       strerror(errno));
	if (!S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    (uint64_t)st.st_size > INITCFG_MAX_BYTES)
		return err_set(err, -EINVAL,
			       "the init config descriptor is not a config "
			       "(%lld bytes)",
			       (long long)st.st_size);
	n = (size_t)st.st_size;
	data = xmalloc(n);
	while (got < n) {
		ssize_t r = pread(fd, data + got, n - got, (off_t)got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			int e = r < 0 ? errno : EIO;
			free(data);
			return err_set(err, -e,
				       "cannot read the init config: %s",
				       strerror(e));
		}
		got += (size_t)r;
	}
	*out = data;
	*len = n;
	return 0;
}

/* Whether lnk's answer on the lifeline is already a no ('n', or lnk
 * gone), without waiting for one. A 'y' read here is not needed again:
 * the caller fails either way. */
static bool lnk_said_no(int lifeline)
{
	struct pollfd pf = {.fd = lifeline, .events = POLLIN};
	char go = 0;
	if (lifeline < 0 || poll(&pf, 1, 0) != 1)
		return false;
	return read(lifeline, &go, 1) != 1 || go != 'y';
}

static void hand_off_listeners(const struct init_config *c, int dns[2],
			       struct handoff_low *low, size_t *nlow)
{
	struct lnk_err err = {0};

	if (c->wire_fd < 0)
		return;
	/* Made here, before any restriction, in the sandbox's own network
	 * namespace; the wire accepts on them directly (src/proto/handoff.h).
	 * A listener that cannot be made fails closed: a program whose
	 * proxy nobody listens on would fail in confusing ways. */
	if (c->nlisteners &&
	    handoff_send(c->wire_fd, c->listeners, c->nlisteners,
			 c->resolver ? dns : NULL, low, nlow, &err) < 0) {
		/* lnk may have refused the run already (a name taken, found
		 * while bwrap made the sandbox: its keeper, which would take
		 * these, was then never started): its reason is the one to
		 * read, not this consequence of it. */
		if (lnk_said_no(c->lifeline_fd))
			exit(LNK_EXIT_FAIL);
		fail_layer("the network listeners", &err);
	}
	close(c->wire_fd);
}

/* Whether fd is ready for the program: a datagram socket bound, a
 * stream socket listening. */
static bool low_ready(const struct handoff_low *low)
{
	if (low->dgram) {
		struct sockaddr_in sa;
		socklen_t sl = sizeof(sa);
		return getsockname(low->fd, (struct sockaddr *)&sa, &sl) == 0 &&
		       sa.sin_port != 0;
	}
	int on = 0;
	socklen_t l = sizeof(on);
	return getsockopt(low->fd, SOL_SOCKET, SO_ACCEPTCONN, &on, &l) == 0 &&
	       on;
}

/* The --port listeners below the unprivileged ports and the resolver's
 * sockets went to the wire, or to lnk, unbound, for the keeper (or lnk)
 * to bind (handoff.h): the program starts only once each is bound and
 * listens, or a connect or a lookup in its first moment would meet a
 * closed port and fail at once. They are bound in milliseconds;
 * bounded, and one that never is ends the run with a reason. pid 1's
 * copies are closed here. */
static void low_ports_listening(struct handoff_low *low, size_t n)
{
	int64_t end = mono_ms() + 5000;
	for (size_t i = 0; i < n; i++) {
		bool on = false;
		while (low[i].fd >= 0 && !(on = low_ready(&low[i])) &&
		       mono_ms() < end) {
			const struct timespec t = {.tv_nsec = 1000000};
			nanosleep(&t, NULL);
		}
		if (low[i].fd >= 0)
			close(low[i].fd);
		if (!on) {
			struct lnk_err err = {0};
			err_set(&err, -EADDRNOTAVAIL,
				"the wire did not listen on the sandbox's "
				"127.0.0.1 port %u",
				low[i].port);
			fail_layer("the network listeners", &err);
		}
	}
}

/* The Landlock ABI the domain was made with, or 0 when waived. */
static int apply_landlock(const struct init_config *c)
{
	struct lnk_err err = {0};
	int r = landlock_apply(c, &err);

	if (r >= 0)
		return r;
	/* Only "this kernel has no Landlock" may be waived, and only when
	 * lnk was told to (the mounts still hold the same grants). A
	 * Landlock that exists but fails is never waived. */
	if ((r == -ENOSYS || r == -EOPNOTSUPP) && c->landlock_optional)
		return 0;
	fail_layer("landlock", &err);
}

/* Returns the guard's socket when the sandbox's cgroup is still to come
 * on it (cgroup_on_guard: recv_cgroup), else -1 (closed, or none). */
static int apply_seccomp(const struct init_config *c)
{
	struct lnk_err err = {0};
	int listener = -1, r;

	/* The supervisor connects the program's unix sockets only to
	 * sockets bound in this network namespace: it asks the kernel
	 * which those are on a sock_diag socket made here (it cannot make
	 * one in our namespace itself). Without it, every pathname connect
	 * is refused (fail closed), nothing else. */
	int fds[2] = {-1, -1};
	size_t nfds = 1;
	enum seccomp_notify mode = (enum seccomp_notify)(
	    (c->dot_guard	? SN_ALL
	     : c->connect_guard ? SN_CONNECT
				: SN_NONE) |
	    (c->exec_guard ? SN_EXEC : 0) | (c->guard_fd >= 0 ? SN_ATTR : 0));
	if (mode != SN_NONE) {
		fds[1] = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC,
				NETLINK_SOCK_DIAG);
		if (fds[1] >= 0)
			nfds = 2;
	}
	r = seccomp_policy_install(mode, &listener, &err);
	if (r < 0)
		fail_layer("seccomp", &err);
	if (mode != SN_NONE) {
		fds[0] = listener;
		r = fd_send(c->guard_fd, fds, nfds, "L", 1);
		/* The program must never hold its own listener: it could
		 * answer its own creations. */
		close(listener);
		if (fds[1] >= 0)
			close(fds[1]);
		if (r < 0) {
			err_set(&err, r,
				"cannot hand the listener to the supervisor: "
				"%s",
				strerror(-r));
			fail_layer("the dot-file guard", &err);
		}
		if (c->cgroup_on_guard)
			return c->guard_fd;
		close(c->guard_fd);
	}
	return -1;
}

/* The sandbox's cgroups, sent by lnk on the guard's socket before its
 * go-ahead (init_config.cgroup_on_guard): "C" with the tasks file of each
 * hierarchy, one or two. They are the only descriptors that come into the
 * sandbox from outside after bwrap: each must be a file of a cgroup file
 * system, and the program's process uses it once, to move itself in, and
 * closes it before anything of the program runs. Already queued when the
 * go-ahead has come, so it never waits: missing, the program never runs. */
static int recv_cgroup(int sock, int cgroup[2], struct lnk_err *err)
{
	struct pollfd pf = {.fd = sock, .events = POLLIN};
	int fds[2] = {-1, -1};
	size_t n = 2;
	char tag = 0;

	if (sock < 0 || poll(&pf, 1, 0) != 1 || !(pf.revents & POLLIN))
		return err_set(err, -EPROTO, "lnk sent none");
	ssize_t r = fd_recv(sock, fds, &n, &tag, 1);
	bool ok = r == 1 && tag == 'C' && n >= 1;
	for (size_t i = 0; ok && i < n; i++) {
		struct statfs sf;
		ok = fstatfs(fds[i], &sf) == 0 &&
		     (sf.f_type == CGROUP_SUPER_MAGIC ||
		      sf.f_type == CGROUP2_SUPER_MAGIC);
	}
	if (!ok) {
		for (size_t i = 0; r > 0 && i < n; i++)
			close(fds[i]);
		return err_set(err, -EPROTO,
			       "lnk's message is not the cgroup's files");
	}
	cgroup[0] = fds[0];
	cgroup[1] = n > 1 ? fds[1] : -1;
	return 0;
}

/* The forked child: the program's own Landlock domain and process group,
 * then init_exec. Exit codes as the top says. */
__attribute__((noreturn)) static void
run_program(const struct init_config *c, int abi, int tty, const int cgroup[2])
{
	struct lnk_err err = {0};
	enum init_exec_stage stage;
	int r;

	/* First, into the sandbox's cgroups (cgroup v1): everything the
	 * program does, from its exec on, is counted there ("0": this
	 * process, one thread). It fails closed: a program outside its
	 * limits never runs. */
	for (int i = 0; i < 2; i++) {
		if (cgroup[i] < 0)
			continue;
		if (write(cgroup[i], "0", 1) != 1) {
			err_set(&err, -errno, "cannot move into it: %s",
				strerror(errno));
			fail_layer("the sandbox's cgroup", &err);
		}
		close(cgroup[i]);
	}
	/* Only pid 1 watches the lifeline (also close-on-exec). */
	if (c->lifeline_fd >= 0)
		close(c->lifeline_fd);
	if (reaper_child_setup(abi, tty, &err) < 0)
		fail_layer("the program's process", &err);
	r = init_exec(c, &stage, &err);
	switch (stage) {
	case INIT_EXEC_FDS:
		fail_layer("the descriptor cleanup", &err);
	case INIT_EXEC_CWD:
		fprintf(stderr, "lnk: %s\n", err.msg);
		exit(LNK_EXIT_FAIL);
	case INIT_EXEC_EXECVE:
		break;
	}
	fprintf(stderr, "lnk: %s\n", err.msg);
	exit(r == -ENOENT ? LNK_EXIT_NOT_FOUND : LNK_EXIT_CANNOT_EXEC);
}

int main(int argc, char **argv)
{
	struct init_config cfg;
	struct lnk_err err = {0};
	char *data = NULL;
	size_t len = 0;
	int abi, fd, lifeline, r, sig, tty;
	pid_t pid;

	/* First: no signal from lnk may be lost, and nothing may trace us. */
	reaper_init();
	/* Then, before any input is read: the relocated data read-only. */
	if ((r = relro_protect()) < 0) {
		err_set(&err, r, "read-only relocations: %s", strerror(-r));
		fail_layer("its own memory's protection", &err);
	}
	if (argc != 3 || strcmp(argv[1], "--config-fd") != 0 ||
	    parse_fd(argv[2], &fd) < 0) {
		fprintf(stderr, "usage: lnk-init --config-fd N (run by lnk "
				"inside the sandbox, not by hand)\n");
		return LNK_EXIT_USAGE;
	}
	if (read_config(fd, &data, &len, &err) < 0)
		fail_layer("its configuration", &err);
	close(fd);
	r = initcfg_decode(data, len, &cfg, &err);
	free(data);
	if (r < 0)
		fail_layer("its configuration", &err);
	/* lnk died while bwrap was making the sandbox (bwrap's
	 * --die-with-parent can miss that): nobody is left to stop the
	 * program, so it never starts (invariant 5). */
	if (reaper_lifeline_lost(cfg.lifeline_fd))
		return 128 + SIGKILL;
	check_pins(&cfg);

	int dns[2] = {-1, -1};
	struct handoff_low low[HANDOFF_LOW_MAX];
	size_t nlow = 0;
	hand_off_listeners(&cfg, dns, low, &nlow);
	if ((r = confine_no_new_privs()) < 0) {
		err_set(&err, r, "%s", strerror(-r));
		fail_layer("no_new_privs", &err);
	}
	abi = apply_landlock(&cfg);
	int guard = apply_seccomp(&cfg);
	/* pid 1 keeps no descriptor but the lifeline (and the guard's socket
	 * until the cgroup has come on it, the resolver's sockets until it
	 * is forked, the low --port sockets until they listen): the program
	 * must not reach one through it either (invariant 4); all are
	 * close-on-exec. */
	int keep[4 + HANDOFF_LOW_MAX] = {cfg.lifeline_fd, guard, dns[0],
					 dns[1]};
	for (size_t i = 0; i < nlow; i++)
		keep[4 + i] = low[i].fd;
	if (reaper_close_fds(keep, 4 + nlow, &err) < 0)
		fail_layer("the descriptor cleanup", &err);
	if (reaper_lifeline_arm(cfg.lifeline_fd, &err) < 0)
		fail_layer("the lifeline", &err);

	/* lnk's go-ahead, its one byte on the lifeline: 'y' once the
	 * sandbox is in the registry (so `stop` and the log find it by its
	 * name before the program runs). 'n' (its name refused: lnk says
	 * why) or none (lnk died) and the program never starts. */
	if ((r = reaper_lifeline_wait(cfg.lifeline_fd)) < 0)
		return r == -EPERM ? LNK_EXIT_FAIL : 128 + SIGKILL;
	/* lnk was told to stop while the sandbox was being made: the
	 * program never starts, and lnk reports the signal (128+N). */
	if ((sig = reaper_stop_requested()) > 0)
		return 128 + sig;
	/* after lnk's yes only: a run lnk refused never started the keeper
	 * that binds them, and lnk's reason is the one to read */
	low_ports_listening(low, nlow);
	/* Checked again last: lnk may have died while init confined itself. */
	if (reaper_lifeline_lost(cfg.lifeline_fd))
		return 128 + SIGKILL;
	int cgroup[2] = {-1, -1};
	if (cfg.cgroup_on_guard && recv_cgroup(guard, cgroup, &err) < 0)
		fail_layer("the sandbox's cgroup", &err);
	if (guard >= 0)
		close(guard);

	/* The sandbox's tasks, where no cgroup limits them: the kernel
	 * counts RLIMIT_NPROC per user namespace, so this is the count of
	 * this sandbox alone (launch/limits.h). Hard too: raising it needs
	 * CAP_SYS_RESOURCE. */
	if (cfg.nproc) {
		struct rlimit rl = {cfg.nproc, cfg.nproc};
		if (setrlimit(RLIMIT_NPROC, &rl) < 0) {
			err_set(&err, -errno, "%s", strerror(errno));
			fail_layer("the task limit", &err);
		}
	}

	tty = reaper_foreground_tty();
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		err_set(&err, -errno, "cannot fork: %s", strerror(errno));
		fail_layer("the program's process", &err);
	}
	if (pid == 0)
		run_program(&cfg, abi, tty, cgroup);
	/* The resolver is forked at the first lookup, which waits in the
	 * sockets lnk bound meanwhile; at once if pid 1 cannot watch them. */
	struct resolver_watch rw = {.dns = {dns[0], dns[1]}, .abi = abi};
	if (cfg.resolver && resolver_arm(&rw) < 0)
		resolver_start(&rw);
	if (!cfg.resolver)
		for (int i = 0; i < 2; i++)
			if (dns[i] >= 0)
				close(dns[i]);
	for (int i = 0; i < 2; i++)
		if (cgroup[i] >= 0)
			close(cgroup[i]);
	/* The program's argv and environment are its own business. */
	lifeline = cfg.lifeline_fd;
	char *temp_home = cfg.temp_home;
	bool cfg_resolver = cfg.resolver;
	cfg.temp_home = NULL;
	initcfg_free(&cfg);
	reaper_run(pid, lifeline, temp_home,
		   cfg_resolver ? resolver_on_io : NULL, &rw);
}
