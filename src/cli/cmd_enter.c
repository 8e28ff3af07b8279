/* lnk sandbox enter --spec FILE --folder DIR [--check] [-- COMMAND...]
 *
 * lnk-sandbox(1), COMMANDS, enter.
 * What a key's forced command runs:
 *
 *   restrict,pty,command="lnk sandbox enter --spec /etc/lnk/users/alice/
 *   alice.toml --folder /home/alice" ssh-ed25519 AAAA...
 *
 * A login shell, a command, scp or sftp (sshd puts what the client asked
 * for in SSH_ORIGINAL_COMMAND) all run in the sandbox the spec makes,
 * named for the spec's file and the session (alice-4242: lnk's pid, so
 * that sessions of one key at once never take each other's name), with
 * DIR the one folder it writes. The session runs /bin/bash, so the spec's
 * [commands] must let it run. It ends with its SSH connection, even when
 * its program ignores the hangup (spawn.h, end_on_hangup): else it would
 * run on with nobody connected, holding its wire.
 *
 * The spec is not asked about first (trust.h): a forced command has no one
 * to ask, and the spec is the one the key's owner named in the key's
 * options, which the person logging in cannot change.
 */
#include <errno.h>
#include <limits.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "common/fsplace.h"
#include "cli/grants.h"
#include "common/esc.h"
#include "common/util.h"
#include "launch/commands.h"
#include "launch/env.h"
#include "launch/sandbox.h"
#include "launch/spawn.h"
#include "store/secure.h"

extern char **environ;

/* sshd's built-in sftp server does not exist inside the sandbox: the
 * subsystem runs OpenSSH's own sftp-server there instead. */
#define ENTER_SFTP_SERVER "/usr/lib/openssh/sftp-server"
#define ENTER_SHELL "/bin/bash"

static void usage(FILE *f)
{
	fputs(
	    "usage: lnk sandbox enter --spec FILE --folder DIR [--check] [-- "
	    "COMMAND...]\n"
	    "\n"
	    "For an SSH key's forced command: the session (a login shell, "
	    "the\n"
	    "command in SSH_ORIGINAL_COMMAND, scp or sftp) runs in the "
	    "sandbox the\n"
	    "spec makes, named for the spec's file, with DIR the one folder "
	    "it\n"
	    "writes. The spec's [commands] must let /bin/bash run. sftp runs\n"
	    "" ENTER_SFTP_SERVER " inside (also for 'internal-sftp').\n"
	    "\n"
	    "  restrict,pty,command=\"lnk sandbox enter --spec "
	    "/etc/lnk/users/alice/alice.toml --folder /home/alice\" "
	    "ssh-ed25519 AAAA...\n"
	    "\n"
	    "enter's own options:\n"
	    "  --spec FILE    the sandbox's spec (required)\n"
	    "  --folder DIR   the one folder the session writes (required)\n"
	    "  --check        say what the sandbox opens, a line each, and "
	    "run nothing\n"
	    "  -- COMMAND     run COMMAND in place of the session's\n"
	    "  -h, --help     this help\n",
	    f);
}

/* Whether the real path real is, or lies in, a folder the session
 * writes: by identity (a folder on its way is a write folder), or a mount
 * at or below a write folder shows it or a folder holding it. */
static bool real_in_reach(const char *real, const struct policy *pol,
			  const struct mount_table *mt)
{
	const enum key_id ids[] = {K_FILES_WRITE, K_FILES_WRITE_DOT_FILES};
	for (size_t k = 0; k < ARRAY_SIZE(ids); k++) {
		const struct strv *w = &pol->k[ids[k]].list;
		for (size_t i = 0; i < w->n; i++) {
			struct stat ws, st;
			struct strv alts = {0};
			if (mt)
				mounts_seen_at(mt, w->v[i], real, &alts);
			bool shown = alts.n > 0;
			strv_free(&alts);
			if (shown)
				return true;
			if (stat(w->v[i], &ws) < 0)
				continue;
			char walk[PATH_MAX];
			snprintf(walk, sizeof(walk), "%s", real);
			for (;;) {
				if (stat(walk, &st) == 0 &&
				    st.st_dev == ws.st_dev &&
				    st.st_ino == ws.st_ino)
					return true;
				char *slash = strrchr(walk, '/');
				if (!slash || slash == walk)
					break;
				*slash = '\0';
			}
		}
	}
	return false;
}

/* Whether a link on the way to spec, as it is written, lies in a folder
 * the session writes: the session could point it at another spec
 * (~/sess/alice.toml -> /etc/lnk/users/alice/alice.toml, replaced by a
 * link to a wider one). The links are followed by hand, at most 40; a
 * path that cannot be walked counts as in reach. */
