/* The model route's readers (usage.h): a strict little JSON parser, the
 * request's few top-level keys, and the answer's usage as it streams by.
 *
 * Over 1000 lines: one grammar (the JSON a model call sends and the usage
 * its answer gives) read by one pure, fuzzed parser; split, its bounds
 * would be kept in two places.
 */
#include "proto/usage.h"

#include "common/esc.h"
#include "common/util.h"

#include <stdio.h>
#include <stdlib.h>

#include <string.h>
#include <strings.h>

/* Deeper documents are refused rather than recursed into: the parser's
 * stack is the wire's. */
#define JSON_DEPTH_MAX 64
/* Token counts above this are not counts (2^53: exact in every JSON
 * reader); such a member is ignored. */
#define TOKENS_MAX 9007199254740992LL
/* A top-level key of a request longer than this is refused: no API has
 * one, and each is kept to find duplicates. */
#define REQ_KEY_MAX 256

static const char MALFORMED[] = "the request body is malformed JSON";

/* ---- JSON ---- */

enum member_kind {
	M_NONE,
	M_IN,  /* a token count that goes in */
	M_OUT, /* a token count that comes out */
};

struct jp {
	const char *s;
	size_t n, i;
	int64_t in, out; /* what the document said so far */
	const char *why; /* the first thing refused, for a request */
	char *model;	 /* the answer's model, when asked and not yet found */
};

static int bad(struct jp *p, const char *why)
{
	if (!p->why)
		p->why = why;
	return -1;
}

/* A string's decoded bytes: up to cap kept in b (NULL: only checked), len
 * its whole decoded length, also past cap. */
struct jstr {
	char *b;
	size_t cap, len;
	bool lone; /* it had a lone surrogate escape (decoded as U+FFFD) */
};

static void put(struct jstr *d, const char *b, size_t n)
{
	if (!d)
		return;
	if (d->b && d->len + n <= d->cap)
		memcpy(d->b + d->len, b, n);
	d->len += n;
}

static void put_cp(struct jstr *d, uint32_t cp)
{
	char u[4];
	size_t n;
	if (cp < 0x80) {
		u[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (char)(0xc0 | (cp >> 6));
		u[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = (char)(0xe0 | (cp >> 12));
		u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		u[0] = (char)(0xf0 | (cp >> 18));
		u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	put(d, u, n);
}

static void ws(struct jp *p)
{
	while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' ||
			       p->s[p->i] == '\n' || p->s[p->i] == '\r'))
		p->i++;
}

/* Four hex digits at p->i: their value, p->i past them. 0 or -1. */
static int hex4(struct jp *p, uint32_t *v)
{
	if (p->n - p->i < 4)
		return -1;
	*v = 0;
	for (int k = 0; k < 4; k++) {
		int h = hex_value(p->s[p->i + k]);
		if (h < 0)
			return -1;
		*v = *v * 16 + (uint32_t)h;
	}
	p->i += 4;
	return 0;
}

/* A string, decoded as every JSON reader decodes it: escapes, surrogate
 * pairs; its raw bytes must be UTF-8 (a reader that decodes another way,
 * or replaces what is not, could see another key). 0 or -1. */
static int string(struct jp *p, struct jstr *d)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	if (p->i >= p->n || p->s[p->i] != '"')
		return bad(p, MALFORMED);
	p->i++;
	while (p->i < p->n) {
		unsigned char c = (unsigned char)p->s[p->i];
		if (c == '"') {
			p->i++;
			return 0;
		}
		if (c < 0x20)
			return bad(p, MALFORMED);
		if (c >= 0x80) {
			uint32_t cp;
			size_t l =
			    esc_utf8_next((const unsigned char *)p->s + p->i,
					  p->n - p->i, &cp);
			if (!l)
				return bad(p, "the request body is not valid "
					      "UTF-8");
			put(d, p->s + p->i, l);
			p->i += l;
			continue;
		}
		p->i++;
		if (c != '\\') {
			put(d, (const char *)&c, 1);
			continue;
		}
		if (p->i >= p->n)
			return bad(p, MALFORMED);
		char e = p->s[p->i++];
		if (e != 'u') {
			const char *k = e ? strchr(from, e) : NULL;
			if (!k)
				return bad(p, MALFORMED);
			put(d, &to[k - from], 1);
			continue;
		}
		uint32_t u, lo;
		if (hex4(p, &u) < 0)
			return bad(p, MALFORMED);
		if (u >= 0xd800 && u <= 0xdbff && p->n - p->i >= 6 &&
		    p->s[p->i] == '\\' && p->s[p->i + 1] == 'u') {
			size_t at = p->i;
			p->i += 2;
			if (hex4(p, &lo) == 0 && lo >= 0xdc00 && lo <= 0xdfff)
				u = 0x10000 + ((u - 0xd800) << 10) +
				    (lo - 0xdc00);
			else
				p->i = at; /* read on its own next */
		}
		if (u >= 0xd800 && u <= 0xdfff) {
			if (d)
				d->lone = true;
			u = 0xfffd;
		}
		put_cp(d, u);
	}
	return bad(p, MALFORMED);
}

