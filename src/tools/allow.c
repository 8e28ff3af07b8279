/* The tools of a sandbox and the calls that run at once (allow.h). */
#include "tools/allow.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/esc.h"
#include "policy/keys.h"
#include "tools/reach.h"
#include "tools/store.h"

bool tools_name_ok(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > 64 || name[0] == '.' || name[0] == '-')
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = name[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '_' ||
		      c == '+' || c == '-'))
			return false;
	}
	return true;
}

static struct tool_grant *find(struct tools_plan *p, const char *name)
{
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->t[i].name, name) == 0)
			return &p->t[i];
	return NULL;
}

const struct tool_grant *tools_plan_find(const struct tools_plan *p,
					 const char *name)
{
	return find((struct tools_plan *)p, name);
}

/* The program named on the host's PATH: the first executable regular
 * file, its real path. */
int tools_lookup(const char *name, const char *path, char **out)
{
	const char *s = path && *path ? path : "/usr/local/bin:/usr/bin:/bin";

	while (*s) {
		const char *e = strchr(s, ':');
		size_t n = e ? (size_t)(e - s) : strlen(s);
		/* An empty or relative PATH entry is the current folder,
		 * which a sandbox's program may have written. */
		if (n > 0 && s[0] == '/') {
			_cleanup_free_ char *cand =
			    xasprintf("%.*s/%s", (int)n, s, name);
			char real[PATH_MAX];
			struct stat st;
			if (realpath(cand, real) && stat(real, &st) == 0 &&
			    S_ISREG(st.st_mode) && access(real, X_OK) == 0) {
				*out = xstrdup(real);
				return 0;
			}
		}
		s += n;
		if (*s == ':')
			s++;
	}
	return -ENOENT;
}

/* A tool runs outside, as the user (or root): a tool the program could
 * change (reach.h) would run the program's code outside at its next
 * call, and is refused. Read once, here. */
static int tool_writable(const struct policy *p, const char *o,
			 const char *name, const char *real, const char *path,
			 struct lnk_err *err)
{
	char q[160], qw[PATH_MAX + 64], qn[PATH_MAX + 64];
	struct tool_reach r;

	if (!tool_reach(policy_list(p, K_FILES_WRITE), path, real, &r))
		return 0;
	esc_to(qw, sizeof(qw), r.what);
	esc_to(qn, sizeof(qn), r.name);
	if (r.folder)
		esc_to(q, sizeof(q), r.folder);
	switch (r.kind) {
	case REACH_LINK:
		return err_set(err, -EINVAL,
			       "%s: the tool %s runs '%s', which has another "
			       "name (a hard link) '%s' in the write folder "
			       "'%s', through which the program could change "
			       "what runs outside; give '%s' a file of its "
			       "own (cp it to a new name, then mv that over "
			       "it), or grant that folder with --read",
			       o, name, qw, qn, q, qw);
	case REACH_LINK_UNSURE:
		return err_set(err, -EINVAL,
			       "%s: the tool %s runs '%s', a file with other "
			       "names (hard links) that lnk could not all find "
			       "outside the write folder '%s' (too many files, "
			       "or one lnk cannot read); give '%s' a file of "
			       "its own (cp it to a new name, then mv that "
			       "over it), or grant that folder with --read",
			       o, name, qw, q, qw);
	case REACH_LIBPATH:
		return err_set(err, -EINVAL,
			       "%s: the tool %s runs '%s', whose loader looks "
			       "for libraries in '%s', in the write folder "
			       "'%s', where the program could plant one that "
			       "runs outside; build it without that path "
			       "(RPATH, RUNPATH), or grant that folder with "
			       "--read",
			       o, name, qw, qn, q);
	case REACH_HERE:
		return err_set(err, -EINVAL,
			       "%s: the tool %s runs '%s', which names '%s', a "
			       "relative path: it is found from the folder the "
			       "tool runs in, where the program could put its "
			       "own; make that path absolute",
			       o, name, qw, qn);
	case REACH_NONE:
	case REACH_IN:
		break;
	}
	return err_set(err, -EINVAL,
		       "%s: the tool %s runs '%s', inside the write "
		       "folder '%s', where the program could change "
		       "what runs outside; install it elsewhere, or "
		       "grant that folder with --read",
		       o, name, qw, q);
}

