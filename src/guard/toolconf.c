/* Other tools' configuration that names a program or a file (toolconf.h):
 * the table, and a reader of each format that hands every value on.
 *
 * Over 1000 lines: the readers share one scan's state (the variables a
 * startup file set, a value that goes on past its line, the files read
 * against an include loop) and call each other (a startup file's line
 * sources another file, read by the same row); the shell's reader is
 * most of it. */
#include "guard/toolconf.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/pathenv.h"
#include "common/util.h"
#include "guard/envconf.h"
#include "guard/toolconf_int.h"

/* A real config is far smaller; one this size is read no further. */
#define TC_FILE_MAX (1 << 20)
#define TC_DEPTH_MAX 8
#define TC_FILES_MAX 256

struct scan {
	const char *home;
	char *const *env;
	const struct toolconf_cb *cb;
	const struct tool_conf *tc;
	struct strv seen; /* the row's files read (an include loop) */
	const char *top;  /* the write folder a project row reads, or NULL */
	bool no_files;	  /* read no file an include names (the fuzzer) */
	/* A value that goes on past its line: a TOML array or triple-quoted
	 * string, a YAML block scalar; its key, and how it ends. */
	enum { CONT_NONE, CONT_BRACKET, CONT_QUOTES, CONT_BLOCK } cont;
	char cont_key[96];
	char cont_quote[4];
	size_t cont_indent; /* a block's key's: deeper lines are the value */
	/* A YAML key whose value is the list below it (extends:\n  - x),
	 * and its indent: deeper `- item` lines are its values. */
	char list_key[96];
	size_t list_indent;
	/* The variables a startup file sets to a path (DOTFILES=~/dots),
	 * which its later lines source from: a few, bounded. */
	struct {
		char name[48];
		char value[512];
	} vars[16];
	size_t nvars;
};

static const char *env_value(char *const *env, const char *name, size_t n)
{
	for (size_t i = 0; env && env[i]; i++)
		if (strncmp(env[i], name, n) == 0 && env[i][n] == '=')
			return env[i] + n + 1;
	return NULL;
}

/* The regular file open at fd (its links followed: a dotfiles
 * repository's; no FIFO or device, which would hold lnk's start), whole,
 * or NULL when it is too big. */
/* The file's text, NUL bytes taken out (bash reads on past one: a line
 * after it runs, so it is read here too); NULL on an error, with *big
 * set when it is over TC_FILE_MAX. */
static char *read_conf(int fd, bool *big)
{
	char *text = NULL;
	size_t len = 0;
	int r = read_fd_all(fd, TC_FILE_MAX, &text, &len);
	*big = r == -EFBIG;
	if (r < 0)
		return NULL;
	size_t o = 0;
	for (size_t i = 0; i < len; i++)
		if (text[i])
			text[o++] = text[i];
	text[o] = '\0';
	return text;
}

static char *dir_of(const char *path)
{
	const char *s = strrchr(path, '/');
	return !s	   ? xstrdup(".")
	       : s == path ? xstrdup("/")
			   : xstrndup(path, (size_t)(s - path));
}

/* "~/x" from the home, "x" from base (NULL: none), "/x" as it is. */
static char *absolute(const struct scan *s, const char *v, const char *base)
{
	if (v[0] == '/')
		return xstrdup(v);
	if (v[0] == '~') /* ~/x, and ~user/x as ssh reads it */
		return path_tilde(v, s->home);
	return base && *v ? xasprintf("%s/%s", base, v) : NULL;
}

static void scan_file(struct scan *s, const char *path, int depth);

/* ssh's Include: each word (a double-quoted one may hold blanks), from
 * the home or the tool's folder, wildcards expanded as ssh does. The
 * folder a wildcard is in is kept whole: a file the program added there
 * later would match it. */
static void ssh_include(struct scan *s, const char *v, int depth)
{
	_cleanup_free_ char *all = xstrdup(v);
	_cleanup_free_ char *base = absolute(s, s->tc->include_base, NULL);
	char *p = all;

	while (*p) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		char *w = p;
		if (*p == '"') {
			w = ++p;
			p += strcspn(p, "\"");
		} else {
			p += strcspn(p, " \t");
		}
		if (*p)
			*p++ = '\0';
		_cleanup_free_ char *a = absolute(s, w, base);
		if (!a)
			continue;
		char *wild = strpbrk(a, "*?[");
		if (!wild) {
			s->cb->file(s->cb->ctx, a, s->tc->why);
			scan_file(s, a, depth + 1);
			continue;
		}
		/* the folder holding the first wildcard */
		_cleanup_free_ char *head = xstrndup(a, (size_t)(wild - a));
		_cleanup_free_ char *dir = dir_of(head);
		s->cb->file(s->cb->ctx, dir, s->tc->why);
		glob_t g;
		if (s->no_files || glob(a, GLOB_NOSORT, NULL, &g) != 0)
			continue;
		for (size_t i = 0; i < g.gl_pathc; i++) {
			s->cb->file(s->cb->ctx, g.gl_pathv[i], s->tc->why);
			scan_file(s, g.gl_pathv[i], depth + 1);
		}
		globfree(&g);
	}
}

/* A flow list's marks ([ ] { } ,) outside quotes become blanks, so its
 * items are words of their own: cargo's `runner = ["/w/run", "-q"]`;
 * a variable's braces stay (npm expands `${HOME}/x`). */
static void unlist(char *v)
{
	char q = 0;
	for (; *v; v++) {
		if (q) {
			q = *v == q ? 0 : q;
		} else if (*v == '"' || *v == '\'') {
			q = *v;
		} else if (v[0] == '$' && v[1] == '{' && strchr(v, '}')) {
			v = strchr(v, '}'); /* ${HOME}: a variable, kept */
		} else if (strchr("[]{},", *v)) {
			*v = ' ';
		}
	}
}

/* A YAML scalar in quotes as the shell would read it once: the outer
 * quotes off, so what they hold is a command of its own ('!x "$1"'). */
