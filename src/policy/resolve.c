/* Paths of a policy made absolute and real, and the grants that must never
 * be given refused (docs/design.md, invariant 1; lnk-sandbox(1),
 * SPECS).
 *
 * Threat: a spec comes from anyone. A grant of /, /proc, /sys, /dev, /run or
 * $XDG_RUNTIME_DIR, or of a socket or device, would let the program reach
 * outside the sandbox through host daemons, other processes or the kernel; a
 * grant inside ~/.lnk would let it change its own policy, log and trust
 * record. Symlinks are resolved first, so a link named ~/code/x pointing at
 * /run is refused as /run; then a grant through any link that is not the
 * system's is refused, naming the real path (user_link_on says why), and
 * the system's own folders are refused as write grants.
 */
#include "policy/policy.h"

#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fsplace.h"
#include "policy/systree.h"
#include "store/paths.h"

/* The real form of a folder that may not exist (for comparisons): its
 * realpath when it exists, else the path itself. Asked once a run. */
static const char *real_or_same(struct fs_facts *f, const char *path)
{
	const char *r = facts_real(f, path);
	return r ? r : path;
}

struct forbidden {
	const char *path;
	const char *why;
};

/* Why a resolved grant must be refused, or NULL. */
static const char *refusal(struct fs_facts *f, const char *real,
			   const char *home_real, const char *home_given,
			   char *hint, size_t hintlen)
{
	static const struct forbidden sys[] = {
	    {"/proc", "would let the program see and reach other processes "
		      "and the kernel's controls"},
	    {"/sys", "would let the program reach the kernel's and devices' "
		     "controls"},
	    {"/dev", "would give the program this machine's devices"},
	    {"/run", "would let the program reach host daemons through their "
		     "sockets"},
	    {"/var/run", "would let the program reach host daemons through "
			 "their sockets"},
	};
	hint[0] = '\0';
	if (strcmp(real, "/") == 0) {
		snprintf(hint, hintlen, "grant the folders it needs instead");
		return "would open every file on this machine, lnk's settings "
		       "with them";
	}
	for (size_t i = 0; i < ARRAY_SIZE(sys); i++)
		if (path_within(real, sys[i].path)) {
			snprintf(hint, hintlen,
				 "no folder there can be granted");
			return sys[i].why;
		}
	/* The same trees by what they are: a bind of /proc elsewhere, or a
	 * chroot's folder with /proc or /dev mounted in it (bubblewrap binds
	 * a grant with its mounts). */
	for (size_t i = 0; i < ARRAY_SIZE(sys); i++) {
		const char *at = NULL;
		if (!systree_shows(real, f, sys[i].path, &at))
			continue;
		if (at)
			snprintf(hint, hintlen,
				 "it holds '%s', a mount of %s: grant a folder "
				 "without it, or unmount it first",
				 at, sys[i].path);
		else
			snprintf(hint, hintlen,
				 "it is %s at another path (a bind mount)",
				 sys[i].path);
		return sys[i].why;
	}
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	if (xdg && xdg[0] == '/') {
		const char *x = real_or_same(f, xdg);
		if (path_within(real, x)) {
			snprintf(hint, hintlen,
				 "it holds your session's sockets (%s)", x);
			return "would let the program reach your session's "
			       "daemons (agents, keyrings, the display) through "
			       "their sockets";
		}
	}
	const char *homes[] = {home_real, home_given};
	for (size_t h = 0; h < ARRAY_SIZE(homes); h++) {
		if (!homes[h] ||
		    (h > 0 && homes[0] && strcmp(homes[h], homes[0]) == 0))
			continue;
		struct strv hidden = {0};
		paths_always_hidden(homes[h], &hidden);
		for (size_t i = 0; i < hidden.n; i++) {
			const char *x = real_or_same(f, hidden.v[i]);
			if (path_within(real, x)) {
				bool settings = i == 0;
				snprintf(hint, hintlen, "%s",
					 settings ? "no sandbox may reach it"
						  : "agents' folders are "
						    "always hidden");
				strv_free(&hidden);
				return settings ? "is inside lnk's settings "
						  "folder, which holds the "
						  "sandbox's own policy and log"
						: "is inside the agents' "
						  "folders, which every "
						  "sandbox hides";
			}
		}
		strv_free(&hidden);
	}
	return NULL;
}

/* The home /etc/passwd gives the account, real, when it is another
 * folder than HOME (home_real), else NULL. Threat: HOME set elsewhere
 * (a script's, a test's, sudo's) left the account's own home a plain
 * folder to lnk: a write grant of it took .bash_aliases and bin/, which
 * the next login ran. */
