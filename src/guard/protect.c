/* What a run protects in its write folders, by class: what a program on the
 * host will later run or trust of what the sandbox can write or move
 * (docs/runs-outside.md is the inventory). A list of names at the top of a
 * folder keeps missing things, so each class here is a rule:
 *
 *  - the listed names at the top (src/policy/dotfiles.c), and the target
 *    chain of each that is a link (.envrc -> config/envrc: moving config
 *    away and making a new one would change what direnv runs);
 *  - a git directory at the top: git takes any folder holding HEAD,
 *    objects and refs for a repository (setup.c, is_git_directory), and
 *    HEAD, config, hooks are not dot files. A top that is not one at start
 *    never gets a HEAD; a top that is one (a bare repository) keeps its
 *    HEAD, config and hooks read only, like .git;
 *  - every repository the top one (or the one a write folder lies in)
 *    knows: submodules (.gitmodules, .git/modules and the index's
 *    gitlinks, at any depth) and linked worktrees, whose `.git` file
 *    below the top would otherwise be pointed at a git directory of the
 *    program's, with its own core.fsmonitor, which the user's next plain
 *    `git status` at the top runs;
 *  - what a repository's config (and the user's global one) names outside
 *    the git directory: core.hooksPath, include.path, includeIf.*.path,
 *    the programs of its commands; a command's words as its shell reads
 *    them ($HOME/x too), and a relative value of the user's own config
 *    from each working tree git may run it in;
 *  - the top of the home folder, when a write folder is it or holds it:
 *    shells, X sessions, editors and countless tools read a dot file there,
 *    so EVERY dot name is read only and none can be created, and ~/bin
 *    (on PATH through Debian's .profile) with it; and each folder above
 *    the home a write folder holds the same way, with no new HEAD there
 *    (git, Mercurial and cargo look up through it from the whole home);
 *  - what other tools' configuration names (ssh, AWS, kubectl, npm,
 *    cargo, gh, pip: guard/toolconf.h, the table), every value read as a
 *    command, and ssh's includes;
 *  - every folder on the user's PATH (lnk's own, as the shell gave it)
 *    that lies in a write folder: a program put there runs in place of
 *    the one the user types next (an activated virtualenv's .venv/bin,
 *    ~/go/bin), so it is read only, and a missing one cannot be made;
 *  - the folders on the way to a hidden folder (~/.lnk, ~/Link/Agents,
 *    ~/Link/History, --hide) or to another grant inside a write folder:
 *    renamed, they would carry the hidden content to a path the next
 *    sandbox shows, or leave the grant's path to the program. Never
 *    lifted by --write-dot-files.
 *
 * One mechanism serves all: protect_path walks a path the way the kernel
 * does, following links by hand, and every (folder, name) it meets inside a
 * write folder becomes a guard: that name can be neither created (when
 * missing) nor renamed (when present) by the supervisor; the object at the
 * end, when it exists, is bind-mounted read only over itself (a mount point
 * can be neither removed nor renamed). Nothing here reads a file the
 * program chose as anything but data: git's config is parsed by hand,
 * never by running git (which would run its fsmonitor).
 *
 * Over 1000 lines: the classes are one plan, each reading what the others
 * found (a repository's config names the folders the next rule protects);
 * its three tables live apart already (gitkeys.c, envconf.c, toolconf.c).
 */
#include "guard/internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsplace.h"
#include "common/esc.h"
#include "common/gitconfig.h"
#include "common/pathenv.h"
#include "guard/envconf.h"
#include "guard/gitkeys.h"
#include "guard/homelinks.h"
#include "guard/linkcache.h"
#include "guard/toolconf.h"
#include "policy/dotfiles.h"
#include "policy/facts.h"

/* How deep nested repositories and config includes are followed. */
#define NEST_MAX 8
/* Bytes read of one config or gitfile: a real one is far smaller. */
#define CONFIG_MAX (1 << 20)
/* Guarded names at most: each creation compares against every one, so a
 * hostile .gitmodules or index listing a million submodules must end in
 * a refusal to run, not in a crawl. */
#define GUARDS_MAX 8192
/* Paths one command of a config or of the environment may name. */
#define COMMAND_PATHS_MAX 64
/* Entries kept read only by a bind of their own, at most. */
#define RO_BINDS_MAX 2048

struct pctx {
	const struct protect_in *in;
	struct guard_plan *np;
	struct strv *ro;
	struct strv seen; /* config files parsed (include loops) */
	bool overflow;	  /* more than GUARDS_MAX: refuse to run */
	/* why each entry of ro is kept, by its index (NULL: a listed dot
	 * file or its link's target, put there by guard_mounts_seen);
	 * nwhys of them are set */
	const char **whys;
	size_t nwhys;
	/* the mounts, when the policy's facts have none: read at the first
	 * question (seen_at) */
	struct mount_table own;
	int own_state;		 /* 0: not read, 1: read, -1: cannot be */
	struct linkcache *links; /* the folders' links of earlier runs */
	/* where a relative value of the user's own git config is taken
	 * from (user_config_bases), made at its first use */
	struct strv user_bases;
	bool user_bases_made;
	bool aliasing; /* protect_path is walking a second spelling */
	/* the first hooks folder to keep read only that is a write folder
	 * itself (a git directory's hooks, what core.hooksPath names): the
	 * run is refused, a bind over it would close the whole grant. Only
	 * hooks: a dot entry granted on its own (--write ~/.cache beside
	 * --write ~) is the person's to write. hooks is set while such a
	 * folder is walked. */
	char *conflict;
	bool hooks;
	/* the first config of another tool's with more includes than are
	 * read (guard/toolconf.h): refuse to run */
	char *conf_over;
};

/* dir holds what makes git take it for a git directory (HEAD, objects,
 * refs: git's is_git_directory). */
static bool looks_like_git_dir(const char *dir)
{
	static const char *const need[] = {"HEAD", "objects", "refs"};
	for (size_t i = 0; i < sizeof(need) / sizeof(*need); i++) {
		_cleanup_free_ char *p = xasprintf("%s/%s", dir, need[i]);
		struct stat st;
		if (lstat(p, &st) < 0)
			return false;
	}
	return true;
}

static bool lifted(const struct pctx *c, const char *w)
{
	for (size_t i = 0; c->in->lifted && i < c->in->lifted->n; i++)
		if (strcmp(c->in->lifted->v[i], w) == 0)
			return true;
	return false;
}

/* The write folder that holds p (the innermost), or NULL. A path inside a
 * folder --write-dot-files names counts as held only for `always`. */
static const char *holder(const struct pctx *c, const char *p, bool always)
{
	const char *best = NULL;

	for (size_t i = 0; i < c->in->write->n; i++) {
		const char *w = c->in->write->v[i];
		if (path_within(p, w) && (!best || strlen(w) > strlen(best)))
			best = w;
	}
	if (best && !always && lifted(c, best))
		return NULL;
	return best;
}

static void guard_name(struct pctx *c, const char *dir, const char *name,
		       const char *why, bool always)
{
	struct stat st;

	if (!holder(c, dir, always) || stat(dir, &st) < 0 ||
	    !S_ISDIR(st.st_mode))
		return;
	if (c->np->n >= GUARDS_MAX) {
		c->overflow = true;
		return;
	}
	struct guard_rule g = {
	    .dev = st.st_dev,
	    .ino = st.st_ino,
	    .dir = (char *)dir,
	    .name = (char *)name,
	    .why = why,
	    .always = always,
	};
	guard_plan_push(c->np, &g);
}

static bool is_write_folder(const struct pctx *c, const char *p)
{
	for (size_t i = 0; i < c->in->write->n; i++)
		if (strcmp(c->in->write->v[i], p) == 0)
			return true;
	return false;
}

/* Walks path (absolute) component by component, following links by hand
 * (at most 40): each (folder, name) met inside a write folder is guarded;
 * the object at the end, when it exists, lies inside a write folder and
 * bind is set, is listed for a read-only bind over itself. */
