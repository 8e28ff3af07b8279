/* What a tool starts with (env.h): the broker's socket, and lnk's
 * environment without what the program could have filled. */
#include "tools/env.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/compat.h"
#include "common/gitconfig.h"
#include "common/unaddr.h"
#include "store/paths.h"
#include "tools/broker.h"
#include "tools/reach.h"

/* The socket lives in lnk's settings folder: a tool runs outside as the
 * person, and one that runs what the program names reached every
 * sandbox's socket in the host's /tmp and made calls with another
 * sandbox's grants, in its name. lnk's settings are out of every tool's
 * and every sandbox's reach (the socket reaches its own sandbox by a bind
 * of the file alone). */
int tools_listen(const char *home, int *fd, char **dir, struct lnk_err *err)
{
	struct sockaddr_un a;
	socklen_t len;
	int r, s = -1, dirfd = -1;

	_cleanup_free_ char *run = paths_run_dir(home);
	if ((r = paths_ensure_dir(run, err)) < 0)
		return r;
	char *tmpl = xasprintf("%s/tools-XXXXXX", run);
	if (!mkdtemp(tmpl)) {
		r = -errno;
		free(tmpl);
		return err_set(err, r,
			       "cannot make a folder for the tools' socket in "
			       "'%s': %s",
			       run, strerror(-r));
	}
	_cleanup_free_ char *path = xasprintf("%s/tools.sock", tmpl);
	if ((r = unaddr_make(path, &a, &len, &dirfd)) < 0)
		goto fail;
	s = socket_cloexec(AF_UNIX, SOCK_SEQPACKET, 0, COMPAT_NONBLOCK);
	if (s < 0 || bind(s, (struct sockaddr *)&a, len) < 0 ||
	    chmod(path, 0600) < 0 || listen(s, 64) < 0) {
		r = -errno;
		goto fail;
	}
	if (dirfd >= 0)
		close(dirfd);
	*fd = s;
	*dir = tmpl;
	return 0;
fail:
	if (dirfd >= 0)
		close(dirfd);
	if (s >= 0)
		close(s);
	unlink(path);
	rmdir(tmpl);
	free(tmpl);
	return err_set(err, r, "cannot listen for tool calls: %s",
		       strerror(-r));
}

void tools_unlisten(char *dir)
{
	if (!dir)
		return;
	_cleanup_free_ char *sock = xasprintf("%s/tools.sock", dir);
	unlink(sock);
	rmdir(dir);
	free(dir);
}

/* Whether a variable of lnk's environment names where a program finds
 * what it runs or loads: PATH and every *PATH (LD_LIBRARY_PATH,
 * PYTHONPATH, NODE_PATH, CLASSPATH, GIT_EXEC_PATH, ...), every *LIB
 * (PERL5LIB, RUBYLIB), every *_DIRS (XDG_DATA_DIRS), the loader's
 * LD_PRELOAD and LD_AUDIT, and the files a shell runs first (BASH_ENV,
 * ENV). */
static bool search_var(const char *e, size_t n)
{
	static const char *const ends[] = {"PATH", "LIB", "_DIRS"};
	static const char *const exact[] = {"LD_PRELOAD", "LD_AUDIT",
					    "BASH_ENV", "ENV"};

	for (size_t i = 0; i < ARRAY_SIZE(exact); i++)
		if (strlen(exact[i]) == n && !strncmp(e, exact[i], n))
			return true;
	for (size_t i = 0; i < ARRAY_SIZE(ends); i++) {
		size_t k = strlen(ends[i]);
		if (n >= k && !strncmp(e + n - k, ends[i], k))
			return true;
	}
	return false;
}

/* Interpreters' option variables. Each can make the interpreter load code
 * by a name it looks up from the tool's folder (PERL5OPT=-Ilib -Mdev,
 * NODE_OPTIONS=--require ./hook.js, RUBYOPT=-rsetup, a Java agent), and a
 * tool's folder may be the top of a write folder, where the program
 * wrote lib/dev.pm. Which words name code is each interpreter's own
 * grammar, so none of these reaches a tool. */
static bool option_var(const char *e, size_t n)
{
	static const char *const vars[] = {
	    "PERL5OPT",		 "NODE_OPTIONS",     "RUBYOPT",
	    "JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS"};

	for (size_t i = 0; i < ARRAY_SIZE(vars); i++)
		if (strlen(vars[i]) == n && !strncmp(e, vars[i], n))
			return true;
	return false;
}