static char *unquote(char *v)
{
	size_t n = strlen(v);
	if (n >= 2 && (v[0] == '\'' || v[0] == '"') && v[n - 1] == v[0]) {
		v[n - 1] = '\0';
		v++;
	}
	return v;
}

static bool in_keys(const char *const *keys, const char *key)
{
	for (size_t i = 0; keys && keys[i]; i++)
		if (strcasecmp(keys[i], key) == 0)
			return true;
	return false;
}

/* A value of a row with keys: a path (from base) kept whole, or a command
 * handed on; a key of neither list names nothing to keep (a cache
 * folder the program is to write). */
/* Whether a path of the project's lies in its installed dependencies
 * (node_modules, a virtualenv, vendor, target): every install rewrites
 * them, and what they run later is the report's to count, not a kept
 * file's. A kept path there (typescript.tsdk = node_modules/typescript/
 * lib, a hook's ./node_modules/.bin/eslint) would keep npm install from
 * making node_modules at all. */
static bool in_dependencies(const char *w)
{
	static const char *const deps[] = {
	    "node_modules",	".venv",  "venv",
	    "vendor",		"target", "site-packages",
	    "bower_components", NULL};
	for (const char *p = w; *p;) {
		size_t n = strcspn(p, "/");
		for (size_t i = 0; deps[i]; i++)
			if (n == strlen(deps[i]) && strncmp(p, deps[i], n) == 0)
				return true;
		p += n;
		p += strspn(p, "/");
	}
	return false;
}

/* Whether a relative path of the project's lies in a virtualenv of any
 * name (env/bin/python: its first folder holds pyvenv.cfg): pip writes
 * it, as it writes node_modules. */
static bool in_a_venv(const char *v, const char *base)
{
	if (!base || v[0] == '/' || v[0] == '~' || !strchr(v, '/'))
		return false;
	_cleanup_free_ char *cfg =
	    xasprintf("%s/%.*s/pyvenv.cfg", base, (int)strcspn(v, "/"), v);
	struct stat st;
	return lstat(cfg, &st) == 0;
}

/* A project's command without its words in the dependencies (above):
 * each blank-separated word that names one is dropped. */
static char *without_dependencies(const char *v)
{
	struct buf b = {0};
	_cleanup_free_ char *all = xstrdup(v);
	for (char *save = NULL, *w = strtok_r(all, " \t", &save); w;
	     w = strtok_r(NULL, " \t", &save)) {
		if (in_dependencies(w))
			continue;
		buf_printf(&b, "%s%s", b.len ? " " : "", w);
	}
	return b.p ? buf_steal(&b) : xstrdup("");
}

/* One path a row's key names, kept whole (from base). */
static void keyed_path(struct scan *s, char *v, const char *base)
{
	/* VS Code's own name for the folder a path is taken from */
	static const char wsf[] = "${workspaceFolder}";
	if (strncmp(v, wsf, sizeof(wsf) - 1) == 0) {
		v += sizeof(wsf) - 1;
		v += strspn(v, "/");
	}
	if (s->tc->project && (in_dependencies(v) || in_a_venv(v, base)))
		return;
	_cleanup_free_ char *a = absolute(s, v, base);
	if (a)
		s->cb->file(s->cb->ctx, a, s->tc->why);
}

static void keyed(struct scan *s, const char *key, char *v, const char *base)
{
	if (in_keys(s->tc->commands, key)) {
		_cleanup_free_ char *c =
		    s->tc->project ? without_dependencies(v) : xstrdup(v);
		if (*c)
			s->cb->value(s->cb->ctx, c, base, s->tc->why);
		return;
	}
	if (!in_keys(s->tc->paths, key))
		return;
	/* a list (["./tools/check.sh", "--x"]: its program first) or an
	 * object ({"go": "./tools/go.sh"}: each value that is a path) */
	unlist(v);
	bool first = true;
	for (char *save = NULL, *w = strtok_r(v, " \t", &save); w;
	     w = strtok_r(NULL, " \t", &save)) {
		size_t wl = strlen(w);
		if (wl && w[wl - 1] == ':')
			continue; /* an object's key */
		w = unquote(w);
		if (!*w || w[0] == '-' || (!first && !strchr(w, '/')))
			continue;
		first = false;
		keyed_path(s, w, base);
	}
}

/* The next word of a shell line at *p, its quotes and backslashes taken
 * off, into out; a separator (; & | ( ) { } `, and "$(") ends a command
 * and is returned as the word "\n". false at the end. */
static bool sh_word(const char **p, char *out, size_t cap)
{
	const char *c = *p;
	size_t n = 0;
	char q = 0;

	while (*c == ' ' || *c == '\t')
		c++;
	if (!*c)
		return false;
	if (strchr(";&|(){}`", *c) || (c[0] == '$' && c[1] == '(')) {
		*p = c + (c[0] == '$' ? 2 : 1);
		snprintf(out, cap, "\n");
		return true;
	}
	for (; *c; c++) {
		const char *e = q != '\'' && c[0] == '$' && c[1] == '{'
				    ? memchr(c, '}', strnlen(c, 256))
				    : NULL;
		if (e) {
			/* ${HOME}: a variable, one word with what follows (a
			 * name's braces are near: looked for that far, so a
			 * line of thousands of "${" is no quadratic read) */
			for (; c <= e; c++)
				if (n + 1 < cap)
					out[n++] = *c;
			c--; /* at the '}', which the loop steps past */
			continue;
		}
		if (n && !q && (c[0] == '`' || (c[0] == '$' && c[1] == '('))) {
			/* ~/d/local-$(hostname).sh: a name the command
			 * makes, its folder kept whole (a '$' in the word) */
			if (n + 1 < cap)
				out[n++] = '$';
			break;
		}
		/* a brace inside a word is brace expansion
		 * (~/d/{a,b}.sh), one word with the rest */
		if (!q &&
		    (strchr(" \t;&|()`", *c) || (strchr("{}", *c) && !n) ||
		     (c[0] == '$' && c[1] == '(')))
			break;
		if (q == '"' && c[0] == '$' && c[1] == '(')
			break; /* a command inside the quotes */
		if (q != '\'' && *c == '\\' && c[1]) {
			c++;
		} else if (!q && (*c == '\'' || *c == '"')) {
			q = *c;
			continue;
		} else if (q && *c == q) {
			q = 0;
			continue;
		}
		if (n + 1 < cap)
			out[n++] = *c;
	}
	out[n] = '\0';
	*p = c;
	return true;
}

