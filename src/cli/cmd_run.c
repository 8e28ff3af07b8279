/* lnk sandbox run [grants] [--spec F] [--yes] -- PROGRAM ARGS...
 *
 * Product text, "Run a program". The whole launch is planned first (policy,
 * program, mounts, init config, wire, dot-file guard); only then does
 * anything start: the wire process, the notify threads, bwrap.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/grants.h"
#include "common/util.h"
#include "init/initcfg.h"
#include "launch/env.h"
#include "launch/host.h"
#include "launch/plan.h"
#include "launch/spawn.h"
#include "notify/notify.h"
#include "policy/trust.h"
#include "store/paths.h"
#include "wire/wire.h"

extern char **environ;

static void usage(FILE *f)
{
	fputs(
	    "usage: lnk sandbox run [grants] [--spec FILE] [--yes] -- PROGRAM "
	    "[ARGS...]\n"
	    "\n"
	    "Runs PROGRAM in the sandbox. It reads the system's programs and\n"
	    "libraries and nothing else unless a grant opens it; it has no\n"
	    "network; its environment is cleared (PATH, HOME, USER, LOGNAME,\n"
	    "SHELL, TERM, LANG or LC_ALL, the proxy variables and the names\n"
	    "given with --env pass). Arguments after -- reach it unchanged.\n"
	    "run exits with the program's status (128+N when signal N ended\n"
	    "it; 125 when lnk failed, 126 when it cannot run, 127 when it is\n"
	    "not found).\n"
	    "\n"
	    "  lnk sandbox run --write . -- bash\n"
	    "  lnk sandbox run --read ~/Documents/reports --write . -- python3 "
	    "summarize.py\n"
	    "  lnk sandbox run --spec app.toml -- node app.js\n"
	    "\n"
	    "run's own options:\n"
	    "  --spec FILE    the grants of a spec file; a flag beside it "
	    "replaces\n"
	    "                 that key of the file's (--hide adds)\n"
	    "  --yes          run a new or changed spec without asking\n"
	    "  -h, --help     this help\n"
	    "\n"
	    "The sandbox is named run-<pid> unless --name names it. When it "
	    "cannot\nstart here, 'lnk sandbox ready' says what it needs.\n"
	    "\n",
	    f);
	grants_help(f);
}

/* The network grants that need a wire: without any, the sandbox has no
 * network at all (no proxy, no listener). */
static bool needs_wire(const struct policy *p)
{
	return policy_list(p, K_INTERNET_HOSTS)->n ||
	       policy_list(p, K_LAN_HOSTS)->n ||
	       policy_list(p, K_LOCALHOST_PORTS)->n;
}

/* Why bwrap could not make the sandbox, and where to look. */
static int explain_start_failure(const char *bwrap)
{
	_cleanup_free_ char *hint = host_userns_hint();
	if (hint)
		warnx_("the sandbox could not start: %s; run 'lnk sandbox "
		       "ready' to fix it",
		       hint);
	else
		warnx_("the sandbox could not start: bubblewrap (%s) failed "
		       "(its message is above); run 'lnk sandbox ready' to "
		       "check this machine",
		       bwrap);
	return LNK_EXIT_FAIL;
}

struct run_state {
	struct grants g;
	struct policy pol;
	bool pol_init;
	struct host_facts host;
	struct launch_plan plan;
	struct wire_plan wp;
	bool wp_init;
	struct notify_plan np;
	struct notify *notify;
	struct strv extra_env, ro_over;
	struct init_listener *listeners;
	size_t nlisteners;
	int wire_pair[2], notify_pair[2], lifeline[2];
	pid_t wire_pid;
};

static void close_pair(int p[2])
{
	for (int i = 0; i < 2; i++)
		if (p[i] >= 0) {
			close(p[i]);
			p[i] = -1;
		}
}