/* Whether a value names a path in a write folder: the value, one of its
 * words (split at ':', blanks, '=', ',', ';' and quotes), or the path in
 * an option word. Interpreters take paths inside their options
 * (PERL5OPT=-I/w/lib -Mdev, NODE_OPTIONS=--require /w/hook.js,
 * JAVA_TOOL_OPTIONS=-javaagent:/w/a.jar, @/w/argfile): a tool started with
 * one loads the program's file. */
static bool names_write_folder(const struct strv *writes, const char *v)
{
	static const char seps[] = ": \t\n=,;\"'";

	for (const char *s = v; writes && *s;) {
		size_t k = strcspn(s, seps);
		const char *sl = k ? memchr(s, '/', k) : NULL;
		if (sl && (sl == s || s[0] == '-' || s[0] == '@')) {
			_cleanup_free_ char *one =
			    xstrndup(sl, k - (size_t)(sl - s));
			if (tools_write_folder_of(writes, one))
				return true;
		}
		s += k;
		if (*s)
			s++;
	}
	return false;
}

/* What a tool outside must not start on the program's descriptors: a
 * pager or an editor, which reads its keys from them (less with no
 * terminal to open reads fd 2; vi reads stdin) and runs a command for a
 * '!' (less's !CMD, vi's :!CMD), so an exact grant such as 'git log' or
 * 'git commit --amend' would run anything, as the user. Each pager
 * variable names cat (AWS's empty: no pager), each editor false (a call
 * that needs one fails; git merge takes its message as it is), and a less
 * started all the same runs in its secure mode (no shell, editor, pipe,
 * log file or input preprocessor). Set whatever lnk's environment says:
 * the user's own pager is as much a way in. The threat is the same for
 * any program a granted tool starts that reads the program's
 * descriptors or runs the program's files: git's hooks and its difftool
 * (vimdiff) are turned off by git's configuration from the environment,
 * which wins over the user's and the repository's. */
static const char *const forced[] = {
    "PAGER=cat",
    "GIT_PAGER=cat",
    "MANPAGER=cat",
    "SYSTEMD_PAGER=cat",
    "GH_PAGER=cat",
    "PSQL_PAGER=cat",
    "BAT_PAGER=cat",
    "AWS_PAGER=",
    "LESSSECURE=1",
    "EDITOR=false",
    "VISUAL=false",
    "GIT_EDITOR=false",
    "GIT_SEQUENCE_EDITOR=false",
    "SVN_EDITOR=false",
    "KUBE_EDITOR=false",
    "GIT_MERGE_AUTOEDIT=no",
    "GIT_TERMINAL_PROMPT=0",
    "GH_EDITOR=false",
    "SUDO_EDITOR=false",
    "GLAB_PAGER=cat",
    "PERLDOC_PAGER=cat",
    /* python -m puts no working folder first on the module path (a
     * tool's python would import the program's module of that name) */
    "PYTHONSAFEPATH=1",
    /* a browser a tool starts opens a page no page grant allowed */
    "BROWSER=false",
    "GH_BROWSER=false",
    /* git's own: no hook runs (the user's pre-commit that runs make or
     * npm test obeys the Makefile or package.json the program wrote at
     * a write folder's top), and difftool and mergetool find no tool
     * (they fall back to vimdiff, on the program's stdin) */
    "GIT_CONFIG_KEY_0=core.hooksPath",
    "GIT_CONFIG_VALUE_0=/dev/null",
    /* an unknown tool falls back to the defaults: a tool of lnk's own,
     * which runs false */
    "GIT_CONFIG_KEY_1=diff.tool",
    "GIT_CONFIG_VALUE_1=lnk-none",
    "GIT_CONFIG_KEY_2=diff.guitool",
    "GIT_CONFIG_VALUE_2=lnk-none",
    "GIT_CONFIG_KEY_3=difftool.lnk-none.cmd",
    "GIT_CONFIG_VALUE_3=false",
    "GIT_CONFIG_KEY_4=merge.tool",
    "GIT_CONFIG_VALUE_4=lnk-none",
    "GIT_CONFIG_KEY_5=merge.guitool",
    "GIT_CONFIG_VALUE_5=lnk-none",
    "GIT_CONFIG_KEY_6=mergetool.lnk-none.cmd",
    "GIT_CONFIG_VALUE_6=false",
    /* git enters no repository below the one it runs in (a submodule
     * the program made and staged: git status runs git there, which
     * runs that repository's core.fsmonitor or filters), and no
     * fsmonitor runs even where it does */
    "GIT_CONFIG_KEY_7=core.fsmonitor",
    "GIT_CONFIG_VALUE_7=false",
    "GIT_CONFIG_KEY_8=diff.ignoreSubmodules",
    "GIT_CONFIG_VALUE_8=all",
    "GIT_CONFIG_KEY_9=submodule.recurse",
    "GIT_CONFIG_VALUE_9=false",
    "GIT_CONFIG_KEY_10=fetch.recurseSubmodules",
    "GIT_CONFIG_VALUE_10=false",
    "GIT_CONFIG_KEY_11=push.recurseSubmodules",
    "GIT_CONFIG_VALUE_11=no",
    "GIT_CONFIG_KEY_12=status.submoduleSummary",
    "GIT_CONFIG_VALUE_12=false",
};