/* A word of a startup file with a wildcard (for f in ~/w/rc.d/x*.sh):
 * the folder holding its first wildcard is kept whole, so no new file
 * can match it. */
static void shell_wildcard(struct scan *s, const char *w, const char *base)
{
	const char *wild = strpbrk(w, "*?[{");
	if (!wild)
		return;
	_cleanup_free_ char *head = xstrndup(w, (size_t)(wild - w));
	_cleanup_free_ char *a =
	    head[0] == '$' ? NULL : absolute(s, head, base ? base : NULL);
	if (!a)
		return;
	_cleanup_free_ char *dir = dir_of(a);
	s->cb->file(s->cb->ctx, dir, s->tc->why);
}

/* NAME=VALUE in a startup file, VALUE a path (~/x, $HOME/x, ${HOME}/x,
 * /x): later words that start with $NAME or ${NAME} name it. Past the
 * bound a variable is not followed (its words stay values, as before). */
static bool shell_expand(const struct scan *s, char *w, size_t cap);
static void path_folder(struct scan *s, const char *w, const char *base);

/* PATH=$HOME/go/bin:$PATH in a startup file: each folder it adds. */
static void shell_path(struct scan *s, const char *value, const char *base)
{
	_cleanup_free_ char *all = xstrdup(value);
	for (char *save = NULL, *p = strtok_r(all, ":", &save); p;
	     p = strtok_r(NULL, ":", &save)) {
		char w[PATH_MAX];
		snprintf(w, sizeof(w), "%s", p);
		(void)shell_expand(s, w, sizeof(w));
		/* ~/d/bin${PATH:+:${PATH}}: the folder ends where a
		 * variable begins */
		if (w[0] == '/' || w[0] == '~')
			w[strcspn(w, "$")] = '\0';
		if (w[0] == '/' || w[0] == '~')
			path_folder(s, w, base);
	}
}

/* A variable of rule E's (guard/envconf.h: EDITOR, ZDOTDIR, BASH_ENV)
 * the startup file sets to a path: kept as if lnk's environment held it,
 * since the user's next shell does. */
static void shell_env_conf(struct scan *s, const char *name, const char *v)
{
	const struct env_conf *e = env_conf_find(name);
	if (!e || e->kind == ENV_COMMAND)
		return; /* a command's words: shell_set, whatever they are */
	if (e->kind == ENV_PARTS || e->kind == ENV_PARTS_LIST) {
		for (size_t j = 0; e->parts[j]; j++) {
			_cleanup_free_ char *p =
			    xasprintf("%s/%s", v, e->parts[j]);
			s->cb->file(s->cb->ctx, p, e->why);
		}
	} else {
		s->cb->file(s->cb->ctx, v, e->why);
	}
}

static void shell_set(struct scan *s, const char *name, const char *value,
		      const char *base)
{
	if (strcmp(name, "PATH") == 0) {
		shell_path(s, value, base);
		return;
	}
	/* EDITOR="vim -u ~/d/init.vim", NODE_OPTIONS="--require ~/d/h.js":
	 * a command's words, whatever the first is */
	const struct env_conf *ec = env_conf_find(name);
	if (ec && ec->kind == ENV_COMMAND)
		s->cb->value(s->cb->ctx, value, NULL, ec->why);
	static const char *const homes[] = {"$HOME", "${HOME}", NULL};
	_cleanup_free_ char *v = NULL;
	char val[PATH_MAX];
	snprintf(val, sizeof(val), "%s", value);
	/* ${NAME:-default}, ${NAME:=default}: the default is the path */
	size_t nl = strlen(name);
	if (val[0] == '$' && val[1] == '{' && strncmp(val + 2, name, nl) == 0 &&
	    val[2 + nl] == ':' && strchr("-=", val[3 + nl]) &&
	    val[strlen(val) - 1] == '}') {
		memmove(val, val + 4 + nl, strlen(val + 4 + nl) + 1);
		val[strlen(val) - 1] = '\0';
	}
	/* NAME=$NAME (set again to itself): what is known stays */
	if ((val[0] == '$' && strcmp(val + 1, name) == 0) ||
	    (val[0] == '$' && val[1] == '{' &&
	     strncmp(val + 2, name, nl) == 0 && val[2 + nl] == '}' &&
	     !val[3 + nl]))
		return;
	/* X=$P/x.sh: a variable the file set before */
	(void)shell_expand(s, val, sizeof(val));
	value = val;
	for (size_t i = 0; homes[i] && !v; i++) {
		size_t n = strlen(homes[i]);
		if (strncmp(value, homes[i], n) == 0 &&
		    (value[n] == '/' || !value[n]))
			v = xasprintf("%s%s", s->home, value + n);
	}
	if (!v && (value[0] == '/' || value[0] == '~'))
		v = absolute(s, value, base);
	size_t i = 0;
	while (i < s->nvars && strcmp(s->vars[i].name, name) != 0)
		i++;
	if (!v || strlen(name) >= sizeof(s->vars[0].name) ||
	    strlen(v) >= sizeof(s->vars[0].value)) {
		if (i < s->nvars) /* set again to what is not followed */
			s->vars[i].value[0] = '\0';
		return;
	}
	if (i == s->nvars) {
		if (s->nvars == ARRAY_SIZE(s->vars))
			return;
		s->nvars++;
	}
	snprintf(s->vars[i].name, sizeof(s->vars[i].name), "%s", name);
	snprintf(s->vars[i].value, sizeof(s->vars[i].value), "%s", v);
	shell_env_conf(s, name, v);
}

