/* TOML 1.0.0 parser.
 *
 * Threat: a spec can come from anyone, so every byte is hostile. The whole
 * text is checked as strict UTF-8 before parsing (no overlongs, surrogates or
 * code points past U+10FFFF can reach a key or a path), values nest at most
 * TOML_MAX_DEPTH levels (the recursion of the parser, of toml_free and of any
 * walker is bounded), and the text is at most TOML_MAX_SIZE bytes. Keys are
 * found through a hash seeded per parse, so a file of colliding keys cannot
 * turn lookups quadratic. Errors name the file, line and column (in
 * characters) and what was expected there.
 *
 * Over 1000 lines: the whole of TOML 1.0 as one parser: its grammar's
 * states call each other and are fuzzed as one.
 */
#include "toml/toml.h"

#include "common/buf.h"
#include "common/esc.h"
#include "common/util.h"

#include <errno.h>
#include <inttypes.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

/* Every value the parser makes is a node; the public value comes first so
 * that toml_free() can free a node through the value's address. */
struct node {
	struct toml_value v;
	size_t cap;	/* allocated items of an array or a table */
	unsigned flags; /* F_* */
	unsigned depth; /* the root table is 0 */
};

enum {
	F_IMPLICIT = 1u << 0, /* table made by a [a.b] header for 'a' */
	F_DEFINED = 1u << 1,  /* table defined by a header */
	F_DOTTED = 1u << 2,   /* table made by a dotted key a.b = 1 */
	F_FROZEN = 1u << 3,   /* inline table: never extended again */
	F_AOT = 1u << 4,      /* array made by [[a]] headers */
};

struct slot {
	const struct toml_value *tab; /* NULL: empty */
	size_t idx;
	uint64_t h;
};

struct keypart {
	char *s;
	size_t n;
	struct toml_pos pos;
	bool bare;
};

struct keypath {
	struct keypart *v;
	size_t n, cap;
};

struct parser {
	const char *p, *end;
	unsigned line, col;
	const char *name;
	struct lnk_err *err;
	struct toml_value *root, *cur;
	struct slot *slots;
	size_t nslots, used;
	size_t nvalues;
	uint64_t seed;
	locale_t c_locale;
};

#define N(v) ((struct node *)(v))

/* ---- positions and errors ---- */

static struct toml_pos here(const struct parser *ps)
{
	return (struct toml_pos){ps->line, ps->col};
}

static int peek(const struct parser *ps)
{
	return ps->p < ps->end ? (unsigned char)*ps->p : -1;
}

static int peek_at(const struct parser *ps, size_t k)
{
	return (size_t)(ps->end - ps->p) > k ? (unsigned char)ps->p[k] : -1;
}

static void adv(struct parser *ps)
{
	unsigned char c = (unsigned char)*ps->p++;
	if (c == '\n') {
		ps->line++;
		ps->col = 1;
	} else if ((c & 0xC0) != 0x80) {
		ps->col++;
	}
}

static void advn(struct parser *ps, size_t n)
{
	while (n--)
		adv(ps);
}

__attribute__((format(printf, 4, 5))) static int
fail_at(struct parser *ps, struct toml_pos pos, int code, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return err_set(ps->err, code, "%s:%u:%u: %s", ps->name, pos.line,
		       pos.col, msg);
}

#define fail(ps, ...) fail_at((ps), here(ps), -EINVAL, __VA_ARGS__)

/* The code point of the valid UTF-8 sequence at s, and its length. */
static uint32_t decode_utf8(const char *s, size_t *len)
{
	const unsigned char *u = (const unsigned char *)s;

	if (u[0] < 0x80) {
		*len = 1;
		return u[0];
	}
	if (u[0] < 0xE0) {
		*len = 2;
		return (uint32_t)(u[0] & 0x1F) << 6 | (u[1] & 0x3F);
	}
	if (u[0] < 0xF0) {
		*len = 3;
		return (uint32_t)(u[0] & 0x0F) << 12 |
		       (uint32_t)(u[1] & 0x3F) << 6 | (u[2] & 0x3F);
	}
	*len = 4;
	return (uint32_t)(u[0] & 0x07) << 18 | (uint32_t)(u[1] & 0x3F) << 12 |
	       (uint32_t)(u[2] & 0x3F) << 6 | (u[3] & 0x3F);
}

/* Describes the character at the cursor for "found ..." in messages; never
 * copies a control character into a message (terminal injection). */
static const char *found(const struct parser *ps, char *b, size_t bn)
{
	int c = peek(ps);

	if (c < 0)
		return "the end of the file";
	if (c == '\n' || c == '\r')
		return "the end of the line";
	if (c > 0x20 && c < 0x7f && c != '\'') {
		snprintf(b, bn, "'%c'", c);
		return b;
	}
	if (c == '\'')
		return "\"'\"";
	if (c == ' ' || c == '\t')
		return "a space";
	if (c < 0x80) {
		snprintf(b, bn, "control character U+%04X", (unsigned)c);
		return b;
	}
	/* a valid UTF-8 sequence (the text was checked) */
	size_t n;
	uint32_t cp = decode_utf8(ps->p, &n);
	if (esc_hidden(cp)) /* common/esc.h: never raw in a message */
		snprintf(b, bn, "U+%04" PRIX32, cp);
	else
		snprintf(b, bn, "'%.*s'", (int)n, ps->p);
	return b;
}

#define FOUND(ps) found((ps), (char[32]){0}, 32)

/* Appends a key for a message: bare if it can be, else quoted and escaped,
 * cut after 64 bytes so a hostile key cannot fill the message. */
static void key_text(struct buf *b, const struct keypart *k)
{
	size_t n = k->n > 64 ? 64 : k->n;
	bool bare = k->n > 0;

	for (size_t i = 0; i < k->n && bare; i++) {
		char c = k->s[i];
		bare = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		       (c >= '0' && c <= '9') || c == '_' || c == '-';
	}
	if (bare) {
		buf_append(b, k->s, n);
	} else {
		/* Keys hold valid UTF-8 (checked text, escapes of scalar
		 * values): cut after a whole character, quote, escape. */
		while (n < k->n && ((unsigned char)k->s[n] & 0xC0) == 0x80)
			n++;
		buf_putc(b, '"');
		esc_append(b, k->s, n, ESC_TOML);
		buf_putc(b, '"');
	}
	if (n < k->n)
		buf_puts(b, "...");
}

static char *path_text(const struct keypath *kp, size_t upto)
{
	struct buf b = {0};

	for (size_t i = 0; i < upto && i < kp->n; i++) {
		if (i)
			buf_putc(&b, '.');
		key_text(&b, &kp->v[i]);
		if (b.len > 200) {
			buf_puts(&b, "...");
			break;
		}
	}
	return buf_steal(&b);
}

