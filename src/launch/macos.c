/* `lnk sandbox run` on macOS: the Seatbelt launcher (sandbox.h's
 * sandbox_run, built in place of sandbox.c, plan.c, bwrap.c and spawn.c
 * where meson finds a Darwin host: src/launch/meson.build).
 *
 * Everything platform-free is shared with Linux: the policy and its
 * refusals (policy/), [commands] (commands.h), the environment (env.h),
 * and the profile, seatbelt.c's pure function of the same policy. What is
 * macOS' own is here: a folder of the sandbox's own for TMPDIR and an
 * empty HOME (no tmpfs), and the child that closes every inherited
 * descriptor, leaves lnk's session, applies the profile with
 * sandbox_init(3) and executes the program with the cleared environment.
 * On a terminal the program gets a pty of its own as its new session's
 * terminal (pty_macos.h), never the user's: lnk relays the keys while it
 * runs and closes the pty at its end, so a process that left the session
 * reads nothing the user types next and types nothing into the user's
 * shell. The exit status is the program's, 128+N for a signal, 125 for
 * lnk's own failure, 126 and 127 as on Linux.
 *
 * Not here, and refused rather than run with less: the wire (its macOS
 * loop, route lookups and profile are written, not run, and its keeper
 * makes connects through seccomp), so the network grants ([internet]
 * hosts and models, [lan]) are refused by seatbelt_refusals; --port is a
 * rule of the profile and needs no wire. tests/portable/check compiles and
 * links this file on Linux against the declarations of macOS' libSystem
 * (tests/portable/macos/), with the Linux-only headers and calls made
 * errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sandbox.h>

#include "launch/commands.h"
#include "launch/macos.h"
#include "launch/env.h"
#include "launch/pty_macos.h"
#include "launch/sandbox.h"
#include "launch/seatbelt.h"

extern char **environ;

/* The sandbox's own folder, under the user's temporary folder: mode 0700,
 * a name no other run takes (mkdtemp). Its real path, since Seatbelt
 * matches real paths (/var is /private/var). */