/* w with a leading $NAME or ${NAME} the file set replaced by its path,
 * into w (cap bytes); false when it starts with no such variable. */
static bool shell_expand(const struct scan *s, char *w, size_t cap)
{
	if (w[0] != '$')
		return false;
	bool braced = w[1] == '{';
	const char *n = w + 1 + braced;
	size_t len = strspn(n, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
			       "abcdefghijklmnopqrstuvwxyz0123456789_");
	if (len && braced && n[len] == ':' && n[len + 1] == '-') {
		/* ${ZDOTDIR:-$HOME}/x: the default, when the file set no
		 * such variable (the user's own may be anything: the default
		 * is what it most often is) */
		const char *d = n + len + 2, *end = strchr(d, '}');
		if (!end || end == d)
			return false;
		char out[PATH_MAX];
		int k = snprintf(out, sizeof(out), "%.*s%s", (int)(end - d), d,
				 end + 1);
		if (k < 0 || (size_t)k >= sizeof(out) || (size_t)k >= cap)
			return false;
		(void)shell_expand(s, out, sizeof(out));
		snprintf(w, cap, "%s", out);
		return true;
	}
	if (!len || (braced && n[len] != '}'))
		return false;
	const char *rest = n + len + braced;
	/* $HOME, ${HOME}, "$HOME" (the quotes already gone): the home
	 * folder, whatever the file set (a loop over $HOME/dots); $PWD in a
	 * project's file (.envrc): the folder direnv runs it in, the top */
	const char *known = len == 4 && strncmp(n, "HOME", 4) == 0  ? s->home
			    : len == 3 && strncmp(n, "PWD", 3) == 0 ? s->top
								    : NULL;
	if (known) {
		char out[PATH_MAX];
		int k = snprintf(out, sizeof(out), "%s%s", known, rest);
		if (k < 0 || (size_t)k >= cap || (size_t)k >= sizeof(out))
			return false;
		memcpy(w, out, (size_t)k + 1);
		return true;
	}
	for (size_t i = 0; i < s->nvars; i++) {
		if (strlen(s->vars[i].name) != len ||
		    strncmp(s->vars[i].name, n, len) != 0 ||
		    !s->vars[i].value[0])
			continue;
		char out[PATH_MAX];
		int k =
		    snprintf(out, sizeof(out), "%s%s", s->vars[i].value, rest);
		if (k < 0 || (size_t)k >= cap || (size_t)k >= sizeof(out))
			return false;
		memcpy(w, out, (size_t)k + 1);
		return true;
	}
	return false;
}

/* A name a shell sources (x.sh, x.zsh, x.fish, x.inc): a path given
 * to a function of a startup file is most often sourced by it. */
static bool is_script_name(const char *w)
{
	static const char *const exts[] = {".sh",   ".bash", ".zsh",
					   ".fish", ".inc",  NULL};
	size_t n = strlen(w);
	for (size_t i = 0; exts[i]; i++) {
		size_t e = strlen(exts[i]);
		if (n > e && strcmp(w + n - e, exts[i]) == 0)
			return true;
	}
	return false;
}

/* A folder a startup file puts on PATH (PATH=~/go/bin:$PATH,
 * fish_add_path, set -gx PATH): on PATH at the next login whatever lnk's
 * PATH is, so kept as rule R keeps lnk's own. */
static void path_folder(struct scan *s, const char *w, const char *base)
{
	_cleanup_free_ char *a = absolute(s, w, base);
	if (a)
		s->cb->file(s->cb->ctx, a,
			    "your startup files put it on PATH: your shell "
			    "runs what it holds");
}

/* A line of a shell's startup file (or of .envrc, base its folder): at
 * each command's start (after the shell's keywords, the prefixes that run
 * what follows (env, nohup, time) and VAR=value words), `. FILE`,
 * `source FILE` (and the row's own such words: direnv's source_env,
 * dotenv) are followed (kept, and read as a startup file too), and a
 * program named by its path (conda's init block runs
 * '~/miniconda3/bin/conda' in $(...); .envrc's tools/env.sh) is kept. The
 * commands a prompt variable, an alias or a trap holds are read the same
 * way; a wildcard's folder is kept whole. */
