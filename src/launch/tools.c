/* A sandbox's tools, set up and ended by run (launch/tools.h). */
#include "launch/tools.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/compat.h"
#include "common/esc.h"
#include "common/fsplace.h"
#include "config.h"
#include "launch/askterm.h"
#include "launch/bwrap.h"
#include "launch/env.h"
#include "policy/keys.h"
#include "proto/toolcall.h"
#include "store/paths.h"
#include "tools/asks.h"
#include "tools/broker.h"
#include "tools/desktop.h"
#include "launch/host.h"
#include "tools/reach.h"
#include "tools/store.h"

/* A tool sees the machine as the user does, every mount of it: a folder
 * the mounts also show at another path (the home bound at /data/home, a
 * second mount of its volume) is also that folder there. A hidden one is
 * hidden there too, or `cat /data/home/.lnk/...` reads lnk's keys and
 * answers; a write folder follows no link there either, or a tool whose
 * folder is the second path (a --read grant) follows the program's links.
 * The other paths come from mountinfo, each checked by identity
 * (common/fsplace.h). */
static void seen_elsewhere(struct strv *hidden)
{
	struct mount_table mt;
	struct strv alts = {0};

	if (mounts_read(&mt) < 0)
		return; /* no mountinfo (not Linux): spellings only */
	for (size_t i = 0; i < hidden->n; i++) {
		char *real = realpath(hidden->v[i], NULL);
		if (real)
			mounts_seen_at(&mt, "/", real, &alts);
		free(real);
	}
	for (size_t i = 0; i < alts.n; i++)
		if (!strv_contains(hidden, alts.v[i]))
			strv_push(hidden, alts.v[i]);
	strv_free(&alts);
	mounts_free(&mt);
}

/* lnk-tool: found like lnk's other helpers (host_find_helper). */
static char *find_client(void)
{
	return host_find_helper("lnk-tool");
}

/* The dialog tool, zenity or kdialog, on lnk's PATH, or NULL. It runs
 * outside, as the user, and its exit status is the answer: one the
 * program could change (tools/reach.h) is not used, as if missing. */
static char *find_dialog(const struct policy *pol, const char *path)
{
	static const char *const names[] = {"zenity", "kdialog"};
	struct tool_reach r;
	char *d = NULL;

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		if (tools_lookup(names[i], path, &d) < 0)
			continue;
		if (!tool_reach(policy_list(pol, K_FILES_WRITE), path, d, &r))
			return d;
		free(d);
		d = NULL;
	}
	return NULL;
}

/* Whether the folder dir is the home or one of its ancestors, by what
 * each is (device and inode), so that a home also reached by a second
 * path (a bind, a link) counts. Such a write folder holds the user's own
 * dot files, which may be links a tool must follow (a dotfile manager's
 * ~/.gitconfig). */
static bool holds_home(const char *dir, const char *home)
{
	char at[PATH_MAX];
	struct stat d, a;

	if (stat(dir, &d) < 0 || !realpath(home, at))
		return false;
	for (;;) {
		if (stat(at, &a) == 0 && a.st_dev == d.st_dev &&
		    a.st_ino == d.st_ino)
			return true;
		char *slash = strrchr(at, '/');
		if (!slash || slash == at) {
			if (strcmp(at, "/") == 0)
				return false;
			strcpy(at, "/");
			continue;
		}
		*slash = '\0';
	}
}