/* Variables a tool never gets from lnk's environment: the forced ones
 * (set below) and less's own (LESSOPEN and LESSCLOSE run a program on
 * every file; LESS and LESSKEY* name options and key files). */
#define GIT_FORCED 13 /* the GIT_CONFIG_KEY_n of forced */
/* Overrides of the user's drivers, at most (git_drivers). */
#define GIT_DRIVERS_MAX 256
/* git's own bound on nested includes (MAX_INCLUDE_DEPTH) */
#define GIT_INCLUDE_DEPTH 10
/* a config file read further than this is not read whole */
#define GIT_CONFIG_READ_MAX (4u << 20)
/* In over: a file git reads that lnk could not read whole (too long,
 * an include too deep or that names a place lnk cannot tell), so some
 * driver may have no stand-in: then no tool runs (tools_env's false). */
#define DRIVERS_CUT "!cut"

static void drivers_cut(struct strv *over)
{
	if (!strv_contains(over, DRIVERS_CUT))
		strv_push(over, DRIVERS_CUT);
}

static bool replaced_var(const char *e, size_t n)
{
	if (n == 16 && !strncmp(e, "GIT_CONFIG_COUNT", 16))
		return true;
	if (n >= 4 && !strncmp(e, "LESS", 4))
		return true;
	/* git's configuration from the environment is lnk's alone here */
	if (n >= 11 && !strncmp(e, "GIT_CONFIG_", 11) &&
	    ((n > 15 && !strncmp(e + 11, "KEY_", 4)) ||
	     (n > 17 && !strncmp(e + 11, "VALUE_", 6)) ||
	     (n == 21 && !strncmp(e + 11, "PARAMETERS", 10))))
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(forced); i++) {
		size_t k = strcspn(forced[i], "=");
		if (k == n && !strncmp(e, forced[i], n))
			return true;
	}
	return false;
}

/* lnk's environment for the tools, with only the absolute entries of each
 * search_var outside every write folder: an empty or relative entry
 * (":/opt/lib", left by `export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/opt/lib`)
 * is the tool's working folder, the program's own, and an absolute one in
 * a write folder (an activated virtualenv's bin, PYTHONPATH=~/code/app/src)
 * is the program's to fill, so a library, module or command the tool finds
 * there would be the program's file, run outside as the user. Any other
 * variable naming a path in a write folder (XDG_CONFIG_HOME, or
 * GIT_CONFIG_GLOBAL, pointed into the project by direnv) is left out
 * whole: the tool would trust the program's file as its configuration.
 * Interpreters' option variables are left out always (option_var), and
 * no pager or editor is one the program could drive (forced).
 * HOME stays: without it no tool finds its own files. */