static void shell_line(struct scan *s, const char *line, const char *base,
		       int depth)
{
	static const char *const keywords[] = {
	    "then",   "do",	"else",	   "elif",    "if",	  "while",
	    "until",  "!",	"eval",	   "exec",    "command",  "builtin",
	    "export", "local",	"env",	   "nohup",   "time",	  "nice",
	    "sudo",   "setsid", "declare", "typeset", "readonly", ":",
	    "and",    "or",	"not",	   NULL};
	static const char *const prompts[] = {
	    "PROMPT_COMMAND", "PS0",	 "PS1", "PS2", "PS4",
	    "PROMPT",	      "RPROMPT", NULL};
	static const char *const shells[] = {"sh",  "bash", "dash",
					     "zsh", "ksh",  NULL};
	static const char *const interpreters[] = {
	    "python", "python3", "perl", "ruby", "node", "php", "lua", NULL};
	char w[PATH_MAX];
	bool script_next = false, shell_script = false;
	bool start = true, source_next = false, in_test = false;
	bool alias_next = false, trap_next = false, find_next = false;
	bool path_next = false, complete_c = false, bind_x = false;
	bool set_next = false, complete_mode = false, bind_mode = false;
	/* zsh's path=(~/a/bin ~/b/bin $path), fpath=(~/d): the array's
	 * words, between its parentheses (2: inside, 1: before it) */
	int array = 0;
	bool array_path = false;

	for (const char *p = line; sh_word(&p, w, sizeof(w));) {
		if (w[0] == '#' && start)
			return;
		if (array == 1 && strcmp(w, "\n") == 0) {
			array = 2; /* its '(' */
			continue;
		}
		if (array == 2 && strcmp(w, "\n") != 0) {
			(void)shell_expand(s, w, sizeof(w));
			if (w[0] == '/' || w[0] == '~') {
				_cleanup_free_ char *a = absolute(s, w, base);
				if (a && array_path)
					path_folder(s, a, base);
				else if (a)
					s->cb->file(s->cb->ctx, a, s->tc->why);
			}
			continue;
		}
		array = 0;
		if (strcmp(w, "\n") == 0) {
			start = true;
			source_next = in_test = alias_next = trap_next = false;
			script_next = find_next = path_next = false;
			complete_c = bind_x = set_next = false;
			complete_mode = bind_mode = false;
			continue;
		}
		(void)shell_expand(s, w, sizeof(w));
		/* ${PROMPT_COMMAND:+$PROMPT_COMMAND;}~/d/pc: what follows a
		 * variable's alternative (empty when it is unset) is a path
		 * of its own */
		char *alt = w[0] == '$' && w[1] == '{' ? strchr(w, '}') : NULL;
		if (alt && strstr(w, ":+") && strstr(w, ":+") < alt &&
		    (alt[1] == '~' || alt[1] == '/'))
			memmove(w, alt + 1, strlen(alt));
		if (find_next) {
			/* find ~/d -name '*.sh': what it prints is most often
			 * what the loop sources; each folder it searches is
			 * kept whole, until its expression */
			if (w[0] == '-' || w[0] == '(' || w[0] == '!') {
				find_next = false;
			} else if (w[0] == '/' || w[0] == '~') {
				_cleanup_free_ char *a = absolute(s, w, base);
				if (a)
					s->cb->file(s->cb->ctx, a, s->tc->why);
			}
			continue;
		}
		if (w[0] == '/' || w[0] == '~' || (base && strchr(w, '/')))
			shell_wildcard(s, w, base);
		if (path_next) {
			/* fish_add_path DIR, set -gx PATH DIR $PATH */
			if (w[0] == '/' || w[0] == '~')
				path_folder(s, w, base);
			continue;
		}
		/* a path that goes on through a variable no line set
		 * ($DOTS/$f in a loop): its folder is kept whole, as a
		 * wildcard's */
		char *var =
		    (w[0] == '/' || w[0] == '~') ? strchr(w, '$') : NULL;
		const char *vslash =
		    var ? memrchr(w, '/', (size_t)(var - w)) : NULL;
		if (var && vslash && vslash > w) {
			/* ~/d/$f, ~/d/local-$USER.sh: the folder whole */
			_cleanup_free_ char *head =
			    xstrndup(w, (size_t)(vslash + 1 - w));
			_cleanup_free_ char *a = absolute(s, head, base);
			if (a)
				s->cb->file(s->cb->ctx, a, s->tc->why);
			source_next = script_next = false;
			continue;
		}
		if (script_next && w[0] == '-')
			continue; /* sh -e FILE: the interpreter's options */
		if (script_next) {
			/* a script an interpreter runs: kept; a shell's read
			 * on as a startup file */
			script_next = false;
			_cleanup_free_ char *a =
			    w[0] == '$' ? NULL
					: absolute(s, w, base ? base : s->home);
			if (a) {
				s->cb->file(s->cb->ctx, a, s->tc->why);
				if (shell_script && depth < TC_DEPTH_MAX &&
				    path_within(a, s->home))
					scan_file(s, a, depth + 1);
			}
			continue;
		}
		if (source_next && strcmp(w, "--") == 0)
			continue; /* source -- FILE */
		if (source_next) {
			source_next = false;
			_cleanup_free_ char *a =
			    w[0] == '$' ? NULL
					: absolute(s, w, base ? base : s->home);
			if (a) {
				s->cb->file(s->cb->ctx, a, s->tc->why);
				/* read on only in the home: the system's
				 * (bash_completion) source no file of it */
				if (depth < TC_DEPTH_MAX &&
				    path_within(a, s->home))
					scan_file(s, a, depth + 1);
			} else {
				s->cb->value(s->cb->ctx, w, NULL, s->tc->why);
			}
			continue;
		}
		if (complete_mode || bind_mode) {
			/* complete -C CMD, bind -x '"\C-t": CMD': a command
			 * run at a TAB or a key */
			if (complete_c || bind_x) {
				const char *cmd = w;
				if (bind_x && strchr(w, ':'))
					cmd = strchr(w, ':') + 1;
				if (depth < TC_DEPTH_MAX)
					shell_line(s, cmd, base, depth + 1);
				complete_c = bind_x = false;
				continue;
			}
			complete_c = complete_mode && strcmp(w, "-C") == 0;
			bind_x = bind_mode && strcmp(w, "-x") == 0;
			continue;
		}
		if (set_next) {
			/* fish: set [-gx...] PATH DIR... */
			if (w[0] == '-')
				continue;
			set_next = false;
			path_next = strcmp(w, "PATH") == 0 ||
				    strcmp(w, "fish_user_paths") == 0;
			continue;
		}
		if (trap_next && strcmp(w, "--") == 0)
			continue; /* trap -- CMD SIGNAL */
		char *eq = strchr(w, '=');
		if ((alias_next || trap_next) && depth < TC_DEPTH_MAX) {
			/* alias ll='~/w/ll', trap '~/w/x' EXIT */
			shell_line(s, alias_next && eq ? eq + 1 : w, base,
				   depth + 1);
			trap_next = false;
			continue;
		}
		/* a test's words ([ -f FILE ]) name no command; a script's
		 * path given to any command (a function of the file's:
		 * load ~/d/aliases.sh) is kept, the safe side */
		if (!start && !in_test && (w[0] == '/' || w[0] == '~') &&
		    is_script_name(w)) {
			_cleanup_free_ char *a = absolute(s, w, base);
			if (a)
				s->cb->file(s->cb->ctx, a, s->tc->why);
		}
		if (in_test || !start)
			continue;
		if (strcmp(w, "[") == 0 || strcmp(w, "[[") == 0 ||
		    strcmp(w, "test") == 0) {
			in_test = true;
			continue;
		}
		/* : ${NAME:=VALUE} sets NAME when it is not set */
		if (w[0] == '$' && w[1] == '{' && strstr(w, ":=") &&
		    w[strlen(w) - 1] == '}') {
			char *as = strstr(w, ":=");
			*as = '\0';
			w[strlen(as + 2) + (size_t)(as + 2 - w) - 1] = '\0';
			shell_set(s, w + 2, as + 2, base);
			continue;
		}
		if (eq && w[0] != '/') {
			/* PROMPT_COMMAND=..., PS1='$(~/w/ps1)': run at
			 * every prompt; NAME+=VALUE appends */
			*eq = '\0';
			if (eq > w && eq[-1] == '+')
				eq[-1] = '\0';
			if (!eq[1] && (strcmp(w, "path") == 0 ||
				       strcmp(w, "fpath") == 0)) {
				array = 1;
				array_path = strcmp(w, "path") == 0;
				continue;
			}
			if (in_keys(prompts, w) && depth < TC_DEPTH_MAX)
				shell_line(s, eq + 1, base, depth + 1);
			else
				shell_set(s, w, eq + 1, base);
			continue; /* still before the command */
		}
		if (strcmp(w, "eval") == 0 && depth < TC_DEPTH_MAX) {
			/* eval ". ~/d/a.sh": its words, one command line */
			const char *rest = p + strspn(p, " \t");
			char ew[PATH_MAX];
			const char *q2 = rest;
			if (sh_word(&q2, ew, sizeof(ew)) && strchr(ew, ' '))
				shell_line(s, ew, base, depth + 1);
			continue;
		}
		if (in_keys(keywords, w))
			continue;
		/* declare -x, export -n, nice -n 5: an option word before the
		 * command or the assignment */
		if (w[0] == '-')
			continue;
		start = false;
		/* cat FILE: its output is most often what eval or source
		 * runs (eval "$(cat ~/x/init.sh)") */
		if (strcmp(w, ".") == 0 || strcmp(w, "source") == 0 ||
		    strcmp(w, "cat") == 0 || in_keys(s->tc->paths, w))
			source_next = true;
		else if (strcmp(w, "find") == 0)
			find_next = true;
		else if (strcmp(w, "fish_add_path") == 0)
			path_next = true;
		else if (strcmp(w, "set") == 0)
			set_next = true;
		else if (strcmp(w, "complete") == 0)
			complete_mode = true;
		else if (strcmp(w, "bind") == 0)
			bind_mode = true;
		else if (in_keys(shells, w) || in_keys(interpreters, w)) {
			/* bash ~/x/y.sh, python3 ~/x/start.py */
			script_next = true;
			shell_script = in_keys(shells, w);
		} else if (strcmp(w, "alias") == 0)
			alias_next = true;
		else if (strcmp(w, "trap") == 0)
			trap_next = true;
		else if (w[0] == '/' || w[0] == '~' || w[0] == '$' ||
			 (base && strchr(w, '/')))
			s->cb->value(s->cb->ctx, w, base, s->tc->why);
	}
}

