/* TOML -> policy: a spec file's sections and keys, through the keys table.
 *
 * A spec can come from anyone (lnk-sandbox(1), COMMANDS, run, --yes): every key
 * is looked up in the table, every value's TOML type checked, every entry
 * checked by key_normalize, and anything unknown refused with where it is and
 * the closest valid name. Nothing here touches the file system beyond reading
 * the spec: paths are resolved by policy_resolve.
 */
#include "spec/spec.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/esc.h"
#include "net/grammar.h"

/* At most this many entries a key: a bound on what a hostile spec makes
 * every later stage (bwrap argv, Landlock rules, the wire) carry. */
#define SPEC_MAX_ENTRIES 4096
#define SPEC_MAX_BYTES (1u << 20)

struct ctx {
	struct policy *p;
	const char *name;
	struct lnk_err *err;
};

/* A key as written, quoted for a message, escaped (common/esc.h): a
 * hostile key name must not write control characters to the terminal. */
static char *quoted(const char *s, size_t len)
{
	char inner[128];
	esc_to_n(inner, sizeof(inner), s, len);
	return xasprintf("'%s'", inner);
}

static struct toml_pos pos_or(struct toml_pos a, struct toml_pos b)
{
	return a.line ? a : b;
}

static int fail_at(struct ctx *c, struct toml_pos pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail_at(struct ctx *c, struct toml_pos pos, const char *fmt, ...)
{
	char msg[sizeof(c->err->msg)];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return err_set(c->err, -EINVAL, "%s:%u:%u: %s", c->name, pos.line,
		       pos.col, msg);
}

static const char *kname(const struct key_def *d, char *buf, size_t n)
{
	if (d->section)
		snprintf(buf, n, "[%s] %s", d->section, d->key);
	else
		snprintf(buf, n, "%s", d->key);
	return buf;
}

/* "an integer", "a string", "an array", ... */
static const char *a_type(enum toml_type t)
{
	switch (t) {
	case TOML_STRING:
		return "a string";
	case TOML_INTEGER:
		return "an integer";
	case TOML_FLOAT:
		return "a float";
	case TOML_BOOL:
		return "a boolean";
	case TOML_DATETIME:
	case TOML_DATETIME_LOCAL:
	case TOML_DATE_LOCAL:
	case TOML_TIME_LOCAL:
		return "a date or time";
	case TOML_ARRAY:
		return "an array";
	case TOML_TABLE:
		return "a table";
	}
	return "a value";
}

static int load_key(struct ctx *c, const struct key_def *d,
		    const struct toml_kv *kv)
{
	char kn[96];
	kname(d, kn, sizeof(kn));
	const struct toml_value *v = kv->val;
	struct toml_pos vpos = pos_or(v->pos, kv->pos);
	struct key_value *dst = &c->p->k[d->id];
	policy_clear_key(dst);
	dst->pos = kv->pos;

	switch (d->type) {
	case KT_VERSION:
		if (v->type != TOML_INTEGER)
			return fail_at(c, vpos, "%s must be an integer, not %s",
				       kn, a_type(v->type));
		if (v->u.i != 1)
			return fail_at(c, vpos,
				       "version %lld is not known to this lnk: "
				       "version 1 is the only one; a newer lnk "
				       "may read it",
				       (long long)v->u.i);
		dst->num = v->u.i;
		dst->set = true;
		return 0;
	case KT_NAME:
	case KT_CHANGES: {
		if (v->type != TOML_STRING)
			return fail_at(c, vpos, "%s must be a string, not %s",
				       kn, a_type(v->type));
		char *norm = NULL;
		if (key_normalize(d, v->u.str.s, v->u.str.len, &norm, c->err) <
		    0)
			return err_prefix(c->err, "%s:%u:%u: %s: ", c->name,
					  vpos.line, vpos.col, kn);
		dst->str = norm;
		dst->set = true;
		return 0;
	}
	case KT_SIZE:
	case KT_COUNT: {
		/* A size is a string ("512M") or a number of bytes; a count
		 * is a number. Both go through the flag's check, so a spec
		 * and a flag accept the same values. */
		char num[32], *norm = NULL;
		const char *s;
		size_t len;
		if (v->type == TOML_INTEGER) {
			if (v->u.i < 0)
				return fail_at(c, vpos,
					       "%s must not be negative", kn);
			len = (size_t)snprintf(num, sizeof(num), "%lld",
					       (long long)v->u.i);
			s = num;
		} else if (v->type == TOML_STRING && d->type == KT_SIZE) {
			s = v->u.str.s;
			len = v->u.str.len;
		} else {
			return fail_at(c, vpos, "%s must be %s, not %s", kn,
				       d->type == KT_SIZE
					   ? "a size such as \"512M\""
					   : "an integer",
				       a_type(v->type));
		}
		if (key_normalize(d, s, len, &norm, c->err) < 0)
			return err_prefix(c->err, "%s:%u:%u: %s: ", c->name,
					  vpos.line, vpos.col, kn);
		dst->str = norm;
		dst->set = true;
		return 0;
	}
	case KT_PATHS:
	case KT_HOSTS:
	case KT_LAN:
	case KT_PORTS:
	case KT_TOOLS:
	case KT_URLS:
	case KT_COMMANDS:
	case KT_ENV:
	case KT_MODELS:
		break;
	}

	const char *want = key_toml_type(d->type);
	enum toml_type item = d->type == KT_PORTS ? TOML_INTEGER : TOML_STRING;
	if (v->type != TOML_ARRAY)
		return fail_at(c, vpos, "%s must be an %s, not %s%s", kn, want,
			       a_type(v->type),
			       v->type == item ? ": put it in [ ]" : "");
	if (v->u.arr.n > SPEC_MAX_ENTRIES)
		return fail_at(c, vpos, "%s has %zu entries; at most %d", kn,
			       v->u.arr.n, SPEC_MAX_ENTRIES);
	dst->set = true; /* even when empty: the key was written */
	for (size_t i = 0; i < v->u.arr.n; i++) {
		const struct toml_value *e = v->u.arr.items[i];
		struct toml_pos ep = pos_or(e->pos, vpos);
		if (e->type != item)
			return fail_at(c, ep,
				       "%s must be an %s, not an array holding "
				       "%s",
				       kn, want, a_type(e->type));
		char *norm = NULL;
		if (item == TOML_INTEGER) {
			if (e->u.i < 1 || e->u.i > 65535)
				return fail_at(
				    c, ep,
				    "%s: %lld is not a port: give " PORT_RULE,
				    kn, (long long)e->u.i);
			norm = xasprintf("%lld", (long long)e->u.i);
		} else if (key_normalize(d, e->u.str.s, e->u.str.len, &norm,
					 c->err) < 0) {
			return err_prefix(c->err, "%s:%u:%u: %s: ", c->name,
					  ep.line, ep.col, kn);
		}
		policy_push(dst, norm, ep);
		free(norm);
	}
	return 0;
}

static int unknown(struct ctx *c, const char *section, const struct toml_kv *kv)
{
	const char *names[K__COUNT + 16];
	size_t n = keys_names_in(section, names, ARRAY_SIZE(names));
	_cleanup_free_ char *q = quoted(kv->key, kv->keylen);
	const char *best = kv->keylen == strlen(kv->key)
			       ? closest_word(kv->key, names, n)
			       : NULL;
	bool is_table = !section && kv->val->type == TOML_TABLE;
	struct toml_pos pos = kv->pos;
	if (is_table) {
		pos = pos_or(kv->val->pos, kv->pos);
		bool best_is_section = false;
		for (const char *const *s = keys_sections(); best && *s; s++)
			best_is_section |= strcmp(*s, best) == 0;
		if (best && best_is_section)
			return fail_at(c, pos,
				       "unknown section [%.*s]; did you mean "
				       "[%s]?",
				       (int)strlen(q) - 2, q + 1, best);
		return fail_at(c, pos,
			       "unknown section %s; the sections are [files], "
			       "[internet], [lan], [localhost], [tools], "
			       "[browser], [commands], [limits] and "
			       "[tripwires]",
			       q);
	}
	if (best)
		return fail_at(c, pos,
			       "unknown key %s%s%s%s; did you mean '%s'?", q,
			       section ? " in [" : "", section ? section : "",
			       section ? "]" : "", best);
	return fail_at(
	    c, pos, "unknown key %s%s%s%s; see 'lnk sandbox permissions'", q,
	    section ? " in [" : "", section ? section : "", section ? "]" : "");
}

static bool is_section(const char *s)
{
	for (const char *const *p = keys_sections(); *p; p++)
		if (strcmp(*p, s) == 0)
			return true;
	return false;
}

int policy_load_spec_text(struct policy *p, const char *text, size_t len,
			  const char *name, const char *dir,
			  struct lnk_err *err)
{
	struct toml_value *root = NULL;
	int r = toml_parse(text, len, name, &root, err);
	if (r < 0)
		return -EINVAL; /* the parser's message has file:line:col */
	free(p->spec_name);
	p->spec_name = xstrdup(name);
	free(p->spec_dir);
	p->spec_dir = dir ? xstrdup(dir) : NULL;
	struct ctx c = {p, name, err};

	r = 0;
	for (size_t i = 0; i < root->u.tab.n && !r; i++) {
		const struct toml_kv *kv = &root->u.tab.items[i];
		bool clean = kv->keylen == strlen(kv->key);
		if (clean && is_section(kv->key)) {
			const struct toml_value *t = kv->val;
			if (t->type != TOML_TABLE) {
				r = fail_at(&c, pos_or(t->pos, kv->pos),
					    "[%s] must be a table, not %s%s",
					    kv->key, a_type(t->type),
					    t->type == TOML_ARRAY
						? " (write [files], not "
						  "[[files]])"
						: "");
				break;
			}
			for (size_t j = 0; j < t->u.tab.n && !r; j++) {
				const struct toml_kv *k = &t->u.tab.items[j];
				const struct key_def *d =
				    k->keylen == strlen(k->key)
					? key_by_name(kv->key, k->key)
					: NULL;
				r = d ? load_key(&c, d, k)
				      : unknown(&c, kv->key, k);
			}
			continue;
		}
		const struct key_def *d =
		    clean ? key_by_name(NULL, kv->key) : NULL;
		r = d ? load_key(&c, d, kv) : unknown(&c, NULL, kv);
	}
	toml_free(root);
	return r;
}

/* The spec's path as the user named it: absolute (from the working
 * folder), its '.', '..' and repeated slashes taken by their spelling, no
 * link followed. The trust record is kept by it (spec/trust.c). Threat:
 * kept by the real path, a program that may write the folder holding an
 * accepted app.toml replaced it (or a folder on its way) with a link to
 * another spec the user accepted for something else; the next run of
 * app.toml had that spec's grants without a question. By its spelling,
 * the record is app.toml's, and the other spec's text opens more. */
static char *spelled_path(const char *path)
{
	char cwd[PATH_MAX];
	struct strv parts = {0};
	if (path[0] != '/' && !getcwd(cwd, sizeof(cwd)))
		return NULL;
	_cleanup_free_ char *all =
	    path[0] == '/' ? xstrdup(path) : xasprintf("%s/%s", cwd, path);
	for (char *save = NULL, *t = strtok_r(all, "/", &save); t;
	     t = strtok_r(NULL, "/", &save)) {
		if (strcmp(t, ".") == 0)
			continue;
		if (strcmp(t, "..") == 0) {
			if (parts.n)
				free(parts.v[--parts.n]);
			continue;
		}
		strv_push(&parts, t);
	}
	struct buf b = {0};
	for (size_t i = 0; i < parts.n; i++) {
		buf_putc(&b, '/');
		buf_puts(&b, parts.v[i]);
	}
	if (!b.len)
		buf_putc(&b, '/');
	strv_free(&parts);
	return buf_steal(&b);
}

int policy_load_spec(struct policy *p, const char *path, struct lnk_err *err)
{
	/* O_NONBLOCK: a FIFO named as a spec must not hang us. */
	_cleanup_close_ int fd =
	    open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return err_set(err, errno == ENOENT ? -EINVAL : -errno,
			       "cannot read spec '%s': %s", path,
			       strerror(errno));
	struct stat st;
	if (fstat(fd, &st) < 0)
		return err_set(err, -errno, "cannot read spec '%s': %s", path,
			       strerror(errno));
	if (!S_ISREG(st.st_mode))
		return err_set(err, -EINVAL,
			       "spec '%s' is not a file: give a TOML file",
			       path);
	if (st.st_size > (off_t)SPEC_MAX_BYTES)
		return err_set(
		    err, -EINVAL,
		    "spec '%s' is larger than %u bytes: no spec needs "
		    "that much",
		    path, SPEC_MAX_BYTES);
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	int r = read_fd_all(fd, SPEC_MAX_BYTES, &text, &len);
	if (r < 0)
		return err_set(err, r, "cannot read spec '%s': %s", path,
			       strerror(-r));
	/* The file read's real path (of the descriptor: a link swapped
	 * after the open changes nothing): relative paths inside resolve
	 * against its folder. The trust record is kept by the spelling. */
	char link[64], real[PATH_MAX];
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	ssize_t rn = readlink(link, real, sizeof(real) - 1);
	if (rn > 0 && real[0] == '/') {
		real[rn] = '\0';
	} else {
		_cleanup_free_ char *rp = realpath(path, NULL);
		if (!rp || strlen(rp) >= sizeof(real))
			return err_set(err, rp ? -ENAMETOOLONG : -errno,
				       "cannot resolve spec '%s': %s", path,
				       strerror(rp ? ENAMETOOLONG : errno));
		snprintf(real, sizeof(real), "%s", rp);
	}
	_cleanup_free_ char *named = spelled_path(path);
	if (!named)
		return err_set(err, -errno, "cannot resolve spec '%s': %s",
			       path, strerror(errno));
	r = policy_load_spec_text(p, text, len, path, dirname(real), err);
	if (r < 0)
		return r;
	free(p->spec_path);
	p->spec_path = steal_pointer(&named);
	return 0;
}
