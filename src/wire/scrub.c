/* The route's key masked in what the provider answers (scrub.h). */
#include "wire/scrub.h"

#include <string.h>

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

void scrub_feed(struct scrub *s, const char *in, size_t n, struct buf *out)
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
	buf_append(out, s->held, s->nheld);
	s->nheld = 0;
}
