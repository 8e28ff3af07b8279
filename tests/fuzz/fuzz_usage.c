/* libFuzzer target for the model route's readers (wire/usage.h): any
 * answer, fed whole and fed split at a point the input chooses, must give
 * the same counts (a split never changes what is read), counts that are
 * -1 or in range, and never a crash; any request body must scan or be
 * refused, with offsets inside it and a model name of the allowed bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wire/usage.h"

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
	struct model_req_info ri;
	if (usage_scan_request(p, n, &ri) == 0) {
		if (ri.obj_open > n || ri.so_open > n ||
		    strlen(ri.model) >= sizeof(ri.model))
			abort();
		for (const char *c = ri.model; *c; c++)
			if (!strchr(
				"abcdefghijklmnopqrstuvwxyz"
				"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._:/@+-",
				*c))
				abort();
	}
	return 0;
}