static char *other_home(const char *home_real)
{
	struct passwd *pw = getpwuid(getuid());
	if (!pw || !pw->pw_dir || pw->pw_dir[0] != '/')
		return NULL;
	char *acc = realpath(pw->pw_dir, NULL);
	struct stat a, h;
	if (!acc ||
	    (home_real && stat(acc, &a) == 0 && stat(home_real, &h) == 0 &&
	     a.st_dev == h.st_dev && a.st_ino == h.st_ino)) {
		free(acc);
		return NULL;
	}
	return acc;
}

/* Whether a symbolic link (st) in the folder dir (dst) is the system's,
 * not something a program in an earlier sandbox could have left: root's,
 * in a folder of root's. For a sandbox run by root everything it writes is
 * root's too, so then the folder must also be one no write grant can hold
 * ("/" and the system trees of policy/systree.h, /proc, /sys, /dev, /run). */
static bool link_is_systems(const struct stat *st, const char *dir,
			    const struct stat *dst)
{
	if (st->st_uid != 0 || dst->st_uid != 0)
		return false;
	if (geteuid() != 0)
		return true;
	static const char *const kernel[] = {"/proc", "/sys", "/dev", "/run"};
	if (strcmp(dir, "/") == 0 || systree_spelled(dir))
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(kernel); i++)
		if (path_within(dir, kernel[i]))
			return true;
	return false;
}

/* Follows abs component by component as the kernel would and returns the
 * first symbolic link on the way that is not the system's (malloc'd), or
 * NULL. Threat: run 1 with --write PROJ replaces PROJ/build by a link to
 * the home folder (or, as root, to /etc); run 2 is given --write
 * PROJ/build and would silently write where the link points. A path that
 * does not resolve returns NULL: realpath then says why. */
static char *user_link_on(const char *abs, char resolved[PATH_MAX])
{
	char cur[PATH_MAX] = "";
	resolved[0] = '\0';
	_cleanup_free_ char *rest = xstrdup(abs);
	for (int hops = 0; rest[0];) {
		char *p = rest;
		while (*p == '/')
			p++;
		size_t n = strcspn(p, "/");
		if (n == 0)
			break;
		_cleanup_free_ char *comp = xstrndup(p, n);
		_cleanup_free_ char *tail = xstrdup(p + n);
		free(rest);
		rest = steal_pointer(&tail);
		if (strcmp(comp, ".") == 0)
			continue;
		if (strcmp(comp, "..") == 0) {
			char *slash = strrchr(cur, '/');
			if (slash)
				*slash = '\0';
			continue;
		}
		char next[PATH_MAX];
		int w = snprintf(next, sizeof(next), "%s/%s", cur, comp);
		if (w < 0 || (size_t)w >= sizeof(next))
			return NULL;
		struct stat st, dst;
		if (lstat(next, &st) < 0)
			return NULL;
		if (!S_ISLNK(st.st_mode)) {
			memcpy(cur, next, (size_t)w + 1);
			continue;
		}
		const char *dir = cur[0] ? cur : "/";
		if (stat(dir, &dst) < 0 || !link_is_systems(&st, dir, &dst))
			return xstrdup(next);
		char target[PATH_MAX];
		ssize_t t = readlink(next, target, sizeof(target) - 1);
		if (t <= 0 || ++hops > 40)
			return NULL;
		target[t] = '\0';
		char *spliced = xasprintf("%s%s", target, rest);
		free(rest);
		rest = spliced;
		if (target[0] == '/')
			cur[0] = '\0';
	}
	snprintf(resolved, PATH_MAX, "%s", cur[0] ? cur : "/");
	return NULL;
}

static char *origin_msg(const struct policy *p, enum key_id id, size_t i,
			const char *given)
{
	_cleanup_free_ char *o = policy_origin(p, id, i);
	if (p->k[id].item_pos && p->k[id].item_pos[i].line)
		return xasprintf("%s: '%s'", o, given);
	return xasprintf("%s %s", o, given);
}

static int resolve_path(struct policy *p, enum key_id id, size_t i,
			const char *cwd, const char *home,
			const char *home_real, const char *account,
			struct fs_facts *f, char **out, struct lnk_err *err)
{
	struct key_value *kv = &p->k[id];
	const char *given = kv->list.v[i];
	bool from_spec = kv->item_pos && kv->item_pos[i].line > 0;
	_cleanup_free_ char *abs = NULL;
	_cleanup_free_ char *where = origin_msg(p, id, i, given);