static void protect_walk(struct pctx *c, const char *path, const char *why,
			 bool always, bool bind)
{
	char cur[PATH_MAX] = "";
	_cleanup_free_ char *rest = xstrdup(path);
	int hops = 0;
	size_t pos = 0;

	if (path[0] != '/')
		return;
	for (;;) {
		while (rest[pos] == '/')
			pos++;
		if (!rest[pos])
			break;
		size_t end = pos;
		while (rest[end] && rest[end] != '/')
			end++;
		char comp[NAME_MAX + 1];
		if (end - pos > NAME_MAX)
			return;
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
			return;
		guard_name(c, cur[0] ? cur : "/", comp, why, always);
		struct stat st;
		if (lstat(next, &st) < 0)
			return; /* missing: its name is guarded */
		if (!S_ISLNK(st.st_mode)) {
			/* a file with more components after it: the kernel
			 * would fail there too (a trailing '/' is none) */
			if (rest[pos + strspn(rest + pos, "/")] &&
			    !S_ISDIR(st.st_mode))
				return;
			memcpy(cur, next, sizeof(cur));
			continue;
		}
		if (++hops > 40)
			return;
		char target[PATH_MAX];
		ssize_t n = readlink(next, target, sizeof(target) - 1);
		if (n <= 0)
			return;
		target[n] = '\0';
		char *nrest = xasprintf("%s/%s", target, rest + pos);
		free(rest);
		rest = nrest;
		pos = 0;
		if (target[0] == '/')
			cur[0] = '\0';
	}
	if (c->hooks && bind && cur[0] && is_write_folder(c, cur) &&
	    holder(c, cur, always) && !c->conflict)
		c->conflict =
		    xasprintf("'%s' is a write folder, but %s", cur, why);
	if (bind && cur[0] && holder(c, cur, always) &&
	    !is_write_folder(c, cur) && !strv_contains(c->ro, cur)) {
		/* Each is a bind of bwrap's (three of its 9000 arguments):
		 * past a bound the run is refused, naming why, never a
		 * bwrap error blamed on the machine. */
		if (c->ro->n >= RO_BINDS_MAX) {
			c->overflow = true;
			return;
		}
		size_t at = c->ro->n;
		strv_push(c->ro, cur);
		c->whys = xrealloc(c->whys, (at + 1) * sizeof(*c->whys));
		while (c->nwhys < at)
			c->whys[c->nwhys++] = NULL;
		c->whys[at] = why;
		c->nwhys = at + 1;
	}
}

/* The mounts, for the second spellings of a path. */
static const struct mount_table *mounts_of(struct pctx *c)
{
	const struct mount_table *mt = facts_mounts(c->in->facts);
	if (mt || c->in->facts)
		return mt;
	if (c->own_state == 0)
		c->own_state = mounts_read(&c->own) < 0 ? -1 : 1;
	return c->own_state > 0 ? &c->own : NULL;
}

/* Every (folder, name) on the way to path inside a write folder, and the
 * object at its end (protect_walk), judged by what it is, not by its
 * spelling: the same folder is also kept at each path at which a write
 * folder shows it (a bind mount of the write folder elsewhere, by which
 * PATH or a variable names it; a bind mount inside the write folder of a
 * folder outside it). Compared as spelled, those were never guarded, and
 * the program planted what PATH runs through the second spelling. The
 * longest part of path that exists is what the mounts are asked about;
 * what follows it does not exist, so no link lies there. */
static void protect_path(struct pctx *c, const char *path, const char *why,
			 bool always, bool bind)
{
	/* The kernel takes no path this long (ENAMETOOLONG): nothing runs
	 * or reads a file by that name, and a config's value of thousands
	 * of folders must not walk them. */
	if (strlen(path) >= PATH_MAX)
		return;
	protect_walk(c, path, why, always, bind);
	const struct mount_table *mt;
	if (c->aliasing || path[0] != '/' || !c->in->write->n ||
	    !(mt = mounts_of(c)))
		return;
	_cleanup_free_ char *head = xstrdup(path);
	_cleanup_free_ char *real = NULL;
	size_t cut = strlen(head);
	for (;;) {
		head[cut] = '\0';
		/* asked once a run when the policy's facts are at hand: the
		 * same folders (PATH's, the home's) come back many times */
		const char *q = cut ? head : "/";
		const char *fr =
		    c->in->facts ? facts_real(c->in->facts, q) : NULL;
		if ((real = fr		   ? xstrdup(fr)
			    : c->in->facts ? NULL
					   : realpath(q, NULL)))
			break;
		char *s = strrchr(head, '/');
		if (!s)
			return;
		cut = (size_t)(s - head);
	}
	const char *tail = path + cut;
	struct strv alts = {0};
	for (size_t i = 0; i < c->in->write->n; i++)
		if (always || !lifted(c, c->in->write->v[i]))
			mounts_seen_at(mt, c->in->write->v[i], real, &alts);
	c->aliasing = true;
	for (size_t i = 0; i < alts.n; i++) {
		_cleanup_free_ char *p = xasprintf(
		    "%s%s", strcmp(alts.v[i], "/") ? alts.v[i] : "", tail);
		protect_walk(c, p, why, always, bind);
	}
	c->aliasing = false;
	strv_free(&alts);
}

/* Each entry of ro, by what it is, for the guard to name when the kernel
 * refuses a change in it: its write folder and why it is kept. */
static void kept_entries(struct pctx *c)
{
	for (size_t i = 0; i < c->ro->n; i++) {
		const char *p = c->ro->v[i];
		const char *top = holder(c, p, false);
		struct stat st;
		/* an entry below its write folder (kept.c names it from
		 * there), never the folder itself */
		if (!top || strncmp(p, top, strlen(top)) != 0 ||
		    strcmp(p, top) == 0 || lstat(p, &st) < 0)
			continue;
		const char *why = i < c->nwhys ? c->whys[i] : NULL;
		struct guard_plan *np = c->np;
		np->kept =
		    xrealloc(np->kept, (np->nkept + 1) * sizeof(*np->kept));
		np->kept[np->nkept++] = (struct guard_kept){
		    .dev = st.st_dev,
		    .ino = st.st_ino,
		    .path = xstrdup(p),
		    .top = xstrdup(top),
		    .why = why,
		};
	}
}

/* ---- git's files, read as data ---- */

static char *read_small_len(const char *path, size_t *len);

static char *read_small(const char *path)
{
	size_t len;
	return read_small_len(path, &len);
}

/* read_small, and how many bytes it read (a NUL among them too). */
static char *read_small_len(const char *path, size_t *len)
{
	_cleanup_close_ int fd =
	    open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size > CONFIG_MAX)
		return NULL;
	char *buf = xmalloc((size_t)st.st_size + 1);
	size_t got = 0;
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	buf[got] = '\0';
	*len = got;
	return buf;
}

/* path made absolute: "~/x" from the home folder, "x" from base. NULL for
 * what cannot be told ("~user/x", an empty value). */
static char *expand(const struct pctx *c, const char *v, const char *base)
{
	if (!*v)
		return NULL;
	if (v[0] == '/')
		return xstrdup(v);
	if (v[0] == '~') /* ~/x, and ~user/x as git reads it */
		return path_tilde(v, c->in->home);
	return base ? xasprintf("%s/%s", base, v) : NULL;
}

static char *dir_of(const char *path)
{
	const char *s = strrchr(path, '/');
	return s == path ? xstrdup("/") : xstrndup(path, (size_t)(s - path));
}

/* The next line of a git config file read whole (git-config(1) syntax:
 * .git/config, an included file, .gitmodules), past its leading blanks;
 * NULL at the end (or with no text: the file could not be read). */
static char *next_line(char **cur)
{
	char *line = line_next(cur);
	return line ? gitconfig_blanks_past(line) : NULL;
}

struct git_repo {
	const char *include_dir; /* the folder a relative include of the
				  * file itself is from, when not the
				  * file's own (a link's: git_global_file) */
	const char *gitdir;	 /* the git directory */
	const char *worktree;	 /* its working tree, or NULL (bare, global) */
	char *core_worktree;	 /* core.worktree as written, when set */
	bool sha256;		 /* extensions.objectFormat = sha256 */
};

/* path with "." and ".." taken off as spelled (path absolute): for a
 * link's target whose folders do not exist yet, which the program could
 * make. */
static char *lexical(const char *path)
{
	struct strv parts = {0};
	_cleanup_free_ char *all = xstrdup(path);
	for (char *save = NULL, *w = strtok_r(all, "/", &save); w;
	     w = strtok_r(NULL, "/", &save)) {
		if (strcmp(w, ".") == 0)
			continue;
		if (strcmp(w, "..") == 0) {
			if (parts.n)
				free(parts.v[--parts.n]);
			continue;
		}
		strv_push(&parts, w);
	}
	struct buf b = {0};
	for (size_t i = 0; i < parts.n; i++)
		buf_printf(&b, "/%s", parts.v[i]);
	strv_free(&parts);
	return b.len ? buf_steal(&b) : xstrdup("/");
}

/* Where the link at p leads, absolute: its folder by what it is when it
 * exists, else as spelled. NULL when p is no link. */