/* A number; *v is its value when it is a whole number in range, else -1. */
static int number(struct jp *p, int64_t *v)
{
	bool whole = true;
	int64_t acc = 0;
	if (p->i < p->n && p->s[p->i] == '-') {
		whole = false;
		p->i++;
	}
	if (p->i >= p->n || p->s[p->i] < '0' || p->s[p->i] > '9')
		return bad(p, MALFORMED);
	if (p->s[p->i] == '0') {
		p->i++;
	} else {
		while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9') {
			if (acc > TOKENS_MAX)
				whole = false;
			else
				acc = acc * 10 + (p->s[p->i] - '0');
			p->i++;
		}
	}
	if (p->i < p->n && p->s[p->i] == '.') {
		whole = false;
		p->i++;
		if (p->i >= p->n || p->s[p->i] < '0' || p->s[p->i] > '9')
			return bad(p, MALFORMED);
		while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9')
			p->i++;
	}
	if (p->i < p->n && (p->s[p->i] == 'e' || p->s[p->i] == 'E')) {
		whole = false;
		p->i++;
		if (p->i < p->n && (p->s[p->i] == '+' || p->s[p->i] == '-'))
			p->i++;
		if (p->i >= p->n || p->s[p->i] < '0' || p->s[p->i] > '9')
			return bad(p, MALFORMED);
		while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9')
			p->i++;
	}
	*v = whole && acc <= TOKENS_MAX ? acc : -1;
	return 0;
}

static int literal(struct jp *p, const char *w)
{
	size_t l = strlen(w);
	if (p->n - p->i < l || memcmp(p->s + p->i, w, l) != 0)
		return bad(p, MALFORMED);
	p->i += l;
	return 0;
}

/* The decoded key is k, exactly. */
static bool key_is(const struct jstr *s, const char *k)
{
	return s->len <= s->cap && strlen(k) == s->len &&
	       memcmp(s->b, k, s->len) == 0;
}

/* The decoded key reads as k (lower case) to a reader that matches keys
 * without regard to case, as Go's encoding/json does: ASCII letters of
 * either case, and the characters that fold to ASCII ones in its simple
 * case mapping: U+017F (long s) to s, U+212A (Kelvin sign) to k, U+0130
 * and U+0131 (dotted and dotless I) to i. */
static bool key_folds_to(const struct jstr *s, const char *k)
{
	if (s->len > s->cap)
		return false;
	const unsigned char *b = (const unsigned char *)s->b;
	size_t i = 0;
	for (; *k; k++) {
		if (i < s->len &&
		    (b[i] | (b[i] >= 'A' && b[i] <= 'Z' ? 0x20 : 0)) == *k) {
			i++;
		} else if (*k == 's' && s->len - i >= 2 && b[i] == 0xc5 &&
			   b[i + 1] == 0xbf) {
			i += 2;
		} else if (*k == 'i' && s->len - i >= 2 && b[i] == 0xc4 &&
			   (b[i + 1] == 0xb0 || b[i + 1] == 0xb1)) {
			i += 2;
		} else if (*k == 'k' && s->len - i >= 3 && b[i] == 0xe2 &&
			   b[i + 1] == 0x84 && b[i + 2] == 0xaa) {
			i += 3;
		} else {
			return false;
		}
	}
	return i == s->len;
}