/* ---- nodes and tables ---- */

static struct toml_value *new_node(struct parser *ps, enum toml_type type,
				   struct toml_pos pos, unsigned depth, int *rc)
{
	if (depth > TOML_MAX_DEPTH) {
		*rc = fail_at(ps, pos, -E2BIG,
			      "values nest deeper than %d levels; flatten the "
			      "document",
			      TOML_MAX_DEPTH);
		return NULL;
	}
	/* Each value costs ~100 bytes of memory for a few of text: a cap
	 * keeps a hostile 16 MiB of "0," from taking gigabytes. */
	if (++ps->nvalues > TOML_MAX_VALUES) {
		*rc = fail_at(ps, pos, -E2BIG,
			      "more than %u values; split the document",
			      TOML_MAX_VALUES);
		return NULL;
	}
	struct node *n = xcalloc(1, sizeof(*n));
	n->v.type = type;
	n->v.pos = pos;
	n->depth = depth;
	return &n->v;
}

static uint64_t hash_key(const struct parser *ps, const struct toml_value *t,
			 const char *k, size_t n)
{
	uint64_t h =
	    ps->seed ^ ((uint64_t)(uintptr_t)t * 0x9E3779B97F4A7C15ull);

	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)k[i];
		h *= 0x100000001B3ull;
	}
	h ^= h >> 29;
	h *= 0xBF58476D1CE4E5B9ull;
	h ^= h >> 32;
	return h;
}

static struct toml_kv *tab_find(const struct parser *ps,
				const struct toml_value *t, const char *k,
				size_t n)
{
	if (!ps->nslots)
		return NULL;
	uint64_t h = hash_key(ps, t, k, n);
	size_t mask = ps->nslots - 1;
	for (size_t i = h & mask;; i = (i + 1) & mask) {
		const struct slot *s = &ps->slots[i];
		if (!s->tab)
			return NULL;
		if (s->tab != t || s->h != h)
			continue;
		struct toml_kv *kv = &t->u.tab.items[s->idx];
		if (kv->keylen == n && memcmp(kv->key, k, n) == 0)
			return kv;
	}
}

static void slot_put(struct slot *slots, size_t nslots,
		     const struct toml_value *t, size_t idx, uint64_t h)
{
	size_t mask = nslots - 1;
	size_t i = h & mask;

	while (slots[i].tab)
		i = (i + 1) & mask;
	slots[i] = (struct slot){t, idx, h};
}

/* Adds key (taken) = val to table t; the caller checked it is new. */
static struct toml_kv *tab_add(struct parser *ps, struct toml_value *t,
			       char *key, size_t keylen, struct toml_pos pos,
			       struct toml_value *val)
{
	struct node *tn = N(t);

	if (t->u.tab.n == tn->cap) {
		tn->cap = tn->cap ? tn->cap * 2 : 4;
		t->u.tab.items =
		    xrealloc(t->u.tab.items, tn->cap * sizeof(struct toml_kv));
	}
	size_t idx = t->u.tab.n++;
	struct toml_kv *kv = &t->u.tab.items[idx];
	*kv = (struct toml_kv){key, keylen, pos, val};

	if ((ps->used + 1) * 2 > ps->nslots) {
		size_t nn = ps->nslots ? ps->nslots * 2 : 64;
		struct slot *ns = xcalloc(nn, sizeof(*ns));
		for (size_t i = 0; i < ps->nslots; i++)
			if (ps->slots[i].tab)
				slot_put(ns, nn, ps->slots[i].tab,
					 ps->slots[i].idx, ps->slots[i].h);
		free(ps->slots);
		ps->slots = ns;
		ps->nslots = nn;
	}
	slot_put(ps->slots, ps->nslots, t, idx, hash_key(ps, t, key, keylen));
	ps->used++;
	return kv;
}

static void arr_push(struct toml_value *a, struct toml_value *v)
{
	struct node *an = N(a);

	if (a->u.arr.n == an->cap) {
		an->cap = an->cap ? an->cap * 2 : 4;
		a->u.arr.items =
		    xrealloc(a->u.arr.items, an->cap * sizeof(*a->u.arr.items));
	}
	a->u.arr.items[a->u.arr.n++] = v;
}

/* Makes t and every table under it that came with it (dotted keys inside
 * an inline table) immutable. Inner inline tables were frozen when they
 * closed, so each table is visited once. */
static void freeze(struct toml_value *t)
{
	N(t)->flags |= F_FROZEN;
	for (size_t i = 0; i < t->u.tab.n; i++) {
		struct toml_value *c = t->u.tab.items[i].val;
		if (c->type == TOML_TABLE && !(N(c)->flags & F_FROZEN))
			freeze(c);
	}
}

void toml_free(struct toml_value *v)
{
	if (!v)
		return;
	switch (v->type) {
	case TOML_STRING:
		free(v->u.str.s);
		break;
	case TOML_DATETIME:
	case TOML_DATETIME_LOCAL:
	case TOML_DATE_LOCAL:
	case TOML_TIME_LOCAL:
		free(v->u.dt);
		break;
	case TOML_ARRAY:
		for (size_t i = 0; i < v->u.arr.n; i++)
			toml_free(v->u.arr.items[i]);
		free(v->u.arr.items);
		break;
	case TOML_TABLE:
		for (size_t i = 0; i < v->u.tab.n; i++) {
			free(v->u.tab.items[i].key);
			toml_free(v->u.tab.items[i].val);
		}
		free(v->u.tab.items);
		break;
	case TOML_INTEGER:
	case TOML_FLOAT:
	case TOML_BOOL:
		break;
	}
	free(v);
}

int toml_load_optional(const char *path, size_t max, struct toml_value **out,
		       struct lnk_err *err)
{
	_cleanup_free_ char *text = NULL;
	size_t len;

	*out = NULL;
	int r = read_file(path, max, &text, &len);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return err_set(err, r, "cannot read '%s': %s", path,
			       strerror(-r));
	return toml_parse(text, len, path, out, err);
}

const struct toml_kv *toml_find(const struct toml_value *t, const char *key)
{
	if (!t || t->type != TOML_TABLE || !key)
		return NULL;
	size_t n = strlen(key);
	for (size_t i = 0; i < t->u.tab.n; i++) {
		const struct toml_kv *kv = &t->u.tab.items[i];
		if (kv->keylen == n && memcmp(kv->key, key, n) == 0)
			return kv;
	}
	return NULL;
}

