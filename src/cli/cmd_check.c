/* lnk sandbox check [grants | --spec FILE] [--json]
 *
 * lnk-sandbox(1), COMMANDS, check. Plants bait
 * outside (src/check/bait.c), runs lnk-probe in the very sandbox `run`
 * builds from the same grants (launch/sandbox.h), judges each try
 * (src/check/report.c), and removes every bait, also when interrupted:
 * SIGINT, SIGTERM, SIGHUP and SIGQUIT are read on a signalfd and end the
 * sandbox, then the removal runs. A check killed outright leaves a record
 * that the next check cleans (bait_clean_stale).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/compat.h"
#include "check/advice.h"
#include "check/check.h"
#include "cli/commands.h"
#include "cli/grants.h"
#include "common/buf.h"
#include "common/util.h"
#include "config.h"
#include "launch/host.h"
#include "launch/limits.h"
#include "launch/sandbox.h"
#include "launch/spawn.h"
#include "store/paths.h"

extern char **environ;

/* The descriptor the sandbox's launcher inherits on purpose: a file
 * holding the secret, without CLOEXEC (invariant 4 must close it). */
#define CHECK_BAIT_FD 20
/* The most the probe may print: its output is hostile input. */
#define CHECK_MAX_OUTPUT (4u << 20)

static void usage(FILE *f)
{
	fputs(
	    "usage: lnk sandbox check [grants] [--spec FILE] [--json]\n"
	    "\n"
	    "Tries from inside what the sandbox should not allow. It plants "
	    "bait\n"
	    "outside (secrets in your home folder, in lnk's settings, in each "
	    "--hide\n"
	    "folder and in /tmp, an environment variable, an inherited "
	    "descriptor,\n"
	    "a server on another loopback port and on this machine's other\n"
	    "addresses, unix sockets, a file as the probe's stdin, a link and "
	    "a\n"
	    "folder in each write folder), runs a probe in the\n"
	    "sandbox 'lnk sandbox run' builds from the same grants, reports "
	    "each\n"
	    "try, and removes the bait, also when interrupted.\n"
	    "\n"
	    "  blocked  the sandbox stopped it\n"
	    "  allowed  a grant lets it through, as it should\n"
	    "  failed   allowed, but it did not work here\n"
	    "  missed   it should have been allowed and was not\n"
	    "  open     a known gap (lnk-sandbox(1), GAPS AND LIMITS)\n"
	    "  leaked   something nothing allows got through: exit 1\n"
	    "\n"
	    "  lnk sandbox check\n"
	    "  lnk sandbox check --write . --internet-host '*'\n"
	    "  lnk sandbox check --spec app.toml\n"
	    "\n"
	    "check's own options:\n"
	    "  --spec FILE    the grants of a spec file (a flag beside it "
	    "replaces\n"
	    "                 that key of the file's; --hide adds)\n"
	    "  --json         one JSON object instead of the table\n"
	    "  -h, --help     this help\n"
	    "\n",
	    f);
	grants_help(f);
}

/* lnk-probe: where lnk's helpers are (launch/host.h). */
static char *find_probe(void)
{
	return host_find_helper("lnk-probe");
}

/* The bounds sandbox_run sets (launch/limits.h), read the same way: the
 * settings file, then the kernel's own tmpfs size (half the memory) where
 * it sets none. A bad settings file is sandbox_run's to report. */
static void limits_seen(const char *home, struct check_limits *out)
{
	struct limits l;
	struct limits_where w = {0};
	struct lnk_err err = {0};
	limits_defaults(&l);
	_cleanup_free_ char *settings = paths_settings(home);
	if (limits_load_settings(settings, &l, &err) < 0)
		limits_defaults(&l);
	limits_find(&w);
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	*out = (struct check_limits){
	    .tmp_bound = l.tmp_size
			     ? (l.tmp_size + page - 1) / page * page
			     : (uint64_t)sysconf(_SC_PHYS_PAGES) / 2 * page,
	    .tasks = l.tasks,
	    .root = geteuid() == 0,
	    .line = limits_describe(&w, &l),
	};
	limits_where_free(&w);
}