static char *link_leads(const char *p)
{
	char to[PATH_MAX];
	ssize_t l = readlink(p, to, sizeof(to) - 1);
	if (l <= 0)
		return NULL;
	to[l] = '\0';
	_cleanup_free_ char *dir = dir_of(p);
	_cleanup_free_ char *abs =
	    to[0] == '/' ? xstrdup(to) : xasprintf("%s/%s", dir, to);
	_cleanup_free_ char *norm = lexical(abs);
	_cleanup_free_ char *up = dir_of(norm);
	_cleanup_free_ char *real = realpath(up, NULL);
	const char *base = strrchr(norm, '/') + 1;
	if (!real || !*base)
		return steal_ptr(&norm);
	return xasprintf("%s/%s", strcmp(real, "/") == 0 ? "" : real, base);
}

/* The hooks a folder holds that are links (hooks/pre-commit ->
 * ../../scripts/pre-commit.sh, as many projects install theirs): git runs
 * what each leads to, so every link on the way and where it ends are kept
 * as the hook is; a link to nothing yet keeps the name it leads to (and
 * the folders on its way) from being made. At most 64 hooks, 8 links a
 * chain. */
static void keep_hook_links(struct pctx *c, const char *dir)
{
	static const char why[] = "a git hook leads to it: git runs it at "
				  "the next commit, as you";
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	while (d && (e = readdir(d)) && n < 64) {
		/* the listing's type first: a start in a repository
		 * looks at every hook, most of them samples, never links */
		if (e->d_name[0] == '.' ||
		    (e->d_type != DT_LNK && e->d_type != DT_UNKNOWN))
			continue;
		char *at = xasprintf("%s/%s", dir, e->d_name);
		struct stat st;
		if (lstat(at, &st) < 0 || !S_ISLNK(st.st_mode)) {
			free(at);
			continue;
		}
		n++;
		for (int hop = 0; at && hop < 8; hop++) {
			char *next = link_leads(at);
			if (!next)
				break;
			protect_path(c, next, why, false, true);
			free(at);
			at = next;
			if (lstat(at, &st) < 0 || !S_ISLNK(st.st_mode))
				break;
		}
		free(at);
	}
	if (d)
		closedir(d);
}

static void scan_config(struct pctx *c, const char *file, struct git_repo *g,
			int depth);

static const char *env_get(char *const *env, const char *name);

/* What stands in a word for an expansion whose value is the folder git
 * runs the command in, or is not known: `$PWD`, `$(...)`, backquotes. A
 * path after it is taken from each base (git runs a `!` alias and its
 * other commands at the top of the working tree). */
#define WORD_HERE '\001'

/* Whether ch ends an unquoted shell word: a blank or an operator. */
static bool shell_sep(char ch)
{
	return ch && strchr(" \t\n;|&<>()", ch);
}

/* The next word of a shell command at *p as the shell splits it: unquoted
 * blanks and ; | & < > ( ) end it; quotes are removed and what they hold
 * kept (a quoted space stays in the word); a backslash keeps the next
 * character; `$(...)` and `...` become WORD_HERE. false at the end. A
 * word longer than cap - 1 is cut (it names no real path then). */
static bool shell_word(const char **p, char *out, size_t cap)
{
	const char *s = *p;
	size_t n = 0;
	char q = 0;

	while (shell_sep(*s))
		s++;
	if (!*s)
		return false;
	for (; *s; s++) {
		if (!q && shell_sep(*s))
			break;
		if (q != '\'' && *s == '\\' && s[1]) {
			s++;
		} else if (!q && (*s == '\'' || *s == '"')) {
			q = *s;
			continue;
		} else if (q && *s == q) {
			q = 0;
			continue;
		} else if (q != '\'' &&
			   (*s == '`' || (*s == '$' && s[1] == '('))) {
			/* a command substitution, to its closing mark */
			char end = *s == '`' ? '`' : ')';
			int depth = 0;
			s += *s == '$';
			while (s[1] && !(s[1] == end && depth == 0)) {
				s++;
				depth += end == ')' && *s == '(';
				depth -= end == ')' && *s == ')' && depth > 0;
			}
			if (s[1])
				s++;
			if (n + 1 < cap)
				out[n++] = WORD_HERE;
			continue;
		}
		if (n + 1 < cap)
			out[n++] = *s;
	}
	out[n] = '\0';
	*p = s;
	return true;
}

/* A word that starts with a variable ($HOME/x, ${HOME}/x, ${HOME%/}/x),
 * as the shell that runs the command expands it: HOME is the home
 * folder, PWD the folder git runs it in (WORD_HERE), any other the value
 * in lnk's own environment (the user's, as the shell gave it; the one git
 * runs with later is not known). NULL when it is no such word, or names
 * no absolute folder. */