const char *toml_type_name(enum toml_type t)
{
	switch (t) {
	case TOML_STRING:
		return "string";
	case TOML_INTEGER:
		return "integer";
	case TOML_FLOAT:
		return "float";
	case TOML_BOOL:
		return "boolean";
	case TOML_DATETIME:
	case TOML_DATETIME_LOCAL:
	case TOML_DATE_LOCAL:
	case TOML_TIME_LOCAL:
		return "datetime";
	case TOML_ARRAY:
		return "array";
	case TOML_TABLE:
		return "table";
	}
	return "value";
}

/* "an integer", "an array of tables", ... for messages. */
static const char *a_kind(const struct toml_value *v)
{
	switch (v->type) {
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
		return "a datetime";
	case TOML_ARRAY:
		return N(v)->flags & F_AOT ? "an array of tables" : "an array";
	case TOML_TABLE:
		return N(v)->flags & F_FROZEN ? "an inline table" : "a table";
	}
	return "a value";
}

/* ---- text: UTF-8, whitespace, comments, newlines ---- */

/* Length of the valid UTF-8 sequence at s (n bytes available), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len;
	unsigned lo = 0x80, hi = 0xBF;

	if (c < 0x80)
		return 1;
	if (c < 0xC2) /* continuation byte, or an overlong 2-byte form */
		return 0;
	if (c < 0xE0) {
		len = 2;
	} else if (c < 0xF0) {
		len = 3;
		if (c == 0xE0)
			lo = 0xA0; /* overlong */
		else if (c == 0xED)
			hi = 0x9F; /* surrogates U+D800..U+DFFF */
	} else if (c < 0xF5) {
		len = 4;
		if (c == 0xF0)
			lo = 0x90; /* overlong */
		else if (c == 0xF4)
			hi = 0x8F; /* past U+10FFFF */
	} else {
		return 0;
	}
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if ((s[i] & 0xC0) != 0x80)
			return 0;
	return len;
}