/* ssh's value with %d (the home folder) expanded and %% made one %. */
static char *ssh_tokens(const char *v, const char *home)
{
	struct buf b = {0};
	for (const char *p = v; *p; p++) {
		if (p[0] == '%' && p[1] == 'd') {
			buf_puts(&b, home);
			p++;
		} else if (p[0] == '%' && p[1] == '%') {
			buf_putc(&b, '%');
			p++;
		} else {
			buf_putc(&b, *p);
		}
	}
	return b.p ? buf_steal(&b) : xstrdup("");
}

/* A key as its file spells it, made the name the tables use: blanks and
 * quotes off ("rustc-wrapper" = ...), and in TOML the last part of a
 * dotted key (build.rustc-wrapper). */
static void norm_key(struct scan *s, char *key)
{
	for (size_t n = strlen(key); n && strchr(" \t", key[n - 1]); n--)
		key[n - 1] = '\0';
	char *k = key + strspn(key, " \t");
	if (s->tc->fmt == TC_EQ && strrchr(k, '.') && k[0] != '/')
		k = strrchr(k, '.') + 1;
	size_t n = strlen(k);
	if (n >= 2 && (k[0] == '"' || k[0] == '\'') && k[n - 1] == k[0]) {
		k[n - 1] = '\0';
		k++;
	}
	memmove(key, k, strlen(k) + 1);
}

/* One key's value (key "" when the line has none), handed on as the row
 * wants it. */
static void emit(struct scan *s, char *key, char *v, const char *base)
{
	v += strspn(v, " \t");
	for (size_t n = strlen(v); n && strchr(" \t", v[n - 1]); n--)
		v[n - 1] = '\0';
	norm_key(s, key);
	if (s->tc->paths || s->tc->commands) {
		if (*v && *key)
			keyed(s, key, v, base);
		return;
	}
	/* a command git-style aliases run in a shell: `!cmd args` */
	if (*v == '!')
		v++;
	if (*v)
		s->cb->value(s->cb->ctx, v, base, s->tc->why);
}

/* A line inside a value that began on an earlier line (s->cont): true
 * when it was one (handed on), false when the value had ended before it
 * (a YAML block's key's level again), to be read as a line of its own. */
static bool continued(struct scan *s, char *line, const char *base)
{
	size_t indent = strspn(line, " \t");
	char *body = line + indent;
	bool ends = false;
	switch (s->cont) {
	case CONT_NONE:
		return false;
	case CONT_BRACKET:
		ends = strchr(body, ']') != NULL;
		unlist(body);
		break;
	case CONT_QUOTES: {
		char *q = strstr(body, s->cont_quote);
		ends = q != NULL;
		if (q)
			*q = '\0';
		break;
	}
	case CONT_BLOCK:
		if (*body && indent <= s->cont_indent) {
			s->cont = CONT_NONE;
			return false;
		}
		break;
	}
	char key[sizeof(s->cont_key)];
	snprintf(key, sizeof(key), "%s", s->cont_key);
	emit(s, key, unquote(body), base);
	if (ends)
		s->cont = CONT_NONE;
	return true;
}