static enum member_kind usage_member(const struct jstr *k)
{
	if (key_is(k, "input_tokens") || key_is(k, "prompt_tokens") ||
	    key_is(k, "cache_creation_input_tokens") ||
	    key_is(k, "cache_read_input_tokens"))
		return M_IN;
	if (key_is(k, "output_tokens") || key_is(k, "completion_tokens"))
		return M_OUT;
	return M_NONE;
}

/* What an object found at a place is to the answer's reader: a "usage"
 * object (its members name the counts), or one whose "model" names the
 * model that answered (the document itself, Anthropic's "message",
 * OpenAI's Responses "response"), or neither. */
enum jplace { J_PLAIN, J_USAGE, J_MODEL };

static int value(struct jp *p, int depth, enum jplace at, int64_t *num);

/* Past an object's or array's opening character: true (the closing one
 * read too) when it is empty. */
static bool open_empty(struct jp *p, char close)
{
	p->i++;
	ws(p);
	if (p->i < p->n && p->s[p->i] == close) {
		p->i++;
		return true;
	}
	return false;
}

/* A member's key, decoded into k, and its ':', with the white space
 * around them. */
static int member_key(struct jp *p, struct jstr *k)
{
	ws(p);
	if (string(p, k) < 0)
		return -1;
	ws(p);
	if (p->i >= p->n || p->s[p->i] != ':')
		return bad(p, MALFORMED);
	p->i++;
	ws(p);
	return 0;
}

/* After a member or an element: 1 past a ',' (another follows), 0 past
 * the closing character, -1 on anything else (the text ended, or is not
 * JSON). */
static int next_item(struct jp *p, char close)
{
	ws(p);
	if (p->i >= p->n)
		return bad(p, MALFORMED);
	if (p->s[p->i] == ',') {
		p->i++;
		return 1;
	}
	if (p->s[p->i] != close)
		return bad(p, MALFORMED);
	p->i++;
	return 0;
}

/* The answer's "model" at p, when it is a name of 1 to 127 printable
 * ASCII characters without a space (any other value is read and left):
 * kept in p->model, the first one found. */
static int answer_model(struct jp *p, int depth)
{
	char mb[USAGE_MODEL_MAX];
	struct jstr m = {.b = mb, .cap = sizeof(mb) - 1};
	int64_t v;
	if (p->i >= p->n || p->s[p->i] != '"')
		return value(p, depth, J_PLAIN, &v);
	if (string(p, &m) < 0)
		return -1;
	/* A model's name as providers write them (gpt-4o-2024-08-06,
	 * models/gemini-1.5-pro, meta-llama/Llama-3@v1): letters, digits
	 * and ._-:/@+ only, no ".." (the log's cut marker); the provider
	 * chooses it, and quotes or ';' would let it write what reads as
	 * more of the row. */
	bool ok = m.len > 0 && m.len <= m.cap && !m.lone;
	for (size_t i = 0; ok && i < m.len; i++)
		ok = (mb[i] >= 'a' && mb[i] <= 'z') ||
		     (mb[i] >= 'A' && mb[i] <= 'Z') ||
		     (mb[i] >= '0' && mb[i] <= '9') ||
		     (mb[i] && strchr("._-:/@+", mb[i]));
	mb[ok ? m.len : 0] = '\0';
	if (ok && strstr(mb, ".."))
		ok = false;
	if (ok) {
		memcpy(p->model, mb, m.len);
		p->model[m.len] = '\0';
		p->model = NULL; /* the first one stands */
	}
	return 0;
}

/* An object at place at (enum jplace): a "usage" object's direct members
 * name the counts; a model-naming one's "model" the model. */