	if (given[0] == '~' && (given[1] == '\0' || given[1] == '/'))
		abs = xasprintf("%s%s", home, given + 1);
	else if (given[0] == '/')
		abs = xstrdup(given);
	else {
		const char *base = from_spec && p->spec_dir ? p->spec_dir : cwd;
		abs = xasprintf("%s/%s", base, given);
	}

	char *real = realpath(abs, NULL);
	if (!real) {
		int e = errno;
		if (e == ENOENT)
			return err_set(
			    err, -EINVAL,
			    "%s: no such file or folder '%s': create "
			    "it first, or fix the path",
			    where, abs);
		return err_set(err, -EINVAL, "%s: cannot use '%s': %s", where,
			       abs, strerror(e));
	}
	_cleanup_free_ char *r = real;
	struct stat st;
	if (stat(r, &st) < 0)
		return err_set(err, -EINVAL, "%s: cannot use '%s': %s", where,
			       r, strerror(errno));

	if (id == K_FILES_HIDE) {
		/* Hiding only closes: any existing folder may be hidden. A
		 * file cannot be (bwrap mounts an empty folder there). */
		if (!S_ISDIR(st.st_mode))
			return err_set(
			    err, -EINVAL,
			    "%s: '%s' is not a folder: hide closes a "
			    "folder; hide the folder that holds it, "
			    "and grant what you need in it with "
			    "--read or --write",
			    where, r);
		*out = steal_pointer(&r);
		return 0;
	}
	/* A socket, device or FIFO granted would be a channel to whatever
	 * listens on the host side of it. */
	if (S_ISSOCK(st.st_mode) || S_ISCHR(st.st_mode) ||
	    S_ISBLK(st.st_mode) || S_ISFIFO(st.st_mode))
		return err_set(err, -EINVAL,
			       "%s: '%s' is a %s, which would let the program "
			       "reach outside the sandbox through it; grant "
			       "folders and files only",
			       where, r,
			       S_ISSOCK(st.st_mode)   ? "socket"
			       : S_ISFIFO(st.st_mode) ? "pipe"
						      : "device");
	char hint[256];
	const char *why = refusal(f, r, home_real, home, hint, sizeof(hint));
	if (why)
		return err_set(err, -EINVAL, "%s: '%s' %s; %s", where, r, why,
			       hint);
	bool writes = id == K_FILES_WRITE || id == K_FILES_WRITE_DOT_FILES;
	bool other;
	const char *tree = writes ? systree_holding(r, f, &other) : NULL;
	if (tree)
		return err_set(
		    err, -EINVAL,
		    "%s: '%s' %s the system folder %s, whose files the "
		    "system's own programs run or trust as root (package "
		    "scripts, cron's tables, configuration); it can be granted "
		    "only with --read. Grant a folder of your own instead (the "
		    "project, or a new folder under /tmp) and copy what the "
		    "program made where it belongs yourself",
		    where, r,
		    other		   ? "shows, through a bind mount,"
		    : strcmp(r, tree) == 0 ? "is"
					   : "lies in",
		    tree);
	const char *at = NULL;
	tree = writes ? systree_below(r, f, &at) : NULL;
	if (tree)
		return err_set(
		    err, -EINVAL,
		    "%s: '%s' holds '%s', a mount that shows the system "
		    "folder %s (or a folder that holds it), whose files the "
		    "system's own programs run or trust as root; the program "
		    "would write there through it. Grant a folder without "
		    "it, or unmount it first",
		    where, r, at, tree);
	if (writes && account && path_within(account, r))
		return err_set(
		    err, -EINVAL,
		    "%s: '%s' %s your account's home %s, which is not HOME "
		    "(%s): lnk keeps the dot files of HOME only, and the "
		    "program could leave startup files your next login "
		    "runs. Grant a folder below it, or run with HOME=%s",
		    where, r, strcmp(account, r) == 0 ? "is" : "holds", account,
		    home_real ? home_real : home, account);
	char walked[PATH_MAX];
	_cleanup_free_ char *link = user_link_on(abs, walked);
	if (link)
		return err_set(
		    err, -EINVAL,
		    "%s: the path goes through the symbolic link '%s', which "
		    "is not the system's (a program in an earlier sandbox "
		    "could have made it, to send this grant elsewhere); it "
		    "leads to '%s': grant that path instead if you mean it",
		    where, link, r);
	/* The real path was asked before this walk: a link swapped in and
	 * out between the two (a program of another sandbox, in a loop)
	 * made the grant the link's target while the walk saw none. Both
	 * must name the same folder. */
	if (walked[0] && strcmp(walked, r) != 0)
		return err_set(
		    err, -EINVAL,
		    "%s: the path led to '%s', then to '%s', while lnk "
		    "looked at it (a link put there and taken away, perhaps "
		    "by a program of another sandbox): nothing ran; look at "
		    "what is there, and run again",
		    where, r, walked);
	if (id == K_FILES_WRITE_DOT_FILES && !S_ISDIR(st.st_mode))
		return err_set(err, -EINVAL,
			       "%s: '%s' is not a folder: name a write folder",
			       where, r);
	*out = steal_pointer(&r);
	return 0;
}