int sb_tools_plan(struct sb_tools *t, const struct policy *pol,
		  const char *home, char *const *host_env, struct lnk_err *err)
{
	struct tools_store st;
	struct stat sb;
	int r;

	if (!policy_wants_tools(pol))
		return 0;
	_cleanup_free_ char *sp = tools_store_path(home);
	/* A bad settings file is lnk's failure (125), not a usage error. */
	if ((r = tools_store_load(sp, &st, err)) < 0)
		return r == -EINVAL ? -EBADMSG : r;
	r = tools_plan_make(pol, &st, env_lookup(host_env, "PATH"), &t->plan,
			    err);
	tools_store_free(&st);
	if (r < 0)
		return r;
	/* A folder of --write-dot-files that holds the home gives the
	 * program the home's dot files, which every tool reads wherever it
	 * runs: git its ~/.gitconfig (diff.external, any alias), ssh its
	 * ~/.ssh/config (ProxyCommand), xdg-open its mimeapps.list. A tool
	 * would run the program's configuration outside, as the user. */
	const struct strv *dw = policy_list(pol, K_FILES_WRITE_DOT_FILES);
	for (size_t i = 0; t->plan.n && i < dw->n; i++) {
		if (!holds_home(dw->v[i], home))
			continue;
		char q[PATH_MAX + 16];
		return err_set(
		    err, -EPERM,
		    "--write-dot-files '%s' lets the program write your "
		    "home's dot files, which every tool you grant reads "
		    "outside, as you (git's ~/.gitconfig, ssh's "
		    "~/.ssh/config): a tool would run what the program "
		    "wrote; grant --write-dot-files a folder below your "
		    "home, or run without tools and pages",
		    esc_to(q, sizeof(q), dw->v[i]));
	}
	t->plan.desktop = env_lookup(host_env, "DISPLAY") ||
			  env_lookup(host_env, "WAYLAND_DISPLAY");
	if (!(t->client = find_client()))
		return err_set(err, -ENOENT,
			       "lnk-tool is missing: it is neither next to "
			       "lnk nor in %s; reinstall lnk",
			       LNK_LIBEXECDIR);
	if ((r = tools_listen(home, &t->listen_fd, &t->dir, err)) < 0)
		return r;
	t->sock = xasprintf("%s/tools.sock", t->dir);
	if (stat(t->sock, &sb) < 0)
		return err_set(err, -errno, "cannot read '%s': %s", t->sock,
			       strerror(errno));
	t->sock_dev = sb.st_dev;
	t->sock_ino = sb.st_ino;

	/* Where a tool may run: a granted folder no hidden one closes. */
	strv_copy(&t->grants, policy_list(pol, K_FILES_READ));
	strv_copy(&t->grants, policy_list(pol, K_FILES_WRITE));
	strv_copy(&t->writes, policy_list(pol, K_FILES_WRITE));
	strv_copy(&t->dots, policy_list(pol, K_FILES_WRITE_DOT_FILES));
	t->home_real = realpath(home, NULL);
	for (size_t i = 0; i < t->writes.n; i++) {
		bool around = t->home_real && holds_home(t->writes.v[i], home);
		strv_push(around ? &t->around : &t->nofollow, t->writes.v[i]);
	}
	/* none holds the home (refused above); kept for the view's sake */
	for (size_t i = 0; t->home_real && i < t->dots.n; i++)
		t->home_dots_too |= holds_home(t->dots.v[i], home);
	strv_copy(&t->hidden, &pol->always_hidden);
	paths_always_hidden(home, &t->hidden);
	strv_copy(&t->hidden, policy_list(pol, K_FILES_HIDE));
	strv_push_take(&t->hidden, paths_lnk_dir(home));
	seen_elsewhere(&t->hidden);
	/* a folder that holds the home, at a second path too: followed
	 * nowhere there, the home's dot entries neither */
	struct strv alt = {0};
	strv_copy(&alt, &t->around);
	seen_elsewhere(&alt);
	for (size_t i = t->around.n; i < alt.n; i++)
		strv_push(&t->nofollow, alt.v[i]);
	strv_free(&alt);
	seen_elsewhere(&t->nofollow);
	t->asks_dir = asks_dir(home);
	_cleanup_free_ char *settings = paths_settings(home);
	if ((r = asks_wait_setting(settings, &t->ask_wait_s, err)) < 0)
		return r == -EINVAL ? -EBADMSG : r;
	/* The spec's or flag's wait, checked 1 to 3600 (policy/keys.c). */
	if (pol->k[K_TOOLS_ASK_WAIT].set)
		t->ask_wait_s =
		    (unsigned)key_scalar_value(pol->k[K_TOOLS_ASK_WAIT].str);
	/* A desktop session: questions are shown on it too. */
	if ((t->bus = desktop_session_bus(host_env)))
		t->dialog = find_dialog(pol, env_lookup(host_env, "PATH"));
	const struct strv *w = policy_list(pol, K_FILES_WRITE);
	t->fallback = xstrdup(w->n ? w->v[0] : "/");
	return 1;
}

bool sb_tools_has(const struct sb_tools *t, const char *argv0)
{
	return !strchr(argv0, '/') && tools_plan_find(&t->plan, argv0);
}

void sb_tools_mount(struct sb_tools *t, struct launch_plan *pl,
		    const char *argv0)
{
	char real[PATH_MAX];
	const char *rc = realpath(t->client, real) ? real : t->client;

	bwrap_bind_after_init(&pl->bw.opts, t->sock, TOOLS_SOCK_INSIDE);
	for (size_t i = 0; i < t->plan.n; i++) {
		_cleanup_free_ char *in =
		    xasprintf("%s/%s", TOOLS_BIN_INSIDE, t->plan.t[i].name);
		bwrap_bind_after_init(&pl->bw.opts, t->client, in);
		strv_push(&pl->init.ll_exec, in);
		strv_push(&pl->init.ll_read, in);
	}
	if (argv0 && sb_tools_has(t, argv0)) {
		free(pl->init.argv.v[0]);
		pl->init.argv.v[0] =
		    xasprintf("%s/%s", TOOLS_BIN_INSIDE, argv0);
		/* The client's host path is no file inside. */
		for (size_t i = 0; i < pl->init.ll_exec.n; i++)
			if (strcmp(pl->init.ll_exec.v[i], rc) == 0 ||
			    strcmp(pl->init.ll_exec.v[i], t->client) == 0) {
				free(pl->init.ll_exec.v[i]);
				pl->init.ll_exec.v[i] =
				    xstrdup(pl->init.argv.v[0]);
			}
	}
}