static char *expand_var(const struct pctx *c, const char *w)
{
	char name[128];
	size_t n = 0;
	const char *p = w + 1;
	bool braced = *p == '{';

	if (w[0] != '$')
		return NULL;
	p += braced;
	while (((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		(*p >= '0' && *p <= '9') || *p == '_') &&
	       n + 1 < sizeof(name))
		name[n++] = *p++;
	name[n] = '\0';
	/* ${NAME%/}, ${NAME:-x} and the like: NAME's value stands for it */
	if (braced && *p && *p != '}' && strchr("%#:-+=?/^,", *p))
		p = strchr(p, '}') ? strchr(p, '}') : p;
	if (!n || (braced && *p++ != '}') || (*p && *p != '/'))
		return NULL;
	if (strcmp(name, "PWD") == 0)
		return xasprintf("%c%s", WORD_HERE, p);
	const char *v =
	    strcmp(name, "HOME") == 0 ? c->in->home : env_get(c->in->env, name);
	if (!v || v[0] != '/')
		return NULL;
	return xasprintf("%s%s", v, p);
}

/* Whether the word names a program that runs the file it is given next
 * (`sh e.sh`): that file's bare name is a path too. */
static bool runs_a_script(const char *w)
{
	static const char *const shells[] = {
	    "sh",   "bash", "dash", "zsh", "ksh",    "python", "python3",
	    "perl", "ruby", "node", "php", "source", "."};
	const char *b = strrchr(w, '/');
	b = b ? b + 1 : w;
	for (size_t i = 0; i < ARRAY_SIZE(shells); i++)
		if (strcmp(b, shells[i]) == 0)
			return true;
	return false;
}

/* Protects word w of a command for why: absolute, from the home, from a
 * variable, or relative (after WORD_HERE too) from each of bases. */
static void protect_word(struct pctx *c, const char *w,
			 const struct strv *bases, const char *why)
{
	_cleanup_free_ char *v = w[0] == '$' ? expand_var(c, w) : NULL;
	if (v)
		w = v;
	else if (w[0] == '$')
		return;
	if (w[0] == WORD_HERE) {
		w++;
		while (*w == '/')
			w++;
		if (!*w)
			return;
	} else if (w[0] == '/' || w[0] == '~') {
		_cleanup_free_ char *p = expand(c, w, NULL);
		if (p)
			protect_path(c, p, why, false, true);
		return;
	}
	for (size_t i = 0; bases && i < bases->n; i++) {
		_cleanup_free_ char *p = expand(c, w, bases->v[i]);
		if (p)
			protect_path(c, p, why, false, true);
	}
}

/* Each word of a shell command that is a path, read as its shell reads
 * it (shell_word): the program, the script a program is given (`sh
 * ~/x/hook.sh`, `sh e.sh`), an option's path (`-F/x`, `--file=/x`),
 * `$HOME/x`; a quoted word holding a command of its own (`sh -c 'cd ~/x
 * && ./y'`) is read the same way, a few levels deep. Relative words are
 * from each of bases (where git runs it: the working tree; for the
 * user's own config, each one it may be: user_config_bases; NULL: none).
 * *words counts the paths met. */
static void command_paths(struct pctx *c, const char *cmd,
			  const struct strv *bases, const char *why, int depth,
			  int *words)
{
	char w[PATH_MAX];
	bool script_next = false, module_next = false, python = false;

	for (const char *p = cmd; shell_word(&p, w, sizeof(w));) {
		const char *t = w;
		bool script = script_next;
		script_next = runs_a_script(w);
		if (module_next) {
			/* python3 -m tools.lint runs tools/lint.py (or the
			 * package tools/lint): both kept, from each base */
			module_next = false;
			if (!strchr(w, '/') && w[0] != '-' &&
			    ++*words <= COMMAND_PATHS_MAX) {
				char m[PATH_MAX];
				snprintf(m, sizeof(m), "%s", w);
				for (char *d = m; *d; d++)
					if (*d == '.')
						*d = '/';
				_cleanup_free_ char *py = xasprintf("%s.py", m);
				protect_word(c, py, bases, why);
				protect_word(c, m, bases, why);
			}
			continue;
		}
		/* python's options, up to its -m */
		if (python && strcmp(w, "-m") == 0) {
			module_next = true;
			continue;
		}
		const char *bn = strrchr(w, '/') ? strrchr(w, '/') + 1 : w;
		python =
		    strncmp(bn, "python", 6) == 0 || (python && w[0] == '-');
		if (strpbrk(w, " \t\n;|&") && depth < 4) {
			/* a command of its own, or a path with a space */
			command_paths(c, w, bases, why, depth + 1, words);
			if (!strchr("/~$", w[0]) && w[0] != WORD_HERE)
				continue;
		}
		bool to_eq = false; /* the path ends at an '=' (options) */
		if (t[0] == '-') {
			/* --file=PATH, -FPATH, -r./x, -javaagent:PATH and
			 * -javaagent:PATH=opts (a path glued to its option) */
			const char *eq = strchr(t, '=');
			const char *colon = strchr(t, ':');
			if (colon && colon[1] && (!eq || colon < eq) &&
			    (strchr("/~$", colon[1]) ||
			     strncmp(colon + 1, "file:/", 6) == 0)) {
				t = colon + 1;
				to_eq = true;
			} else if (eq) {
				t = eq + 1;
			} else if (t[1] && t[1] != '-' && t[2] &&
				   (strchr("/~$", t[2]) ||
				    (t[2] == '.' && strchr(t + 2, '/')))) {
				t += 2;
			} else {
				continue;
			}
		} else if (strchr(t, '=') && t[0] != '/' && t[0] != '~') {
			t = strchr(t, '=') + 1; /* VAR=PATH before a command */
		}
		if (!*t ||
		    (!script && t[0] != '/' && t[0] != '~' && t[0] != '$' &&
		     t[0] != WORD_HERE && !strchr(t, '/')))
			continue;
		/* A real command names a few paths; a value of thousands
		 * (a config the user did not write) must not slow the
		 * start: past the bound the run is refused as too big. */
		if (++*words > COMMAND_PATHS_MAX) {
			c->overflow = true;
			return;
		}
		/* a file: URL names its path (node's --import=file:///x) */
		char tb[PATH_MAX];
		snprintf(tb, sizeof(tb), "%s", t);
		char *u = tb;
		if (strncmp(u, "file://", 7) == 0 && u[7] == '/')
			u += 7;
		if (to_eq && strchr(u, '='))
			*strchr(u, '=') = '\0';
		if (*u)
			protect_word(c, u, bases, why);
	}
}

static void protect_command(struct pctx *c, const char *cmd,
			    const struct strv *bases, const char *why)
{
	int words = 0;
	command_paths(c, cmd, bases, why, 0, &words);
}

static bool dot_git(const char *folder, char **gitdir, bool *named);

/* Where git takes a relative value of the user's own config from: the
 * top of the working tree it runs in. Of those the program can write
 * into, that is each write folder (a repository now, or once the user
 * runs git init there) and the top of the repository a write folder
 * lies in. */
static const struct strv *user_config_bases(struct pctx *c)
{
	struct strv *out = &c->user_bases;

	if (c->user_bases_made)
		return out;
	c->user_bases_made = true;
	for (size_t i = 0; i < c->in->write->n; i++) {
		const char *w = c->in->write->v[i];
		if (!strv_contains(out, w))
			strv_push(out, w);
		_cleanup_free_ char *d = xstrdup(w);
		for (char *s; (s = strrchr(d, '/')) && s != d;) {
			*s = '\0';
			_cleanup_free_ char *gd = NULL;
			bool named;
			if (!dot_git(d, &gd, &named))
				continue;
			if (!strv_contains(out, d))
				strv_push(out, d);
			break;
		}
	}
	return out;
}

/* The config's keys that name programs or files (guard/gitkeys.h, the one
 * table), and what the repository's own format and worktree are. */
static void config_key(struct pctx *c, const char *file, struct git_repo *g,
		       const char *section, const char *key, const char *val,
		       int depth)
{
	if (strcmp(section, "extensions") == 0 &&
	    strcmp(key, "objectformat") == 0) {
		g->sha256 = strcmp(val, "sha256") == 0;
		return;
	}
	if (strcmp(section, "core") == 0 && strcmp(key, "worktree") == 0) {
		free(g->core_worktree);
		g->core_worktree = xstrdup(val);
		return;
	}
	const struct git_key *k = git_key_find(section, key);
	if (!k)
		return;
	/* Relative: from where git runs, the top of the working tree (the
	 * git directory for a bare repository); for the user's own config,
	 * every working tree it may run in (`core.hooksPath = .githooks`
	 * names a folder in each project). */
	const char *base = g->worktree ? g->worktree : g->gitdir;
	struct strv own = {0};
	const struct strv *bases = &own;
	if (base)
		strv_push(&own, base);
	else if (k->kind != GIT_INCLUDE)
		bases = user_config_bases(c);
	switch (k->kind) {
	case GIT_PATH:
		c->hooks = strcmp(section, "core") == 0 &&
			   strcmp(key, "hookspath") == 0;
		if (val[0] == '/' || val[0] == '~') {
			_cleanup_free_ char *p = expand(c, val, NULL);
			if (p)
				protect_path(c, p, k->why, false, true);
			if (p && c->hooks)
				keep_hook_links(c, p);
			c->hooks = false;
			break;
		}
		for (size_t i = 0; i < bases->n; i++) {
			_cleanup_free_ char *p = expand(c, val, bases->v[i]);
			if (p)
				protect_path(c, p, k->why, false, true);
			if (p && c->hooks)
				keep_hook_links(c, p);
		}
		c->hooks = false;
		break;
	case GIT_BANG:
		if (val[0] != '!')
			break;
		protect_command(c, val + 1, bases, k->why);
		break;
	case GIT_COMMAND:
		protect_command(c, val[0] == '!' ? val + 1 : val, bases,
				k->why);
		break;
	case GIT_INCLUDE: {
		_cleanup_free_ char *dir = depth == 0 && g->include_dir
					       ? xstrdup(g->include_dir)
					       : dir_of(file);
		_cleanup_free_ char *p = expand(c, val, dir);
		if (!p)
			break;
		protect_path(c, p, k->why, false, true);
		scan_config(c, p, g, depth + 1);
		break;
	}
	}
	strv_free(&own);
}

struct scan {
	struct pctx *c;
	const char *file;
	struct git_repo *g;
	int depth;
};

static void scan_key(void *ctx, const char *section, const char *sub,
		     const char *key, char *value)
{
	struct scan *sc = ctx;
	(void)sub;
	config_key(sc->c, sc->file, sc->g, section, key, gitconfig_value(value),
		   sc->depth);
}

/* Parses a git config file (common/gitconfig.h) as far as sections, keys
 * and values go. */
static void scan_config(struct pctx *c, const char *file, struct git_repo *g,
			int depth)
{
	if (depth > NEST_MAX || strv_contains(&c->seen, file))
		return;
	strv_push(&c->seen, file);
	size_t len = 0;
	_cleanup_free_ char *text = read_small_len(file, &len);
	gitconfig_text_fix(text, len);
	struct scan sc = {.c = c, .file = file, .g = g, .depth = depth};
	gitconfig_each(text, scan_key, &sc);
}

/* "gitdir: X" of a gitfile, made absolute from its folder; NULL when the
 * file is not one. */
static char *gitfile_target(const char *file)
{
	_cleanup_free_ char *text = read_small(file);

	if (!text || strncmp(text, "gitdir: ", 8) != 0)
		return NULL;
	char *v = text + 8;
	v[strcspn(v, "\r\n")] = '\0';
	if (!*v)
		return NULL;
	if (v[0] == '/')
		return xstrdup(v);
	_cleanup_free_ char *base = dir_of(file);
	return xasprintf("%s/%s", base, v);
}

/* Whether git takes dir for a git directory: HEAD, objects/ and refs/
 * (setup.c is_git_directory; commondir moves objects and refs, never
 * HEAD). */
static bool is_git_dir(const char *dir)
{
	struct stat st;
	_cleanup_free_ char *h = xasprintf("%s/HEAD", dir);
	_cleanup_free_ char *o = xasprintf("%s/objects", dir);
	_cleanup_free_ char *r = xasprintf("%s/refs", dir);

	return lstat(h, &st) == 0 && stat(o, &st) == 0 && S_ISDIR(st.st_mode) &&
	       stat(r, &st) == 0 && S_ISDIR(st.st_mode);
}

static void scan_gitdir(struct pctx *c, const char *gitdir,
			const char *worktree, int depth);

/* folder's .git as git's discovery takes it: false when there is none.
 * Else *gitdir is the git directory it leads to: the .git folder itself,
 * or the one a .git file names (*named then true: it lies elsewhere and is
 * protected on its own); NULL when a .git file names none. */
static bool dot_git(const char *folder, char **gitdir, bool *named)
{
	_cleanup_free_ char *dg = xasprintf("%s/.git", folder);
	struct stat st;

	*gitdir = NULL;
	*named = false;
	if (lstat(dg, &st) < 0)
		return false;
	if (S_ISDIR(st.st_mode)) {
		*gitdir = xstrdup(dg);
		return true;
	}
	*gitdir = gitfile_target(dg);
	*named = *gitdir != NULL;
	return true;
}

/* A working tree's .git (a folder or a gitfile) belongs to a repository
 * the top one knows: it, and the git directory it names, are protected
 * like the top .git. */
static void protect_dot_git(struct pctx *c, const char *worktree, int depth)
{
	_cleanup_free_ char *dg = xasprintf("%s/.git", worktree);
	_cleanup_free_ char *gd = NULL;
	bool named;

	protect_path(c, dg,
		     "the .git of a repository the top one knows (a "
		     "submodule or a worktree): git runs its hooks and config",
		     false, true);
	if (!dot_git(worktree, &gd, &named) || !gd)
		return;
	if (named)
		protect_path(c, gd, "the git directory a .git file names",
			     false, true);
	scan_gitdir(c, gd, worktree, depth + 1);
}

/* The index: how large a file is read (a big repository's is tens of
 * MiB), and the gitlinks (submodules) it records. */
#define INDEX_MAX (256u << 20)
#define GITLINK 0160000u

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* Each gitlink path of the index (git's index-format.txt, versions 2 to
 * 4) is a submodule git recurses into whether .gitmodules names it or
 * not: its .git is protected. Stops at anything malformed. */
static void scan_index(struct pctx *c, const char *gitdir, const char *worktree,
		       bool sha256, int depth)
{
	_cleanup_free_ char *f = xasprintf("%s/index", gitdir);
	_cleanup_close_ int fd =
	    open(f, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size < 12 || (uint64_t)st.st_size > INDEX_MAX)
		return;
	size_t len = (size_t)st.st_size;
	_cleanup_free_ unsigned char *b = xmalloc(len);
	size_t got = 0;
	while (got < len) {
		ssize_t r = read(fd, b + got, len - got);
		if (r <= 0)
			return;
		got += (size_t)r;
	}
	uint32_t ver = be32(b + 4), n = be32(b + 8);
	if (memcmp(b, "DIRC", 4) != 0 || ver < 2 || ver > 4)
		return;
	size_t hash = sha256 ? 32 : 20, pos = 12;
	char name[PATH_MAX] = "";
	size_t namelen = 0;
	for (uint32_t i = 0; i < n && !c->overflow; i++) {
		size_t start = pos, fixed = 40 + hash + 2;
		if (len - pos < fixed)
			return;
		uint32_t mode = be32(b + pos + 24);
		unsigned flags =
		    (unsigned)b[pos + 40 + hash] << 8 | b[pos + 40 + hash + 1];
		pos += fixed;
		if (flags & 0x4000) { /* extended flags (v3) */
			if (ver < 3 || len - pos < 2)
				return;
			pos += 2;
		}
		if (ver == 4) {
			/* prefix compression: drop N bytes of the previous
			 * name, then a NUL-terminated suffix */
			uint64_t drop = 0;
			unsigned char ch;
			do {
				if (pos >= len)
					return;
				ch = b[pos++];
				drop = (drop << 7) | (ch & 127);
				if (ch & 128)
					drop++;
			} while ((ch & 128) && drop < PATH_MAX);
			if (drop > namelen)
				return;
			namelen -= (size_t)drop;
		} else {
			namelen = 0;
		}
		const unsigned char *e = memchr(b + pos, '\0', len - pos);
		if (!e || namelen + (size_t)(e - (b + pos)) >= sizeof(name))
			return;
		memcpy(name + namelen, b + pos, (size_t)(e - (b + pos)));
		namelen += (size_t)(e - (b + pos));
		name[namelen] = '\0';
		pos = (size_t)(e - b) + 1;
		if (ver < 4) {
			/* NUL padding to a multiple of 8 from the entry */
			size_t total = (pos - start + 7) & ~(size_t)7;
			if (len - start < total)
				return;
			pos = start + total;
		}
		if ((mode & 0170000u) == GITLINK && name[0] != '/' &&
		    !strstr(name, "..")) {
			_cleanup_free_ char *sub =
			    xasprintf("%s/%s", worktree, name);
			protect_dot_git(c, sub, depth);
		}
	}
}

/* .gitmodules of a working tree: each submodule's path. */
static void scan_gitmodules(struct pctx *c, const char *worktree, int depth)
{
	_cleanup_free_ char *f = xasprintf("%s/.gitmodules", worktree);
	_cleanup_free_ char *text = read_small(f);

	for (char *cur = text, *p; !c->overflow && (p = next_line(&cur));) {
		if (strncmp(p, "path", 4) != 0)
			continue;
		p = gitconfig_blanks_past(p + 4);
		if (*p != '=')
			continue;
		const char *v = gitconfig_value(p + 1);
		if (!*v || v[0] == '/')
			continue;
		_cleanup_free_ char *sub = xasprintf("%s/%s", worktree, v);
		protect_dot_git(c, sub, depth);
	}
}

/* The submodules' git directories under modules/ (names may hold '/'):
 * each names its working tree in core.worktree. */
static void scan_modules(struct pctx *c, const char *dir, int depth)
{
	if (depth > NEST_MAX)
		return;
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' &&
		    (!e->d_name[1] || strcmp(e->d_name, "..") == 0))
			continue;
		_cleanup_free_ char *m = xasprintf("%s/%s", dir, e->d_name);
		struct stat st;
		if (lstat(m, &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		if (!is_git_dir(m)) {
			scan_modules(c, m, depth + 1);
			continue;
		}
		struct git_repo g = {.gitdir = m};
		_cleanup_free_ char *cfg = xasprintf("%s/config", m);
		scan_config(c, cfg, &g, 0);
		if (g.core_worktree) {
			_cleanup_free_ char *wt =
			    g.core_worktree[0] == '/'
				? xstrdup(g.core_worktree)
				: xasprintf("%s/%s", m, g.core_worktree);
			protect_dot_git(c, wt, depth + 1);
			scan_gitmodules(c, wt, depth + 1);
		}
		free(g.core_worktree);
		_cleanup_free_ char *sub = xasprintf("%s/modules", m);
		scan_modules(c, sub, depth + 1);
	}
	closedir(d);
}

static void scan_gitdir(struct pctx *c, const char *gitdir,
			const char *worktree, int depth)
{
	if (depth > NEST_MAX)
		return;
	struct git_repo g = {.gitdir = gitdir, .worktree = worktree};
	_cleanup_free_ char *cfg = xasprintf("%s/config", gitdir);
	scan_config(c, cfg, &g, 0);
	/* git reads this worktree's own config after it (with
	 * extensions.worktreeConfig): read whether or not that is on, as
	 * keeping what it names costs nothing when git ignores it */
	_cleanup_free_ char *wcfg = xasprintf("%s/config.worktree", gitdir);
	scan_config(c, wcfg, &g, 0);
	free(g.core_worktree);
	_cleanup_free_ char *hooks = xasprintf("%s/hooks", gitdir);
	keep_hook_links(c, hooks);
	if (worktree)
		scan_index(c, gitdir, worktree, g.sha256, depth);

	/* A linked worktree's git directory shares the main one's. */
	_cleanup_free_ char *cdf = xasprintf("%s/commondir", gitdir);
	_cleanup_free_ char *cd = read_small(cdf);
	if (cd) {
		cd[strcspn(cd, "\r\n")] = '\0';
		_cleanup_free_ char *common =
		    cd[0] == '/' ? xstrdup(cd) : xasprintf("%s/%s", gitdir, cd);
		if (cd[0]) {
			protect_path(c, common,
				     "the git directory a worktree shares",
				     false, true);
			_cleanup_free_ char *ccfg =
			    xasprintf("%s/config", common);
			struct git_repo cg = {.gitdir = common,
					      .worktree = worktree};
			scan_config(c, ccfg, &cg, 0);
			free(cg.core_worktree);
		}
	}

	/* Linked worktrees: worktrees/NAME/gitdir holds the path of the
	 * worktree's .git file. */
	_cleanup_free_ char *wtd = xasprintf("%s/worktrees", gitdir);
	DIR *d = opendir(wtd);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		_cleanup_free_ char *f =
		    xasprintf("%s/%s/gitdir", wtd, e->d_name);
		_cleanup_free_ char *t = read_small(f);
		if (!t)
			continue;
		t[strcspn(t, "\r\n")] = '\0';
		if (t[0] == '/')
			protect_path(c, t,
				     "the .git file of a worktree of the "
				     "repository",
				     false, true);
	}
	if (d)
		closedir(d);

	_cleanup_free_ char *mods = xasprintf("%s/modules", gitdir);
	scan_modules(c, mods, depth + 1);
	if (worktree)
		scan_gitmodules(c, worktree, depth);
}

