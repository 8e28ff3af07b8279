/* The model route's readers (usage.h): a strict little JSON parser, the
 * request's few top-level keys, and the answer's usage as it streams by. */
#include "wire/usage.h"

#include "common/util.h"

#include <string.h>
#include <strings.h>

/* Deeper documents are refused rather than recursed into: the parser's
 * stack is the wire's. */
#define JSON_DEPTH_MAX 64
/* Token counts above this are not counts (2^53: exact in every JSON
 * reader); such a member is ignored. */
#define TOKENS_MAX 9007199254740992LL

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
};

static void ws(struct jp *p)
{
	while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' ||
			       p->s[p->i] == '\n' || p->s[p->i] == '\r'))
		p->i++;
}

/* A string; *raw and *rl are its bytes between the quotes, escapes and
 * all. 0 or -1. */
static int string(struct jp *p, const char **raw, size_t *rl)
{
	if (p->i >= p->n || p->s[p->i] != '"')
		return -1;
	size_t start = ++p->i;
	while (p->i < p->n) {
		unsigned char c = (unsigned char)p->s[p->i];
		if (c == '"') {
			if (raw) {
				*raw = p->s + start;
				*rl = p->i - start;
			}
			p->i++;
			return 0;
		}
		if (c < 0x20)
			return -1;
		if (c == '\\') {
			if (++p->i >= p->n)
				return -1;
			char e = p->s[p->i];
			if (e == 'u') {
				if (p->i + 4 >= p->n)
					return -1;
				for (int k = 1; k <= 4; k++)
					if (hex_value(p->s[p->i + k]) < 0)
						return -1;
				p->i += 4;
			} else if (!strchr("\"\\/bfnrt", e) || e == '\0') {
				return -1;
			}
		}
		p->i++;
	}
	return -1;
}

/* A number; *v is its value when it is a whole number in range, else -1. */
static int number(struct jp *p, int64_t *v)
{
	size_t start = p->i;
	bool whole = true;
	int64_t acc = 0;
	if (p->i < p->n && p->s[p->i] == '-') {
		whole = false;
		p->i++;
	}
	if (p->i >= p->n || p->s[p->i] < '0' || p->s[p->i] > '9')
		return -1;
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
			return -1;
		while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9')
			p->i++;
	}
	if (p->i < p->n && (p->s[p->i] == 'e' || p->s[p->i] == 'E')) {
		whole = false;
		p->i++;
		if (p->i < p->n && (p->s[p->i] == '+' || p->s[p->i] == '-'))
			p->i++;
		if (p->i >= p->n || p->s[p->i] < '0' || p->s[p->i] > '9')
			return -1;
		while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9')
			p->i++;
	}
	(void)start;
	*v = whole && acc <= TOKENS_MAX ? acc : -1;
	return 0;
}

static int literal(struct jp *p, const char *w)
{
	size_t l = strlen(w);
	if (p->n - p->i < l || memcmp(p->s + p->i, w, l) != 0)
		return -1;
	p->i += l;
	return 0;
}

static bool key_is(const char *raw, size_t rl, const char *k)
{
	return strlen(k) == rl && memcmp(raw, k, rl) == 0;
}

static enum member_kind usage_member(const char *raw, size_t rl)
{
	if (key_is(raw, rl, "input_tokens") ||
	    key_is(raw, rl, "prompt_tokens") ||
	    key_is(raw, rl, "cache_creation_input_tokens") ||
	    key_is(raw, rl, "cache_read_input_tokens"))
		return M_IN;
	if (key_is(raw, rl, "output_tokens") ||
	    key_is(raw, rl, "completion_tokens"))
		return M_OUT;
	return M_NONE;
}

static int value(struct jp *p, int depth, bool usage, int64_t *num);

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

/* A member's key and its ':', with the white space around them. */
static int member_key(struct jp *p, const char **k, size_t *kl)
{
	ws(p);
	if (string(p, k, kl) < 0)
		return -1;
	ws(p);
	if (p->i >= p->n || p->s[p->i] != ':')
		return -1;
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
		return -1;
	if (p->s[p->i] == ',') {
		p->i++;
		return 1;
	}
	if (p->s[p->i] != close)
		return -1;
	p->i++;
	return 0;
}

