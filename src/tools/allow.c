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
		if (!sp)
			g->any = true;
		else if (!strv_contains(&g->allow, sp + 1))
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
		for (size_t j = 0; s && j < s->n; j++) {
			if (strcmp(s->v[j], "*") == 0)
				g->any = true;
			else if (!strv_contains(&g->allow, s->v[j]))
				strv_push(&g->allow, s->v[j]);
		}
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

/* How many words of call are args' leading ones, or 0 when they differ. */
static size_t prefix_words(const char *call, const struct strv *args)
{
	size_t w = 0;
	const char *s = call;

	while (*s) {
		const char *e = strchr(s, ' ');
		size_t n = e ? (size_t)(e - s) : strlen(s);
		if (w >= args->n || strlen(args->v[w]) != n ||
		    memcmp(args->v[w], s, n) != 0)
			return 0;
		w++;
		s += n;
		if (*s == ' ')
			s++;
	}
	return w;
}

bool tools_allowed(const struct tool_grant *g, const struct strv *args,
		   size_t *matched)
{
	size_t best = 0;

	*matched = 0;
	for (size_t i = 0; i < g->allow.n; i++) {
		size_t w = prefix_words(g->allow.v[i], args);
		if (w > best)
			best = w;
	}
	if (best) {
		*matched = best;
		return true;
	}
	return g->any;
}

static bool plain_word(const char *s)
{
	if (!*s || *s == '-' || strlen(s) > 64)
		return false;
	for (; *s; s++) {
		char c = *s;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || strchr("._:@=+-", c)))
			return false;
	}
	return true;
}

char *tools_hint_call(const struct strv *args)
{
	struct buf b = {0};

	for (size_t i = 0; i < args->n && i < 2 && plain_word(args->v[i]);
	     i++) {
		if (i)
			buf_putc(&b, ' ');
		buf_puts(&b, args->v[i]);
	}
	if (!b.len)
		buf_puts(&b, "*");
	return buf_steal(&b);
}

char *tools_log_target(const char *tool, const struct strv *args,
		       size_t matched)
{
	struct buf b = {0};

	buf_puts(&b, tool);
	for (size_t i = 0; i < matched && i < args->n; i++) {
		buf_putc(&b, ' ');
		buf_puts(&b, args->v[i]);
	}
	return buf_steal(&b);
}
