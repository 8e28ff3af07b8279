/* The route's key masked in what the provider answers (scrub.h). */
#include "wire/scrub.h"

#include <string.h>

#include "common/util.h"

void scrub_init(struct scrub *s, const char *key, size_t klen)
{
	memset(s, 0, sizeof(*s));
	if (key && klen >= SCRUB_MIN && klen <= SCRUB_KEY_MAX) {
		s->key = key;
		s->klen = klen;
	}
}

/* The length of the longest tail of p[0..n) that is a proper start of the
 * key (0: none). */
static size_t key_start_tail(const struct scrub *s, const char *p, size_t n)
{
	size_t most = n < s->klen - 1 ? n : s->klen - 1;
	for (size_t l = most; l > 0; l--)
		if (memcmp(p + n - l, s->key, l) == 0)
			return l;
	return 0;
}

static void mask_feed(struct scrub *s, const char *in, size_t n,
		      struct buf *out);

/* Where the chunked framing is read. */
enum {
	CH_SIZE,
	CH_EXT,
	CH_SIZE_LF,
	CH_DATA,
	CH_DATA_CR,
	CH_DATA_LF,
	CH_TRAILER,
	CH_BAD
};

/* Data masked (mask_feed) into one chunk of the wire's own in out. */
static void chunk_out(struct scrub *s, const char *in, size_t n, bool flush,
		      struct buf *out)
{
	struct buf d = {0};
	if (n)
		mask_feed(s, in, n, &d);
	if (flush) {
		buf_append(&d, s->held, s->nheld);
		s->nheld = 0;
	}
	if (d.len) {
		buf_printf(out, "%zx\r\n", d.len);
		buf_append(out, d.p, d.len);
		buf_puts(out, "\r\n");
	}
	buf_free(&d);
}

/* The chunk syntax's one character here: the next state, or the body is
 * not HTTP/1.1's and nothing more passes. */
static bool expect(struct scrub *s, char c, char want, int next)
{
	s->cst = c == want ? next : CH_BAD;
	return s->cst != CH_BAD;
}

static void chunked_feed(struct scrub *s, const char *p, size_t n,
			 struct buf *out)
{
	for (size_t i = 0; i < n && !s->cdone && s->cst != CH_BAD;) {
		char c = p[i];
		int h;
		switch (s->cst) {
		case CH_SIZE:
			if ((h = hex_value(c)) >= 0 && s->cdig < 15) {
				s->cdig++;
				s->crem = s->crem * 16 + (uint64_t)h;
			} else if (s->cdig &&
				   (c == ';' || c == ' ' || c == '\t')) {
				s->cst = CH_EXT;
			} else if (!s->cdig ||
				   !expect(s, c, '\r', CH_SIZE_LF)) {
				s->cst = CH_BAD;
			}
			i++;
			break;
		case CH_EXT:
			if (c == '\r')
				s->cst = CH_SIZE_LF;
			i++;
			break;
		case CH_SIZE_LF:
			if (expect(s, c, '\n', s->crem ? CH_DATA : CH_TRAILER))
				i++;
			s->cdig = 0;
			s->tlen = 0;
			break;
		case CH_DATA: {
			size_t take = n - i;
			if (take > s->crem)
				take = (size_t)s->crem;
			chunk_out(s, p + i, take, false, out);
			s->crem -= take;
			i += take;
			if (!s->crem)
				s->cst = CH_DATA_CR;
			break;
		}
		case CH_DATA_CR:
			if (expect(s, c, '\r', CH_DATA_LF))
				i++;
			break;
		case CH_DATA_LF:
			if (expect(s, c, '\n', CH_SIZE))
				i++;
			break;
		case CH_TRAILER:
			/* the last chunk read: the trailers are dropped, the
			 * body ends at the blank line */
			i++;
			if (c == '\n' && s->tlen == 0) {
				chunk_out(s, NULL, 0, true, out);
				buf_puts(out, "0\r\n\r\n");
				s->cdone = true;
			} else if (c == '\n') {
				s->tlen = 0;
			} else if (c != '\r') {
				s->tlen++;
			}
			break;
		}
	}
}

void scrub_chunked(struct scrub *s, struct buf *out)
{
	scrub_end(s, out);
	s->chunked = true;
	s->cst = CH_SIZE;
	s->crem = 0;
	s->cdig = 0;
	s->cdone = false;
}

void scrub_feed(struct scrub *s, const char *in, size_t n, struct buf *out)
{
	if (s->chunked) {
		chunked_feed(s, in, n, out);
		return;
	}
	mask_feed(s, in, n, out);
}

/* Every whole key in held + in masked; a tail that may begin it held. */
static void mask_feed(struct scrub *s, const char *in, size_t n,
		      struct buf *out)
{
	if (!s->key) {
		buf_append(out, in, n);
		return;
	}
	/* What was held comes first: the key may go on in these bytes. */
	size_t start = out->len;
	buf_append(out, s->held, s->nheld);
	buf_append(out, in, n);
	s->nheld = 0;
	char *p = out->p + start;
	size_t len = out->len - start;
	for (size_t at = 0; at + s->klen <= len;) {
		char *hit = memmem(p + at, len - at, s->key, s->klen);
		if (!hit)
			break;
		memset(hit, '*', s->klen);
		s->masked++;
		at = (size_t)(hit - p) + s->klen;
	}
	size_t keep = key_start_tail(s, p, len);
	memcpy(s->held, p + len - keep, keep);
	s->nheld = keep;
	out->len -= keep;
	out->p[out->len] = '\0';
}

void scrub_end(struct scrub *s, struct buf *out)
{
	/* a chunked body cut short: what was held goes as a chunk of its
	 * own, and no last chunk (the program sees the cut) */
	if (s->chunked) {
		if (!s->cdone && s->cst != CH_BAD)
			chunk_out(s, NULL, 0, true, out);
		s->nheld = 0;
		return;
	}
	buf_append(out, s->held, s->nheld);
	s->nheld = 0;
}
