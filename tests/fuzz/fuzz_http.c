/* libFuzzer target for the wire's HTTP head parser: any bytes must give
 * "more", a request, or a refusal with a status; never a crash. A request
 * is checked for what the wire relies on: the head inside the input, a
 * host that is a C string without the bytes the filter must never see,
 * a port, and a rewrite that ends its head and carries no proxy header. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/buf.h"
#include "wire/http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct http_req r;
	const char *buf = (const char *)data;
	enum http_result h = http_parse_head(buf, size, &r);
	if (h == HTTP_BAD) {
		if (r.status < 400 || r.status > 599 || !r.why)
			abort();
		return 0;
	}
	if (h == HTTP_MORE)
		return 0;
	if (r.head_len > size || r.head_len > HTTP_HEAD_MAX || !r.host[0] ||
	    r.port == 0 || strlen(r.host) >= sizeof(r.host))
		abort();
	for (const char *p = r.host; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == '/' || *p == '@')
			abort();
	if (!r.connect) {
		struct buf b = {0};
		http_rewrite_head(buf, &r, &b);
		if (b.len < 4 || memcmp(b.p + b.len - 4, "\r\n\r\n", 4) != 0 ||
		    strcasestr(b.p, "\r\nproxy-authorization:"))
			abort();
		buf_free(&b);
	}
	return 0;
}