static int resolve_command(struct policy *p, size_t i, const char *cwd,
			   const char *home, char **out)
{
	const struct key_value *kv = &p->k[K_COMMANDS_ALLOW];
	const char *c = kv->list.v[i];
	if (c[0] == '~' && c[1] == '/')
		*out = xasprintf("%s%s", home, c + 1);
	else if (c[0] != '/' && strchr(c, '/'))
		/* a folder of programs, relative to where it was written */
		*out = xasprintf("%s/%s",
				 kv->item_pos && kv->item_pos[i].line &&
					 p->spec_dir
				     ? p->spec_dir
				     : cwd,
				 c);
	else
		*out = xstrdup(c);
	return 0;
}

static int resolve_all(struct policy *p, const char *cwd, const char *home,
		       struct lnk_err *err)
{
	if (!cwd || cwd[0] != '/' || !home || home[0] != '/')
		return err_set(err, -EINVAL,
			       "the working folder and home must be absolute");
	struct fs_facts *f = p->facts;
	const char *home_real = facts_real(f, home);
	/* looked up once, and only when something is written */
	_cleanup_free_ char *account =
	    p->k[K_FILES_WRITE].list.n || p->k[K_FILES_WRITE_DOT_FILES].list.n
		? other_home(home_real)
		: NULL;

	for (size_t id = 0; id < K__COUNT; id++) {
		const struct key_def *d = key_def((enum key_id)id);
		struct key_value *kv = &p->k[id];
		if (d->type != KT_PATHS && id != K_COMMANDS_ALLOW)
			continue;
		struct key_value nk = {0};
		nk.set = kv->set;
		nk.from_flag = kv->from_flag;
		nk.pos = kv->pos;
		for (size_t i = 0; i < kv->list.n; i++) {
			char *r = NULL;
			int e =
			    d->type == KT_PATHS
				? resolve_path(p, (enum key_id)id, i, cwd, home,
					       home_real, account, f, &r, err)
				: resolve_command(p, i, cwd, home, &r);
			if (e < 0) {
				policy_clear_key(&nk);
				return e;
			}
			/* Resolved, one folder is one grant whatever its
			 * origin and spelling. */
			if (!strv_contains(&nk.list, r))
				policy_push(&nk, r, kv->item_pos[i]);
			free(r);
		}
		policy_clear_key(kv);
		*kv = nk;
	}

	/* Dot files are writable only where the program writes: naming any
	 * other folder is a mistake worth saying. */
	const struct key_value *dots = &p->k[K_FILES_WRITE_DOT_FILES];
	for (size_t i = 0; i < dots->list.n; i++)
		if (!strv_contains(&p->k[K_FILES_WRITE].list,
				   dots->list.v[i])) {
			_cleanup_free_ char *o =
			    policy_origin(p, K_FILES_WRITE_DOT_FILES, i);
			return err_set(err, -EINVAL,
				       "%s: '%s' is not one of the write "
				       "folders; dot files can be written only "
				       "at the top of a write folder (--write)",
				       o, dots->list.v[i]);
		}

	/* Defaults. Flags alone: a person typed them for this one run, and a
	 * program without its tools is useless, so every system program may
	 * run. A spec states what it runs: without [commands] it runs
	 * nothing (lnk-sandbox(1), SPECS: "a spec with no sections ...
	 * runs no program"), and the run code says so. */
	if (!p->spec_path && !p->spec_name && !p->k[K_COMMANDS_ALLOW].set)
		policy_push(&p->k[K_COMMANDS_ALLOW], "*", (struct toml_pos){0});

	strv_free(&p->always_hidden);
	paths_always_hidden(home_real ? home_real : home, &p->always_hidden);
	int r = policy_hidden_by_identity(p, err);
	if (r < 0)
		return r;
	p->resolved = true;
	return 0;
}

int policy_resolve(struct policy *p, const char *cwd, const char *home,
		   struct lnk_err *err)
{
	/* The mounts and the real paths the rules compare, asked once a run
	 * and kept for the planning that follows (policy/facts.h). */
	facts_free(p->facts);
	p->facts = facts_new();
	return resolve_all(p, cwd, home, err);
}