static int make_scratch(char **out, struct lnk_err *err)
{
	const char *t = getenv("TMPDIR");
	_cleanup_free_ char *tmpl =
	    xasprintf("%s/lnk-run-XXXXXX", t && t[0] == '/' ? t : "/tmp");
	if (!mkdtemp(tmpl))
		return err_set(err, -errno,
			       "cannot make the sandbox's folder in '%s': %s",
			       t && t[0] == '/' ? t : "/tmp", strerror(errno));
	char *real = realpath(tmpl, NULL);
	if (!real)
		return err_set(err, -errno, "cannot resolve '%s': %s", tmpl,
			       strerror(errno));
	_cleanup_free_ char *tmp = xasprintf("%s/tmp", real);
	_cleanup_free_ char *home = xasprintf("%s/home", real);
	if (mkdir(tmp, 0700) < 0 || mkdir(home, 0700) < 0) {
		int e = errno;
		free(real);
		return err_set(err, -e, "cannot make the sandbox's folders: %s",
			       strerror(e));
	}
	*out = real;
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	/* FTW_PHYS: a link the program left is removed, never followed. */
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

/* Every descriptor but 0, 1 and 2 closed (invariant 4): the loop macOS
 * needs, having no close_range. */
static void close_inherited(void)
{
	long max = sysconf(_SC_OPEN_MAX);
	if (max < 0 || max > 65536)
		max = 65536;
	for (int fd = 3; fd < max; fd++)
		close(fd);
}

static bool shows(const struct policy *p, const char *dir)
{
	static const enum key_id ids[] = {K_FILES_READ, K_FILES_WRITE};
	for (size_t i = 0; i < ARRAY_SIZE(ids); i++) {
		const struct strv *l = policy_list(p, ids[i]);
		for (size_t j = 0; j < l->n; j++) {
			size_t n = strlen(l->v[j]);
			if (strncmp(l->v[j], dir, n) == 0 &&
			    (dir[n] == '\0' || dir[n] == '/'))
				return true;
		}
	}
	return false;
}

int sandbox_run(const struct sandbox_req *req, int *status, struct lnk_err *err)
{
	const struct policy *p = req->pol;
	struct strv files = {0}, env = {0}, extra = {0};
	_cleanup_free_ char *prog = NULL, *scratch = NULL, *profile = NULL;
	_cleanup_free_ char *home_real = NULL, *home_in = NULL;
	struct mac_pty pt = {.master = -1, .in = -1, .out = -1};
	int r;

	*status = LNK_EXIT_FAIL;
	/* The network grants among them: no wire runs on macOS. */
	if ((r = seatbelt_refusals(p, err)) < 0)
		return r;
	if (req->probe)
		return err_set(err, -EOPNOTSUPP,
			       "lnk sandbox check does not run on macOS yet");
	r = commands_resolve(policy_list(p, K_COMMANDS_ALLOW),
			     policy_any_command(p), ENV_SANDBOX_PATH,
			     req->argv[0], &files, &prog, err);
	if (r < 0) {
		*status =
		    r == -ENOENT ? LNK_EXIT_NOT_FOUND : LNK_EXIT_CANNOT_EXEC;
		goto out;
	}
	if ((r = make_scratch(&scratch, err)) < 0)
		goto out;
	home_in = xasprintf("%s/home", scratch);
	strv_pushf(&extra, "TMPDIR=%s/tmp/", scratch);
	struct env_in ei = {
	    .host_env = req->host_env,
	    .home = home_in,
	    .user = getenv("USER"),
	    .shell = getenv("SHELL"),
	    .pass = policy_list(p, K_COMMANDS_ENV),
	    .extra = &extra,
	};
	env_build(&ei, &env);

	/* commands_resolve lists a folder entry's folder among the files
	 * (Landlock allows beneath it); Seatbelt needs it as a subpath. */
	struct strv exec_files = {0}, exec_folders = {0};
	for (size_t i = 0; i < files.n; i++) {
		struct stat st;
		bool dir = stat(files.v[i], &st) == 0 && S_ISDIR(st.st_mode);
		strv_push(dir ? &exec_folders : &exec_files, files.v[i]);
	}
	/* Seatbelt sees the home's real path (root's /var/root is
	 * /private/var/root): the kept names are written under both. */
	home_real = realpath(req->home, NULL);
	if ((r = mac_pty_open(&pt, err)) < 0)
		goto out;
	struct seatbelt_in si = {
	    .pol = p,
	    .home = req->home,
	    .home_real = home_real,
	    .tty = pt.master >= 0 ? pt.slave : NULL,
	    .scratch = scratch,
	    .exec_files = &exec_files,
	    .exec_folders = &exec_folders,
	};
	r = seatbelt_build(&si, &profile, err);
	strv_free(&exec_files);
	strv_free(&exec_folders);
	if (r < 0)
		goto out;

	/* Where it starts: the folder lnk was started in when a grant shows
	 * it, else the first --write folder, else its empty home. */
	const struct strv *wr = policy_list(p, K_FILES_WRITE);
	const char *dir = shows(p, req->cwd) ? req->cwd
			  : wr->n	     ? wr->v[0]
					     : home_in;

	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		r = err_set(err, -errno, "cannot start the sandbox: %s",
			    strerror(errno));
		goto out;
	}
	if (pid == 0) {
		char *sb_err = NULL;
		/* Its own session, with the pty as its terminal: it cannot
		 * type into the user's (TIOCSTI) nor keep it, and lnk can
		 * end its whole process group. */
		if (mac_pty_child(&pt) < 0) {
			perror("lnk: cannot give the program its terminal");
			_exit(LNK_EXIT_FAIL);
		}
		close_inherited();
		if (chdir(dir) < 0) {
			perror("lnk: cannot enter the starting folder");
			_exit(LNK_EXIT_FAIL);
		}
		if (sandbox_init(profile, 0, &sb_err) != 0) {
			fprintf(stderr,
				"lnk: Seatbelt refused the profile: %s\n",
				sb_err ? sb_err : "no reason given");
			sandbox_free_error(sb_err);
			_exit(LNK_EXIT_FAIL);
		}
		execve(prog, req->argv, env.v);
		_exit(errno == ENOENT ? LNK_EXIT_NOT_FOUND
				      : LNK_EXIT_CANNOT_EXEC);
	}
	int st = 0;
	r = mac_pty_relay(&pt, pid, &st);
	/* What it left running in its group ends with it; what left the
	 * group holds a pty that is closed below. */
	kill(-pid, SIGKILL);
	if (r < 0) {
		r = err_set(err, r, "cannot wait for the program: %s",
			    strerror(-r));
		goto out;
	}
	*status = WIFEXITED(st)	    ? WEXITSTATUS(st)
		  : WIFSIGNALED(st) ? 128 + WTERMSIG(st)
				    : LNK_EXIT_FAIL;
	r = 0;
out:
	mac_pty_close(&pt);
	if (scratch)
		nftw(scratch, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	strv_free(&files);
	strv_free(&env);
	strv_free(&extra);
	return r;
}

int macos_ready(struct strv *lines)
{
	/* What ready checks on macOS: that Seatbelt takes a profile, in a
	 * child (sandbox_init applies to the caller, for good). */
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		strv_pushf(lines, "fail\tseatbelt\tcannot fork: %s",
			   strerror(errno));
		return -errno;
	}
	if (pid == 0) {
		char *e = NULL;
		_exit(sandbox_init("(version 1)(allow default)", 0, &e) == 0
			  ? 0
			  : 1);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	bool ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
	strv_pushf(lines, "%s\tseatbelt\t%s", ok ? "ok" : "fail",
		   ok ? "sandbox_init takes a profile: nothing to install"
		      : "sandbox_init refused a profile of one rule");
	strv_push(lines, "warn\twire\tthe wire does not run on macOS: "
			 "[internet] hosts and models and [lan] are refused");
	return ok ? 0 : -ENOTSUP;
}