int tools_plan_make(const struct policy *p, const struct tools_store *stored,
		    const char *path, struct tools_plan *out,
		    struct lnk_err *err)
{
	const struct strv *l = policy_list(p, K_TOOLS_ALLOW);

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < l->n; i++) {
		const char *e = l->v[i];
		const char *sp = strchr(e, ' ');
		_cleanup_free_ char *name =
		    sp ? xstrndup(e, (size_t)(sp - e)) : xstrdup(e);
		_cleanup_free_ char *o = policy_origin(p, K_TOOLS_ALLOW, i);
		char q[160];

		if (!tools_name_ok(name)) {
			tools_plan_free(out);
			return err_set(err, -EINVAL,
				       "%s: %s is not a tool's name: letters, "
				       "digits, '.', '_', '+' and '-'",
				       o, esc_to(q, sizeof(q), name));
		}
		struct tool_grant *g = find(out, name);
		if (!g) {
			out->t = xrealloc(out->t, (out->n + 1) * sizeof(*g));
			g = &out->t[out->n++];
			memset(g, 0, sizeof(*g));
			g->name = xstrdup(name);
			if (tools_lookup(name, path, &g->path) < 0) {
				tools_plan_free(out);
				return err_set(err, -ENOENT,
					       "%s: no program '%s' on lnk's "
					       "PATH to run as the tool",
					       o, name);
			}
			if (tool_writable(p, o, name, g->path, path, err) < 0) {
				tools_plan_free(out);
				return -EINVAL;
			}
		}
		/* The bare name grants the tool with the calls stored for
		 * it, none of its own: never every call. */
		if (sp && !strv_contains(&g->allow, sp + 1))
			strv_push(&g->allow, sp + 1);
	}
	/* Pages: the clients a program calls to open one, and the desktop's
	 * opener outside (none: every page is refused, nothing to open it
	 * in). */
	const struct strv *pg = policy_list(p, K_BROWSER_OPEN);
	static const char *const clients[] = {"xdg-open", "sensible-browser",
					      "www-browser"};
	for (size_t i = 0; pg->n && i < ARRAY_SIZE(clients); i++) {
		if (find(out, clients[i]))
			continue;
		out->t = xrealloc(out->t, (out->n + 1) * sizeof(*out->t));
		struct tool_grant *g = &out->t[out->n++];
		memset(g, 0, sizeof(*g));
		g->name = xstrdup(clients[i]);
		g->page = true;
		if (tools_lookup("xdg-open", path, &g->path) == 0 &&
		    tool_writable(p, "--browser-open", "xdg-open", g->path,
				  path, err) < 0) {
			tools_plan_free(out);
			return -EINVAL;
		}
	}
	strv_copy(&out->pages, pg);
	for (size_t i = 0; stored && i < out->n; i++) {
		struct tool_grant *g = &out->t[i];
		const struct strv *s = tools_store_calls(stored, g->name);
		for (size_t j = 0; s && j < s->n && !g->page; j++)
			if (!strv_contains(&g->allow, s->v[j]))
				strv_push(&g->allow, s->v[j]);
	}
	return 0;
}

void tools_plan_free(struct tools_plan *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->t[i].name);
		free(p->t[i].path);
		strv_free(&p->t[i].allow);
	}
	strv_free(&p->pages);
	free(p->t);
	memset(p, 0, sizeof(*p));
}

/* Whether pattern (normal: words joined by one space) matches the whole
 * call: each word the argument equal to it, '*' any one argument, a last
 * '*' any number of further ones. */
static bool pattern_matches(const char *pat, const struct strv *args)
{
	size_t w = 0;
	const char *s = pat;

	while (*s) {
		const char *e = strchr(s, ' ');
		size_t n = e ? (size_t)(e - s) : strlen(s);
		if (n == 1 && s[0] == '*') {
			if (!e)
				return true; /* the rest, whatever it is */
		} else if (w >= args->n || strlen(args->v[w]) != n ||
			   memcmp(args->v[w], s, n) != 0) {
			return false;
		}
		if (w >= args->n)
			return false; /* a '*' inside: one argument, none here */
		w++;
		s += n;
		if (*s == ' ')
			s++;
	}
	return w == args->n;
}

bool tools_allowed(const struct tool_grant *g, const struct strv *args)
{
	for (size_t i = 0; i < g->allow.n; i++)
		if (pattern_matches(g->allow.v[i], args))
			return true;
	return false;
}

static bool has_star(const char *pat)
{
	for (const char *s = pat; *s; s++)
		if (*s == '*' && (s == pat || s[-1] == ' ') &&
		    (!s[1] || s[1] == ' '))
			return true;
	return false;
}