struct check_run {
	struct sandbox_req req;
	const struct bait *bait;
	struct check_list *tries;
};

/* The launcher: a child, so its stdout can be the probe's pipe and its
 * environment and descriptors can carry bait, while the parent serves the
 * bait and watches for signals. */
__attribute__((noreturn)) static void launcher(struct check_run *cr, int batch,
					       int out, int errfd)
{
	(void)die_with_parent(SIGTERM);
	/* stdin: a file of check's outside the grants, read only, which
	 * the probe must not reopen for writing. */
	int in = open(cr->bait->stdin_file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (in < 0 || dup2(in, STDIN_FILENO) < 0 ||
	    dup2(out, STDOUT_FILENO) < 0 || dup2(errfd, STDERR_FILENO) < 0)
		_exit(LNK_EXIT_FAIL);
	/* Bait that travels with lnk itself: a secret in its environment,
	 * and an open descriptor without CLOEXEC. */
	setenv(cr->bait->env_name, cr->bait->secret, 1);
	if (dup2(cr->bait->fd, CHECK_BAIT_FD) < 0)
		_exit(LNK_EXIT_FAIL);
	cr->req.host_env = environ;

	struct strv argv = {0};
	strv_push(&argv, "lnk-probe");
	for (size_t i = 0; i < cr->tries->n; i++)
		if (cr->tries->t[i].batch == batch)
			strv_pushf(&argv, "%s\t%s", cr->tries->t[i].id,
				   cr->tries->t[i].probe);
	cr->req.argv = argv.v;
	cr->req.argc = (int)argv.n;
	struct lnk_err err = {0};
	int status;
	if (sandbox_run(&cr->req, &status, &err) < 0)
		warnx_("%s", err.msg);
	fflush(NULL);
	_exit(status);
}

struct watch {
	pid_t child;
	int status;
	bool exited;
	int interrupted; /* the signal that asked us to stop, or 0 */
	struct buf out;	 /* the probe's answers, every batch */
	struct buf err;	 /* the launcher's messages, this batch */
};

static void on_signals(struct watch *w, int sfd)
{
	int sig;
	while ((sig = sigfd_next(sfd)) > 0) {
		if (sig == SIGCHLD)
			continue;
		/* End the sandbox; the bait comes off once it is gone. */
		if (!w->interrupted)
			w->interrupted = sig;
		if (!w->exited)
			kill(w->child, SIGTERM);
	}
	if (!w->exited && waitpid(w->child, &w->status, WNOHANG) == w->child)
		w->exited = true;
}

static void drain(int fd, struct buf *b, bool *open)
{
	char tmp[8192];
	ssize_t k = read(fd, tmp, sizeof(tmp));
	if (k > 0 && b->len < CHECK_MAX_OUTPUT)
		buf_append(b, tmp, (size_t)k);
	else if (k == 0 || (k < 0 && errno != EINTR && errno != EAGAIN))
		*open = false;
}

static int watch_run(struct watch *w, struct bait *b, int rfd, int efd, int sfd)
{
	bool open_out = true, open_err = true;
	int grace = 0;
	while (open_out || open_err || !w->exited) {
		struct pollfd pf[3 + 64];
		nfds_t n = 0;
		pf[n++] = (struct pollfd){.fd = sfd, .events = POLLIN};
		nfds_t i_out = n, i_err;
		pf[n++] = (struct pollfd){.fd = open_out ? rfd : -1,
					  .events = POLLIN};
		i_err = n;
		pf[n++] = (struct pollfd){.fd = open_err ? efd : -1,
					  .events = POLLIN};
		size_t first_srv = n;
		for (size_t i = 0; i < b->nsrv && i < 64; i++)
			pf[n++] = (struct pollfd){.fd = b->srv[i].fd,
						  .events = POLLIN};
		int r = poll(pf, n, w->interrupted ? 1000 : 5000);
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r <= 0) {
			/* Interrupted and the sandbox still up: end it. */
			if (w->interrupted && !w->exited && ++grace >= 5)
				kill(w->child, SIGKILL);
			if (!w->exited &&
			    waitpid(w->child, &w->status, WNOHANG) == w->child)
				w->exited = true;
			continue;
		}
		if (pf[0].revents)
			on_signals(w, sfd);
		if (open_out && pf[i_out].revents)
			drain(rfd, &w->out, &open_out);
		if (open_err && pf[i_err].revents)
			drain(efd, &w->err, &open_err);
		for (size_t i = first_srv; i < n; i++)
			if (pf[i].revents)
				bait_serve(b, i - first_srv);
		if (!w->exited &&
		    waitpid(w->child, &w->status, WNOHANG) == w->child)
			w->exited = true;
	}
	return 0;
}

