/* The whole launch, planned before anything forks (see plan.h). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "common/buf.h"
#include "launch/commands.h"
#include "launch/env.h"
#include "launch/plan.h"
#include "store/paths.h"

/* The always-hidden folders that exist, and what they link to: bwrap can
 * only mount over a folder that is there, and a grant of the link's target
 * must not show it either. */
static void existing_hidden(const struct plan_in *in, struct strv *out)
{
	struct strv all = {0};
	strv_copy(&all, &in->pol->always_hidden);
	paths_always_hidden(in->home, &all);
	for (size_t i = 0; i < all.n; i++) {
		struct stat st;
		char buf[PATH_MAX];
		/* the same folder twice (the home as given is real) is
		 * looked at once */
		if (strv_contains(out, all.v[i]) || lstat(all.v[i], &st) < 0)
			continue;
		strv_push(out, all.v[i]);
		/* the real paths policy_resolve already asked */
		const char *real = in->pol->facts
				       ? facts_real(in->pol->facts, all.v[i])
				       : realpath(all.v[i], buf);
		if (real && strcmp(real, all.v[i]) != 0 &&
		    !strv_contains(out, real))
			strv_push(out, real);
	}
	strv_free(&all);
}

/* A path the user named that exists but cannot run: 126 with a message
 * that says so, before the PATH lookup reports it as missing. */
static int check_named_program(const char *name, const char *cwd,
			       struct lnk_err *err)
{
	if (!strchr(name, '/'))
		return 0;
	_cleanup_free_ char *host =
	    name[0] == '/' ? xstrdup(name) : xasprintf("%s/%s", cwd, name);
	struct stat st;
	if (stat(host, &st) < 0)
		return 0;
	if (S_ISDIR(st.st_mode))
		return err_set(err, -EACCES, "'%s' is a folder, not a program",
			       name);
	if (!S_ISREG(st.st_mode) || access(host, X_OK) < 0)
		return err_set(err, -EACCES,
			       "'%s' is not executable; make it so (chmod +x) "
			       "or run it with its interpreter",
			       name);
	return 0;
}

/* Minimal account files: root, the user, nobody. The host's lists of
 * accounts and groups stay out; names still resolve for ls, id, git. */
static void make_accounts(const struct plan_in *in, struct launch_plan *out)
{
	const struct host_facts *h = in->host;
	struct buf pw = {0}, gr = {0};
	const char *shell = h->shell ? h->shell : "/bin/sh";

	if (h->uid == 0)
		buf_printf(&pw, "root:x:0:0:root:%s:%s\n", in->home, shell);
	else
		buf_puts(&pw, "root:x:0:0:root:/root:/bin/sh\n");
	if (h->uid != 0 && h->user)
		buf_printf(&pw, "%s:x:%u:%u::%s:%s\n", h->user,
			   (unsigned)h->uid, (unsigned)h->gid, in->home, shell);
	buf_puts(&pw, "nobody:x:65534:65534:nobody:/nonexistent:"
		      "/usr/sbin/nologin\n");

	buf_puts(&gr, "root:x:0:\n");
	if (h->gid != 0 && h->group)
		buf_printf(&gr, "%s:x:%u:\n", h->group, (unsigned)h->gid);
	buf_puts(&gr, "nogroup:x:65534:\n");

	out->passwd = buf_steal(&pw);
	out->group = buf_steal(&gr);
}

int plan_build(const struct plan_in *in, struct launch_plan *out,
	       struct lnk_err *err)
{
	int r;
	*out = (struct launch_plan){0};
	out->init.guard_fd = -1;
	out->init.wire_fd = -1;
	out->init.lifeline_fd = -1;
	out->init.nproc = in->limits ? in->limits->tasks : 0;
	out->pty = in->pty;

	if (!in->host->bwrap)
		return err_set(err, -ENOENT,
			       "bubblewrap is not installed; install it (sudo "
			       "apt install bubblewrap) and run 'lnk sandbox "
			       "ready'");
	if (!in->host->init)
		return err_set(err, -ENOENT,
			       "lnk-init is missing: it is neither next to lnk "
			       "nor in %s; reinstall lnk",
			       LNK_LIBEXECDIR);
	if (in->argc < 1)
		return err_set(err, -EINVAL,
			       "no program to run: give one after --");

	/* The program first: a missing one is the commonest mistake. */
	const struct policy *p = in->pol;
	char *prog = NULL;
	if ((r = check_named_program(in->argv[0], in->cwd, err)) < 0) {
		plan_free(out);
		return r;
	}
	struct strv allow = {0};
	strv_copy(&allow, policy_list(p, K_COMMANDS_ALLOW));
	out->init.exec_any = policy_any_command(p);
	r = commands_resolve(&allow, out->init.exec_any, ENV_SANDBOX_PATH,
			     in->argv[0], &out->init.ll_exec, &prog, err);
	strv_free(&allow);
	if (r < 0) {
		plan_free(out);
		return r;
	}
	strv_push_take(&out->init.argv, prog);
	for (int i = 1; i < in->argc; i++)
		strv_push(&out->init.argv, in->argv[i]);