/* The names a bare repository keeps read only, like .git. */
static const char *const bare_names[] = {
    "HEAD", "config", "hooks", "info", "commondir", "worktrees", "modules",
};

static void git_top(struct pctx *c, const char *w)
{
	if (is_git_dir(w)) {
		for (size_t i = 0; i < ARRAY_SIZE(bare_names); i++) {
			_cleanup_free_ char *p =
			    xasprintf("%s/%s", w, bare_names[i]);
			protect_path(c, p,
				     "the write folder is a git repository: "
				     "git runs its hooks and config",
				     false, true);
		}
		scan_gitdir(c, w, NULL, 0);
	} else {
		/* Never a new repository: without HEAD, git takes no folder
		 * for one. An existing HEAD that is not one stays read only,
		 * and objects and refs are not made beside it. */
		static const char why[] =
		    "git would take the write folder for a repository and run "
		    "its config";
		_cleanup_free_ char *head = xasprintf("%s/HEAD", w);
		struct stat st;
		protect_path(c, head, why, false, true);
		if (lstat(head, &st) == 0) {
			guard_name(c, w, "objects", why, false);
			guard_name(c, w, "refs", why, false);
		}
	}
	_cleanup_free_ char *gd = NULL;
	bool named;
	if (!dot_git(w, &gd, &named) || !gd)
		return;
	if (named)
		protect_path(c, gd, "the git directory the top's .git names",
			     false, true);
	scan_gitdir(c, gd, w, 0);
}