char *tools_pattern_warning(const char *tool, const char *pattern)
{
	struct buf b = {0};
	const char *star = strstr(pattern, "*");

	if (!has_star(pattern))
		return NULL;
	/* The words before the first '*': the command the grant names. */
	size_t lead = star && star > pattern ? (size_t)(star - pattern) - 1 : 0;
	bool only_last = star && !star[1];
	bool first_free = star == pattern;

	buf_puts(&b, "tool ");
	esc_append(&b, tool, strlen(tool), ESC_TEXT);
	buf_puts(&b, ", '");
	esc_append(&b, pattern, strlen(pattern), ESC_TEXT);
	buf_puts(&b, "': the program may run ");
	if (strcmp(pattern, "*") == 0) {
		buf_puts(&b, "every call of ");
		esc_append(&b, tool, strlen(tool), ESC_TEXT);
		buf_puts(&b, " it likes, outside the sandbox, as you, with "
			     "your credentials: every command and option "
			     "of it");
	} else if (only_last && lead) {
		esc_append(&b, tool, strlen(tool), ESC_TEXT);
		buf_putc(&b, ' ');
		esc_append(&b, pattern, lead, ESC_TEXT);
		buf_puts(&b, " with any further arguments it likes, outside "
			     "the sandbox, as you: every option of that "
			     "command");
	} else {
		esc_append(&b, tool, strlen(tool), ESC_TEXT);
		buf_puts(&b, " with any argument it likes where '*' stands, "
			     "an option too, outside the sandbox, as you");
	}
	/* What the common tools' options reach past the call: the threat
	 * is the person reading "git log" and granting a file write. */
	if (strcmp(tool, "git") == 0)
		buf_puts(&b, "; for git that includes --output (writes any "
			     "file you can write), --no-index (reads any "
			     "file you can read), and -c, -C and "
			     "--exec-path (run any program, in any "
			     "repository)");
	else if (strcmp(tool, "gh") == 0 && first_free)
		buf_puts(&b, "; for gh that is every API call your token "
			     "allows (gh api), in any repository");
	else if (strcmp(tool, "gh") == 0)
		buf_puts(&b, "; for gh that includes --repo: any repository "
			     "your token reaches");
	else
		buf_puts(&b, "; an option can name a file the tool writes or "
			     "reads, or a program it runs");
	return buf_steal(&b);
}

void tools_plan_warnings(const struct tools_plan *p, struct strv *out)
{
	for (size_t i = 0; i < p->n; i++) {
		const struct tool_grant *g = &p->t[i];
		bool all = strv_contains(&g->allow, "*");
		for (size_t j = 0; j < g->allow.n; j++) {
			if (all && strcmp(g->allow.v[j], "*") != 0)
				continue; /* said by the '*' line */
			char *w = tools_pattern_warning(g->name, g->allow.v[j]);
			if (w)
				strv_push_take(out, w);
		}
	}
}

/* The arguments from..to (exclusive) left out of a row, counted:
 * " ... (+K more arguments, B bytes, #H)", H a hash of them, so that two
 * calls differing only in what was left out never log the same row. */
static void fold_note(char *dst, size_t cap, const struct strv *args,
		      size_t from, size_t to, bool tail)
{
	size_t bytes = 0;
	uint64_t h = 0;

	for (size_t i = from; i < to; i++) {
		bytes += strlen(args->v[i]);
		h = h * 1099511628211u ^ fnv1a(args->v[i]);
	}
	snprintf(dst, cap, " ... (+%zu more argument%s, %zu bytes, #%08x)%s",
		 to - from, to - from == 1 ? "" : "s", bytes,
		 (unsigned)(h ^ (h >> 32)), tail ? " ..." : "");
}

/* An argument as the log shows it: one shell word, escaped; one longer
 * than cap is its first bytes and how long it is, so that a padded
 * argument cannot push the ones after it out of the row. */
static char *log_word(const char *arg, size_t cap, bool escaped)
{
	char *(*word)(const char *) = escaped ? esc_word_dup : shell_word_dup;
	char *w = word(arg);
	size_t n = strlen(arg);

	if (strlen(w) <= cap)
		return w;
	free(w);
	_cleanup_free_ char *head = xstrndup(arg, cap / 5 ? cap / 5 : 1);
	_cleanup_free_ char *hw = word(head);
	uint64_t h = fnv1a(arg);
	return xasprintf("%s...(%zu bytes, #%08x)", hw, n,
			 (unsigned)(h ^ (h >> 32)));
}

