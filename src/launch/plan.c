/* The whole launch, planned before anything forks (see plan.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "common/buf.h"
#include "launch/commands.h"
#include "launch/env.h"
#include "launch/plan.h"

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
	out->init.notify_fd = -1;
	out->init.wire_fd = -1;
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
	struct bwrap_in bi = {
	    .pol = in->pol,
	    .home = in->home,
	    .cwd = in->cwd,
	    .init_path = in->host->init,
	    .root_dirs = &in->host->root_dirs,
	    .root_links = &in->host->root_links,
	    .etc = &in->host->etc,
	    .ro_over = in->ro_over,
	    .passwd_fd = LAUNCH_FD_PASSWD,
	    .group_fd = LAUNCH_FD_GROUP,
	    .info_fd = LAUNCH_FD_INFO,
	    .pty = in->pty,
	    /* Debian 12's bwrap is 0.8.0, the first with --disable-userns;
	     * ready reports an older one. */
	    .disable_userns = true,
	};
	if ((r = bwrap_build(&bi, &out->bw, err)) < 0) {
		plan_free(out);
		return r;
	}

	strv_copy(&out->init.ll_read, &out->bw.ll_read);
	strv_copy(&out->init.ll_write, &out->bw.ll_write);
	out->init.cwd = xstrdup(out->bw.chdir);
	out->init.wire_fd = in->wire ? LAUNCH_FD_WIRE : -1;
	out->init.notify_fd = in->notify ? LAUNCH_FD_NOTIFY : -1;
	out->init.dot_guard = in->notify;
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
	*p = (struct launch_plan){0};
}