	make_accounts(in, out);
	struct strv hidden = {0};
	existing_hidden(in, &hidden);
	struct bwrap_in bi = {
	    .pol = in->pol,
	    .home = in->home,
	    .cwd = in->cwd,
	    .init_path = in->host->init,
	    .root_dirs = &in->host->root_dirs,
	    .root_links = &in->host->root_links,
	    .etc = &in->host->etc,
	    .proc_masks = &in->host->proc_masks,
	    .dev_nodes_dir = in->dev_nodes_dir,
	    .etc_files = &in->host->etc_files,
	    .etc_modes = in->host->etc_modes,
	    .etc_trees = &in->host->etc_trees,
	    .files_fd = LAUNCH_FD_END,
	    .ro_over = in->ro_over,
	    .hidden = &hidden,
	    .passwd_fd = LAUNCH_FD_PASSWD,
	    .group_fd = LAUNCH_FD_GROUP,
	    .info_fd = LAUNCH_FD_INFO,
	    .pty = in->pty,
	    /* --size is new in bwrap 0.7.0. */
	    .tmp_size = in->limits && host_version_at_least(in->host->bwrap_ver,
							    0, 7, 0)
			    ? in->limits->tmp_size
			    : 0,
	    /* --disable-userns is new in bwrap 0.8.0 (Debian 12's). */
	    .disable_userns =
		host_version_at_least(in->host->bwrap_ver, 0, 8, 0),
	};
	r = bwrap_build(&bi, &out->bw, err);
	strv_free(&hidden);
	if (r < 0) {
		plan_free(out);
		return r;
	}

	/* Each copied file's open descriptor, in slot order. */
	const struct host_facts *h = in->host;
	out->nfiles = out->bw.files.n;
	out->files = xcalloc(out->nfiles + 1, sizeof(int));
	for (size_t i = 0; i < out->nfiles; i++) {
		out->files[i] = -1;
		for (size_t j = 0; j < h->etc_files.n; j++)
			if (strcmp(h->etc_files.v[j], out->bw.files.v[i]) == 0)
				out->files[i] = h->etc_fds[j];
		if (out->files[i] < 0) {
			r = err_set(err, -EINVAL,
				    "no descriptor for '%s'; this is a bug in "
				    "lnk, please report it",
				    out->bw.files.v[i]);
			plan_free(out);
			return r;
		}
	}

	strv_copy(&out->init.ll_read, &out->bw.ll_read);
	strv_copy(&out->init.ll_write, &out->bw.ll_write);
	out->init.cwd = xstrdup(out->bw.chdir);
	if (out->bw.home_temporary)
		out->init.temp_home = xstrdup(in->home);
	out->init.wire_fd = in->wire ? LAUNCH_FD_WIRE : -1;
	/* The resolver is lnk's, not the program's: a task more in the
	 * sandbox's user namespace, outside the program's count. */
	out->init.resolver = in->resolver;
	if (in->resolver && out->init.nproc)
		out->init.nproc++;
	/* With [commands], executions go to the guard to be named. */
	out->init.exec_guard = !out->init.exec_any;
	/* Every sandbox has a guard: it decides the attribute calls
	 * (src/guard/attr.c), whatever else it does. */
	out->init.guard_fd = LAUNCH_FD_GUARD;
	out->init.lifeline_fd = LAUNCH_FD_LIFELINE;
	out->init.dot_guard = in->guard;
	out->init.connect_guard = in->guard_connect_only && !in->guard;
	if (in->nlisteners) {
		out->init.listeners =
		    xcalloc(in->nlisteners, sizeof(*in->listeners));
		memcpy(out->init.listeners, in->listeners,
		       in->nlisteners * sizeof(*in->listeners));
		out->init.nlisteners = in->nlisteners;
	}

	struct env_in ei = {
	    .host_env = in->host_env,
	    .home = in->home,
	    .user = in->host->user,
	    .shell = in->host->shell,
	    .pass = policy_list(p, K_COMMANDS_ENV),
	    .extra = in->extra_env,
	};
	env_build(&ei, &out->init.env);

	out->bwrap = xstrdup(in->host->bwrap);
	strv_push(&out->tail, "--");
	strv_push(&out->tail, BWRAP_INIT_PATH);
	strv_push(&out->tail, "--config-fd");
	strv_pushf(&out->tail, "%d", LAUNCH_FD_CONFIG);
	return 0;
}

void plan_free(struct launch_plan *p)
{
	bwrap_out_free(&p->bw);
	initcfg_free(&p->init);
	free(p->passwd);
	free(p->group);
	strv_free(&p->tail);
	free(p->bwrap);
	free(p->files);
	*p = (struct launch_plan){0};
}