int cmd_check(int argc, char **argv, const struct cli_ctx *cx)
{
	struct grants g;
	struct policy pol;
	struct policy run_pol; /* pol and the folders check hides */
	bool pol_init = false, run_pol_init = false, json = false;
	struct lnk_err err = {0};
	int r, ret = LNK_EXIT_FAIL;
	const char *home = cx->home;
	_cleanup_free_ char *cwd = NULL;
	_cleanup_free_ char *probe = NULL, *name = NULL;
	_cleanup_close_ int sfd = -1;

	grants_init(&g);
	for (int i = 1; i < argc;) {
		if (strcmp(argv[i], "--json") == 0) {
			json = true;
			i++;
			continue;
		}
		r = grants_take(argc, argv, &i, GRANTS_SPEC | GRANTS_YES, &g,
				&err);
		if (r < 0) {
			ret = grants_fail(r, &err);
			goto out;
		}
		if (g.help) {
			usage(stdout);
			ret = 0;
			goto out;
		}
		if (r == 0) {
			struct strv names = {0};
			grants_flag_names(GRANTS_SPEC | GRANTS_YES, &names);
			strv_push(&names, "--json");
			strv_push(&names, "--help");
			if (argv[i][0] == '-')
				ret = usage_unknown_option(
				    "check", argv[i],
				    (const char *const *)names.v);
			else {
				warnx_(
				    "unexpected argument '%s' for 'lnk "
				    "sandbox check': it runs no program; see "
				    "'lnk sandbox check --help'",
				    argv[i]);
				ret = LNK_EXIT_USAGE;
			}
			strv_free(&names);
			goto out;
		}
	}

	cwd = getcwd(NULL, 0);
	if (!cwd) {
		warnx_("cannot read the working folder: %s", strerror(errno));
		goto out;
	}
	r = grants_build_policy(&g, cwd, home, &pol, &err);
	pol_init = true;
	if (r < 0) {
		ret = grants_fail(r, &err);
		goto out;
	}
	/* No trust_check: check runs only its own probe, never the spec's
	 * program, and records nothing. */
	probe = find_probe();
	if (!probe) {
		warnx_("lnk-probe is missing: it is neither next to lnk nor in "
		       "%s; reinstall lnk",
		       LNK_LIBEXECDIR);
		goto out;
	}

	/* Signals first: an interrupt from here on still removes the
	 * bait. */
	sigset_t ss;
	sigemptyset(&ss);
	int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD};
	for (size_t i = 0; i < ARRAY_SIZE(sigs); i++)
		sigaddset(&ss, sigs[i]);
	sigprocmask(SIG_BLOCK, &ss, NULL);
	sfd = sigfd_open(&ss, COMPAT_NONBLOCK);
	if (sfd < 0) {
		warnx_("signalfd: %s", strerror(errno));
		goto out;
	}

	struct strv stale = {0};
	bait_clean_stale(home, &stale);
	for (size_t i = 0; i < stale.n; i++)
		warnx_("removed bait an earlier check left: %s", stale.v[i]);
	strv_free(&stale);

	struct bait b;
	if (bait_plant(&b, &pol, home, &err) < 0) {
		warnx_("%s", err.msg);
		goto out;
	}
	/* The folders check hides in its own bait (as --hide would): one
	 * inside each write folder that holds a hidden folder. The sandbox
	 * and the tries have them; what check says of your grants does not. */
	policy_copy(&run_pol, &pol);
	run_pol_init = true;
	for (size_t i = 0; i < b.hide_added.n; i++)
		policy_push(&run_pol.k[K_FILES_HIDE], b.hide_added.v[i],
			    (struct toml_pos){0});
	struct check_limits lim;
	limits_seen(home, &lim);
	struct check_list tries;
	check_plan(&run_pol, &b, home, &lim, &tries);
	free((char *)lim.line);

	struct watch w = {.child = -1};
	name = xasprintf("check-%d", (int)getpid());
	struct check_run cr = {
	    .req =
		{
		    .pol = &run_pol,
		    .home = home,
		    .cwd = cwd,
		    .name = name,
		    .probe = probe,
		},
	    .bait = &b,
	    .tries = &tries,
	};
	bool ran = false;
	int failed_status = 0;
	for (int batch = 0; batch < tries.batches && !w.interrupted; batch++) {
		int pp[2], ep[2];
		if (pipe_cloexec(pp, 0) < 0) {
			warnx_("pipe: %s", strerror(errno));
			goto out_bait;
		}
		if (pipe_cloexec(ep, 0) < 0) {
			warnx_("pipe: %s", strerror(errno));
			close(pp[0]);
			close(pp[1]);
			goto out_bait;
		}
		size_t before = w.out.len;
		w.exited = false;
		w.err.len = 0;
		fflush(NULL);
		w.child = fork();
		if (w.child == 0) {
			close(pp[0]);
			close(ep[0]);
			launcher(&cr, batch, pp[1], ep[1]);
		}
		close(pp[1]);
		close(ep[1]);
		r = w.child < 0 ? -errno : watch_run(&w, &b, pp[0], ep[0], sfd);
		close(pp[0]);
		close(ep[0]);
		if (w.child < 0) {
			warnx_("cannot fork: %s", strerror(-r));
			goto out_bait;
		}
		if (r < 0) {
			kill(w.child, SIGKILL);
			while (waitpid(w.child, &w.status, 0) < 0 &&
			       errno == EINTR)
				;
		}
		if (w.out.len > before) {
			ran = true;
		} else if (!w.interrupted) {
			/* This sandbox never ran the probe: say why. */
			if (w.err.len)
				fwrite(w.err.p, 1, w.err.len, stderr);
			failed_status =
			    WIFEXITED(w.status) && WEXITSTATUS(w.status)
				? WEXITSTATUS(w.status)
				: LNK_EXIT_FAIL;
			break;
		}
	}

	check_judge(&tries, w.out.p ? w.out.p : "", w.out.len);
out_bait:
	bait_remove(&b);
	if (w.interrupted) {
		warnx_("check interrupted: the sandbox is ended and every bait "
		       "removed");
		ret = 128 + w.interrupted;
	} else if (!ran || failed_status) {
		ret = failed_status ? failed_status : LNK_EXIT_FAIL;
	} else {
		struct buf o = {0};
		/* Not leaks: risks of the grants themselves, in both forms. */
		struct strv adv = {0};
		_cleanup_free_ char *hreal = realpath(home, NULL);
		check_advice(&pol, hreal ? hreal : home, &adv);
		if (json)
			check_json(&tries, &adv, &o);
		else {
			check_table(&tries, home, &o);
			for (size_t i = 0; i < adv.n; i++)
				buf_printf(&o, "%s\n", adv.v[i]);
		}
		strv_free(&adv);
		fputs(o.p, stdout);
		buf_free(&o);
		ret = check_count(&tries, CV_LEAKED) ? LNK_EXIT_LEAKED : 0;
	}
	check_list_free(&tries);
	buf_free(&w.out);
	buf_free(&w.err);
out:
	grants_free(&g);
	if (pol_init)
		policy_free(&pol);
	if (run_pol_init)
		policy_free(&run_pol);
	return ret;
}