/* Whether a value opens one that goes on (s->cont set, for key). */
static void opens(struct scan *s, const char *key, const char *v, size_t indent)
{
	v += strspn(v, " \t");
	if (s->tc->fmt == TC_EQ && v[0] == '[' && !strchr(v, ']'))
		s->cont = CONT_BRACKET;
	else if (s->tc->fmt == TC_EQ &&
		 (strncmp(v, "\"\"\"", 3) == 0 || strncmp(v, "'''", 3) == 0) &&
		 !strstr(v + 3, v[0] == '"' ? "\"\"\"" : "'''")) {
		s->cont = CONT_QUOTES;
		snprintf(s->cont_quote, sizeof(s->cont_quote), "%.3s", v);
	} else if (s->tc->fmt == TC_YAML && (v[0] == '|' || v[0] == '>') &&
		   strspn(v + 1, "+-0123456789") == strlen(v + 1))
		s->cont = CONT_BLOCK;
	else
		return;
	s->cont_indent = indent;
	snprintf(s->cont_key, sizeof(s->cont_key), "%s", key);
}

/* A YAML flow mapping, `- {id: x, entry: t/a.sh}`: each pair. */
static void yaml_flow(struct scan *s, char *m, const char *base)
{
	char *end = strrchr(m, '}');
	if (end)
		*end = '\0';
	char q = 0, *part = m + 1;
	for (char *c = part;; c++) {
		bool last = !*c;
		if (!last && q) {
			q = *c == q ? 0 : q;
			continue;
		}
		if (!last && (*c == '"' || *c == '\'')) {
			q = *c;
			continue;
		}
		if (!last && *c != ',')
			continue;
		*c = '\0';
		char *colon = strstr(part, ": ");
		if (colon) {
			*colon = '\0';
			char *v = colon + 2;
			v += strspn(v, " ");
			emit(s, part, unquote(v), base);
		}
		if (last)
			break;
		part = c + 1;
	}
}

static void one_line(struct scan *s, char *line, const char *base, int depth)
{
	if (s->tc->fmt == TC_SHELL) {
		shell_line(s, line, base, depth);
		return;
	}
	line[strcspn(line, "\r")] = '\0';
	if (continued(s, line, base))
		return;
	size_t indent = strspn(line, " \t");
	line += indent;
	if (!*line || *line == '#' || *line == ';')
		return;
	char *key = line, *v = NULL;
	_cleanup_free_ char *ssh_v = NULL;
	switch (s->tc->fmt) {
	case TC_SHELL:
		return; /* shell_line, above */
	case TC_JSON: {
		line += strspn(line, "{[, \t");
		if (*line != '"')
			return;
		key = ++line;
		line += strcspn(line, "\"");
		if (!*line)
			return;
		*line++ = '\0';
		line += strspn(line, " \t");
		if (*line != ':')
			return;
		v = line + 1;
		unlist(v);
		for (size_t n = strlen(v); n && strchr(" \t", v[n - 1]); n--)
			v[n - 1] = '\0';
		v += strspn(v, " \t");
		/* one string: its quotes off; a list's or an object's
		 * items keep theirs, each taken off in turn (keyed) */
		if (!*v || !strchr(v + 1, '"') ||
		    strchr(v + 1, '"') == v + strlen(v) - 1)
			v = unquote(v);
		break;
	}
	case TC_SSH: {
		size_t k = strcspn(line, " \t=");
		if (!line[k])
			return;
		v = line + k;
		*v++ = '\0';
		v += strspn(v, " \t=");
		/* ssh's %d is the home folder (Match exec, KnownHostsCommand,
		 * IdentityFile, UserKnownHostsFile, ...) */
		if (s->tc->include_base && strstr(v, "%d")) {
			ssh_v = ssh_tokens(v, s->home);
			v = ssh_v;
		}
		if (s->tc->include_base && strcasecmp(key, "include") == 0) {
			if (depth < TC_DEPTH_MAX)
				ssh_include(s, v, depth);
			return;
		}
		break;
	}
	case TC_EQ: {
		if (*line == '[' && !strchr(line, '='))
			return; /* a section */
		char *eq = strchr(line, '=');
		v = eq ? eq + 1 : line;
		if (eq)
			*eq = '\0';
		else
			key = line + strlen(line); /* none */
		if (eq)
			opens(s, key, v, indent);
		unlist(v);
		v += strspn(v, " \t");
		if (strncmp(v, "\"\"\"", 3) == 0 || strncmp(v, "'''", 3) == 0)
			v += 3;
		break;
	}
	case TC_YAML: {
		bool item = false;
		if (line[0] == '-' && (line[1] == ' ' || !line[1])) {
			size_t d = 1 + strspn(line + 1, " ");
			/* an item of the list a bare key opened */
			item = s->list_key[0] && indent > s->list_indent;
			indent += d;
			line += d;
		} else if (indent <= s->list_indent) {
			s->list_key[0] = '\0'; /* the list ended */
		}
		if (line[0] == '{') {
			yaml_flow(s, line, base);
			return;
		}
		key = line;
		char *colon = NULL;
		if (line[0] == '"' || line[0] == '\'') {
			char *close = strchr(line + 1, line[0]);
			if (close && close[1] == ':' &&
			    (close[2] == ' ' || !close[2]))
				colon = close + 1;
		} else {
			colon = strstr(line, ": ");
			if (!colon && *line && line[strlen(line) - 1] == ':' &&
			    strlen(line) < sizeof(s->list_key)) {
				/* a key that holds a mapping, or a list */
				snprintf(s->list_key, sizeof(s->list_key),
					 "%.*s", (int)strlen(line) - 1, line);
				s->list_indent = indent;
				return;
			}
			if (!colon && (!*line || line[strlen(line) - 1] == ':'))
				return; /* a key that holds a mapping */
		}
		if (colon) {
			*colon = '\0';
			v = colon[1] ? colon + 2 : colon + 1;
			opens(s, key, v, indent);
			if (s->cont == CONT_BLOCK)
				return;
		} else {
			v = line;
			key = item ? s->list_key : line + strlen(line);
		}
		v += strspn(v, " \t");
		unlist(v);
		v = unquote(v);
		break;
	}
	}
	emit(s, key, v, base);
}

