/* The route's key masked in what the provider answers (scrub.h). */
#include "wire/scrub.h"

#include <string.h>
#include <strings.h>

#include "common/util.h"

/* A piece's hash: its SCRUB_MIN (12) bytes in lower case read as two
 * words. Pieces are matched in any letter case: an echo that shows the
 * key in capitals would show all of it but the case of its letters. */
static uint64_t piece_hash(const char *p)
{
	char low[SCRUB_MIN];
	for (size_t i = 0; i < SCRUB_MIN; i++)
		low[i] = p[i] >= 'A' && p[i] <= 'Z' ? (char)(p[i] + 32) : p[i];
	uint64_t a;
	uint32_t b;
	memcpy(&a, low, sizeof(a));
	memcpy(&b, low + sizeof(a), sizeof(b));
	uint64_t h =
	    a * 0x9e3779b97f4a7c15ULL ^ (uint64_t)b * 0xc2b2ae3d27d4eb4fULL;
	return h ^ (h >> 29);
}

/* Whether the SCRUB_MIN bytes at a and b are the same but for the case of
 * ASCII letters (bytes, NULs too: no locale, no end at a NUL). */
static bool same_piece(const char *a, const char *b)
{
	for (size_t i = 0; i < SCRUB_MIN; i++) {
		char x = a[i] >= 'A' && a[i] <= 'Z' ? (char)(a[i] + 32) : a[i];
		char y = b[i] >= 'A' && b[i] <= 'Z' ? (char)(b[i] + 32) : b[i];
		if (x != y)
			return false;
	}
	return true;
}

/* Whether the SCRUB_MIN bytes at p are a piece of the key. */
static bool is_piece(const struct scrub *s, const char *p)
{
	for (size_t i = piece_hash(p) & s->tmask; s->tab[i];
	     i = (i + 1) & s->tmask)
		if (same_piece(s->key + s->tab[i] - 1, p))
			return true;
	return false;
}

void scrub_init(struct scrub *s, const char *key, size_t klen)
{
	_Static_assert(SCRUB_MIN == 12, "piece_hash reads 12 bytes");
	_Static_assert(SCRUB_KEY_MAX < UINT16_MAX, "offsets are 16 bits");
	memset(s, 0, sizeof(*s));
	if (!key || klen < SCRUB_MIN)
		return;
	if (klen > SCRUB_KEY_MAX)
		klen = SCRUB_KEY_MAX;
	size_t pieces = klen - SCRUB_MIN + 1, slots = 16;
	while (slots < 2 * pieces)
		slots *= 2;
	s->key = key;
	s->klen = klen;
	s->tab = xcalloc(slots, sizeof(*s->tab));
	s->tmask = slots - 1;
	for (size_t o = 0; o < pieces; o++) {
		if (is_piece(s, key + o))
			continue; /* the same bytes again */
		size_t i = piece_hash(key + o) & s->tmask;
		while (s->tab[i])
			i = (i + 1) & s->tmask;
		s->tab[i] = (uint16_t)(o + 1);
	}
}

void scrub_free(struct scrub *s)
{
	free(s->tab);
	s->tab = NULL;
	s->key = NULL;
}

/* The length of the longest tail of p[0..n) shorter than SCRUB_MIN that is
 * in the key: it may begin a piece with the bytes to come (0: none). */
static size_t piece_start_tail(const struct scrub *s, const char *p, size_t n)
{
	size_t most = n < SCRUB_MIN - 1 ? n : SCRUB_MIN - 1;
	for (size_t l = most; l > 0; l--)
		for (size_t o = 0; o + l <= s->klen; o++)
			if (strncasecmp(s->key + o, p + n - l, l) == 0)
				return l;
	return 0;
}

/* What is held, to go now: its masked bytes as '*'. */
static void release_held(struct scrub *s, struct buf *out)
{
	size_t from = out->len;
	buf_append(out, s->held, s->nheld);
	if (s->held_masked) {
		memset(out->p + from, '*', s->held_masked);
		s->masked++; /* the run the held bytes end */
	}
	s->nheld = 0;
	s->held_masked = 0;
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
	if (flush)
		release_held(s, &d);
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

/* Every piece of the key in held + in masked; a tail that may begin one
 * held, as it came (a piece that goes on past it is masked whole when the
 * next bytes come). Every piece is looked for in the bytes as they came,
 * before any is masked; a run of pieces is masked once no later piece can
 * join it. */
static void mask_feed(struct scrub *s, const char *in, size_t n,
		      struct buf *out)
{
	if (!s->key) {
		buf_append(out, in, n);
		return;
	}
	/* What was held comes first: a piece may go on in these bytes. */
	size_t start = out->len;
	buf_append(out, s->held, s->nheld);
	buf_append(out, in, n);
	char *p = out->p + start;
	size_t len = out->len - start;
	/* a run begun in the held bytes goes on here */
	size_t run_from = 0, run_to = s->held_masked;
	s->nheld = 0;
	s->held_masked = 0;
	for (size_t i = 0; i + SCRUB_MIN <= len; i++) {
		if (!is_piece(s, p + i))
			continue;
		if (i >= run_to) {
			/* the run before ends at or before i: no piece from i
			 * on touches it */
			if (run_to > run_from) {
				memset(p + run_from, '*', run_to - run_from);
				s->masked++;
			}
			run_from = i;
		}
		run_to = i + SCRUB_MIN;
	}
	/* The tail that may begin a piece, as it came: no run was masked in
	 * it yet (a run is masked only before the last SCRUB_MIN bytes). */
	size_t keep = piece_start_tail(s, p, len);
	size_t cut = len - keep;
	if (run_to > run_from) {
		memset(p + run_from, '*',
		       (run_to < cut ? run_to : cut) - run_from);
		if (run_to > cut)
			s->held_masked = run_to - cut;
		else
			s->masked++;
	}
	memcpy(s->held, p + cut, keep);
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
	release_held(s, out);
}