static int check_utf8(struct parser *ps)
{
	const unsigned char *s = (const unsigned char *)ps->p;
	size_t n = (size_t)(ps->end - ps->p);
	unsigned line = ps->line, col = ps->col;

	for (size_t i = 0; i < n;) {
		size_t l = utf8_len(s + i, n - i);
		if (!l)
			return fail_at(
			    ps, (struct toml_pos){line, col}, -EINVAL,
			    "invalid UTF-8 (byte 0x%02X); TOML files "
			    "must be UTF-8",
			    s[i]);
		if (s[i] == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
		i += l;
	}
	return 0;
}

static bool is_ctl(int c)
{
	return (c >= 0 && c < 0x20 && c != '\t') || c == 0x7f;
}

static bool is_bare(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '-';
}

static bool is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static void skip_ws(struct parser *ps)
{
	while (peek(ps) == ' ' || peek(ps) == '\t')
		adv(ps);
}

/* At '#': consumes the comment up to (not including) the newline. */
static int comment(struct parser *ps)
{
	adv(ps);
	for (;;) {
		int c = peek(ps);
		if (c < 0 || c == '\n')
			return 0;
		if (c == '\r' && peek_at(ps, 1) == '\n')
			return 0;
		if (is_ctl(c))
			return fail(ps,
				    "control character U+%04X is not allowed "
				    "in a comment",
				    (unsigned)c);
		adv(ps);
	}
}

/* Consumes a newline if there is one: 1, 0, or an error for a lone CR. */
static int newline(struct parser *ps)
{
	int c = peek(ps);

	if (c == '\n') {
		adv(ps);
		return 1;
	}
	if (c == '\r') {
		if (peek_at(ps, 1) != '\n')
			return fail(ps, "carriage return not followed by a "
					"line feed");
		advn(ps, 2);
		return 1;
	}
	return 0;
}

/* Whitespace, newlines and comments, as allowed inside arrays. */
static int skip_blank(struct parser *ps)
{
	for (;;) {
		skip_ws(ps);
		int r;
		if (peek(ps) == '#') {
			r = comment(ps);
			if (r < 0)
				return r;
		}
		r = newline(ps);
		if (r <= 0)
			return r;
	}
}

/* After a key/value or a header: a comment, then a newline or the end. */
static int end_of_line(struct parser *ps, const char *what)
{
	skip_ws(ps);
	if (peek(ps) == '#') {
		int r = comment(ps);
		if (r < 0)
			return r;
	}
	if (peek(ps) < 0)
		return 0;
	int r = newline(ps);
	if (r < 0)
		return r;
	if (r == 0)
		return fail(
		    ps, "expected a newline or a comment after %s, found %s",
		    what, FOUND(ps));
	return 0;
}

/* ---- strings ---- */

static void put_utf8(struct buf *b, uint32_t cp)
{
	char o[4];
	size_t n;

	if (cp < 0x80) {
		o[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		o[0] = (char)(0xC0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3F));
		n = 2;
	} else if (cp < 0x10000) {
		o[0] = (char)(0xE0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		o[2] = (char)(0x80 | (cp & 0x3F));
		n = 3;
	} else {
		o[0] = (char)(0xF0 | (cp >> 18));
		o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
		o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
		o[3] = (char)(0x80 | (cp & 0x3F));
		n = 4;
	}
	buf_append(b, o, n);
}

/* At '\\' in a basic string (not a line-ending backslash). */
static int escape(struct parser *ps, struct buf *b)
{
	struct toml_pos pos = here(ps);
	int c = peek_at(ps, 1);
	size_t digits = 0;

	/* The one-character escapes, each beside what it stands for. */
	static const char from[] = "btnfr\"\\";
	static const char to[] = "\b\t\n\f\r\"\\";
	const char *k = c > 0 ? strchr(from, c) : NULL;

	if (k && *k)
		buf_putc(b, to[k - from]);
	else if (c == 'u')
		digits = 4;
	else if (c == 'U')
		digits = 8;
	else {
		adv(ps);
		return fail_at(ps, pos, -EINVAL,
			       "invalid escape sequence: expected one of "
			       "\\b \\t \\n \\f \\r \\\" \\\\ \\uXXXX "
			       "\\UXXXXXXXX after '\\', found %s",
			       FOUND(ps));
	}
	advn(ps, 2);
	if (!digits)
		return 0;
	uint32_t cp = 0;
	for (size_t i = 0; i < digits; i++) {
		int h = hex_value(peek(ps));
		if (h < 0)
			return fail(ps,
				    "expected %zu hex digits after '\\%c', "
				    "found %s",
				    digits, digits == 4 ? 'u' : 'U', FOUND(ps));
		cp = cp << 4 | (uint32_t)h;
		adv(ps);
	}
	if ((cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
		return fail_at(ps, pos, -EINVAL,
			       "escape U+%04" PRIX32 " is not a Unicode scalar "
			       "value (surrogate or past U+10FFFF)",
			       cp);
	put_utf8(b, cp);
	return 0;
}

/* Appends the run of ordinary characters at the cursor: the ones that need
 * no thought (fast path for long strings). */
static void copy_plain(struct parser *ps, struct buf *b, char quote)
{
	const char *s = ps->p;

	while (ps->p < ps->end) {
		unsigned char c = (unsigned char)*ps->p;
		if (c == (unsigned char)quote || c == '\\' ||
		    (c < 0x20 && c != '\t') || c == 0x7f)
			break;
		adv(ps);
	}
	buf_append(b, s, (size_t)(ps->p - s));
}

/* Counts quote characters at the cursor, at most 6. */
static size_t quote_run(const struct parser *ps, char q)
{
	size_t n = 0;
	while (n < 6 && peek_at(ps, n) == (unsigned char)q)
		n++;
	return n;
}

static int string_ctl(struct parser *ps, int c)
{
	return fail(ps, "control character U+%04X must be escaped in a string",
		    (unsigned)c);
}

/* Parses any of the four string kinds at the cursor. */
static int parse_string(struct parser *ps, bool allow_multi, struct buf *b)
{
	struct toml_pos start = here(ps);
	char q = (char)peek(ps);
	bool basic = q == '"';
	bool multi = quote_run(ps, q) >= 3;

	if (multi && !allow_multi)
		return fail(ps, "a key cannot be a multi-line string");
	if (multi) {
		advn(ps, 3);
		/* A newline right after the opening delimiter is trimmed. */
		int r = newline(ps);
		if (r < 0)
			return r;
	} else {
		adv(ps);
	}
	for (;;) {
		copy_plain(ps, b, q);
		int c = peek(ps);
		if (c < 0)
			return fail_at(ps, start, -EINVAL,
				       "string not closed: expected %s before "
				       "the end of the file",
				       multi ? (basic ? "\"\"\"" : "'''")
					     : (basic ? "'\"'" : "\"'\""));
		if (c == q) {
			if (!multi) {
				adv(ps);
				return 0;
			}
			size_t n = quote_run(ps, q);
			if (n < 3) {
				buf_append(b, ps->p, n);
				advn(ps, n);
				continue;
			}
			if (n > 5)
				return fail(ps, "too many quotes: a multi-line "
						"string ends with 3 to 5");
			buf_append(b, ps->p, n - 3);
			advn(ps, n);
			return 0;
		}
		if (c == '\n' || c == '\r') {
			if (!multi)
				return fail(ps,
					    "expected %s to close the "
					    "string before the end of the "
					    "line (use %s for a multi-line "
					    "string)",
					    basic ? "'\"'" : "\"'\"",
					    basic ? "\"\"\"" : "'''");
			int r = newline(ps);
			if (r < 0)
				return r;
			/* CRLF and LF mean the same line break: a spec
			 * reads the same from any editor. */
			buf_putc(b, '\n');
			continue;
		}
		if (c == '\\' && basic) {
			if (multi) {
				/* A line-ending backslash trims the newline
				 * and all whitespace after it. */
				size_t k = 1;
				while (peek_at(ps, k) == ' ' ||
				       peek_at(ps, k) == '\t')
					k++;
				int d = peek_at(ps, k);
				if (d == '\n' || d == '\r') {
					advn(ps, k);
					for (;;) {
						skip_ws(ps);
						int r = newline(ps);
						if (r < 0)
							return r;
						if (!r)
							break;
					}
					continue;
				}
			}
			int r = escape(ps, b);
			if (r < 0)
				return r;
			continue;
		}
		if (c == '\\') { /* literal string: a plain backslash */
			buf_putc(b, '\\');
			adv(ps);
			continue;
		}
		return string_ctl(ps, c);
	}
}

/* ---- keys ---- */

static void keypath_free(struct keypath *kp)
{
	for (size_t i = 0; i < kp->n; i++)
		free(kp->v[i].s);
	free(kp->v);
	*kp = (struct keypath){0};
}

/* A copy of a key part for the tree (keys may hold NUL: copy by length);
 * the key path keeps its own for messages. */
static char *dupkey(const struct keypart *k)
{
	char *s = xmalloc(k->n + 1);
	memcpy(s, k->s, k->n);
	s[k->n] = '\0';
	return s;
}

/* A table under key k of t, which has no such key yet: made by a dotted
 * key or by a header's leading keys (flags say which), on k's line. */
static struct toml_value *new_subtable(struct parser *ps, struct toml_value *t,
				       const struct keypart *k, unsigned flags,
				       int *r)
{
	struct toml_value *nt =
	    new_node(ps, TOML_TABLE, k->pos, N(t)->depth + 1, r);

	if (!nt)
		return NULL;
	N(nt)->flags = flags;
	tab_add(ps, t, dupkey(k), k->n, k->pos, nt);
	return nt;
}

/* key = simple-key *( ws '.' ws simple-key ); leaves trailing ws. */
static int parse_key(struct parser *ps, struct keypath *kp)
{
	for (;;) {
		struct keypart k = {.pos = here(ps)};
		int c = peek(ps);
		if (kp->n >= TOML_MAX_DEPTH)
			return fail_at(ps, k.pos, -E2BIG,
				       "key has more than %d parts",
				       TOML_MAX_DEPTH);
		if (c == '"' || c == '\'') {
			struct buf b = {0};
			int r = parse_string(ps, false, &b);
			if (r < 0) {
				buf_free(&b);
				return r;
			}
			k.n = b.len;
			k.s = buf_steal(&b);
		} else if (is_bare(c)) {
			const char *s = ps->p;
			while (is_bare(peek(ps)))
				adv(ps);
			k.n = (size_t)(ps->p - s);
			k.s = xstrndup(s, k.n);
			k.bare = true;
		} else {
			return fail(ps,
				    "expected a key (letters, digits, '_', '-' "
				    "or a quoted string), found %s",
				    FOUND(ps));
		}
		if (kp->n == kp->cap) {
			kp->cap = kp->cap ? kp->cap * 2 : 4;
			kp->v = xrealloc(kp->v, kp->cap * sizeof(*kp->v));
		}
		kp->v[kp->n++] = k;
		skip_ws(ps);
		if (peek(ps) != '.')
			return 0;
		adv(ps);
		skip_ws(ps);
	}
}

/* ---- numbers and dates ---- */

/* digits *( ['_'] digit ) in base 10 from s[*i]; appends them to out.
 * Returns the number of digits, or -1 on a misplaced underscore. */
static long dec_digits(const char *s, size_t n, size_t *i, struct buf *out)
{
	long count = 0;

	while (*i < n) {
		char c = s[*i];
		if (is_digit(c)) {
			buf_putc(out, c);
			count++;
			(*i)++;
		} else if (c == '_') {
			if (!count || *i + 1 >= n || !is_digit(s[*i + 1]))
				return -1;
			(*i)++;
		} else {
			break;
		}
	}
	return count;
}

static int parse_radix(struct parser *ps, struct toml_pos pos, const char *s,
		       size_t n, struct toml_value *v)
{
	unsigned base = s[1] == 'x' ? 16 : s[1] == 'o' ? 8 : 2;
	const char *name = base == 16  ? "hexadecimal"
			   : base == 8 ? "octal"
				       : "binary";
	uint64_t u = 0;
	bool prev_digit = false;
	size_t ndig = 0;

	for (size_t i = 2; i < n; i++) {
		int d = hex_value(s[i]);
		if (s[i] == '_') {
			if (!prev_digit || i + 1 >= n ||
			    hex_value(s[i + 1]) < 0 ||
			    (unsigned)hex_value(s[i + 1]) >= base)
				return fail_at(ps, pos, -EINVAL,
					       "invalid %s integer: '_' must "
					       "sit between two digits",
					       name);
			prev_digit = false;
			continue;
		}
		if (d < 0 || (unsigned)d >= base)
			return fail_at(ps, pos, -EINVAL,
				       "invalid %s integer: unexpected '%c'",
				       name, s[i]);
		if (u > ((uint64_t)INT64_MAX - (unsigned)d) / base)
			return fail_at(ps, pos, -EINVAL,
				       "integer does not fit in 64 bits (at "
				       "most 0x7FFFFFFFFFFFFFFF)");
		u = u * base + (unsigned)d;
		prev_digit = true;
		ndig++;
	}
	if (!ndig)
		return fail_at(ps, pos, -EINVAL, "expected digits after '0%c'",
			       s[1]);
	v->type = TOML_INTEGER;
	v->u.i = (int64_t)u;
	return 0;
}

static int parse_number(struct parser *ps, struct toml_value *v)
{
	struct toml_pos pos = here(ps);
	const char *s = ps->p;
	size_t n = 0;

	/* The token: every character a number can hold. The grammar check
	 * below decides; whatever follows must end the value. */
	while (s + n < ps->end &&
	       (is_bare((unsigned char)s[n]) || s[n] == '.' || s[n] == '+'))
		n++;
	if (n == 0)
		return fail(ps, "expected a value, found %s", FOUND(ps));

	size_t i = 0;
	bool neg = false, sign = false;
	if (s[0] == '+' || s[0] == '-') {
		sign = true;
		neg = s[0] == '-';
		i = 1;
	}
	if (n - i == 3 &&
	    (!memcmp(s + i, "inf", 3) || !memcmp(s + i, "nan", 3))) {
		v->type = TOML_FLOAT;
		if (s[i] == 'i')
			v->u.f = neg ? -INFINITY : INFINITY;
		else
			v->u.f = neg ? -NAN : NAN;
		advn(ps, n);
		return 0;
	}
	if (!sign && n >= 2 && s[0] == '0' &&
	    (s[1] == 'x' || s[1] == 'o' || s[1] == 'b')) {
		int r = parse_radix(ps, pos, s, n, v);
		if (r == 0)
			advn(ps, n);
		return r;
	}

	struct buf clean = {0};
	bool is_float = false;
	int rc = 0;
	const char *why = NULL;

	if (sign)
		buf_putc(&clean, s[0]);
	if (i >= n || !is_digit(s[i])) {
		why = "expected a digit";
		goto bad;
	}
	long nd = dec_digits(s, n, &i, &clean);
	if (nd < 0) {
		why = "'_' must sit between two digits";
		goto bad;
	}
	if (clean.p[sign ? 1 : 0] == '0' && nd > 1) {
		why = "leading zeros are not allowed";
		goto bad;
	}
	if (i < n && s[i] == '.') {
		is_float = true;
		buf_putc(&clean, '.');
		i++;
		if (i >= n || !is_digit(s[i])) {
			why = "expected a digit after '.'";
			goto bad;
		}
		if (dec_digits(s, n, &i, &clean) < 0) {
			why = "'_' must sit between two digits";
			goto bad;
		}
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		is_float = true;
		buf_putc(&clean, 'e');
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			buf_putc(&clean, s[i++]);
		if (i >= n || !is_digit(s[i])) {
			why = "expected a digit in the exponent";
			goto bad;
		}
		if (dec_digits(s, n, &i, &clean) < 0) {
			why = "'_' must sit between two digits";
			goto bad;
		}
	}
	if (i < n) {
		why = "unexpected character";
		goto bad;
	}

	if (!is_float) {
		uint64_t u = 0;
		for (size_t k = sign ? 1 : 0; k < clean.len; k++) {
			unsigned d = (unsigned)(clean.p[k] - '0');
			if (u > (UINT64_MAX - d) / 10) {
				u = UINT64_MAX;
				break;
			}
			u = u * 10 + d;
		}
		if (u > (uint64_t)INT64_MAX + (neg ? 1u : 0u)) {
			rc = fail_at(
			    ps, pos, -EINVAL,
			    "integer does not fit in 64 bits (%s to %s)",
			    "-9223372036854775808", "9223372036854775807");
			goto out;
		}
		v->type = TOML_INTEGER;
		v->u.i = neg ? (int64_t)(0 - u) : (int64_t)u;
	} else {
		if (!ps->c_locale) {
			/* strtod follows LC_NUMERIC; TOML's '.' must not
			 * depend on the user's locale. */
			ps->c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
			if (!ps->c_locale) {
				rc = fail_at(ps, pos, -ENOMEM,
					     "cannot make the C locale");
				goto out;
			}
		}
		double d = strtod_l(clean.p, NULL, ps->c_locale);
		if (isinf(d)) {
			rc = fail_at(ps, pos, -EINVAL,
				     "float is too large for 64 bits");
			goto out;
		}
		v->type = TOML_FLOAT;
		v->u.f = d;
	}
	advn(ps, n);
	goto out;
bad:
	rc = fail_at(ps, pos, -EINVAL, "invalid number '%.*s': %s",
		     n > 40 ? 40 : (int)n, s, why);
out:
	buf_free(&clean);
	return rc;
}

static bool digits_at(const char *s, size_t avail, size_t at, size_t n)
{
	if (at + n > avail)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!is_digit(s[at + i]))
			return false;
	return true;
}

static unsigned num2(const char *s)
{
	return (unsigned)(s[0] - '0') * 10 + (unsigned)(s[1] - '0');
}

static bool leap(unsigned y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* HH:MM:SS[.frac] at s[at]; returns its length or 0 with *why set. */
static size_t time_at(const char *s, size_t avail, size_t at, const char **why)
{
	if (!digits_at(s, avail, at, 2) || at + 2 >= avail ||
	    s[at + 2] != ':' || !digits_at(s, avail, at + 3, 2)) {
		*why = "expected a time HH:MM:SS";
		return 0;
	}
	if (at + 5 >= avail || s[at + 5] != ':' ||
	    !digits_at(s, avail, at + 6, 2)) {
		*why = "expected seconds (HH:MM:SS)";
		return 0;
	}
	if (num2(s + at) > 23) {
		*why = "hour must be 00 to 23";
		return 0;
	}
	if (num2(s + at + 3) > 59) {
		*why = "minute must be 00 to 59";
		return 0;
	}
	if (num2(s + at + 6) > 60) { /* 60: a leap second, as RFC 3339 */
		*why = "second must be 00 to 60";
		return 0;
	}
	size_t n = 8;
	if (at + n < avail && s[at + n] == '.') {
		n++;
		if (!digits_at(s, avail, at + n, 1)) {
			*why = "expected digits after '.' in the seconds";
			return 0;
		}
		while (at + n < avail && is_digit(s[at + n]))
			n++;
	}
	return n;
}

static int parse_datetime(struct parser *ps, struct toml_value *v)
{
	struct toml_pos pos = here(ps);
	const char *s = ps->p;
	size_t avail = (size_t)(ps->end - ps->p);
	const char *why = NULL;
	struct buf out = {0};
	size_t n;

	if (digits_at(s, avail, 0, 2) && avail > 2 && s[2] == ':') {
		n = time_at(s, avail, 0, &why);
		if (!n)
			goto bad;
		buf_append(&out, s, n);
		v->type = TOML_TIME_LOCAL;
		goto done;
	}
	if (!digits_at(s, avail, 0, 4) || avail < 10 || s[4] != '-' ||
	    !digits_at(s, avail, 5, 2) || s[7] != '-' ||
	    !digits_at(s, avail, 8, 2)) {
		why = "expected a date YYYY-MM-DD";
		goto bad;
	}
	unsigned y = num2(s) * 100 + num2(s + 2), m = num2(s + 5),
		 d = num2(s + 8);
	static const unsigned mdays[] = {31, 28, 31, 30, 31, 30,
					 31, 31, 30, 31, 30, 31};
	if (m < 1 || m > 12) {
		why = "month must be 01 to 12";
		goto bad;
	}
	if (d < 1 || d > mdays[m - 1] + (m == 2 && leap(y))) {
		why = "no such day in that month";
		goto bad;
	}
	buf_append(&out, s, 10);
	n = 10;
	v->type = TOML_DATE_LOCAL;
	if (avail > 10 && (s[10] == 'T' || s[10] == 't' ||
			   (s[10] == ' ' && avail > 11 && is_digit(s[11])))) {
		size_t t = time_at(s, avail, 11, &why);
		if (!t)
			goto bad;
		buf_putc(&out, 'T');
		buf_append(&out, s + 11, t);
		n = 11 + t;
		v->type = TOML_DATETIME_LOCAL;
		if (n < avail && (s[n] == 'Z' || s[n] == 'z')) {
			buf_putc(&out, 'Z');
			n++;
			v->type = TOML_DATETIME;
		} else if (n < avail && (s[n] == '+' || s[n] == '-')) {
			if (!digits_at(s, avail, n + 1, 2) || n + 3 >= avail ||
			    s[n + 3] != ':' || !digits_at(s, avail, n + 4, 2)) {
				why = "expected an offset +HH:MM or -HH:MM";
				goto bad;
			}
			if (num2(s + n + 1) > 23 || num2(s + n + 4) > 59) {
				why = "offset out of range";
				goto bad;
			}
			buf_append(&out, s + n, 6);
			n += 6;
			v->type = TOML_DATETIME;
		}
	}
done:
	/* A digit or letter glued to the end is a malformed date, not two
	 * values. */
	if (n < avail && (is_bare((unsigned char)s[n]) || s[n] == '.' ||
			  s[n] == ':' || s[n] == '+')) {
		why = "unexpected character after it";
		goto bad;
	}
	v->u.dt = buf_steal(&out);
	advn(ps, n);
	return 0;
bad:
	buf_free(&out);
	return fail_at(ps, pos, -EINVAL, "invalid date or time: %s", why);
}

/* ---- values ---- */

static int parse_value(struct parser *ps, unsigned depth,
		       struct toml_value **out);
static int parse_keyval(struct parser *ps, struct toml_value *t);

static int parse_array(struct parser *ps, struct toml_value *a)
{
	struct toml_pos start = here(ps);

	adv(ps);
	for (;;) {
		int r = skip_blank(ps);
		if (r < 0)
			return r;
		if (peek(ps) == ']') {
			adv(ps);
			return 0;
		}
		struct toml_value *item;
		r = parse_value(ps, N(a)->depth + 1, &item);
		if (r < 0)
			return r;
		arr_push(a, item);
		r = skip_blank(ps);
		if (r < 0)
			return r;
		if (peek(ps) == ',') {
			adv(ps);
			continue;
		}
		if (peek(ps) == ']') {
			adv(ps);
			return 0;
		}
		return fail(ps,
			    "expected ',' or ']' after an array element (the "
			    "array starts at %u:%u), found %s",
			    start.line, start.col, FOUND(ps));
	}
}

static int parse_inline(struct parser *ps, struct toml_value *t)
{
	adv(ps);
	skip_ws(ps);
	if (peek(ps) == '}') {
		adv(ps);
		freeze(t);
		return 0;
	}
	for (;;) {
		skip_ws(ps);
		int c = peek(ps);
		if (c == '}')
			return fail(ps, "a trailing comma is not allowed in an "
					"inline table");
		if (c == '\n' || c == '\r')
			return fail(ps, "newlines are not allowed in an inline "
					"table: expected a key");
		int r = parse_keyval(ps, t);
		if (r < 0)
			return r;
		skip_ws(ps);
		c = peek(ps);
		if (c == ',') {
			adv(ps);
			continue;
		}
		if (c == '}') {
			adv(ps);
			freeze(t);
			return 0;
		}
		if (c == '\n' || c == '\r')
			return fail(ps, "newlines are not allowed in an inline "
					"table: expected ',' or '}'");
		return fail(ps,
			    "expected ',' or '}' in an inline table, found %s",
			    FOUND(ps));
	}
}

static int parse_value(struct parser *ps, unsigned depth,
		       struct toml_value **out)
{
	struct toml_pos pos = here(ps);
	int c = peek(ps);
	int rc = 0;
	enum toml_type type;

	if (c == '"' || c == '\'')
		type = TOML_STRING;
	else if (c == '[')
		type = TOML_ARRAY;
	else if (c == '{')
		type = TOML_TABLE;
	else if (c == 't' || c == 'f')
		type = TOML_BOOL;
	else if (c == '+' || c == '-' || c == 'i' || c == 'n' || is_digit(c))
		type = TOML_INTEGER; /* or float or a date: decided below */
	else
		return fail(ps,
			    "expected a value (string, number, boolean, date, "
			    "array or inline table), found %s",
			    FOUND(ps));

	struct toml_value *v = new_node(ps, type, pos, depth, &rc);
	if (!v)
		return rc;
	switch (type) {
	case TOML_STRING: {
		struct buf b = {0};
		rc = parse_string(ps, true, &b);
		v->u.str.len = b.len;
		v->u.str.s = buf_steal(&b);
		break;
	}
	case TOML_ARRAY:
		rc = parse_array(ps, v);
		break;
	case TOML_TABLE:
		rc = parse_inline(ps, v);
		break;
	case TOML_BOOL:
		if ((size_t)(ps->end - ps->p) >= 4 &&
		    !memcmp(ps->p, "true", 4)) {
			v->u.b = true;
			advn(ps, 4);
		} else if ((size_t)(ps->end - ps->p) >= 5 &&
			   !memcmp(ps->p, "false", 5)) {
			v->u.b = false;
			advn(ps, 5);
		} else {
			rc = fail(ps, "expected a value: 'true' or 'false' "
				      "(strings need quotes)");
		}
		if (!rc && is_bare(peek(ps)))
			rc = fail_at(ps, pos, -EINVAL,
				     "expected 'true' or 'false' (strings "
				     "need quotes)");
		break;
	case TOML_INTEGER:
		if (digits_at(ps->p, (size_t)(ps->end - ps->p), 0, 4) &&
		    peek_at(ps, 4) == '-')
			rc = parse_datetime(ps, v);
		else if (digits_at(ps->p, (size_t)(ps->end - ps->p), 0, 2) &&
			 peek_at(ps, 2) == ':')
			rc = parse_datetime(ps, v);
		else
			rc = parse_number(ps, v);
		break;
	case TOML_FLOAT:
	case TOML_DATETIME:
	case TOML_DATETIME_LOCAL:
	case TOML_DATE_LOCAL:
	case TOML_TIME_LOCAL:
		break;
	}
	if (rc < 0) {
		toml_free(v);
		return rc;
	}
	*out = v;
	return 0;
}

/* key = value into table t (the current [table] or an inline table). */
static int parse_keyval(struct parser *ps, struct toml_value *t)
{
	struct keypath kp = {0};
	int r = parse_key(ps, &kp);

	if (r < 0)
		goto out;
	if (peek(ps) != '=') {
		_cleanup_free_ char *k = path_text(&kp, kp.n);
		r = fail(ps, "expected '=' after key '%s', found %s", k,
			 FOUND(ps));
		goto out;
	}
	adv(ps);
	skip_ws(ps);

	/* Dotted keys create tables, or go into tables that dotted keys
	 * created; never into a table a header defined or an inline one. */
	for (size_t i = 0; i + 1 < kp.n; i++) {
		struct keypart *k = &kp.v[i];
		struct toml_kv *kv = tab_find(ps, t, k->s, k->n);
		if (!kv) {
			if (!(t = new_subtable(ps, t, k, F_DOTTED, &r)))
				goto out;
			continue;
		}
		struct toml_value *c = kv->val;
		unsigned fl = N(c)->flags;
		if (c->type == TOML_TABLE && (fl & F_DOTTED) &&
		    !(fl & F_FROZEN)) {
			t = c;
			continue;
		}
		_cleanup_free_ char *path = path_text(&kp, i + 1);
		if (c->type != TOML_TABLE) {
			r = fail_at(ps, k->pos, -EINVAL,
				    "cannot use dotted key: '%s' is already "
				    "%s (defined at %u:%u)",
				    path, a_kind(c), kv->pos.line, kv->pos.col);
			goto out;
		}
		if (N(c)->flags & F_FROZEN) {
			r = fail_at(ps, k->pos, -EINVAL,
				    "cannot add keys to inline table '%s' "
				    "(defined at %u:%u): inline tables are "
				    "complete as written",
				    path, kv->pos.line, kv->pos.col);
			goto out;
		}
		if (!(N(c)->flags & F_DOTTED)) {
			r = fail_at(ps, k->pos, -EINVAL,
				    "cannot add keys to table '%s' with a "
				    "dotted key: a [table] header made it (at "
				    "%u:%u); write them under its own header",
				    path, c->pos.line, c->pos.col);
			goto out;
		}
	}
	struct keypart *last = &kp.v[kp.n - 1];
	struct toml_kv *dup = tab_find(ps, t, last->s, last->n);
	if (dup) {
		_cleanup_free_ char *path = path_text(&kp, kp.n);
		r = fail_at(ps, last->pos, -EINVAL,
			    "key '%s' is defined twice (first at %u:%u)", path,
			    dup->pos.line, dup->pos.col);
		goto out;
	}
	if (peek(ps) < 0 || peek(ps) == '\n' || peek(ps) == '\r') {
		_cleanup_free_ char *path = path_text(&kp, kp.n);
		r = fail(ps, "expected a value after '=' for key '%s'", path);
		goto out;
	}
	struct toml_value *v;
	r = parse_value(ps, N(t)->depth + 1, &v);
	if (r < 0)
		goto out;
	tab_add(ps, t, dupkey(last), last->n, last->pos, v);
out:
	keypath_free(&kp);
	return r;
}

/* [a.b.c] or [[a.b.c]]: makes ps->cur the table it names. */
static int parse_header(struct parser *ps)
{
	struct toml_pos pos = here(ps);
	struct keypath kp = {0};
	bool aot = peek_at(ps, 1) == '[';
	char *path = NULL;
	int r;

	advn(ps, aot ? 2 : 1);
	skip_ws(ps);
	r = parse_key(ps, &kp);
	if (r < 0)
		goto out;
	if (peek(ps) != ']' || (aot && peek_at(ps, 1) != ']')) {
		if (aot && peek(ps) == ']')
			adv(ps);
		r = fail(ps, "expected '%s' to close the %s header, found %s",
			 aot ? "]]" : "]", aot ? "[[array]]" : "[table]",
			 FOUND(ps));
		goto out;
	}
	advn(ps, aot ? 2 : 1);

	struct toml_value *t = ps->root;
	for (size_t i = 0; i + 1 < kp.n; i++) {
		struct keypart *k = &kp.v[i];
		struct toml_kv *kv = tab_find(ps, t, k->s, k->n);
		if (!kv) {
			if (!(t = new_subtable(ps, t, k, F_IMPLICIT, &r)))
				goto out;
			continue;
		}
		struct toml_value *c = kv->val;
		if (c->type == TOML_ARRAY && (N(c)->flags & F_AOT)) {
			t = c->u.arr.items[c->u.arr.n - 1];
			continue;
		}
		if (c->type == TOML_TABLE && !(N(c)->flags & F_FROZEN)) {
			t = c;
			continue;
		}
		_cleanup_free_ char *ip = path_text(&kp, i + 1);
		if (c->type == TOML_ARRAY) {
			r = fail_at(ps, k->pos, -EINVAL,
				    "cannot add tables to '%s': it is an array "
				    "value (defined at %u:%u), not an array of "
				    "tables",
				    ip, kv->pos.line, kv->pos.col);
			goto out;
		}
		if (c->type != TOML_TABLE) {
			r = fail_at(ps, k->pos, -EINVAL,
				    "'%s' is already %s (defined at %u:%u), "
				    "not a table",
				    ip, a_kind(c), kv->pos.line, kv->pos.col);
			goto out;
		}
		if (N(c)->flags & F_FROZEN) {
			r = fail_at(ps, k->pos, -EINVAL,
				    "cannot add to inline table '%s' (defined "
				    "at %u:%u): inline tables are complete as "
				    "written",
				    ip, kv->pos.line, kv->pos.col);
			goto out;
		}
	}

	struct keypart *last = &kp.v[kp.n - 1];
	struct toml_kv *kv = tab_find(ps, t, last->s, last->n);
	path = path_text(&kp, kp.n);
	if (aot) {
		struct toml_value *a;
		if (!kv) {
			a = new_node(ps, TOML_ARRAY, pos, N(t)->depth + 1, &r);
			if (!a)
				goto out;
			N(a)->flags = F_AOT;
			tab_add(ps, t, dupkey(last), last->n, last->pos, a);
		} else {
			a = kv->val;
			if (a->type != TOML_ARRAY || !(N(a)->flags & F_AOT)) {
				r = fail_at(ps, last->pos, -EINVAL,
					    "cannot define [[%s]]: '%s' is "
					    "already %s (defined at %u:%u)",
					    path, path,
					    a->type == TOML_ARRAY
						? "an array value"
					    : a->type == TOML_TABLE ? "a table"
								    : "a value",
					    kv->pos.line, kv->pos.col);
				goto out;
			}
		}
		struct toml_value *nt =
		    new_node(ps, TOML_TABLE, pos, N(a)->depth + 1, &r);
		if (!nt)
			goto out;
		N(nt)->flags = F_DEFINED;
		arr_push(a, nt);
		ps->cur = nt;
		goto out;
	}
	if (!kv) {
		struct toml_value *nt =
		    new_node(ps, TOML_TABLE, pos, N(t)->depth + 1, &r);
		if (!nt)
			goto out;
		N(nt)->flags = F_DEFINED;
		tab_add(ps, t, dupkey(last), last->n, last->pos, nt);
		ps->cur = nt;
		goto out;
	}
	struct toml_value *c = kv->val;
	if (c->type != TOML_TABLE) {
		r = fail_at(ps, last->pos, -EINVAL,
			    "cannot define table [%s]: '%s' is already %s "
			    "(defined at %u:%u)",
			    path, path,
			    c->type == TOML_ARRAY ? "an array" : "a value",
			    kv->pos.line, kv->pos.col);
		goto out;
	}
	if (N(c)->flags & (F_DEFINED | F_DOTTED | F_FROZEN)) {
		r = fail_at(ps, last->pos, -EINVAL,
			    "table [%s] is defined twice (first at %u:%u%s)",
			    path, c->pos.line, c->pos.col,
			    N(c)->flags & F_FROZEN   ? ", as an inline table"
			    : N(c)->flags & F_DOTTED ? ", by dotted keys"
						     : "");
		goto out;
	}
	N(c)->flags = F_DEFINED;
	c->pos = pos;
	ps->cur = c;
out:
	free(path);
	keypath_free(&kp);
	return r;
}

static uint64_t make_seed(const void *salt)
{
	uint64_t s = 0;

	/* getentropy: Linux and macOS both have it (getrandom is Linux's). */
	if (getentropy(&s, sizeof(s)) != 0)
		s = (uint64_t)(uintptr_t)salt * 0xD6E8FEB86659FD93ull;
	return s;
}

int toml_parse(const char *text, size_t len, const char *name,
	       struct toml_value **out, struct lnk_err *err)
{
	struct parser ps = {
	    .p = text,
	    .end = text + len,
	    .line = 1,
	    .col = 1,
	    .name = name ? name : "<toml>",
	    .err = err,
	};
	int r = 0;

	*out = NULL;
	if (len > TOML_MAX_SIZE)
		return err_set(err, -E2BIG,
			       "%s: file is larger than %u bytes; a TOML "
			       "document here must be smaller",
			       ps.name, TOML_MAX_SIZE);
	if (!text && len)
		return err_set(err, -EINVAL, "%s: no text", ps.name);
	if (!text)
		ps.p = ps.end = "";
	/* A UTF-8 byte order mark is allowed at the very start only. */
	if (len >= 3 && !memcmp(ps.p, "\xEF\xBB\xBF", 3))
		ps.p += 3;
	r = check_utf8(&ps);
	if (r < 0)
		return r;

	ps.seed = make_seed(&ps);
	ps.root = new_node(&ps, TOML_TABLE, (struct toml_pos){1, 1}, 0, &r);
	N(ps.root)->flags = F_DEFINED;
	ps.cur = ps.root;

	while (r == 0) {
		skip_ws(&ps);
		int c = peek(&ps);
		if (c < 0)
			break;
		if (c == '#') {
			r = comment(&ps);
			if (r == 0)
				r = end_of_line(&ps, "a comment");
		} else if (c == '\n' || c == '\r') {
			r = newline(&ps);
			if (r > 0)
				r = 0;
		} else if (c == '[') {
			r = parse_header(&ps);
			if (r == 0)
				r = end_of_line(&ps, "a table header");
		} else {
			r = parse_keyval(&ps, ps.cur);
			if (r == 0)
				r = end_of_line(&ps, "a key/value pair");
		}
	}
	free(ps.slots);
	if (ps.c_locale)
		freelocale(ps.c_locale);
	if (r < 0) {
		toml_free(ps.root);
		return r;
	}
	*out = ps.root;
	return 0;
}