/* An object; with usage, it is a "usage" object and its direct members
 * name the counts. */
static int object(struct jp *p, int depth, bool usage)
{
	int64_t in = -1, out = -1;
	if (open_empty(p, '}'))
		return 0;
	for (int more = 1; more;) {
		const char *k;
		size_t kl;
		if (member_key(p, &k, &kl) < 0)
			return -1;
		int64_t v = -1;
		bool inner_usage = key_is(k, kl, "usage");
		if (value(p, depth + 1, inner_usage, &v) < 0)
			return -1;
		if (usage && v >= 0) {
			switch (usage_member(k, kl)) {
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
		if (value(p, depth + 1, false, &v) < 0)
			return -1;
		if ((more = next_item(p, ']')) < 0)
			return -1;
	}
	return 0;
}

/* One value; *num is a whole number's value, else -1. */
static int value(struct jp *p, int depth, bool usage, int64_t *num)
{
	*num = -1;
	if (depth > JSON_DEPTH_MAX || p->i >= p->n)
		return -1;
	switch (p->s[p->i]) {
	case '{':
		return object(p, depth, usage);
	case '[':
		return array(p, depth);
	case '"':
		return string(p, NULL, NULL);
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

int usage_scan_json(const char *s, size_t n, int64_t *in, int64_t *out)
{
	struct jp p = {.s = s, .n = n, .in = *in, .out = *out};
	int64_t v;
	ws(&p);
	if (value(&p, 0, false, &v) < 0)
		return -1;
	ws(&p);
	if (p.i != p.n)
		return -1;
	*in = p.in;
	*out = p.out;
	return 0;
}

/* ---- the request ---- */

static bool model_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || strchr("._:/@+-", c) != NULL;
}

int usage_scan_request(const char *body, size_t n, struct model_req_info *ri)
{
	memset(ri, 0, sizeof(*ri));
	struct jp p = {.s = body, .n = n, .in = -1, .out = -1};
	int64_t v;
	ws(&p);
	if (p.i >= p.n || p.s[p.i] != '{')
		return -1;
	ri->obj_open = p.i + 1;
	if (open_empty(&p, '}'))
		goto end;
	for (int more = 1; more;) {
		const char *k;
		size_t kl;
		if (member_key(&p, &k, &kl) < 0)
			return -1;
		size_t vstart = p.i;
		if (key_is(k, kl, "stream_options") && p.i < p.n &&
		    p.s[p.i] == '{') {
			ri->has_stream_options = true;
			ri->so_open = p.i + 1;
			/* its own members: is include_usage there? */
			struct jp q = {.s = body, .n = n, .i = p.i + 1};
			ws(&q);
			while (q.i < q.n && q.s[q.i] != '}') {
				const char *k2;
				size_t k2l;
				if (member_key(&q, &k2, &k2l) < 0)
					return -1;
				if (key_is(k2, k2l, "include_usage"))
					ri->has_include_usage = true;
				if (value(&q, 2, false, &v) < 0)
					return -1;
				ws(&q);
				if (q.i < q.n && q.s[q.i] == ',')
					q.i++;
				ws(&q);
			}
		} else if (key_is(k, kl, "stream_options")) {
			ri->has_stream_options = true;
		}
		if (value(&p, 1, false, &v) < 0)
			return -1;
		if (key_is(k, kl, "model") && body[vstart] == '"') {
			size_t ml = p.i - vstart - 2;
			bool ok = ml > 0 && ml < sizeof(ri->model);
			for (size_t i = 0; ok && i < ml; i++)
				ok = model_char(body[vstart + 1 + i]);
			if (ok) {
				memcpy(ri->model, body + vstart + 1, ml);
				ri->model[ml] = '\0';
			}
		}
		if (key_is(k, kl, "stream"))
			ri->stream = p.i - vstart == 4 &&
				     memcmp(body + vstart, "true", 4) == 0;
		if ((more = next_item(&p, '}')) < 0)
			return -1;
	}
end:
	ws(&p);
	return p.i == p.n ? 0 : -1;
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
		(void)usage_scan_json(u->doc.p, u->doc.len, &u->in, &u->out);
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
