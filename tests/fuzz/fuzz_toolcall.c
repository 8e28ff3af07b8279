/* libFuzzer target for the tool call decoder (src/tools/call.c): the
 * bytes are the sandboxed program's. Never a crash; a call decoded has a
 * tool and a folder, and no more strings than the bound; and the form the
 * broker's reader hands on (tools_call_encode, pass.h) decodes to the
 * same call, so the starter checks exactly what the reader checked. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "tools/call.h"
#include "tools/pass.h"
#include "tools/proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tools_call c;
	struct lnk_err e = {0};

	if (tools_call_decode((const char *)data, size, &c, &e) == 0) {
		if (!c.tool || !c.cwd || c.args.n + 2 > TOOLS_MAX_ARGS)
			abort();
		size_t n;
		char *m = tools_call_encode(PASS_MAGIC, &c, &n);
		struct tools_call d;
		if (tools_call_decode_as(PASS_MAGIC, m, n, &d, &e) != 0 ||
		    strcmp(d.tool, c.tool) || strcmp(d.cwd, c.cwd) ||
		    d.args.n != c.args.n)
			abort();
		for (size_t i = 0; i < c.args.n; i++)
			if (strcmp(d.args.v[i], c.args.v[i]))
				abort();
		tools_call_free(&d);
		free(m);
		tools_call_free(&c);
	}
	return 0;
}
