/* lnk sandbox run [grants] [--spec F] [--yes] -- PROGRAM ARGS...
 *
 * lnk-sandbox(1), COMMANDS, run. The whole launch is planned first (policy,
 * program, mounts, init config, wire, dot-file guard); only then does
 * anything start: the wire process, the guard's threads, bwrap.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "launch/limits.h"
#include "changes/changes.h"
#include "cli/grants.h"
#include "common/util.h"
#include "launch/grantcheck.h"
#ifdef __linux__
#include "launch/keptnow.h"
#endif
#include "launch/sandbox.h"
#include "launch/spawn.h"
#include "spec/trust.h"

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
	    "given with --env pass; LNK_SANDBOX and the host name are the\n"
	    "sandbox's name). Arguments after -- reach it unchanged.\n"
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

struct run_state {
	struct grants g;
	struct policy pol;
	bool pol_init;
};

static void state_free(struct run_state *s)
{
	grants_free(&s->g);
	if (s->pol_init)
		policy_free(&s->pol);
}

static int fail(struct run_state *s, int status, const struct lnk_err *err)
{
	warnx_("%s", err->msg);
	state_free(s);
	return status;
}

/* What the end of the run says of what it left (--changes, [files]
 * changes): the default is what a careful user wants, every flag shown. */
static enum changes_mode run_changes(const struct policy *p)
{
	enum changes_mode m = CHANGES_SUMMARY;
	const struct key_value *kv = &p->k[K_FILES_CHANGES];
	if (kv->set && kv->str)
		(void)changes_mode_parse(kv->str, &m);
	return m;
}

/* What of a spec's limits this machine cannot enforce, for the question
 * (the limits it shows are the ones that hold): without a cgroup lnk may
 * use, no memory limit; as root without one, no task limit either
 * (launch/limits.h). Looked for only when a spec sets one. */
static void limits_notes(const struct policy *p, struct strv *notes)
{
	bool mem = p->k[K_LIMITS_MEMORY].set, tasks = p->k[K_LIMITS_TASKS].set;
	if (!p->spec_path || (!mem && !tasks))
		return;
	struct limits_where w;
	limits_find(&w);
	if (mem && (w.kind == LIMITS_RLIMIT || w.kind == LIMITS_NONE))
		strv_push(notes,
			  "the memory limit does not apply here: lnk has "
			  "no cgroup to put it in; 'lnk sandbox ready' "
			  "says why");
	if (tasks && w.kind == LIMITS_NONE)
		strv_push(notes,
			  "the process limit does not apply here: lnk has "
			  "no cgroup to put it in, and the kernel never "
			  "limits root's processes otherwise");
	limits_where_free(&w);
}

int cmd_run(int argc, char **argv, const struct cli_ctx *cx)
{
	struct run_state s = {0};
	struct lnk_err err = {0};
	int r;

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

	if (grantcheck_inside_sandbox()) {
		warnx_("this is already inside a lnk sandbox, and a sandbox "
		       "cannot start inside another; run lnk outside it");
		state_free(&s);
		return LNK_EXIT_FAIL;
	}

	const char *home = cx->home;
	_cleanup_free_ char *cwd = getcwd(NULL, 0);
	if (!cwd) {
		err_set(&err, -errno, "cannot read the working folder: %s",
			strerror(errno));
		return fail(&s, LNK_EXIT_FAIL, &err);
	}
	r = grants_build_policy(&s.g, cwd, home, &s.pol, &err);
	s.pol_init = true;
	if (r < 0) {
		r = grants_fail(r, &err);
		state_free(&s);
		return r;
	}
	/* Before asking: a grant bwrap would refuse is refused here, in the
	 * user's words, not as bwrap's message and the program's status. */
	if ((r = grantcheck(&s.pol, &err)) < 0)
		return fail(&s, r == -EINVAL ? LNK_EXIT_USAGE : LNK_EXIT_FAIL,
			    &err);
	struct strv notes = {0};
	limits_notes(&s.pol, &notes);
	/* A folder below an accepted one is judged by what the accepted
	 * run keeps read only there (launch/keptnow.h). */
	const struct cover_kept *kp = NULL;
#ifdef __linux__
	struct kept_ctx kc = {.home = home, .env = environ};
	struct cover_kept kept;
	kept_for_trust(&kept, &kc);
	kp = &kept;
#endif
	r = trust_check(&s.pol, home, s.g.yes, &notes, kp, &err);
	strv_free(&notes);
	if (r < 0)
		return fail(&s, LNK_EXIT_FAIL, &err);

	/* Plan everything before acting, then run: launch/sandbox.c. */
	struct sandbox_req req = {
	    .pol = &s.pol,
	    .home = home,
	    .cwd = cwd,
	    .name = s.pol.k[K_NAME].str,
	    .host_env = environ,
	    .argv = argv + s.g.rest,
	    .argc = argc - s.g.rest,
	    .pty = spawn_wants_pty(),
	    .changes = run_changes(&s.pol),
	};
	int status;
	if ((r = sandbox_run(&req, &status, &err)) < 0)
		return fail(&s, status, &err);
	state_free(&s);
	return status;
}
