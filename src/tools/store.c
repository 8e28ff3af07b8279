/* ~/.lnk/sandbox/tools.toml (store.h). */
#include "tools/store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/esc.h"
#include "policy/keys.h"
#include "store/paths.h"
#include "toml/toml.h"
#include "tools/allow.h"

char *tools_store_path(const char *home)
{
	_cleanup_free_ char *d = paths_sandbox_dir(home);
	return xasprintf("%s/tools.toml", d);
}

int tools_call_normalize(const char *call, char **out, struct lnk_err *err)
{
	/* The grammar of --tool's calls (policy/keys.c): "*" is a pattern
	 * like any other, every call. */
	return key_tool_pattern(call, strlen(call), out, err);
}

static struct tools_store_entry *entry(struct tools_store *s, const char *t)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->e[i].tool, t) == 0)
			return &s->e[i];
	return NULL;
}

const struct strv *tools_store_calls(const struct tools_store *s,
				     const char *tool)
{
	struct tools_store_entry *e = entry((struct tools_store *)s, tool);
	return e ? &e->calls : NULL;
}

int tools_store_add(struct tools_store *s, const char *tool, const char *call)
{
	struct tools_store_entry *e = entry(s, tool);

	if (!e) {
		s->e = xrealloc(s->e, (s->n + 1) * sizeof(*s->e));
		e = &s->e[s->n++];
		memset(e, 0, sizeof(*e));
		e->tool = xstrdup(tool);
	}
	if (strv_contains(&e->calls, call))
		return -EEXIST;
	strv_push(&e->calls, call);
	return 0;
}

int tools_store_remove(struct tools_store *s, const char *tool,
		       const char *call)
{
	struct tools_store_entry *e = entry(s, tool);

	if (!e)
		return -ENOENT;
	if (call) {
		size_t i = 0;
		while (i < e->calls.n && strcmp(e->calls.v[i], call) != 0)
			i++;
		if (i == e->calls.n)
			return -ENOENT;
		free(e->calls.v[i]);
		memmove(e->calls.v + i, e->calls.v + i + 1,
			(e->calls.n - i - 1) * sizeof(char *));
		e->calls.n--;
		if (e->calls.n)
			return 0;
	}
	free(e->tool);
	strv_free(&e->calls);
	size_t at = (size_t)(e - s->e);
	memmove(s->e + at, s->e + at + 1, (s->n - at - 1) * sizeof(*s->e));
	s->n--;
	return 0;
}

void tools_store_free(struct tools_store *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->e[i].tool);
		strv_free(&s->e[i].calls);
	}
	free(s->e);
	memset(s, 0, sizeof(*s));
}

int tools_store_load(const char *path, struct tools_store *s,
		     struct lnk_err *err)
{
	struct toml_value *root = NULL;
	char q[160];

	memset(s, 0, sizeof(*s));
	int r = toml_load_optional(path, 1 << 20, &root, err);
	if (r < 0 || !root)
		return r;
	for (size_t i = 0; i < root->u.tab.n && r == 0; i++) {
		const struct toml_kv *t = &root->u.tab.items[i];
		const struct toml_kv *a;
		if (!tools_name_ok(t->key) || t->val->type != TOML_TABLE) {
			r = err_set(err, -EINVAL,
				    "%s:%u: %s: each entry is a tool's name "
				    "(letters, digits, '.', '_', '+', '-') "
				    "with a table: [\"gh\"] allow = [\"pr "
				    "list\"]",
				    path, t->pos.line,
				    esc_to(q, sizeof(q), t->key));
			break;
		}
		a = toml_find(t->val, "allow");
		if (t->val->u.tab.n != (a ? 1u : 0u) || !a ||
		    a->val->type != TOML_ARRAY) {
			r = err_set(err, -EINVAL,
				    "%s:%u: [\"%s\"] holds one key, allow, a "
				    "list of calls such as [\"pr list\"]",
				    path, t->pos.line, t->key);
			break;
		}
		for (size_t j = 0; j < a->val->u.arr.n; j++) {
			const struct toml_value *v = a->val->u.arr.items[j];
			char *norm = NULL;
			if (v->type != TOML_STRING ||
			    strlen(v->u.str.s) != v->u.str.len) {
				r = err_set(err, -EINVAL,
					    "%s:%u: [\"%s\"] allow holds "
					    "strings only",
					    path, v->pos.line, t->key);
				break;
			}
			if ((r = tools_call_normalize(v->u.str.s, &norm, err)) <
			    0) {
				err_prefix(err, "%s:%u: ", path, v->pos.line);
				break;
			}
			(void)tools_store_add(s, t->key, norm);
			free(norm);
		}
	}
	toml_free(root);
	if (r < 0)
		tools_store_free(s);
	return r;
}

int tools_store_save(const char *path, const struct tools_store *s,
		     struct lnk_err *err)
{
	struct buf b = {0};
	int r;

	buf_puts(&b, "# The calls of each tool that run at once, without "
		     "asking, in a sandbox\n# that grants the tool (--tool, "
		     "[tools] allow). 'lnk sandbox tool' edits it.\n");
	for (size_t i = 0; i < s->n; i++) {
		buf_puts(&b, "\n[");
		buf_toml_str(&b, s->e[i].tool, strlen(s->e[i].tool));
		buf_puts(&b, "]\nallow = [");
		for (size_t j = 0; j < s->e[i].calls.n; j++) {
			const char *c = s->e[i].calls.v[j];
			if (j)
				buf_puts(&b, ", ");
			buf_toml_str(&b, c, strlen(c));
		}
		buf_puts(&b, "]\n");
	}
	_cleanup_free_ char *tmp = xasprintf("%s.new", path);
	int fd = open(
	    tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		r = -errno;
		buf_free(&b);
		return err_set(err, r, "cannot write '%s': %s", tmp,
			       strerror(-r));
	}
	r = write_all(fd, b.p, b.len);
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	buf_free(&b);
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0) {
		unlink(tmp);
		return err_set(err, r, "cannot write '%s': %s", path,
			       strerror(-r));
	}
	return 0;
}