int sb_tools_start(struct sb_tools *t, const char *name, const char *home,
		   char *const *host_env, const int *close_fds, bool can_ask,
		   bool terminal, bool desktop, struct lnk_err *err)
{
	_cleanup_free_ char *db = paths_db(home);
	int fds[16], n = 0, ask[2] = {-1, -1}, ans[2] = {-1, -1};

	/* Two pipes between lnk's prompt and the broker: the questions to
	 * ask (broker -> lnk) and the answers typed (lnk -> broker). */
	if (pipe_cloexec(t->life, 0) < 0 ||
	    (can_ask && terminal &&
	     (pipe_cloexec(ask, 0) < 0 || pipe_cloexec(ans, 0) < 0))) {
		int e = errno;
		for (int i = 0; i < 2; i++) {
			if (ask[i] >= 0)
				close(ask[i]);
			if (ans[i] >= 0)
				close(ans[i]);
		}
		return err_set(err, -e, "cannot start the tools: %s",
			       strerror(e));
	}
	for (const int *f = close_fds; f && *f != -1 && n < 12; f++)
		fds[n++] = *f;
	fds[n++] = t->life[1];
	if (ask[0] >= 0)
		fds[n++] = ask[0];
	if (ans[1] >= 0)
		fds[n++] = ans[1];
	fds[n] = -1;
	/* The broker never waits on lnk: a question lnk has not read yet
	 * stays answerable from another shell. */
	if (ask[1] >= 0)
		fcntl(ask[1], F_SETFL, O_NONBLOCK);
	/* Nor lnk on the broker: an answer line is written whole or not. */
	if (ans[1] >= 0)
		fcntl(ans[1], F_SETFL, O_NONBLOCK);
	if (ans[0] >= 0)
		fcntl(ans[0], F_SETFL, O_NONBLOCK);
	t->nf = (struct tools_nofollow){.folders = &t->nofollow,
					.around = &t->around,
					.home = t->home_real,
					.home_dots_too = t->home_dots_too};
	struct tools_broker_in in = {
	    .plan = &t->plan,
	    .listen_fd = t->listen_fd,
	    .lifeline_fd = t->life[0],
	    .close_fds = fds,
	    .db = db,
	    .cap = t->cap,
	    .shut = t->shut,
	    .trips = t->trips,
	    .trip_calls = t->trip_calls,
	    .trip_targets = t->trip_targets,
	    .sandbox = name,
	    .env = host_env,
	    .grants = &t->grants,
	    .writes = &t->writes,
	    .write_dot_files = &t->dots,
	    .hidden = &t->hidden,
	    .nofollow = &t->nf,
	    .fallback = t->fallback,
	    .can_ask = can_ask,
	    .ask_fd = ask[1],
	    .answer_fd = ans[0],
	    .bus = desktop ? t->bus : NULL,
	    .dialog = t->dialog,
	    .asks_dir = t->asks_dir,
	    .ask_wait_s = t->ask_wait_s,
	    .sock_dir = t->dir,
	};
	int r = tools_broker_start(&in, &t->pid, err);
	close(t->life[0]);
	t->life[0] = -1;
	if (ask[1] >= 0)
		close(ask[1]);
	if (ans[0] >= 0)
		close(ans[0]);
	if (ask[0] >= 0 && r == 0) {
		fcntl(ask[0], F_SETFL, O_NONBLOCK);
		t->ask =
		    askterm_new(ask[0], t->asks_dir, STDOUT_FILENO, ans[1]);
	} else {
		if (ask[0] >= 0)
			close(ask[0]);
		if (ans[1] >= 0)
			close(ans[1]);
	}
	/* The broker's socket is its own now. */
	close(t->listen_fd);
	t->listen_fd = -1;
	return r;
}

void sb_tools_end(struct sb_tools *t)
{
	askterm_free(t->ask);
	t->ask = NULL;
	if (t->life[1] >= 0) {
		close(t->life[1]);
		t->life[1] = -1;
	}
	if (t->life[0] >= 0) {
		close(t->life[0]);
		t->life[0] = -1;
	}
	if (t->pid > 0) {
		int st;
		while (waitpid(t->pid, &st, 0) < 0 && errno == EINTR)
			;
		t->pid = -1;
	}
	if (t->listen_fd >= 0) {
		close(t->listen_fd);
		t->listen_fd = -1;
	}
	tools_unlisten(t->dir);
	t->dir = NULL;
	free(t->sock);
	t->sock = NULL;
	free(t->client);
	t->client = NULL;
	free(t->fallback);
	t->fallback = NULL;
	free(t->asks_dir);
	t->asks_dir = NULL;
	free(t->bus);
	t->bus = NULL;
	free(t->dialog);
	t->dialog = NULL;
	strv_free(&t->grants);
	strv_free(&t->writes);
	strv_free(&t->nofollow);
	strv_free(&t->around);
	free(t->home_real);
	t->home_real = NULL;
	strv_free(&t->dots);
	strv_free(&t->hidden);
	tools_plan_free(&t->plan);
}
