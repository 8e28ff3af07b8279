/* libFuzzer target for the tool call decoder (src/proto/toolcall.c): the
 * bytes are the sandboxed program's. Never a crash; a call decoded has a
 * tool and a folder, and no more strings than the bound; and the form the
 * broker's reader hands on (tools_call_encode, toolpass.h) decodes to the
 * same call, so the starter checks exactly what the reader checked. The
 * same bytes are also a message of the reader's to the starter
 * (toolpass_decode, src/proto/toolpass.c): what it accepts keeps its
 * bounds, and a call in it decodes or is refused, never more. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "proto/toolcall.h"
#include "proto/toolpass.h"

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
	struct toolpass_msg pm;
	if (toolpass_decode((const char *)data, size, &pm) == 0) {
		if (pm.data != (const char *)data + PASS_HEAD ||
		    pm.len != size - PASS_HEAD)
			abort();
		switch (pm.kind) {
		case PASS_CALL:
			if (pm.slot >= TOOLS_MAX_CALLS ||
			    pm.len > PASS_CALL_MAX)
				abort();
			if (tools_call_decode_as(PASS_MAGIC, pm.data, pm.len,
						 &c, &e) == 0) {
				if (!c.tool || !c.cwd)
					abort();
				tools_call_free(&c);
			}
			break;
		case PASS_SIGNAL:
			if (pm.slot >= TOOLS_MAX_CALLS ||
			    !tools_signal_ok(pm.sig))
				abort();
			break;
		case PASS_GONE:
			if (pm.slot >= TOOLS_MAX_CALLS || pm.len)
				abort();
			break;
		case PASS_DENIED:
			/* slot 1: a page's refusal */
			if (pm.slot > 1 || pm.len > PASS_TEXT_MAX)
				abort();
			break;
		case PASS_UNTOLD:
			if (pm.slot || pm.len != 8)
				abort();
			break;
		}
	}
	return 0;
}