static void state_free(struct run_state *s)
{
	grants_free(&s->g);
	if (s->pol_init)
		policy_free(&s->pol);
	host_facts_free(&s->host);
	plan_free(&s->plan);
	if (s->wp_init)
		wire_plan_free(&s->wp);
	notify_plan_free(&s->np);
	strv_free(&s->extra_env);
	strv_free(&s->ro_over);
	free(s->listeners);
	close_pair(s->wire_pair);
	close_pair(s->notify_pair);
	close_pair(s->lifeline);
}

static int fail(struct run_state *s, int status, const struct lnk_err *err)
{
	warnx_("%s", err->msg);
	state_free(s);
	return status;
}

static int run_exit_for(int r)
{
	if (r == -ENOENT)
		return LNK_EXIT_NOT_FOUND;
	if (r == -EACCES)
		return LNK_EXIT_CANNOT_EXEC;
	return LNK_EXIT_FAIL;
}

int cmd_run(int argc, char **argv)
{
	struct run_state s = {
	    .wire_pair = {-1, -1},
	    .notify_pair = {-1, -1},
	    .lifeline = {-1, -1},
	    .wire_pid = -1,
	};
	struct lnk_err err = {0};
	int r;

	/* Whatever lnk inherited (a directory, a socket, a pipe) never
	 * reaches the wire, bwrap or the program (invariant 4). */
	spawn_cloexec_inherited();

	r = grants_parse("run", argc, argv,
			 GRANTS_SPEC | GRANTS_YES | GRANTS_PROGRAM, &s.g, &err);
	if (r < 0) {
		r = grants_fail(r, &err);
		state_free(&s);
		return r;
	}
	if (s.g.help) {
		usage(stdout);
		state_free(&s);
		return 0;
	}
	if (s.g.rest >= argc) {
		warnx_("no program to run: give one after --, as in 'lnk "
		       "sandbox run --write . -- bash'");
		state_free(&s);
		return LNK_EXIT_USAGE;
	}

	_cleanup_free_ char *home = NULL;
	_cleanup_free_ char *cwd = getcwd(NULL, 0);
	if (!cwd) {
		err_set(&err, -errno, "cannot read the working folder: %s",
			strerror(errno));
		return fail(&s, LNK_EXIT_FAIL, &err);
	}
	if ((r = paths_home(&home, &err)) < 0)
		return fail(&s, LNK_EXIT_FAIL, &err);
	/* ~/.lnk must exist before the mounts are planned: only a folder
	 * that exists gets its hiding tmpfs, and the wire creates its log in
	 * it while the program runs, which a grant of the home would then
	 * show (invariant 1). */
	_cleanup_free_ char *lnkdir = paths_lnk_dir(home);
	if ((r = paths_ensure_dir(lnkdir, &err)) < 0)
		return fail(&s, LNK_EXIT_FAIL, &err);

	r = grants_build_policy(&s.g, cwd, home, &s.pol, &err);
	s.pol_init = true;
	if (r < 0) {
		r = grants_fail(r, &err);
		state_free(&s);
		return r;
	}
	if ((r = trust_check(&s.pol, home, s.g.yes, &err)) < 0)
		return fail(&s, LNK_EXIT_FAIL, &err);

	/* Plan everything before acting. */
	if ((r = host_gather(&s.host, &err)) < 0)
		return fail(&s, LNK_EXIT_FAIL, &err);

	_cleanup_free_ char *name = s.pol.k[K_NAME].str
					? xstrdup(s.pol.k[K_NAME].str)
					: xasprintf("run-%d", (int)getpid());
	bool wire = needs_wire(&s.pol);
	if (wire) {
		if ((r = wire_plan(&s.pol, name, home, &s.wp, &err)) < 0)
			return fail(&s, LNK_EXIT_FAIL, &err);
		s.wp_init = true;
		wire_plan_env(&s.wp, &s.extra_env);
		wire_plan_listeners(&s.wp, &s.listeners, &s.nlisteners);
	}

	r = notify_plan(&s.pol, &s.np, &err);
	if (r < 0)
		return fail(&s, LNK_EXIT_FAIL, &err);
	bool guard = r == 1;
	const struct strv *wr = policy_list(&s.pol, K_FILES_WRITE);
	const struct strv *wdf = policy_list(&s.pol, K_FILES_WRITE_DOT_FILES);
	for (size_t i = 0; i < wr->n; i++)
		if (!strv_contains(wdf, wr->v[i]))
			dotguard_mounts_in(wr->v[i], wr, &s.ro_over);

	struct plan_in pin = {
	    .pol = &s.pol,
	    .host = &s.host,
	    .home = home,
	    .cwd = cwd,
	    .host_env = environ,
	    .argv = argv + s.g.rest,
	    .argc = argc - s.g.rest,
	    .pty = spawn_wants_pty(),
	    .wire = wire,
	    .notify = guard,
	    .extra_env = &s.extra_env,
	    .listeners = s.listeners,
	    .nlisteners = s.nlisteners,
	    .ro_over = &s.ro_over,
	};
	if ((r = plan_build(&pin, &s.plan, &err)) < 0)
		return fail(&s, run_exit_for(r), &err);

	struct buf cfg = {0};
	if ((r = initcfg_encode(&s.plan.init, &cfg)) < 0) {
		buf_free(&cfg);
		err_set(&err, r, "cannot encode the init config: %s",
			strerror(-r));
		return fail(&s, LNK_EXIT_FAIL, &err);
	}

	/* Act: the wire (a process, before any thread), then the guard's
	 * threads, then bwrap. Signals are blocked first, so the threads
	 * leave them to the supervisor. */
	spawn_block_signals();
	if (wire) {
		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
			       s.wire_pair) < 0 ||
		    pipe2(s.lifeline, O_CLOEXEC) < 0) {
			err_set(&err, -errno, "cannot connect the wire: %s",
				strerror(errno));
			buf_free(&cfg);
			return fail(&s, LNK_EXIT_FAIL, &err);
		}
		if ((r = wire_start(&s.wp, s.wire_pair[0], s.lifeline[0],
				    &s.wire_pid, &err)) < 0) {
			buf_free(&cfg);
			return fail(&s, LNK_EXIT_FAIL, &err);
		}
		/* The wire's ends are its own now. */
		close(s.wire_pair[0]);
		s.wire_pair[0] = -1;
		close(s.lifeline[0]);
		s.lifeline[0] = -1;
	}
	if (guard) {
		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
			       s.notify_pair) < 0) {
			err_set(&err, -errno, "cannot connect the guard: %s",
				strerror(errno));
			buf_free(&cfg);
			return fail(&s, LNK_EXIT_FAIL, &err);
		}
		if ((r = notify_start(&s.np, s.notify_pair[0], &s.notify,
				      &err)) < 0) {
			buf_free(&cfg);
			return fail(&s, LNK_EXIT_FAIL, &err);
		}
	}

	struct spawn_req req = {
	    .bwrap = s.plan.bwrap,
	    .opts = &s.plan.bw.opts,
	    .tail = &s.plan.tail,
	    .config = cfg.p,
	    .config_len = cfg.len,
	    .passwd = s.plan.passwd,
	    .group = s.plan.group,
	    .wire_fd = s.wire_pair[1],
	    .notify_fd = s.notify_pair[1],
	    .pty = s.plan.pty,
	};
	struct spawn_result res;
	r = spawn_run(&req, &res, &err);
	buf_free(&cfg);

	/* The sandbox is gone: stop the guard, end the wire. */
	notify_stop(s.notify);
	s.notify = NULL;
	if (s.wire_pid > 0) {
		close_pair(s.lifeline);
		int st;
		while (waitpid(s.wire_pid, &st, 0) < 0 && errno == EINTR)
			;
	}
	if (r < 0)
		return fail(&s, LNK_EXIT_FAIL, &err);
	if (!res.started && res.status != 0 && res.status < 128) {
		r = explain_start_failure(s.plan.bwrap);
		state_free(&s);
		return r;
	}
	state_free(&s);
	return res.status;
}