/* The repository a write folder lies in (git's discovery walks up from
 * where it runs): its config may name a hooks folder inside the write
 * folder, and its submodules' .git files may lie there. */
static void git_enclosing(struct pctx *c, const char *w)
{
	_cleanup_free_ char *d = xstrdup(w);

	for (;;) {
		char *s = strrchr(d, '/');
		if (!s || s == d)
			return;
		*s = '\0';
		_cleanup_free_ char *gd = NULL;
		bool named;
		if (!dot_git(d, &gd, &named))
			continue;
		if (gd)
			scan_gitdir(c, gd, d, 0);
		return;
	}
}

/* Yarn runs the release and the plugins .yarnrc.yml names, kept in
 * .yarn/releases and .yarn/plugins; the rest of .yarn (its cache, the
 * install state) is written by every install. */
static void yarn_top(struct pctx *c, const char *w)
{
	static const char *const sub[] = {"releases", "plugins"};
	_cleanup_free_ char *rc = xasprintf("%s/.yarnrc.yml", w);
	struct stat st;

	if (lstat(rc, &st) < 0)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(sub); i++) {
		_cleanup_free_ char *p = xasprintf("%s/.yarn/%s", w, sub[i]);
		protect_path(c, p,
			     "yarn runs the release and plugins .yarnrc.yml "
			     "names",
			     false, true);
	}
}

/* Non-dot names of the home folder that run code: a folder on PATH, and
 * the module folders interpreters search there by default. */
static const struct {
	const char *name, *why;
} home_names[] = {
    {"bin", "the shell runs the programs it holds (Debian's .profile puts "
	    "it on PATH)"},
    {"node_modules", "node loads from it any module a script under the "
		     "home folder does not supply itself"},
    {"perl5", "local::lib's folder: perl loads its modules and the shell "
	      "runs its programs"},
    {"R", "R loads the packages of the user's library in it"},
};

/* Every dot name in folder d, and every name of the dot files' list
 * (_vimrc, rust-toolchain.toml: tools look them up through every folder
 * above the one they run in), the hidden folders left to their own rule,
 * protected for why. */
static void protect_dot_names(struct pctx *c, const char *d, const char *why)
{
	DIR *dir = opendir(d);
	struct dirent *e;
	while (dir && (e = readdir(dir))) {
		if ((e->d_name[0] != '.' && !is_dot_file(e->d_name)) ||
		    strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		_cleanup_free_ char *p = xasprintf("%s/%s", d, e->d_name);
		if (c->in->hidden && strv_contains(c->in->hidden, p))
			continue;
		protect_path(c, p, why, false, true);
	}
	if (dir)
		closedir(dir);
}

/* A folder above the home that a write folder holds (--write /srv with
 * the home at /srv/users/bob): tools look up from the folder they run in
 * through every folder above it, so what is made there is found from
 * anywhere under the home. git takes a `.git` or a bare repository's HEAD
 * there for the repository the whole home is a working tree of (and runs
 * its core.fsmonitor at the next `git status` in ~), Mercurial an .hg,
 * cargo merges each .cargo/config.toml: every dot name is kept, as at the
 * home's top, and no HEAD is made. */
static void home_above(struct pctx *c, const char *d)
{
	static const char why[] =
	    "a folder above the home folder: git, Mercurial, cargo and other "
	    "tools look up through it from every folder of the home";
	struct stat st;

	if (!holder(c, d, false) || stat(d, &st) < 0 || !S_ISDIR(st.st_mode))
		return;
	struct guard_rule g = {
	    .dev = st.st_dev,
	    .ino = st.st_ino,
	    .dir = (char *)d,
	    .any_dot = true,
	    .why = why,
	};
	guard_plan_push(c->np, &g);
	protect_dot_names(c, d, why);
	/* a write folder's own top has had its repository rule */
	if (!is_write_folder(c, d))
		git_top(c, d);
}

/* node looks for node_modules in every folder above a script, up to /: a
 * folder above the home that a write folder holds (--write /home) is
 * searched by every script under the home; and the other tools that look
 * up (home_above). */
static void home_ancestors(struct pctx *c, const char *home)
{
	_cleanup_free_ char *d = xstrdup(home);

	for (char *s; (s = strrchr(d, '/'));) {
		*(s == d ? s + 1 : s) = '\0';
		_cleanup_free_ char *p =
		    xasprintf("%s/node_modules", strcmp(d, "/") == 0 ? "" : d);
		protect_path(c, p,
			     "node loads from it any module a script below it "
			     "does not supply itself",
			     false, true);
		home_above(c, d);
		if (strcmp(d, "/") == 0)
			break;
	}
}

static void path_folder_links(struct pctx *c, const char *dir);

static void home_top(struct pctx *c, const char *home)
{
	struct stat st;

	if (stat(home, &st) < 0 || !S_ISDIR(st.st_mode))
		return;
	if (holder(c, home, false)) {
		struct guard_rule g = {
		    .dev = st.st_dev,
		    .ino = st.st_ino,
		    .dir = (char *)home,
		    .any_dot = true,
		    .why = "at the top of the home folder every dot name "
			   "(and _vimrc, rust-toolchain.toml and the like) is "
			   "kept: shells, sessions, editors and tools run "
			   "them",
		};
		guard_plan_push(c->np, &g);
	}
	protect_dot_names(c, home,
			  "a dot name at the top of the home folder: "
			  "shells, sessions, editors and tools run it");
	/* no new repository at the home's top either (HEAD, objects, refs
	 * and config are no dot names): git would take it from ~ and from
	 * every folder of the home without one of its own */
	if (holder(c, home, false) && !is_write_folder(c, home))
		git_top(c, home);
	for (size_t i = 0; i < ARRAY_SIZE(home_names); i++) {
		_cleanup_free_ char *p =
		    xasprintf("%s/%s", home, home_names[i].name);
		protect_path(c, p, home_names[i].why, false, true);
		/* ~/bin is on PATH at the next login whatever lnk's PATH is:
		 * its links' targets too */
		if (strcmp(home_names[i].name, "bin") == 0)
			path_folder_links(c, p);
	}
	home_ancestors(c, home);
}

/* Whether any write folder is guarded (not lifted): else no link can
 * lead to anything this plan keeps, and rule P's walk is not needed. */
static bool any_guarded(const struct pctx *c)
{
	for (size_t i = 0; i < c->in->write->n; i++)
		if (!lifted(c, c->in->write->v[i]))
			return true;
	return false;
}

static void home_link_found(void *ctx, const char *link, const char *why)
{
	protect_path(ctx, link, why, false, true);
}

static const char *env_get(char *const *env, const char *name);

/* Rule P (guard/homelinks.h): the links of the home's configuration that
 * lead into a write folder that does not hold the home (which home_top
 * covers), to their end. */
static int home_links(struct pctx *c, const char *home, struct lnk_err *err)
{
	if (!any_guarded(c))
		return 0;
	struct home_links_in hl = {
	    .home = home,
	    .xdg_config = env_get(c->in->env, "XDG_CONFIG_HOME"),
	    .xdg_data = env_get(c->in->env, "XDG_DATA_HOME"),
	    .cache = c->links,
	    .found = home_link_found,
	    .ctx = c,
	};
	return home_links_walk(&hl, err);
}

/* The home folder wherever a write folder shows it at another path (a
 * bind mount of it, or of a folder that holds it): the home-top rule
 * applies there too, or the program appends to .bashrc at that path. */
static void home_elsewhere(struct pctx *c, const char *home)
{
	struct mount_table own;
	const struct mount_table *mt = facts_mounts(c->in->facts);
	struct strv alts = {0};

	if (!c->in->write->n || (!mt && c->in->facts))
		return;
	if (!mt && mounts_read(&own) < 0)
		return;
	for (size_t i = 0; i < c->in->write->n; i++)
		if (!lifted(c, c->in->write->v[i]))
			mounts_seen_at(mt ? mt : &own, c->in->write->v[i], home,
				       &alts);
	if (!mt)
		mounts_free(&own);
	for (size_t i = 0; i < alts.n; i++)
		home_top(c, alts.v[i]);
	strv_free(&alts);
}

/* The home's module folders (~/node_modules, ~/perl5, ~/R, ~/bin) that
 * are links: kept where they lead, whether or not a write folder holds
 * the home (rule P does the same for its dot names): node loads from
 * ~/node_modules what a script under the home does not supply, wherever
 * the link points. */
static void home_module_links(struct pctx *c, const char *home)
{
	for (size_t i = 0; i < ARRAY_SIZE(home_names); i++) {
		_cleanup_free_ char *p =
		    xasprintf("%s/%s", home, home_names[i].name);
		struct stat st;
		if (lstat(p, &st) == 0 && S_ISLNK(st.st_mode))
			protect_path(c, p, home_names[i].why, false, true);
	}
}

/* The value of name in env, or NULL. */
static const char *env_get(char *const *env, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; env && env[i]; i++)
		if (env[i][0] == name[0] && strncmp(env[i], name, n) == 0 &&
		    env[i][n] == '=')
			return env[i] + n + 1;
	return NULL;
}