/* The text of a file at path (its folder the base a row takes relative
 * paths from), line by line. */
static void scan_text(struct scan *s, char *text, const char *path, int depth)
{
	s->cont = CONT_NONE;
	s->list_key[0] = '\0';
	s->list_indent = 0;
	if (s->tc->fmt == TC_SHELL) {
		/* a line continued (`source \` and the file on the next) */
		char *o = text;
		for (const char *c = text; *c; c++) {
			if (c[0] == '\\' && c[1] == '\n') {
				c++;
				continue;
			}
			*o++ = *c;
		}
		*o = '\0';
	}
	_cleanup_free_ char *dir = dir_of(path);
	_cleanup_free_ char *base = NULL;
	if (s->tc->base == TC_BASE_DIR)
		base = xstrdup(dir);
	else if (s->tc->base == TC_BASE_PARENT)
		base = dir_of(dir);
	for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		one_line(s, line, base, depth);
}

static void scan_file(struct scan *s, const char *path, int depth)
{
	if (s->no_files)
		return;
	/* one open for a file that is missing, as most are: a start pays
	 * for none of the rest; a file read once, by what it is (an include
	 * loop, the same file at two paths) */
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return;
	char id[64];
	snprintf(id, sizeof(id), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	if (strv_contains(&s->seen, id))
		return;
	if (s->seen.n >= TC_FILES_MAX) {
		s->cb->over(s->cb->ctx, path);
		return;
	}
	strv_push(&s->seen, id);
	bool big = false;
	_cleanup_free_ char *text = read_conf(fd, &big);
	if (text)
		scan_text(s, text, path, depth);
	else if (big)
		/* never a file skipped in silence: what it names is unknown,
		 * so the run is refused (protect.c) */
		s->cb->over(s->cb->ctx, path);
}

/* Each file one spelling of the table names. */
static void each_file(struct scan *s, const char *spec)
{
	if (spec[0] == '.' && spec[1] == '/') {
		if (!s->top)
			return;
		_cleanup_free_ char *f = xasprintf("%s%s", s->top, spec + 1);
		scan_file(s, f, 0);
		return;
	}
	/* A home default itself is the person's to grant (--write
	 * ~/.config writes gh's config, and the end report names it; rule H
	 * keeps it under a grant of the home); a file a variable moves into
	 * a write folder is kept, as rule E keeps its folder. */
	if (spec[0] != '$' && strchr(spec, '*')) {
		/* a folder of snippets (fish's conf.d/\*.fish): each */
		_cleanup_free_ char *a = absolute(s, spec, NULL);
		glob_t g;
		if (a && glob(a, GLOB_NOSORT, NULL, &g) == 0) {
			/* bounded as every read is: past TC_FILES_MAX files
			 * scan_file says so (over), never a file skipped */
			for (size_t i = 0; i < g.gl_pathc; i++)
				scan_file(s, g.gl_pathv[i], 0);
			globfree(&g);
		}
		return;
	}
	if (spec[0] != '$') {
		_cleanup_free_ char *a = absolute(s, spec, NULL);
		if (a)
			scan_file(s, a, 0);
		return;
	}
	size_t n = strcspn(spec + 1, "/:");
	const char *v = env_value(s->env, spec + 1, n);
	const char *rest = spec + 1 + n;
	if (!v || v[0] != '/')
		return;
	if (*rest == ':') {
		_cleanup_free_ char *all = xstrdup(v);
		for (char *save = NULL, *p = strtok_r(all, ":", &save); p;
		     p = strtok_r(NULL, ":", &save))
			if (p[0] == '/')
				scan_file(s, p, 0);
		return;
	}
	_cleanup_free_ char *f = xasprintf("%s%s", v, rest);
	s->cb->file(s->cb->ctx, f, s->tc->why);
	scan_file(s, f, 0);
}

static void scan_rows(struct scan *s, bool project)
{
	size_t nc;
	const struct tool_conf *confs = toolconf_table(&nc);
	for (size_t i = 0; i < nc; i++) {
		if (confs[i].project != project)
			continue;
		s->tc = &confs[i];
		strv_free(&s->seen);
		for (size_t j = 0;
		     j < ARRAY_SIZE(confs[i].files) && confs[i].files[j]; j++)
			each_file(s, confs[i].files[j]);
	}
	strv_free(&s->seen);
}

void toolconf_scan_project(const char *top, const char *home,
			   const struct toolconf_cb *cb)
{
	struct scan s = {.home = home, .cb = cb, .top = top};
	scan_rows(&s, true);
}

void toolconf_scan(const char *home, char *const *env,
		   const struct toolconf_cb *cb)
{
	struct scan s = {.home = home, .env = env, .cb = cb};
	scan_rows(&s, false);
}

size_t toolconf_files(const char **out, size_t cap)
{
	size_t n = 0;
	size_t nc;
	const struct tool_conf *confs = toolconf_table(&nc);
	for (size_t i = 0; i < nc; i++)
		for (size_t j = 0;
		     j < ARRAY_SIZE(confs[i].files) && confs[i].files[j]; j++)
			if (n < cap)
				out[n++] = confs[i].files[j];
	return n;
}

void toolconf_parse(unsigned row, char *text, const char *path,
		    const char *home, const struct toolconf_cb *cb)
{
	size_t nc;
	const struct tool_conf *confs = toolconf_table(&nc);
	struct scan s = {.home = home, .cb = cb, .no_files = true};
	s.tc = &confs[row % nc];
	scan_text(&s, text, path, 0);
	strv_free(&s.seen);
}
