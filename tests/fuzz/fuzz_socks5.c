/* libFuzzer target for the SOCKS5 greeting and request parsers: never a
 * crash; a request's host is a C string of exactly the bytes sent (no NUL
 * inside to shorten it past the filter), its port non-zero, and the bytes
 * consumed within the input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wire/socks5.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int reply;
	int n = socks5_parse_greeting(data, size, &reply);
	if (n > (int)size)
		abort();
	size_t off = n > 0 ? (size_t)n : 0;
	struct socks5_req r;
	enum socks5_rep rep;
	int m = socks5_parse_request(data + off, size - off, &r, &rep);
	if (m > 0) {
		if ((size_t)m > size - off || r.port == 0 || !r.host[0])
			abort();
		if (!r.is_addr && strlen(r.host) != data[off + 4])
			abort();
	}
	uint8_t out[22];
	if (socks5_reply(rep, m > 0 && r.is_addr ? &r.addr : NULL, r.port,
			 out) > 22)
		abort();
	return 0;
}