/* The user's own config is read where its links lead (a dotfiles
 * repository's gitconfig), as git reads it. */
static void git_global_file(struct pctx *c, const char *f)
{
	_cleanup_free_ char *real = realpath(f, NULL);
	/* git takes a relative include beside the file as it opened it
	 * (~/.gitconfig), not beside where its link leads */
	_cleanup_free_ char *dir = dir_of(f);
	struct git_repo g = {.include_dir = dir};
	scan_config(c, real ? real : f, &g, 0);
	free(g.core_worktree);
}

/* The user's own git config may name a program or a folder inside a
 * write folder too: each file git may read as the user's (the
 * environment's choices and the defaults both, since the environment
 * git runs with later is not known). */
static void git_global(struct pctx *c)
{
	const char *files[] = {".gitconfig", ".config/git/config"};
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		_cleanup_free_ char *f =
		    xasprintf("%s/%s", c->in->home, files[i]);
		git_global_file(c, f);
	}
	const char *xdg = env_get(c->in->env, "XDG_CONFIG_HOME");
	if (xdg && xdg[0] == '/') {
		_cleanup_free_ char *f = xasprintf("%s/git/config", xdg);
		git_global_file(c, f);
	}
	git_global_file(c, "/etc/gitconfig");
}

/* GIT_CONFIG_COUNT, GIT_CONFIG_KEY_<n>, GIT_CONFIG_VALUE_<n>: a config
 * the environment gives git, read as the user's own. */
static void env_git_config(struct pctx *c)
{
	const char *cnt = env_get(c->in->env, "GIT_CONFIG_COUNT");
	long n = cnt ? strtol(cnt, NULL, 10) : 0;
	_cleanup_free_ char *file = xasprintf("%s/.gitconfig", c->in->home);

	for (long i = 0; i < n && i < 1000; i++) {
		char kn[40], vn[40], sec[64], key[64];
		snprintf(kn, sizeof(kn), "GIT_CONFIG_KEY_%ld", i);
		snprintf(vn, sizeof(vn), "GIT_CONFIG_VALUE_%ld", i);
		const char *k = env_get(c->in->env, kn);
		const char *v = env_get(c->in->env, vn);
		const char *dot = k ? strchr(k, '.') : NULL;
		const char *last = k ? strrchr(k, '.') : NULL;
		if (!v || !dot || (size_t)(dot - k) >= sizeof(sec) ||
		    strlen(last + 1) >= sizeof(key))
			continue;
		size_t j = 0;
		for (; k + j < dot; j++)
			sec[j] = gitconfig_lower(k[j]);
		sec[j] = '\0';
		for (j = 0; last[1 + j]; j++)
			key[j] = gitconfig_lower(last[1 + j]);
		key[j] = '\0';
		struct git_repo g = {0};
		config_key(c, file, &g, sec, key, v, 0);
		free(g.core_worktree);
	}
}

/* The parts (e->parts) of the folder dir, each kept. */
static void env_parts(struct pctx *c, const char *dir, const struct env_conf *e)
{
	for (size_t j = 0; dir[0] == '/' && e->parts[j]; j++) {
		_cleanup_free_ char *p = xasprintf("%s/%s", dir, e->parts[j]);
		protect_path(c, p, e->why, false, true);
	}
}

/* What the user's environment names for configuration, startup or code
 * search (guard/envconf.h, the one table), when it lies in a write
 * folder: protected like its home default. A relative value names
 * nothing a rule can know. */
static void env_configs(struct pctx *c)
{
	size_t n;
	const struct env_conf *e = env_confs(&n);

	env_git_config(c);

	for (size_t i = 0; i < n; i++) {
		const char *v = env_get(c->in->env, e[i].name);
		if (!v || !*v)
			continue;
		switch (e[i].kind) {
		case ENV_WHOLE: {
			/* LUA_INIT=@FILE names FILE */
			if (v[0] == '@')
				v++;
			/* BASH_ENV and ENV are expanded by the shell that
			 * reads them: $HOME/x names ~/x */
			_cleanup_free_ char *x =
			    v[0] == '$' ? expand_var(c, v) : NULL;
			protect_path(c, x && x[0] == '/' ? x : v, e[i].why,
				     false, true);
			break;
		}
		case ENV_GITCONFIG:
			protect_path(c, v, e[i].why, false, true);
			if (v[0] == '/')
				git_global_file(c, v);
			break;
		case ENV_LIST: {
			_cleanup_free_ char *all = xstrdup(v);
			for (char *save = NULL, *p = strtok_r(all, ":", &save);
			     p; p = strtok_r(NULL, ":", &save))
				protect_path(c, p, e[i].why, false, true);
			break;
		}
		case ENV_LOADER: {
			_cleanup_free_ char *all = xstrdup(v);
			struct strv each = {0};
			for (char *save = NULL,
				  *p = strtok_r(all, ": ;\t", &save);
			     p; p = strtok_r(NULL, ": ;\t", &save))
				env_loader_paths(p, &each);
			for (size_t j = 0; j < each.n; j++)
				protect_path(c, each.v[j], e[i].why, false,
					     true);
			strv_free(&each);
			break;
		}
		case ENV_PARTS:
			env_parts(c, v, &e[i]);
			break;
		case ENV_PARTS_LIST: {
			_cleanup_free_ char *all = xstrdup(v);
			for (char *save = NULL, *p = strtok_r(all, ":", &save);
			     p; p = strtok_r(NULL, ":", &save))
				env_parts(c, p, &e[i]);
			break;
		}
		case ENV_COMMAND:
			/* a relative path (NODE_OPTIONS=--require=./h.js)
			 * is from wherever the program runs: from each write
			 * folder, as for the user's git config */
			protect_command(c, v, c->in->write, e[i].why);
			break;
		}
	}
}

/* Other tools' configuration (guard/toolconf.h, the one table): each word
 * of a value that is a path, as a command's (a relative one from where
 * the tool takes it), and the files they include. */
static void toolconf_value(void *ctx, const char *value, const char *base,
			   const char *why)
{
	struct strv bases = {0};
	if (base)
		strv_push(&bases, base);
	protect_command(ctx, value, base ? &bases : NULL, why);
	strv_free(&bases);
}

static void toolconf_file(void *ctx, const char *path, const char *why)
{
	protect_path(ctx, path, why, false, true);
}

static void toolconf_over(void *ctx, const char *file)
{
	struct pctx *c = ctx;
	if (!c->conf_over)
		c->conf_over = xstrdup(file);
}

