/* libFuzzer target for the model route's readers (proto/usage.h) and the
 * calls a route carries (policy/models.h):
 *  - any answer, fed whole and fed split at points the input chooses, gives
 *    the same counts (a split never changes what is read), counts that are
 *    -1 or in range, and never a crash;
 *  - any request body is read or refused: read, its offsets are inside it
 *    and at a '{', its model a printable name; refused, a reason is given
 *    and nothing read is kept (no model, no stream);
 *  - any target on the built-in OpenAI route passes only as one of its
 *    four inference paths (a query after it), and every refusal says why.
 * The dictionary (dict/usage.dict) holds escaped and case-folded spellings
 * of the keys read, for duplicate and escape paths to be found. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy/models.h"
#include "proto/usage.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void read_split(const char *p, size_t n, size_t a, size_t b, int64_t *in,
		       int64_t *out)
{
	struct usage_reader u;
	usage_init(&u);
	usage_feed(&u, p, a);
	usage_feed(&u, p + a, b - a);
	usage_feed(&u, p + b, n - b);
	usage_finish(&u);
	*in = u.in;
	*out = u.out;
	usage_free(&u);
}

static void check_request(const char *p, size_t n)
{
	struct model_req_info ri;
	if (usage_scan_request(p, n, &ri) == 0) {
		if (ri.why[0] || ri.obj_open == 0 || ri.obj_open > n ||
		    p[ri.obj_open - 1] != '{' || ri.so_open > n ||
		    (ri.so_open && p[ri.so_open - 1] != '{') ||
		    strlen(ri.model) >= sizeof(ri.model))
			abort();
		for (const char *c = ri.model; *c; c++)
			if (*c <= 0x20 || *c >= 0x7f)
				abort();
		return;
	}
	if (!ri.why[0] || ri.model[0] || ri.stream || ri.has_stream_options)
		abort();
}

static void check_call(const char *p, size_t n)
{
	static const char *const ok[] = {"/chat/completions", "/responses",
					 "/completions", "/embeddings"};
	struct model_def d;
	struct lnk_err err = {0};
	if (model_parse("openai", 6, &d, &err) < 0)
		abort();
	const char *why = NULL;
	int st = model_call_check(&d, "POST", 4, p, n, &why);
	if (st != 0) {
		if ((st != 400 && st != 403) || !why || !*why)
			abort();
		return;
	}
	size_t pl = 0;
	while (pl < n && p[pl] != '?')
		pl++;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (strlen(ok[i]) == pl && memcmp(ok[i], p, pl) == 0)
			return;
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	const char *p = (const char *)data + 2;
	size_t n = size - 2;
	size_t a = n ? data[0] % (n + 1) : 0;
	size_t b = a + (n - a ? data[1] % (n - a + 1) : 0);
	int64_t in1, out1, in2, out2;
	read_split(p, n, 0, 0, &in1, &out1);
	read_split(p, n, a, b, &in2, &out2);
	if (in1 != in2 || out1 != out2 || in1 < -1 || out1 < -1)
		abort();
	check_request(p, n);
	check_call(p, n);
	return 0;
}