static int object(struct jp *p, int depth, enum jplace at)
{
	bool usage = at == J_USAGE;
	int64_t in = -1, out = -1;
	if (open_empty(p, '}'))
		return 0;
	for (int more = 1; more;) {
		char kb[32];
		struct jstr k = {.b = kb, .cap = sizeof(kb)};
		if (member_key(p, &k) < 0)
			return -1;
		int64_t v = -1;
		enum jplace next = J_PLAIN;
		if (key_is(&k, "usage"))
			next = J_USAGE;
		else if (at == J_MODEL && depth == 0 &&
			 (key_is(&k, "message") || key_is(&k, "response")))
			next = J_MODEL;
		int r = at == J_MODEL && p->model && key_is(&k, "model")
			    ? answer_model(p, depth + 1)
			    : value(p, depth + 1, next, &v);
		if (r < 0)
			return -1;
		if (usage && v >= 0) {
			switch (usage_member(&k)) {
			case M_IN:
				in = (in < 0 ? 0 : in) + v;
				break;
			case M_OUT:
				out = (out < 0 ? 0 : out) + v;
				break;
			case M_NONE:
				break;
			}
		}
		if ((more = next_item(p, '}')) < 0)
			return -1;
	}
	if (usage) {
		if (in >= 0)
			p->in = in > TOKENS_MAX ? -1 : in;
		if (out >= 0)
			p->out = out > TOKENS_MAX ? -1 : out;
	}
	return 0;
}

static int array(struct jp *p, int depth)
{
	if (open_empty(p, ']'))
		return 0;
	for (int more = 1; more;) {
		ws(p);
		int64_t v;
		if (value(p, depth + 1, J_PLAIN, &v) < 0)
			return -1;
		if ((more = next_item(p, ']')) < 0)
			return -1;
	}
	return 0;
}

/* One value; *num is a whole number's value, else -1. */
static int value(struct jp *p, int depth, enum jplace at, int64_t *num)
{
	*num = -1;
	if (depth > JSON_DEPTH_MAX)
		return bad(p, "the request body nests deeper than 64 levels");
	if (p->i >= p->n)
		return bad(p, MALFORMED);
	switch (p->s[p->i]) {
	case '{':
		return object(p, depth, at);
	case '[':
		return array(p, depth);
	case '"':
		return string(p, NULL);
	case 't':
		return literal(p, "true");
	case 'f':
		return literal(p, "false");
	case 'n':
		return literal(p, "null");
	default:
		return number(p, num);
	}
}

int usage_scan_json(const char *s, size_t n, int64_t *in, int64_t *out,
		    char *model)
{
	char found[USAGE_MODEL_MAX] = "";
	struct jp p = {.s = s,
		       .n = n,
		       .in = *in,
		       .out = *out,
		       .model = model && !model[0] ? found : NULL};
	int64_t v;
	ws(&p);
	if (value(&p, 0, J_MODEL, &v) < 0)
		return -1;
	ws(&p);
	if (p.i != p.n)
		return -1;
	*in = p.in;
	*out = p.out;
	if (found[0])
		memcpy(model, found, sizeof(found));
	return 0;
}

/* ---- the request ---- */

/* The top-level keys the route reads, and whether k is one. A key that
 * only a case-blind reader takes for one of them is refused (the provider
 * might read it, lnk would not). -1: refused, p->why says why. */
enum req_key { RK_OTHER, RK_MODEL, RK_STREAM, RK_STREAM_OPTIONS };