static void tool_configs(struct pctx *c);

/* What the project's kept files at the top of w name (rule O). */
static void project_configs(struct pctx *c, const char *w)
{
	struct toolconf_cb cb = {.ctx = c,
				 .value = toolconf_value,
				 .file = toolconf_file,
				 .over = toolconf_over};
	toolconf_scan_project(w, c->in->home, &cb);
}

static void tool_configs(struct pctx *c)
{
	struct toolconf_cb cb = {.ctx = c,
				 .value = toolconf_value,
				 .file = toolconf_file,
				 .over = toolconf_over};
	toolconf_scan(c->in->home, c->in->env, &cb);
}

/* The links in a PATH folder a write folder holds (~/bin/tool ->
 * ../apps/tool/run.sh): the shell runs their targets, which the folder's
 * own read-only bind does not cover. Each target chain is kept, as the
 * home's configuration links are (homelinks.h). Bounded: a folder of more
 * entries is a tool's, not a person's links. */
#define PATH_LINKS_MAX 4096
static void path_folder_links(struct pctx *c, const char *dir)
{
	if (!holder(c, dir, false))
		return;
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t seen = 0;
	while (d && (e = readdir(d))) {
		if (seen++ >= PATH_LINKS_MAX) {
			/* never a link skipped in silence: refused */
			c->overflow = true;
			break;
		}
		if (e->d_type != DT_LNK && e->d_type != DT_UNKNOWN)
			continue;
		_cleanup_free_ char *p = xasprintf("%s/%s", dir, e->d_name);
		struct stat st;
		if (lstat(p, &st) < 0 || !S_ISLNK(st.st_mode))
			continue;
		protect_path(c, p,
			     "a link in a folder on your PATH leads to it: "
			     "your shell runs it",
			     false, true);
	}
	if (d)
		closedir(d);
}

/* Each folder of PATH, read as the shell reads it (common/pathenv.h: a
 * leading ~ or ~user expanded): the shell looks a command up there before
 * /usr/bin, so a file the program leaves in one runs as the user. A
 * relative entry ("." or empty) names whatever folder the user is in then,
 * which no rule can know: lnk reports it at start and in `ready`. */
static void path_folders(struct pctx *c, const char *path_env, const char *home)
{
	struct strv abs = {0}, ups = {0};

	path_entries(path_env, home, &abs, NULL);
	for (size_t i = 0; i < abs.n; i++) {
		protect_path(c, abs.v[i],
			     "it is a folder on your PATH: your shell runs "
			     "what it holds",
			     false, true);
		path_folder_links(c, abs.v[i]);
		/* bash-completion (2.12 on) sources DIR/../share/
		 * bash-completion/completions/CMD for each PATH folder
		 * DIR at the first TAB after CMD; once a parent (/usr/bin
		 * and /usr/sbin share one), and /share is no one's */
		char *up = dir_of(abs.v[i]);
		if (strcmp(up, "/") == 0 || strv_contains(&ups, up)) {
			free(up);
			continue;
		}
		strv_push_take(&ups, up);
		_cleanup_free_ char *bc =
		    xasprintf("%s/share/bash-completion", up);
		protect_path(c, bc,
			     "bash-completion sources what it holds for the "
			     "commands of the PATH folder beside it",
			     false, true);
	}
	strv_free(&ups);
	strv_free(&abs);
}

int guard_protect(const struct protect_in *in, struct guard_plan *np,
		  struct strv *ro_paths, struct lnk_err *err)
{
	struct pctx c = {.in = in,
			 .np = np,
			 .ro = ro_paths,
			 .links = linkcache_open(in->link_cache)};
	_cleanup_free_ char *home = in->facts ? NULL : realpath(in->home, NULL);
	struct protect_in rin = *in;
	size_t nd;
	const struct dot_file *d = dot_files(&nd);
	int r = 0;

	if (in->facts && facts_real(in->facts, in->home))
		rin.home = facts_real(in->facts, in->home);
	else if (home)
		rin.home = home;
	c.in = &rin;
	for (size_t i = 0; i < in->write->n; i++) {
		const char *w = in->write->v[i];
		if (lifted(&c, w))
			continue;
		/* A write folder that is a git directory's hooks folder:
		 * git runs what is in it. */
		const char *slash = strrchr(w, '/');
		if (slash && strcmp(slash + 1, "hooks") == 0) {
			_cleanup_free_ char *gd =
			    xstrndup(w, (size_t)(slash - w));
			c.hooks = looks_like_git_dir(gd);
			if (c.hooks)
				protect_path(&c, w,
					     "git runs the hooks in it (it is "
					     "a git directory's hooks folder)",
					     false, true);
			c.hooks = false;
		}
		_cleanup_free_ mode_t *types = guard_dot_types(w);
		if ((r = guard_plan_add_seen(np, w, types, err)) < 0)
			goto out;
		guard_mounts_seen(w, in->write, types, ro_paths);
		/* A listed name that is a link: its whole target chain. */
		for (size_t j = 0; j < nd; j++) {
			if (types[j] != S_IFLNK)
				continue;
			_cleanup_free_ char *p =
			    xasprintf("%s/%s", w, d[j].name);
			protect_path(&c, p,
				     "a protected link at the top of "
				     "a write folder leads through it",
				     false, true);
		}
		git_top(&c, w);
		git_enclosing(&c, w);
		yarn_top(&c, w);
		project_configs(&c, w);
	}
	if (holder(&c, rin.home, false))
		home_top(&c, rin.home);
	/* the links of its top (home_top keeps them too) and of its
	 * configuration, whose targets another part of the home holds */
	if ((r = home_links(&c, rin.home, err)) < 0)
		goto out;
	home_elsewhere(&c, rin.home);
	home_module_links(&c, rin.home);
	path_folders(&c, in->path_env, in->home);
	git_global(&c);
	env_configs(&c);
	tool_configs(&c);
	/* A hidden folder that does not exist yet is kept too: the walk
	 * stops at the first missing name and guards it, so the program
	 * cannot make ~/Link/Agents a link or a folder of its own, which
	 * would stop every later sandbox or show it what the program put
	 * there. */
	for (size_t i = 0; in->hidden && i < in->hidden->n; i++) {
		const char *h = in->hidden->v[i];
		/* walked whether or not a write folder holds its spelling:
		 * ~/Link may be a link into one (~/Link -> W/LinkReal), and
		 * the walk follows it, guarding each folder on the way that
		 * a write folder holds */
		if (is_write_folder(&c, h))
			continue;
		protect_path(&c, h, "it holds a folder hidden from the sandbox",
			     true, false);
	}
	/* A grant inside a write folder is a mount of its own: moved away,
	 * the next run's grant of that path would name what the program put
	 * there instead. */
	for (size_t i = 0; in->grants && i < in->grants->n; i++) {
		const char *g = in->grants->v[i];
		struct stat st;
		if (lstat(g, &st) < 0 || !holder(&c, g, true) ||
		    is_write_folder(&c, g))
			continue;
		protect_path(&c, g, "it holds a folder granted on its own",
			     true, false);
	}
	if (c.conflict) {
		r = err_set(err, -EPERM,
			    "%s: a program writing there would run its code "
			    "outside, as you, at your next git command; grant "
			    "it with --read, or name it with --write-dot-files "
			    "to let the program write there",
			    c.conflict);
		goto out;
	}
	if (c.conf_over) {
		char q[PATH_MAX + 16];
		r = err_set(err, -E2BIG,
			    "cannot read all of the configuration that names "
			    "what your shell, ssh, npm or cargo run: more "
			    "files than lnk reads (256 a tool), or one over "
			    "1 MiB, at '%s'; include fewer or smaller files",
			    esc_to(q, sizeof(q), c.conf_over));
		goto out;
	}
	if (c.overflow) {
		r = err_set(err, -E2BIG,
			    "cannot protect what runs outside the sandbox in "
			    "the write folders: more than %d entries "
			    "(submodules, worktrees, links; %d kept read only, "
			    "%d links in a PATH folder), or a command of "
			    "a git config or of the environment that names "
			    "more than %d paths; grant a smaller folder, name "
			    "it with --write-dot-files, or shorten that "
			    "command",
			    GUARDS_MAX, RO_BINDS_MAX, PATH_LINKS_MAX,
			    COMMAND_PATHS_MAX);
		goto out;
	}
	kept_entries(&c);
	r = np->n > 0;
out:
	linkcache_close(c.links);
	free(c.conflict);
	free(c.conf_over);
	strv_free(&c.seen);
	strv_free(&c.user_bases);
	free(c.whys);
	if (c.own_state > 0)
		mounts_free(&c.own);
	return r;
}