static bool link_in_reach(const char *spec, const struct policy *pol,
			  const struct mount_table *mt)
{
	char cur[PATH_MAX] = "";
	_cleanup_free_ char *rest = NULL;
	if (spec[0] == '/') {
		rest = xstrdup(spec);
	} else {
		char cwd[PATH_MAX];
		if (!getcwd(cwd, sizeof(cwd)))
			return true;
		rest = xasprintf("%s/%s", cwd, spec);
	}
	int hops = 0;
	size_t pos = 0;
	for (;;) {
		while (rest[pos] == '/')
			pos++;
		if (!rest[pos])
			return false;
		size_t end = pos + strcspn(rest + pos, "/");
		char comp[NAME_MAX + 1];
		if (end - pos > NAME_MAX)
			return true;
		memcpy(comp, rest + pos, end - pos);
		comp[end - pos] = '\0';
		pos = end;
		if (strcmp(comp, ".") == 0)
			continue;
		if (strcmp(comp, "..") == 0) {
			char *s = strrchr(cur, '/');
			if (s)
				*s = '\0';
			continue;
		}
		char next[PATH_MAX];
		if ((size_t)snprintf(next, sizeof(next), "%s/%s", cur, comp) >=
		    sizeof(next))
			return true;
		struct stat st;
		if (lstat(next, &st) < 0)
			return true;
		if (!S_ISLNK(st.st_mode)) {
			memcpy(cur, next, sizeof(cur));
			continue;
		}
		if (real_in_reach(cur[0] ? cur : "/", pol, mt) || ++hops > 40)
			return true;
		char target[PATH_MAX];
		ssize_t n = readlink(next, target, sizeof(target) - 1);
		if (n <= 0)
			return true;
		target[n] = '\0';
		char *nrest = xasprintf("%s/%s", target, rest + pos);
		free(rest);
		rest = nrest;
		pos = 0;
		if (target[0] == '/')
			cur[0] = '\0';
	}
}

/* Whether the session could rewrite or replace its own spec: the file,
 * or a folder on its way, is a folder the session writes, by identity (a
 * bind mount of it at another path is the same folder); or a mount below
 * a folder the session writes shows the spec, or a folder holding it (the
 * spec's folder bound into the session's home); or a link on the spec's
 * path as written lies in one. Threat: enter asks no question, so a spec
 * the session rewrote or replaced (tools, the internet) would be the next
 * session's grants. */
static bool spec_in_reach(const char *spec, const struct policy *pol)
{
	char real[PATH_MAX];
	if (!realpath(spec, real))
		return true; /* nothing known is nothing proved */
	struct mount_table mt;
	bool have_mounts = mounts_read(&mt) == 0;
	const struct mount_table *m = have_mounts ? &mt : NULL;
	bool r = real_in_reach(real, pol, m) || link_in_reach(spec, pol, m);
	if (have_mounts)
		mounts_free(&mt);
	return r;
}

/* "/etc/lnk/users/alice/alice.toml" -> "alice"; NULL when the file's name
 * cannot name a sandbox ([A-Za-z0-9._-], 1..64). */
static char *name_of_spec(const char *spec)
{
	const char *base = strrchr(spec, '/');
	base = base ? base + 1 : spec;
	size_t n = strlen(base);
	if (n > 5 && strcmp(base + n - 5, ".toml") == 0)
		n -= 5;
	if (n == 0 || n > 64)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		char c = base[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '_' ||
		      c == '-'))
			return NULL;
	}
	return xstrndup(base, n);
}

/* What the session runs: the command after --, else what the SSH client
 * asked for, else a login shell. */
static void session_argv(int argc, char **argv, int rest, struct strv *out)
{
	if (rest < argc) {
		for (int i = rest; i < argc; i++)
			strv_push(out, argv[i]);
		return;
	}
	const char *cmd = getenv("SSH_ORIGINAL_COMMAND");
	if (!cmd || !*cmd) {
		strv_push(out, ENTER_SHELL);
		strv_push(out, "-l");
		return;
	}
	/* The sftp subsystem: "internal-sftp" (sshd's own, which does not
	 * exist in here) or the configured server's path. */
	size_t n = strlen(cmd);
	if (strcmp(cmd, "internal-sftp") == 0 ||
	    (n >= 11 && strcmp(cmd + n - 11, "sftp-server") == 0)) {
		strv_push(out, ENTER_SFTP_SERVER);
		return;
	}
	/* A command, as sshd runs one: through the shell (scp -t, git ...). */
	strv_push(out, ENTER_SHELL);
	strv_push(out, "-c");
	strv_push(out, cmd);
}