static int req_key(struct jp *p, const struct jstr *k)
{
	static const struct {
		const char *name;
		enum req_key rk;
		const char *why;
	} keys[] = {
	    {"model", RK_MODEL,
	     "the request has a key some providers read as \"model\": "
	     "spell it \"model\""},
	    {"stream", RK_STREAM,
	     "the request has a key some providers read as \"stream\": "
	     "spell it \"stream\""},
	    {"stream_options", RK_STREAM_OPTIONS,
	     "the request has a key some providers read as "
	     "\"stream_options\": spell it so"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		if (key_is(k, keys[i].name))
			return (int)keys[i].rk;
		if (key_folds_to(k, keys[i].name))
			return bad(p, keys[i].why);
	}
	return RK_OTHER;
}

/* The model's name, for the log: printable ASCII without spaces. */
static int req_model(struct jp *p, struct model_req_info *ri)
{
	static const char why[] =
	    "the request's \"model\" is not a name of 1 to 127 printable "
	    "ASCII characters";
	if (p->i >= p->n || p->s[p->i] != '"')
		return bad(p, why);
	struct jstr m = {.b = ri->model, .cap = sizeof(ri->model) - 1};
	if (string(p, &m) < 0)
		return -1;
	bool ok = m.len > 0 && m.len <= m.cap;
	for (size_t i = 0; ok && i < m.len; i++)
		ok = ri->model[i] > 0x20 && ri->model[i] < 0x7f;
	if (!ok) {
		memset(ri->model, 0, sizeof(ri->model));
		return bad(p, why);
	}
	ri->model[m.len] = '\0';
	return 0;
}

/* "stream": true, false or null (as not given); anything else a lenient
 * provider could take for true. */
static int req_stream(struct jp *p, struct model_req_info *ri)
{
	if (p->n - p->i >= 4 && memcmp(p->s + p->i, "true", 4) == 0) {
		ri->stream = true;
		return literal(p, "true");
	}
	if (p->n - p->i >= 5 && memcmp(p->s + p->i, "false", 5) == 0)
		return literal(p, "false");
	if (p->n - p->i >= 4 && memcmp(p->s + p->i, "null", 4) == 0)
		return literal(p, "null");
	return bad(p, "the request's \"stream\" is not true or false");
}

/* stream_options: an object's members, is include_usage there (once)? */
static int req_stream_options(struct jp *p, struct model_req_info *ri)
{
	int64_t v;
	ri->has_stream_options = true;
	if (p->i >= p->n || p->s[p->i] != '{')
		return value(p, 1, false, &v);
	ri->so_open = p->i + 1;
	if (open_empty(p, '}'))
		return 0;
	for (int more = 1; more;) {
		char kb[32];
		struct jstr k = {.b = kb, .cap = sizeof(kb)};
		if (member_key(p, &k) < 0)
			return -1;
		if (key_is(&k, "include_usage")) {
			if (ri->has_include_usage)
				return bad(p, "the request gives "
					      "\"include_usage\" twice: the "
					      "provider and lnk could read "
					      "different ones");
			ri->has_include_usage = true;
		} else if (key_folds_to(&k, "include_usage")) {
			return bad(p, "the request has a key some providers "
				      "read as \"include_usage\": spell it so");
		}
		if (value(p, 2, false, &v) < 0)
			return -1;
		if ((more = next_item(p, '}')) < 0)
			return -1;
	}
	return 0;
}

/* A top-level key: where its decoded bytes are in the keys' buffer, and
 * (once all are read and the buffer moves no more) a pointer to them. */
struct keyref {
	size_t off, len;
	const char *p;
};

static int keyref_cmp(const void *a, const void *b)
{
	const struct keyref *x = a, *y = b;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return x->len ? memcmp(x->p, y->p, x->len) : 0;
}

static int scan_request(struct jp *p, struct model_req_info *ri, struct buf *kb,
			struct keyref *keys, size_t *nkeys)
{
	int64_t v;
	ws(p);
	if (p->i >= p->n || p->s[p->i] != '{')
		return bad(p, "the request body is not one JSON object");
	ri->obj_open = p->i + 1;
	bool seen[4] = {false};
	if (open_empty(p, '}'))
		goto end;
	for (int more = 1; more;) {
		char b[REQ_KEY_MAX];
		struct jstr k = {.b = b, .cap = sizeof(b)};
		if (member_key(p, &k) < 0)
			return -1;
		if (k.len > k.cap)
			return bad(p, "the request has a top-level key longer "
				      "than 256 bytes");
		if (*nkeys == USAGE_REQ_KEYS_MAX)
			return bad(p, "the request has more than 1024 "
				      "top-level keys");
		keys[(*nkeys)++] = (struct keyref){kb->len, k.len, NULL};
		buf_append(kb, b, k.len);
		int rk = req_key(p, &k);
		if (rk < 0)
			return -1;
		if (rk != RK_OTHER && seen[rk])
			return bad(p,
				   rk == RK_MODEL
				       ? "the request gives \"model\" twice: "
					 "the provider and lnk could read "
					 "different ones"
				   : rk == RK_STREAM
				       ? "the request gives \"stream\" twice: "
					 "the provider and lnk could read "
					 "different ones"
				       : "the request gives \"stream_options\" "
					 "twice");
		seen[rk] = true;
		int r = rk == RK_MODEL		  ? req_model(p, ri)
			: rk == RK_STREAM	  ? req_stream(p, ri)
			: rk == RK_STREAM_OPTIONS ? req_stream_options(p, ri)
						  : value(p, 1, false, &v);
		if (r < 0)
			return -1;
		if ((more = next_item(p, '}')) < 0)
			return -1;
	}
end:
	ws(p);
	if (p->i != p->n)
		return bad(p, "the request body is more than one JSON value");
	/* any other key twice: what the provider reads of it is its own
	 * choice (the first, the last), and no reader here guesses it */
	for (size_t i = 0; i < *nkeys; i++)
		keys[i].p = kb->p + keys[i].off;
	if (*nkeys > 1)
		qsort(keys, *nkeys, sizeof(*keys), keyref_cmp);
	for (size_t i = 1; i < *nkeys; i++)
		if (keyref_cmp(&keys[i - 1], &keys[i]) == 0)
			return bad(p,
				   "the request gives a top-level key twice: "
				   "the provider and lnk could read "
				   "different ones");
	return 0;
}

int usage_scan_request(const char *body, size_t n, struct model_req_info *ri)
{
	memset(ri, 0, sizeof(*ri));
	struct jp p = {.s = body, .n = n, .in = -1, .out = -1};
	struct buf kb = {0};
	struct keyref *keys = xcalloc(USAGE_REQ_KEYS_MAX, sizeof(*keys));
	size_t nkeys = 0;
	int r = scan_request(&p, ri, &kb, keys, &nkeys);
	free(keys);
	buf_free(&kb);
	if (r < 0) {
		memset(ri, 0, sizeof(*ri));
		snprintf(ri->why, sizeof(ri->why), "%s",
			 p.why ? p.why : MALFORMED);
		return -1;
	}
	return 0;
}

/* ---- the answer ---- */

enum { RS_HEAD, RS_BODY, RS_DONE, RS_BAD };
enum {
	CH_SIZE,
	CH_EXT,
	CH_SIZE_LF,
	CH_DATA,
	CH_DATA_CR,
	CH_DATA_LF,
	CH_TRAILER
};
/* SSE line states: reading the field name, reading a data value (after
 * "data:" and its one optional space), skipping another field's value */
enum { L_FIELD, L_DATA_SPACE, L_DATA, L_SKIP };

void usage_init(struct usage_reader *u)
{
	memset(u, 0, sizeof(*u));
	u->clen = -1;
	u->in = u->out = -1;
}

void usage_free(struct usage_reader *u)
{
	buf_free(&u->head);
	buf_free(&u->doc);
}

static void doc_add(struct usage_reader *u, const char *p, size_t n)
{
	if (u->doc_over)
		return;
	if (u->doc.len + n > USAGE_DOC_MAX) {
		u->doc_over = true;
		buf_free(&u->doc);
		return;
	}
	buf_append(&u->doc, p, n);
}

static void doc_read(struct usage_reader *u)
{
	if (!u->doc_over && u->doc.len)
		(void)usage_scan_json(u->doc.p, u->doc.len, &u->in, &u->out,
				      u->model);
	buf_free(&u->doc);
	u->doc_over = false;
}

/* One server-sent event ended (a blank line): its data is one JSON
 * document, or "[DONE]", or anything else (skipped). */
static void sse_dispatch(struct usage_reader *u)
{
	if (u->data_seen)
		doc_read(u);
	buf_free(&u->doc);
	u->doc_over = false;
	u->data_seen = false;
}

static void sse_eol(struct usage_reader *u)
{
	if (u->lstate == L_FIELD && u->flen == 0)
		sse_dispatch(u);
	else if (u->lstate == L_FIELD && u->flen == 4 &&
		 memcmp(u->field, "data", 4) == 0) {
		/* "data" alone: an empty data line */
		if (u->data_seen)
			doc_add(u, "\n", 1);
		u->data_seen = true;
	}
	u->lstate = L_FIELD;
	u->flen = 0;
}

static void sse_feed(struct usage_reader *u, const char *p, size_t n)
{
	for (size_t i = 0; i < n;) {
		char c = p[i];
		if (c == '\n') {
			sse_eol(u);
			i++;
			continue;
		}
		if (c == '\r') {
			/* CR LF and LF end a line alike; a CR is never part
			 * of JSON that matters here */
			i++;
			continue;
		}
		switch (u->lstate) {
		case L_FIELD:
			if (c == ':') {
				bool data = u->flen == 4 &&
					    memcmp(u->field, "data", 4) == 0;
				if (data) {
					if (u->data_seen)
						doc_add(u, "\n", 1);
					u->data_seen = true;
				}
				u->lstate = data ? L_DATA_SPACE : L_SKIP;
			} else if (u->flen < sizeof(u->field)) {
				u->field[u->flen++] = c;
			} else {
				u->lstate = L_SKIP; /* no field we read */
			}
			i++;
			break;
		case L_DATA_SPACE:
			u->lstate = L_DATA;
			if (c == ' ')
				i++;
			break;
		case L_DATA: {
			size_t j = i;
			while (j < n && p[j] != '\n' && p[j] != '\r')
				j++;
			doc_add(u, p + i, j - i);
			i = j;
			break;
		}
		case L_SKIP: {
			const char *nl = memchr(p + i, '\n', n - i);
			i = nl ? (size_t)(nl - p) : n;
			break;
		}
		}
	}
}

static void body_feed(struct usage_reader *u, const char *p, size_t n)
{
	if (!n)
		return;
	u->body += n;
	if (u->encoded || u->status == 0)
		return;
	if (u->sse)
		sse_feed(u, p, n);
	else
		doc_add(u, p, n);
}

static void body_end(struct usage_reader *u)
{
	if (u->state == RS_DONE || u->state == RS_BAD)
		return;
	if (u->sse) {
		sse_eol(u); /* a last line without its end */
		sse_dispatch(u);
	} else if (!u->encoded) {
		doc_read(u);
	}
	u->state = RS_DONE;
}

/* The one character the chunk syntax allows here: on it, the next state;
 * on any other, the answer is bad and no longer read. */
static bool chunk_expect(struct usage_reader *u, char c, char want, int next)
{
	if (c != want) {
		u->state = RS_BAD;
		return false;
	}
	u->cstate = next;
	return true;
}

static void chunked_feed(struct usage_reader *u, const char *p, size_t n)
{
	for (size_t i = 0; i < n && u->state == RS_BODY;) {
		char c = p[i];
		switch (u->cstate) {
		case CH_SIZE: {
			int h = hex_value(c);
			if (h >= 0) {
				if (++u->cdigits > 15) {
					u->state = RS_BAD;
					return;
				}
				u->crem = u->crem * 16 + (uint64_t)h;
			} else if (u->cdigits &&
				   (c == ';' || c == ' ' || c == '\t')) {
				u->cstate = CH_EXT;
			} else if (u->cdigits && c == '\r') {
				u->cstate = CH_SIZE_LF;
			} else {
				u->state = RS_BAD;
				return;
			}
			i++;
			break;
		}
		case CH_EXT:
			if (c == '\r')
				u->cstate = CH_SIZE_LF;
			i++;
			break;
		case CH_SIZE_LF:
			/* after the last chunk: trailer lines, then the
			 * blank line that ends the body */
			if (!chunk_expect(u, c, '\n',
					  u->crem ? CH_DATA : CH_TRAILER))
				return;
			i++;
			u->cdigits = 0;
			u->tlen = 0;
			break;
		case CH_DATA: {
			size_t take = n - i;
			if (take > u->crem)
				take = (size_t)u->crem;
			body_feed(u, p + i, take);
			u->crem -= take;
			i += take;
			if (!u->crem)
				u->cstate = CH_DATA_CR;
			break;
		}
		case CH_DATA_CR:
			if (!chunk_expect(u, c, '\r', CH_DATA_LF))
				return;
			i++;
			break;
		case CH_DATA_LF:
			if (!chunk_expect(u, c, '\n', CH_SIZE))
				return;
			i++;
			break;
		case CH_TRAILER:
			i++;
			if (c == '\n') {
				if (u->tlen == 0) {
					body_end(u);
					return;
				}
				u->tlen = 0;
			} else if (c != '\r') {
				u->tlen++;
			}
			break;
		}
	}
}

/* The value of header name in the head, or NULL (first one only). */
static const char *head_value(const char *h, size_t hl, const char *name,
			      size_t *vl)
{
	size_t nl = strlen(name);
	const char *p = memchr(h, '\n', hl);
	while (p && (size_t)(p + 1 - h) < hl) {
		const char *line = p + 1;
		const char *e = memchr(line, '\n', hl - (size_t)(line - h));
		if (!e)
			break;
		if ((size_t)(e - line) > nl && line[nl] == ':' &&
		    strncasecmp(line, name, nl) == 0) {
			const char *v = line + nl + 1;
			while (v < e && (*v == ' ' || *v == '\t'))
				v++;
			const char *ve = e;
			while (ve > v && (ve[-1] == '\r' || ve[-1] == ' ' ||
					  ve[-1] == '\t'))
				ve--;
			*vl = (size_t)(ve - v);
			return v;
		}
		p = e;
	}
	return NULL;
}

static bool has_token(const char *v, size_t vl, const char *tok)
{
	size_t tl = strlen(tok);
	for (size_t i = 0; i + tl <= vl; i++)
		if (strncasecmp(v + i, tok, tl) == 0)
			return true;
	return false;
}

/* The head is complete (head.p, ending with the blank line). */
static void head_done(struct usage_reader *u)
{
	const char *h = u->head.p;
	size_t hl = u->head.len;
	if (hl < 12 || memcmp(h, "HTTP/1.", 7) != 0 || h[8] != ' ' ||
	    h[9] < '1' || h[9] > '5' || h[10] < '0' || h[10] > '9' ||
	    h[11] < '0' || h[11] > '9') {
		u->state = RS_BAD;
		return;
	}
	u->status = (h[9] - '0') * 100 + (h[10] - '0') * 10 + (h[11] - '0');
	size_t vl;
	const char *v;
	if ((v = head_value(h, hl, "transfer-encoding", &vl)))
		u->chunked = has_token(v, vl, "chunked");
	if ((v = head_value(h, hl, "content-encoding", &vl)))
		u->encoded = !(vl == 8 && strncasecmp(v, "identity", 8) == 0);
	if ((v = head_value(h, hl, "content-type", &vl)))
		u->sse = has_token(v, vl, "text/event-stream");
	if (!u->chunked && (v = head_value(h, hl, "content-length", &vl))) {
		int64_t cl = 0;
		bool ok = vl > 0 && vl < 16;
		for (size_t i = 0; ok && i < vl; i++) {
			ok = v[i] >= '0' && v[i] <= '9';
			cl = cl * 10 + (v[i] - '0');
		}
		u->clen = ok ? cl : -1;
	}
	buf_free(&u->head);
	/* 1xx: an interim answer; the real head follows */
	if (u->status < 200) {
		u->status = 0;
		u->chunked = u->sse = u->encoded = false;
		u->clen = -1;
		return;
	}
	u->state = RS_BODY;
	if (u->clen == 0)
		body_end(u);
}

void usage_feed(struct usage_reader *u, const char *p, size_t n)
{
	while (n && u->state == RS_HEAD) {
		/* byte by byte up to the blank line: heads are small, and
		 * this keeps a split anywhere simple */
		buf_putc(&u->head, *p);
		p++;
		n--;
		size_t l = u->head.len;
		if (l >= 4 && memcmp(u->head.p + l - 4, "\r\n\r\n", 4) == 0)
			head_done(u);
		else if (l > USAGE_HEAD_MAX)
			u->state = RS_BAD;
	}
	if (!n || u->state != RS_BODY)
		return;
	if (u->chunked) {
		chunked_feed(u, p, n);
		return;
	}
	if (u->clen >= 0) {
		uint64_t left = (uint64_t)u->clen - u->body;
		size_t take = n > left ? (size_t)left : n;
		body_feed(u, p, take);
		if (u->body == (uint64_t)u->clen)
			body_end(u);
		return;
	}
	body_feed(u, p, n);
}

void usage_finish(struct usage_reader *u)
{
	/* a body without a length ends with the connection; one with a
	 * length or chunks that ends early is cut: what it held of whole
	 * events still counts, a cut JSON document does not parse */
	if (u->state == RS_BODY)
		body_end(u);
}

bool usage_done(const struct usage_reader *u)
{
	return u->state == RS_DONE;
}

bool usage_bad(const struct usage_reader *u)
{
	return u->state == RS_BAD;
}

bool usage_cut(const struct usage_reader *u)
{
	return u->state == RS_BODY && (u->chunked || u->clen >= 0);
}
