/* bwrap and the program of one run (run.h, parts.c): the launch plan
 * built from what every part planned before it (launch/plan.h), and
 * what the program adds to it: where it starts, check's probe in its
 * place. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "config.h"
#include "common/buf.h"
#include "common/esc.h"
#include "launch/env.h"
#include "launch/run.h"
#include "store/registry.h"

/* Whether the spec itself lets no program run: its [commands] has no allow
 * (or an empty one) and no --command beside it. Then any program is
 * refused, and saying which spec and which key beats "'true' is not
 * allowed" (a spec with no sections runs no program, and says so
 * clearly when asked to run one). */
static bool spec_runs_nothing(const struct policy *p)
{
	const struct key_value *a = &p->k[K_COMMANDS_ALLOW];

	return p->spec_path && !a->from_flag && a->list.n == 0;
}

static int refuse_no_commands(const struct policy *p, const char *program,
			      struct lnk_err *err)
{
	const struct key_value *a = &p->k[K_COMMANDS_ALLOW];
	const struct key_value *e = &p->k[K_COMMANDS_ENV];
	const char *spec = p->spec_name ? p->spec_name : p->spec_path;
	const char *base = strrchr(program, '/');

	base = base ? base + 1 : program;
	/* What each suggestion holds is pasted, into a spec or a shell: a
	 * TOML string, one shell word. */
	struct buf t = {0};
	buf_toml_str(&t, base, strlen(base));
	_cleanup_free_ char *toml = buf_steal(&t);
	_cleanup_free_ char *word = esc_word_dup(base);
	if (a->set)
		return err_set(
		    err, -EACCES,
		    "%s:%d: [commands] allow is empty, so it runs no "
		    "program: add %s to it, or --command %s",
		    spec, a->pos.line, toml, word);
	if (e->set && !e->from_flag)
		return err_set(err, -EACCES,
			       "%s's [commands] has no allow, so it runs no "
			       "program: add allow = [%s] to it, or "
			       "--command %s",
			       spec, toml, word);
	return err_set(err, -EACCES,
		       "%s has no [commands] section, so it runs no program: "
		       "add [commands] allow = [%s] to it, or --command %s",
		       spec, toml, word);
}

static int exit_for(int r)
{
	if (r == -ENOENT)
		return LNK_EXIT_NOT_FOUND;
	if (r == -EACCES)
		return LNK_EXIT_CANNOT_EXEC;
	if (r == -EISDIR || r == -ENOTDIR)
		return LNK_EXIT_USAGE; /* a --command folder, misspelt */
	return LNK_EXIT_FAIL;
}

/* What each folder or entry bound by path is now (bwrap_out.pins),
 * opened as the plan names it, through no link at all: the object the
 * checks judged, or one a program put there from its own write folder.
 * lnk-init finds the same (device, inode) at each path before the program
 * runs (proto/initcfg.h, pins). A link in the way now refuses the run:
 * bwrap would follow it, to ~/.lnk or any folder of the user's. */
static int pin_binds(const struct strv *paths, struct init_config *ic,
		     struct lnk_err *err)
{
	ic->pins = xcalloc(paths->n ? paths->n : 1, sizeof(*ic->pins));
	for (size_t i = 0; i < paths->n; i++) {
		struct open_how how = {
		    .flags = O_PATH | O_CLOEXEC,
		    .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
		};
		long fd = syscall(SYS_openat2, AT_FDCWD, paths->v[i], &how,
				  sizeof(how));
		struct stat st;
		if (fd < 0 && errno == ENOENT)
			continue; /* bwrap fails on it, nothing is bound */
		if (fd < 0 || fstat((int)fd, &st) < 0) {
			int e = errno;
			char q[PATH_MAX + 16];
			if (fd >= 0)
				close((int)fd);
			esc_to(q, sizeof(q), paths->v[i]);
			if (e == ELOOP || e == EXDEV)
				return err_set(
				    err, -ELOOP,
				    "'%s' or a folder on its way became a "
				    "link after lnk checked it (a program "
				    "with --write there, perhaps in another "
				    "sandbox, may have put it there): the "
				    "sandbox was not started; look at what "
				    "is there, and run again",
				    q);
			return err_set(err, -e, "cannot open '%s': %s", q,
				       strerror(e));
		}
		close((int)fd);
		struct init_pin *pn = &ic->pins[ic->npins++];
		pn->path = xstrdup(paths->v[i]);
		pn->dev = (uint64_t)st.st_dev;
		pn->ino = (uint64_t)st.st_ino;
	}
	return 0;
}