int cmd_enter(int argc, char **argv, const struct cli_ctx *cx)
{
	struct grants g;
	struct policy pol;
	bool pol_init = false, check = false;
	struct lnk_err err = {0};
	int r, ret = LNK_EXIT_FAIL, rest = argc;
	const char *home = cx->home;
	_cleanup_free_ char *folder = NULL, *name = NULL;
	struct strv prog = {0};

	grants_init(&g);
	for (int i = 1; i < argc;) {
		const char *a = argv[i];
		if (strcmp(a, "--") == 0) {
			rest = i + 1;
			break;
		}
		if (strcmp(a, "--check") == 0) {
			check = true;
			i++;
			continue;
		}
		if (strcmp(a, "--folder") == 0 ||
		    strncmp(a, "--folder=", 9) == 0) {
			const char *v = a[8] == '='    ? a + 9
					: i + 1 < argc ? argv[i + 1]
						       : NULL;
			if (!v || !*v) {
				warnx_("option '--folder' needs a DIR");
				ret = LNK_EXIT_USAGE;
				goto out;
			}
			free(folder);
			folder = xstrdup(v);
			i += a[8] == '=' ? 1 : 2;
			continue;
		}
		r = grants_take(argc, argv, &i, GRANTS_SPEC, &g, &err);
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
			static const char *const own[] = {
			    "--spec", "--folder", "--check", "--help", NULL};
			if (a[0] == '-')
				ret = usage_unknown_option("enter", a, own);
			else {
				warnx_("unexpected argument '%s' for 'lnk "
				       "sandbox enter'; a command goes after "
				       "--",
				       a);
				ret = LNK_EXIT_USAGE;
			}
			goto out;
		}
	}
	if (!g.spec || !folder) {
		warnx_(
		    "'lnk sandbox enter' needs --spec FILE and --folder DIR, "
		    "as in 'lnk sandbox enter --spec /etc/lnk/users/alice/"
		    "alice.toml --folder /home/alice'");
		ret = LNK_EXIT_USAGE;
		goto out;
	}
	name = name_of_spec(g.spec);
	if (!name) {
		warnx_("the spec's file name '%s' cannot name a sandbox: use "
		       "letters, digits, '.', '_' and '-', as in alice.toml",
		       g.spec);
		ret = LNK_EXIT_USAGE;
		goto out;
	}
	/* The folder is the one place the session writes: it replaces the
	 * spec's [files] write. */
	char real[PATH_MAX];
	if (!realpath(folder, real)) {
		warnx_("--folder '%s': %s; create it first, or fix the path",
		       folder, strerror(errno));
		goto out;
	}
	if ((r = policy_add_flag(&g.flags, K_FILES_WRITE, real, &err)) < 0) {
		ret = grants_fail(r, &err);
		goto out;
	}
	/* main proved ~/.lnk this user's if it exists (CMD_HOME); a session
	 * makes it, --check only reads. */
	if (!check && secure_settings(home, true, &err) < 0) {
		warnx_("%s", err.msg);
		goto out;
	}
	r = grants_build_policy(&g, real, home, &pol, &err);
	pol_init = true;
	if (r < 0) {
		ret = grants_fail(r, &err);
		goto out;
	}

	if (spec_in_reach(g.spec, &pol)) {
		warnx_("the spec %s lies in a folder the session writes: a "
		       "session could widen the next one's grants by "
		       "rewriting it; keep the spec where the session cannot "
		       "write (/etc/lnk/users/...)",
		       g.spec);
		ret = LNK_EXIT_USAGE;
		goto out;
	}

	if (check) {
		/* Each session's name is the file's and its own lnk's pid,
		 * not a pid of this check's; the spec's name key is not
		 * used by a session, so its line is not shown. */
		struct strv lines = {0};
		policy_describe(&pol, &lines);
		_cleanup_free_ char *shown = esc_dup(real);
		printf("sandbox %.56s-PID (each session's own: its lnk's pid), "
		       "writes only %s\n",
		       name, shown);
		for (size_t i = 0; i < lines.n; i++)
			if (strncmp(lines.v[i], "is named ", 9) != 0)
				printf("%s\n", lines.v[i]);
		strv_free(&lines);
		ret = 0;
		goto out;
	}

	/* The session's own name: the spec's, and lnk's pid, unique among
	 * the sessions running here; kept within a sandbox name's 64. */
	{
		char *own = xasprintf("%.*s-%d", 56, name, (int)getpid());
		free(name);
		name = own;
	}

	/* A session is a shell: a spec that does not let bash run cannot
	 * hold one, and saying so beats a bare "not allowed" later. */
	{
		struct strv ex = {0};
		char *p = NULL;
		r = commands_resolve(policy_list(&pol, K_COMMANDS_ALLOW),
				     policy_any_command(&pol), ENV_SANDBOX_PATH,
				     ENTER_SHELL, &ex, &p, &err);
		strv_free(&ex);
		free(p);
		if (r < 0) {
			warnx_("the spec %s does not let %s run, and a session "
			       "is one: add \"bash\" to its [commands] allow",
			       g.spec, ENTER_SHELL);
			ret = LNK_EXIT_CANNOT_EXEC;
			goto out;
		}
	}

	session_argv(argc, argv, rest, &prog);
	struct sandbox_req req = {
	    .pol = &pol,
	    .home = home,
	    .cwd = real,
	    .name = name,
	    .host_env = environ,
	    .argv = prog.v,
	    .argc = (int)prog.n,
	    .pty = spawn_wants_pty(),
	    .end_on_hangup = true,
	    .no_one_to_ask = true,
	};
	if (sandbox_run(&req, &ret, &err) < 0)
		warnx_("%s", err.msg);
out:
	strv_free(&prog);
	grants_free(&g);
	if (pol_init)
		policy_free(&pol);
	return ret;
}
