/* The route's key masked in what the provider answers.
 *
 * Threat: the program wants the key (it never has it: model.c), and asks
 * the route's host for something that shows the request back: an endpoint
 * under the route's base that echoes its headers (a gateway's debug page,
 * an echo service behind a route of your own), or an error that quotes the
 * Authorization header, whole or cut short ("invalid request: <its first
 * n bytes>..."), where the program moves the cut by the length of what it
 * sends and reads the key a piece at a time. So every piece of the key of
 * SCRUB_MIN bytes or more in the answer's bytes, head and body, becomes as
 * many '*' (the same length, so a Content-Length or a chunk's size stays
 * true): the whole key, and any part of it an answer quotes cut short; a
 * quote cut at any point shows at most SCRUB_MIN - 1 bytes of it. A tail
 * that may begin such a piece is held until the next bytes say whether it
 * does, so a key split across two reads is masked too. A chunked body
 * (scrub_chunked) is masked in its data and framed again by the wire: a
 * server that chunks in pieces of a fixed size (a buffered writer) puts
 * framing inside a key the program placed across a boundary, which its
 * HTTP client removes. A key written otherwise (escaped, encoded) is not
 * seen: the provider could always send the key anywhere; this stops the
 * echo.
 *
 * A key shorter than SCRUB_MIN is not masked: so short a string would be
 * masked in ordinary answers too (and is no secret worth the name).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

#define SCRUB_MIN 12
/* The longest key a route takes (model_plan.c refuses a longer one). */
#define SCRUB_KEY_MAX 4096

struct scrub {
	const char *key; /* not owned; NULL: nothing to mask */
	size_t klen;
	/* the key's pieces of SCRUB_MIN bytes, by hash: each an offset in
	 * the key + 1 (0: a free slot); open addressing, tmask + 1 slots */
	uint16_t *tab;
	size_t tmask;
	char held[SCRUB_MIN]; /* a tail that may begin a piece, as it came */
	size_t nheld;
	size_t held_masked; /* how many of the held bytes are masked */
	uint64_t masked;    /* runs of the key's pieces masked */
	/* a chunked body: its framing read here, its data masked, and
	 * framed again (scrub_chunked) */
	bool chunked;
	int cst;       /* where in the framing */
	uint64_t crem; /* data bytes left in the chunk, or its size */
	unsigned cdig; /* the size's hex digits so far */
	size_t tlen;   /* the current trailer line's length */
	bool cdone;    /* the last chunk framed: nothing more passes */
};

/* key (not copied: it must outlive s) of klen bytes (a key longer than
 * SCRUB_KEY_MAX is masked as its first SCRUB_KEY_MAX bytes). */
void scrub_init(struct scrub *s, const char *key, size_t klen);
/* Frees what scrub_init made (s zeroed, or never begun: nothing). */
void scrub_free(struct scrub *s);
/* Appends to out what of in may pass (the key masked), holding back a
 * tail that may be the key's start. */
void scrub_feed(struct scrub *s, const char *in, size_t n, struct buf *out);
/* The end of the answer: appends what is held (no key, or it would have
 * been masked). */
void scrub_end(struct scrub *s, struct buf *out);
/* What follows is a chunked body (the head fed and ended: what was held of
 * it appended to out): scrub_feed then reads its framing, masks its data
 * across chunks, and appends the data as chunks of its own; the trailers
 * are dropped. Framing that is not HTTP/1.1's ends what passes. */
void scrub_chunked(struct scrub *s, struct buf *out);