static const char *env_get(char *const *env, const char *name)
{
	size_t n = strlen(name);
	for (char *const *e = env; e && *e; e++)
		if (!strncmp(*e, name, n) && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

/* What a driver key runs instead, for a tool: nothing of the program's
 * reaches it (a filter or merge driver fails, a textconv shows the bytes
 * as they are), or NULL for a key that names no command. */
static const char *driver_stand_in(const char *section, const char *key)
{
	if (!strcmp(section, "filter") &&
	    (!strcmp(key, "clean") || !strcmp(key, "smudge") ||
	     !strcmp(key, "process")))
		return "false";
	if (!strcmp(section, "diff") && !strcmp(key, "textconv"))
		return "cat";
	if (!strcmp(section, "diff") && !strcmp(key, "command"))
		return "false";
	if (!strcmp(section, "merge") && !strcmp(key, "driver"))
		return "false";
	return NULL;
}

struct drivers {
	const char *path; /* the file read */
	const char *home;
	int depth;
	struct strv *over;
};

static void git_drivers(const char *path, const char *home, int depth,
			struct strv *over);

static void driver_key(void *ctx, const char *section, const char *sub,
		       const char *key, char *value)
{
	struct drivers *d = ctx;
	bool ctl = false;
	for (const char *c = sub; *c; c++)
		ctl |= (unsigned char)*c < 0x20;
	const char *stand = *sub && !ctl ? driver_stand_in(section, key) : NULL;
	if (stand) {
		_cleanup_free_ char *kv =
		    xasprintf("%s.%s.%s=%s", section, sub, key, stand);
		if (d->over->n < GIT_DRIVERS_MAX && !strv_contains(d->over, kv))
			strv_push(d->over, kv);
		return;
	}
	if (strcmp(key, "path") != 0 || (strcmp(section, "include") != 0 &&
					 strcmp(section, "includeif") != 0))
		return;
	const char *v = gitconfig_value(value);
	_cleanup_free_ char *inc = NULL;
	if (!strncmp(v, "~/", 2) && d->home)
		inc = xasprintf("%s/%s", d->home, v + 2);
	else if (v[0] == '~' || !strncmp(v, "%(prefix)/", 10)) {
		/* another user's home, git's own prefix: not told here */
		drivers_cut(d->over);
		return;
	} else if (v[0] == '/')
		inc = xstrdup(v);
	else if (v[0]) {
		const char *sl = strrchr(d->path, '/');
		inc = xasprintf("%.*s/%s", sl ? (int)(sl - d->path) : 1,
				sl ? d->path : ".", v);
	}
	if (inc)
		git_drivers(inc, d->home, d->depth + 1, d->over);
}

/* The command keys of the filter, diff and merge drivers a git config
 * file defines (and the files it includes, as deep as git goes), each as
 * "section.sub.key=stand-in" in over. Threat: a .gitattributes the
 * program writes in any subfolder selects a driver of the user's own
 * config for the program's files (nbstripout's `python3 -m nbstripout`,
 * which imports the program's nbstripout.py from the working folder; a
 * gpg textconv, which decrypts what the program picks); git run by a
 * granted call at the top then runs it. */
static void git_drivers(const char *path, const char *home, int depth,
			struct strv *over)
{
	if (over->n >= GIT_DRIVERS_MAX)
		return;
	if (depth > GIT_INCLUDE_DEPTH) {
		drivers_cut(over);
		return;
	}
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return;
	struct buf b = {0};
	char chunk[4096];
	ssize_t n = 0;
	while (b.len < GIT_CONFIG_READ_MAX &&
	       (n = read(fd, chunk, sizeof(chunk))) > 0)
		buf_append(&b, chunk, (size_t)n);
	if (n > 0 || n < 0)
		drivers_cut(over); /* more left, or a read that failed */
	size_t len = b.len;
	buf_putc(&b, '\0');
	gitconfig_text_fix(b.p, len);
	struct drivers d = {
	    .path = path, .home = home, .depth = depth, .over = over};
	gitconfig_each(b.p, driver_key, &d);
	buf_free(&b);
}

/* A folder git takes for a repository's own (a bare one): HEAD, objects
 * and refs in it. */
static bool is_git_dir(const char *dir)
{
	static const char *const parts[] = {"HEAD", "objects", "refs"};
	for (size_t i = 0; i < ARRAY_SIZE(parts); i++) {
		char p[PATH_MAX + 16];
		struct stat st;
		snprintf(p, sizeof(p), "%s/%s", dir, parts[i]);
		if (lstat(p, &st) < 0)
			return false;
	}
	return true;
}

/* The first line of a small file, its newline cut, or "" */
static void first_line(const char *path, char *out, size_t cap)
{
	out[0] = '\0';
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return;
	ssize_t n = read(fd, out, cap - 1);
	out[n > 0 ? n : 0] = '\0';
	out[strcspn(out, "\r\n")] = '\0';
}

/* A path git reads in a file of a repository's folder: absolute, or
 * relative to base (the folder that file is in). */
static char *path_from(const char *base, const char *v)
{
	return v[0] == '/' ? xstrdup(v) : xasprintf("%s/%s", base, v);
}

/* The drivers of one repository: git is its folder (or, when a file, the
 * "gitdir: X" it names, a worktree's folder whose "commondir" names the
 * folder with the shared config). */
static void git_dir_drivers(const char *git, bool file, const char *home,
			    struct strv *over)
{
	char line[PATH_MAX + 16];
	_cleanup_free_ char *dir = NULL;

	if (file) {
		first_line(git, line, sizeof(line));
		if (strncmp(line, "gitdir:", 7) != 0)
			return;
		const char *v = line + 7;
		while (*v == ' ' || *v == '\t')
			v++;
		const char *sl = strrchr(git, '/');
		_cleanup_free_ char *base =
		    xstrndup(git, sl && sl != git ? (size_t)(sl - git) : 1);
		dir = path_from(base, v);
	} else {
		dir = xstrdup(git);
	}
	_cleanup_free_ char *cd = xasprintf("%s/commondir", dir);
	first_line(cd, line, sizeof(line));
	_cleanup_free_ char *common = line[0] ? path_from(dir, line) : NULL;
	const char *shared = common ? common : dir;
	_cleanup_free_ char *c = xasprintf("%s/config", shared);
	_cleanup_free_ char *w = xasprintf("%s/config.worktree", dir);
	git_drivers(c, home, 0, over);
	git_drivers(w, home, 0, over);
}

/* The config files of the repository git would find from dir, as its
 * discovery does: dir/.git (a folder, or a file naming one with
 * "gitdir:", a worktree's, whose common folder holds the shared config),
 * or dir itself a repository's folder (a bare one), else the same in the
 * folder above, up to /. */
static void repo_drivers(const char *dir, const char *home, struct strv *over)
{
	char at[PATH_MAX];

	if (snprintf(at, sizeof(at), "%s", dir) >= (int)sizeof(at))
		return;
	for (;;) {
		char git[PATH_MAX + 8];
		struct stat st;
		snprintf(git, sizeof(git), "%s/.git",
			 strcmp(at, "/") ? at : "");
		if (lstat(git, &st) == 0 &&
		    (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode))) {
			git_dir_drivers(git, S_ISREG(st.st_mode), home, over);
			return;
		}
		if (is_git_dir(at)) {
			git_dir_drivers(at, false, home, over);
			return;
		}
		char *slash = strrchr(at, '/');
		if (!slash || !strcmp(at, "/"))
			return;
		if (slash == at)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
}

/* Whether environments a and b name the same global and system git
 * config files (global_drivers reads them once then). */
static bool same_git_files(char *const *a, char *const *b)
{
	static const char *const names[] = {
	    "GIT_CONFIG_GLOBAL", "XDG_CONFIG_HOME", "GIT_CONFIG_SYSTEM",
	    "GIT_CONFIG_NOSYSTEM"};
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		const char *x = env_get(a, names[i]), *y = env_get(b, names[i]);
		if ((x == NULL) != (y == NULL) || (x && strcmp(x, y) != 0))
			return false;
	}
	return true;
}

/* The global and system config files git reads with the environment
 * env (GIT_CONFIG_GLOBAL, or ~/.gitconfig and XDG_CONFIG_HOME's or
 * ~/.config's git/config; GIT_CONFIG_SYSTEM or /etc/gitconfig unless
 * GIT_CONFIG_NOSYSTEM), their drivers into over. */
static void global_drivers(char *const *env, const char *home,
			   struct strv *over)
{
	const char *glob = env_get(env, "GIT_CONFIG_GLOBAL");
	const char *xdg = env_get(env, "XDG_CONFIG_HOME");
	if (glob && *glob) {
		git_drivers(glob, home, 0, over);
	} else if (home) {
		_cleanup_free_ char *a = xasprintf("%s/.gitconfig", home);
		_cleanup_free_ char *x =
		    xdg && xdg[0] == '/'
			? xasprintf("%s/git/config", xdg)
			: xasprintf("%s/.config/git/config", home);
		git_drivers(a, home, 0, over);
		git_drivers(x, home, 0, over);
	}
	/* the system's, before any repository's: a config of many drivers
	 * (one a sandbox wrote in a folder now only read) cannot push the
	 * user's own out past the bound */
	if (!env_get(env, "GIT_CONFIG_NOSYSTEM")) {
		const char *sys = env_get(env, "GIT_CONFIG_SYSTEM");
		git_drivers(sys && *sys ? sys : "/etc/gitconfig", home, 0,
			    over);
	}
}

bool tools_env(char *const *env, const struct strv *writes,
	       const struct strv *grants, struct strv *out)
{
	for (char *const *e = env; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		size_t n = eq ? (size_t)(eq - *e) : 0;
		if (eq && (option_var(*e, n) || replaced_var(*e, n)))
			continue;
		if (eq && !search_var(*e, n) &&
		    !(n == 4 && !strncmp(*e, "HOME", 4)) &&
		    names_write_folder(writes, eq + 1))
			continue;
		if (!eq || !search_var(*e, n)) {
			strv_push(out, *e);
			continue;
		}
		/* the loader splits LD_PRELOAD at spaces too */
		const char *sep =
		    n == 10 && !strncmp(*e, "LD_PRELOAD", n) ? ": " : ":";
		struct buf p = {0};
		buf_append(&p, *e, n + 1);
		for (const char *s = eq + 1; *s;) {
			size_t k = strcspn(s, sep);
			_cleanup_free_ char *one = xstrndup(s, k);
			if (k && s[0] == '/' &&
			    !(writes && tools_write_folder_of(writes, one))) {
				if (p.len > n + 1)
					buf_putc(&p, ':');
				buf_append(&p, s, k);
			}
			s += k;
			if (*s)
				s++;
		}
		_cleanup_free_ char *v = buf_steal(&p);
		if (strlen(v) > n + 1)
			strv_push(out, v);
	}
	for (size_t i = 0; i < ARRAY_SIZE(forced); i++)
		strv_push(out, forced[i]);
	/* the user's drivers, from the files git reads for a tool: the
	 * global ones and the system's, as the tool's environment names
	 * them (a GIT_CONFIG_GLOBAL or XDG_CONFIG_HOME that named a write
	 * folder was left out above, and git reads ~/.gitconfig instead),
	 * and as lnk's does */
	struct strv over = {0};
	const char *home = env_get(env, "HOME");
	global_drivers(out->v, home, &over);
	if (!same_git_files(out->v, env))
		global_drivers(env, home, &over);
	/* and the repository git finds from each granted folder: a tool
	 * runs at the top of a granted folder (or the first write
	 * folder's), and git looks for its repository there and then in
	 * each folder above (a write folder ~/proj/src is inside the user's
	 * ~/proj, whose config nbstripout --install or a gpg textconv put
	 * drivers in) */
	/* the write folders' first: the user's repository a write folder
	 * is in comes before one of a folder only read, which a sandbox may
	 * have written */
	for (size_t i = 0; writes && i < writes->n; i++)
		repo_drivers(writes->v[i], home, &over);
	for (size_t i = 0; grants && i < grants->n; i++)
		repo_drivers(grants->v[i], home, &over);
	bool whole =
	    over.n < GIT_DRIVERS_MAX && !strv_contains(&over, DRIVERS_CUT);
	size_t k = 0;
	for (size_t i = 0; i < over.n; i++) {
		const char *eq = strchr(over.v[i], '=');
		if (!eq)
			continue; /* DRIVERS_CUT */
		strv_push_take(
		    out, xasprintf("GIT_CONFIG_KEY_%zu=%.*s", GIT_FORCED + k,
				   (int)(eq - over.v[i]), over.v[i]));
		strv_push_take(out, xasprintf("GIT_CONFIG_VALUE_%zu=%s",
					      GIT_FORCED + k, eq + 1));
		k++;
	}
	strv_push_take(
	    out, xasprintf("GIT_CONFIG_COUNT=%zu", (size_t)GIT_FORCED + k));
	strv_free(&over);
	return whole;
}