static char *call_text(const char *tool, const struct strv *args, size_t max,
		       bool escaped)
{
	struct buf b = {0};
	struct strv words = {0};
	char note[96];
	size_t all;

	if (escaped)
		esc_append(&b, tool, strlen(tool), ESC_TEXT);
	else
		buf_puts(&b, tool);
	all = b.len;
	for (size_t i = 0; i < args->n; i++) {
		strv_push_take(&words, log_word(args->v[i], max / 3, escaped));
		all += 1 + strlen(words.v[i]);
	}
	if (all <= max) {
		for (size_t i = 0; i < args->n; i++) {
			buf_putc(&b, ' ');
			buf_puts(&b, words.v[i]);
		}
		strv_free(&words);
		return buf_steal(&b);
	}
	/* Folded: the last arguments that fit in half of what is left (the
	 * ones a padded call would hide: an --output= at its end), then the
	 * first ones in the rest, and between them the count of those left
	 * out. */
	fold_note(note, sizeof(note), args, 0, args->n, true);
	size_t room =
	    max > b.len + strlen(note) ? max - b.len - strlen(note) : 0;
	size_t tail = args->n, used = 0;
	while (tail > 0 && used + 1 + strlen(words.v[tail - 1]) <= room / 2)
		used += 1 + strlen(words.v[--tail]);
	size_t head = 0;
	while (head < tail && used + 1 + strlen(words.v[head]) <= room)
		used += 1 + strlen(words.v[head++]);
	for (size_t i = 0; i < head; i++) {
		buf_putc(&b, ' ');
		buf_puts(&b, words.v[i]);
	}
	if (head < tail) {
		fold_note(note, sizeof(note), args, head, tail, tail < args->n);
		buf_puts(&b, note);
	}
	for (size_t i = tail; i < args->n; i++) {
		buf_putc(&b, ' ');
		buf_puts(&b, words.v[i]);
	}
	strv_free(&words);
	return buf_steal(&b);
}

char *tools_call_text(const char *tool, const struct strv *args, size_t max)
{
	return call_text(tool, args, max, true);
}

char *tools_call_target(const char *tool, const struct strv *args, size_t max)
{
	return call_text(tool, args, max, false);
}

char *tools_refusal_text(const struct tool_grant *g, const struct strv *args)
{
	char why[256] = "";
	size_t bytes = strlen(g->name);

	if (args->n == 0)
		snprintf(why, sizeof(why),
			 "it has no arguments, and only '*' (every call of "
			 "%s) would match it",
			 g->name);
	else if (args->n > KEY_TOOL_WORDS)
		snprintf(why, sizeof(why),
			 "it has %zu arguments, more than a stored call "
			 "holds (%d)",
			 args->n, KEY_TOOL_WORDS);
	for (size_t i = 0; !why[0] && i < args->n; i++) {
		const char *a = args->v[i];
		const char *w = strcmp(a, "*") == 0
				    ? "is '*', which in a pattern stands for "
				      "any argument"
				    : key_tool_word_why(a, strlen(a));
		if (w)
			snprintf(why, sizeof(why), "its argument %zu %s", i + 1,
				 w);
		bytes += 1 + strlen(a);
	}
	if (!why[0] && bytes > KEY_TOOL_CALL)
		snprintf(why, sizeof(why),
			 "it is longer than a stored call may be (%d bytes)",
			 KEY_TOOL_CALL);

	struct buf b = {0};
	if (!why[0]) {
		/* Every argument is a word a pattern holds as it is: the
		 * pattern is exactly this call, nothing after it. */
		buf_printf(&b,
			   "this call is not in %s's allow list, and there "
			   "is no one to ask; to let exactly this call "
			   "through, run outside the sandbox: lnk sandbox "
			   "tool add %s --allow '",
			   g->name, g->name);
		for (size_t i = 0; i < args->n; i++) {
			if (i)
				buf_putc(&b, ' ');
			esc_append(&b, args->v[i], strlen(args->v[i]),
				   ESC_TEXT);
		}
		buf_putc(&b, '\'');
		return buf_steal(&b);
	}
	_cleanup_free_ char *call = tools_call_text(g->name, args, 300);
	buf_printf(&b,
		   "this call (%s) is not in %s's allow list, and there is "
		   "no one to ask; it cannot be stored as a call of its own: "
		   "%s. Answer it when asked (run the sandbox where lnk can "
		   "ask: on a terminal or a desktop), or write a pattern "
		   "with '*' for its free arguments (lnk-sandbox(1), TOOLS "
		   "AND ASKING)",
		   call, g->name, why);
	return buf_steal(&b);
}