int bwrap_part_plan(struct run *r)
{
	const struct sandbox_req *req = r->req;
	const struct policy *pol = r->pol;

	/* Prompts and scripts can tell they run in a sandbox, and which:
	 * the name is checked (letters, digits, '.', '_', '-'; at most 64,
	 * which is also the kernel's limit for a host name). */
	strv_pushf(&r->extra_env, "LNK_SANDBOX=%s", r->name);

	struct strv argv = {0};
	if (req->probe)
		strv_push(&argv, req->probe);
	else if (r->want.tools && sb_tools_has(&r->tools, req->argv[0]))
		strv_push(&argv, r->tools.client); /* made its inside path */
	else
		strv_push(&argv, req->argv[0]);
	for (int i = 1; i < req->argc; i++)
		strv_push(&argv, req->argv[i]);
	struct plan_in pin = {
	    .pol = pol,
	    .host = &r->host,
	    .home = req->home,
	    .cwd = req->cwd,
	    .host_env = req->host_env,
	    .argv = argv.v,
	    .argc = (int)argv.n,
	    .pty = req->pty,
	    .wire = r->want.wire || r->want.nonet, /* the listeners' handoff */
	    .resolver = r->want.nonet,
	    .guard = r->guard_dot,
	    .guard_connect_only = r->guard_connects,
	    .extra_env = &r->extra_env,
	    .listeners = r->listeners,
	    .nlisteners = r->nlisteners,
	    .ro_over = &r->ro_over,
	    .limits = &r->lim,
	    .dev_nodes_dir = r->view.on ? NULL : r->dev.dir,
	};
	int rc = plan_build(&pin, &r->plan, r->err);
	strv_free(&argv);
	if (rc == 0)
		rc = pin_binds(&r->plan.bw.pins, &r->plan.init, r->err);
	/* A program not found stays 127 (a typo is the likelier mistake);
	 * one that would not be allowed is refused for the spec's sake. */
	if (rc == -EACCES && !req->probe && spec_runs_nothing(pol))
		rc = refuse_no_commands(pol, req->argv[0], r->err);
	if (rc < 0)
		r->exit = exit_for(rc);
	return rc;
}

/* bwrap's --unshare-all gives the sandbox its own UTS namespace. */
int bwrap_part_bind(struct run *r)
{
	strv_push(&r->plan.bw.opts, "--hostname");
	strv_push(&r->plan.bw.opts, r->name);
	return 0;
}

/* The program starts in the current folder only when the sandbox shows
 * it; otherwise in the first --write folder or the empty home, and a
 * command meant for one folder would act on another. Said every time, on
 * stderr (in the hold, once the run is not refused: r->elsewhere); a
 * relative program path would name a different file there (or none), so
 * it is refused. */
static int say_where(struct run *r)
{
	const char *prog = r->req->argv[0];

	r->elsewhere = false;
	if (strcmp(r->plan.bw.chdir, r->req->cwd) == 0)
		return 0;
	if (prog[0] != '/' && strchr(prog, '/')) {
		r->exit = LNK_EXIT_USAGE;
		return err_set(r->err, -EINVAL,
			       "'%s' is relative to the current folder, which "
			       "no grant shows inside; grant it (--read . or "
			       "--write .) or give the program's absolute path",
			       prog);
	}
	r->elsewhere = true;
	return 0;
}

/* check's probe: runs as the program, from a read-only bind beside init.
 * Landlock's lists name paths as the sandbox sees them, so the probe's
 * host path is replaced by SANDBOX_PROBE_PATH. */
static void plan_probe(struct launch_plan *pl, const char *probe)
{
	bwrap_bind_after_init(&pl->bw.opts, probe, SANDBOX_PROBE_PATH);

	free(pl->init.argv.v[0]);
	pl->init.argv.v[0] = xstrdup(SANDBOX_PROBE_PATH);
	char real[PATH_MAX];
	const char *rp = realpath(probe, real) ? real : probe;
	for (size_t i = 0; i < pl->init.ll_exec.n; i++)
		if (strcmp(pl->init.ll_exec.v[i], rp) == 0 ||
		    strcmp(pl->init.ll_exec.v[i], probe) == 0) {
			free(pl->init.ll_exec.v[i]);
			pl->init.ll_exec.v[i] = xstrdup(SANDBOX_PROBE_PATH);
		}
	strv_push(&pl->init.ll_read, SANDBOX_PROBE_PATH);
}

#ifdef LNK_TEST_HOOKS
/* TEST BUILDS ONLY (meson -Dtest_hooks=true): LNK_TEST_WEAKEN weakens one
 * layer on purpose, so the tests can prove that `lnk sandbox check` sees
 * a real leak. A release build has no such code at all.
 *   env   the program gets lnk's whole environment
 *   home  the home folder is bound read only, ~/.lnk included */
static void test_weaken(const struct sandbox_req *req, struct launch_plan *pl)
{
	const char *w = env_lookup(req->host_env, "LNK_TEST_WEAKEN");
	if (!w)
		return;
	if (strcmp(w, "env") == 0) {
		for (size_t i = 0; req->host_env[i]; i++)
			strv_push(&pl->init.env, req->host_env[i]);
	} else if (strcmp(w, "home") == 0) {
		const char *words[] = {"--ro-bind", req->home, req->home};
		for (size_t i = 0; i < ARRAY_SIZE(words); i++)
			strv_push(&pl->bw.opts, words[i]);
		strv_push(&pl->init.ll_read, req->home);
	}
}
#endif

int program_part_bind(struct run *r)
{
	int rc;

	if (!r->req->probe && (rc = say_where(r)) < 0)
		return rc;
	r->started_ms = registry_now_ms();
	if (r->req->probe)
		plan_probe(&r->plan, r->req->probe);
#ifdef LNK_TEST_HOOKS
	test_weaken(r->req, &r->plan);
#endif
	return 0;
}
