/* libFuzzer target for the transparent path's hostile inputs: the wire
 * resolver's DNS question parser and answer writer, and the transparent
 * head's decoder. Never a crash; a parsed question lies within the
 * input, its name is a C string of at most 253 bytes; an answer fits its
 * buffer; a decoded head has a port. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto/tproxy.h"
#include "proto/dnsmsg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dnsd_question q;
	int r = dnsd_parse(data, size, &q);
	if (r == 0) {
		if (12 + q.qlen > size || strlen(q.name) > 253)
			abort();
		if (12 + q.qlen <= 12 + 260) {
			struct lnk_addr a[3] = {{.family = AF_INET},
						{.family = AF_INET6},
						{.family = AF_INET}};
			uint8_t out[512];
			size_t n =
			    dnsd_answer(data, &q, 0, a, 3, out, sizeof(out));
			if (n > sizeof(out))
				abort();
		}
	}
	struct lnk_addr a;
	uint16_t port;
	if (tproxy_head_decode(data, size, &a, &port) == 0 && port == 0)
		abort();
	return 0;
}
