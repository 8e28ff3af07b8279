/* Model routes (lnk-sandbox(1), GRANTS, --model): one entry of
 * [internet] models names a hosted model provider the program reaches
 * through the wire, which adds the API key from outside.
 *
 * An entry is a built-in provider's name ("anthropic", "openai") or
 * "NAME=https://host[:port]/base" for a provider that speaks the OpenAI
 * API. Pure: the keys table checks entries with it, the wire plans its
 * routes with it.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "net/grammar.h"

#define MODEL_NAME_MAX 32
#define MODEL_BASE_MAX 512

enum model_api {
	MODEL_API_ANTHROPIC, /* x-api-key, ANTHROPIC_BASE_URL */
	MODEL_API_OPENAI,    /* Authorization: Bearer, OPENAI_BASE_URL */
};

struct model_def {
	char name[MODEL_NAME_MAX + 1]; /* lower case [a-z0-9_-] */
	enum model_api api;
	char host[HOST_MAX + 1]; /* normalized name or literal */
	uint16_t port;
	char base[MODEL_BASE_MAX]; /* "" or "/v1": no trailing '/' */
	int builtin;
};

/* Checks one entry and fills d; 0 or -EINVAL with a message that says
 * what to write instead. */
int model_parse(const char *s, size_t len, struct model_def *d,
		struct lnk_err *err);
/* The entry's normal form: "anthropic", or "name=https://host[:port]/base".
 * out holds MODEL_ENTRY_MAX bytes. */
#define MODEL_ENTRY_MAX (MODEL_NAME_MAX + HOST_MAX + MODEL_BASE_MAX + 32)
void model_format(const struct model_def *d, char *out, size_t cap);
/* The variable of lnk's environment that holds its key: ANTHROPIC_API_KEY,
 * OPENAI_API_KEY, NAME_API_KEY (upper case, '-' as '_'). */
void model_key_var(const struct model_def *d, char *out, size_t cap);
