/* Model routes (lnk-sandbox(1), GRANTS, --model): one entry of
 * [internet] models names a hosted model provider the program reaches
 * through the wire, which adds the API key from outside.
 *
 * An entry is a built-in provider's name ("anthropic", "openai") or
 * "NAME=https://host[:port]/base" for a provider that speaks the OpenAI
 * API, optionally followed by the calls the route carries:
 * "NAME=https://host/base POST /chat/completions, GET /models". Pure: the
 * keys table checks entries with it, the wire plans its routes with it and
 * asks it, call by call, whether the route carries a call.
 *
 * The threat: the route adds the user's key to what the program sends. A
 * route that carried any method to any path under its base would give the
 * program the whole account (its stored files, fine-tunes, batches, keys
 * of its own): a route carries model calls only, the inference calls of
 * its provider unless its entry lists others.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "net/grammar.h"

#define MODEL_NAME_MAX 32
#define MODEL_BASE_MAX 512
/* A route's own list of calls: at most this many, each a method of at
 * most METHOD_MAX - 1 capitals and a path of at most PATH_MAX - 1 bytes. */
#define MODEL_CALLS_MAX 16
#define MODEL_CALL_METHOD_MAX 16
#define MODEL_CALL_PATH_MAX 128

enum model_api {
	MODEL_API_ANTHROPIC, /* x-api-key, ANTHROPIC_BASE_URL */
	MODEL_API_OPENAI,    /* Authorization: Bearer, OPENAI_BASE_URL */
};

/* One call a route carries: a method, and a path under the route's base
 * whose segments are words ([A-Za-z0-9._~-]) or '*' (any one word). */
struct model_call {
	char method[MODEL_CALL_METHOD_MAX];
	char path[MODEL_CALL_PATH_MAX];
};

struct model_def {
	char name[MODEL_NAME_MAX + 1]; /* lower case [a-z0-9_-] */
	enum model_api api;
	char host[HOST_MAX + 1]; /* normalized name or literal */
	uint16_t port;
	char base[MODEL_BASE_MAX]; /* "" or "/v1": no trailing '/' */
	int builtin;
	/* the calls it carries; own: the entry listed them (else the
	 * provider's inference calls) */
	struct model_call calls[MODEL_CALLS_MAX];
	size_t ncalls;
	int own_calls;
};

/* Checks one entry and fills d; 0 or -EINVAL with a message that says
 * what to write instead. */
int model_parse(const char *s, size_t len, struct model_def *d,
		struct lnk_err *err);
/* The entry's normal form: "anthropic", or "name=https://host[:port]/base",
 * then " METHOD /path, ..." when the entry listed its calls. out holds
 * MODEL_ENTRY_MAX bytes. */
#define MODEL_ENTRY_MAX                                    \
	(MODEL_NAME_MAX + HOST_MAX + MODEL_BASE_MAX + 32 + \
	 MODEL_CALLS_MAX * (MODEL_CALL_METHOD_MAX + MODEL_CALL_PATH_MAX + 3))
void model_format(const struct model_def *d, char *out, size_t cap);
/* The variable of lnk's environment that holds its key: ANTHROPIC_API_KEY,
 * OPENAI_API_KEY, NAME_API_KEY (upper case, '-' as '_'). */
void model_key_var(const struct model_def *d, char *out, size_t cap);

/* Whether the route d carries the call: method (ml bytes) and target (tl
 * bytes), the path under the route as the program sent it, query and all
 * ("/chat/completions?x=1"). 0: it does. Otherwise the HTTP status to
 * answer (400 for a path that is not a plain one: a dot segment, an
 * escape, an empty segment, a character a path may not hold, a query
 * that names a method, a path or a URL; 403 for a call the route does not
 * carry) and *why, a sentence for the program and the log. */
int model_call_check(const struct model_def *d, const char *method, size_t ml,
		     const char *target, size_t tl, const char **why);
