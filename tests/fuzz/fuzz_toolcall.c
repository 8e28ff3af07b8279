/* libFuzzer target for the tool call decoder (src/tools/call.c): the
 * bytes are the sandboxed program's. Never a crash; a call decoded has a
 * tool and a folder, and no more strings than the bound. */
#include <stdint.h>
#include <stdlib.h>

#include "common/err.h"
#include "tools/call.h"
#include "tools/proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tools_call c;
	struct lnk_err e = {0};

	if (tools_call_decode((const char *)data, size, &c, &e) == 0) {
		if (!c.tool || !c.cwd || c.args.n + 2 > TOOLS_MAX_ARGS)
			abort();
		tools_call_free(&c);
	}
	return 0;
}
