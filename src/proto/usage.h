/* The model route's readers: what a hosted model's request asks for and
 * what its answer says it used (lnk-sandbox(1), GRANTS, --model).
 *
 * Everything here is hostile input: the request comes from the program
 * inside, the answer from a provider that may be broken or not the one it
 * claims to be. The readers are pure (no I/O, fuzzed), bounded in memory,
 * and never guess: a count the answer does not give stays unknown (-1).
 *
 * The answer reader sees a copy of each piece of the answer as it passes
 * to the program; it never holds the stream back. It follows the HTTP
 * response head, chunked transfer coding, and then either server-sent
 * events (each event's data read as JSON) or one JSON document. In any
 * JSON it reads, an object under a key "usage" gives the tokens:
 * input_tokens or prompt_tokens (plus Anthropic's cache_creation_ and
 * cache_read_input_tokens) in, output_tokens or completion_tokens out.
 * A later usage object replaces an earlier one's counts (Anthropic's
 * message_delta carries the final output count after message_start).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

/* A JSON document (a whole answer, or one event's data) larger than this
 * is not read for usage: its counts stay what they were. */
#define USAGE_DOC_MAX (4u << 20)
#define USAGE_HEAD_MAX 65536
/* A model's name, with its terminating NUL. */
#define USAGE_MODEL_MAX 128

struct usage_reader {
	int state; /* internal: head, body, done, bad */
	struct buf head;
	int status; /* the answer's HTTP status, 0 until read */
	bool chunked, sse, encoded;
	int64_t clen;  /* Content-Length, -1 without */
	uint64_t body; /* body bytes read (after chunked decoding) */
	/* chunked decoding */
	int cstate;
	uint64_t crem;
	unsigned cdigits;
	size_t tlen; /* the current trailer line's length */
	/* the JSON document or the current event's data */
	struct buf doc;
	bool doc_over; /* over USAGE_DOC_MAX: skipped */
	/* the current SSE line: its field name so far, and where it is */
	char field[8];
	size_t flen;
	int lstate;
	bool data_seen;	 /* the current event has a data line */
	int64_t in, out; /* tokens, -1: unknown */
	/* the model the answer says answered, the first one named; "" */
	char model[USAGE_MODEL_MAX];
};

void usage_init(struct usage_reader *u);
void usage_free(struct usage_reader *u);
/* Reads the next n bytes of the answer, as they came. */
void usage_feed(struct usage_reader *u, const char *p, size_t n);
/* The body has ended by its own framing (a length, the last chunk). */
bool usage_done(const struct usage_reader *u);
/* The body has a length or chunks and has not reached its end. */
bool usage_cut(const struct usage_reader *u);
/* The answer is not HTTP, or its chunks are malformed. */
bool usage_bad(const struct usage_reader *u);
/* The answer ended (the connection closed): reads what is complete. */
void usage_finish(struct usage_reader *u);

/* Finds the tokens in one JSON document: updates *in and *out from every
 * "usage" object in it, in order; and, when model (USAGE_MODEL_MAX bytes)
 * is "", the model the answer names: the document's own "model", or its
 * "message"'s or "response"'s (1 to 127 printable ASCII characters, no
 * space; another value is no name). Returns 0, or -1 when s is not one
 * valid JSON value (nothing is updated then). */
int usage_scan_json(const char *s, size_t n, int64_t *in, int64_t *out,
		    char *model);

/* A request with more top-level keys than this is refused. */
#define USAGE_REQ_KEYS_MAX 1024

/* What the program's request body says, for the log and the stream, read
 * as the provider reads it: keys and strings decoded (escapes, surrogate
 * pairs), so "str\u0065am" is "stream". What two readers could read two
 * ways is refused, never guessed: malformed JSON, bytes that are not
 * UTF-8, a top-level key given twice, a key only a case-blind reader takes
 * for one read here ("Model", "\u017ftream"), a "model" that is not a
 * printable name, a "stream" that is not true, false or null. Bounded:
 * JSON_DEPTH_MAX levels, USAGE_REQ_KEYS_MAX top-level keys of at most 256
 * bytes each. */
struct model_req_info {
	char model[128]; /* the top-level "model": 1 to 127 printable ASCII
			  * characters, no space; "" when not given */
	bool stream;	 /* "stream": true */
	bool has_stream_options;
	bool has_include_usage; /* stream_options.include_usage given */
	size_t obj_open;	/* offset just after the top-level '{' */
	size_t so_open; /* offset just after stream_options' '{', or 0 */
	char why[96];	/* when refused: why, a sentence for the program */
};
/* 0, or -1 (ri->why says why) when body is not one JSON object the route
 * reads as the provider does. */
int usage_scan_request(const char *body, size_t n, struct model_req_info *ri);
