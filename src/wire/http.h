/* The HTTP proxy's request head parser: CONNECT and absolute-form requests.
 *
 * Everything here is hostile input from inside the sandbox. The parser is
 * pure (no I/O, fuzzed): it looks at the bytes received so far and says
 * "need more", "here is the request", or "bad, answer STATUS". Limits keep a
 * client from holding memory: HTTP_HEAD_MAX bytes and HTTP_HEADERS_MAX
 * header lines.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

#define HTTP_HEAD_MAX 16384
#define HTTP_HEADERS_MAX 100

enum http_result {
	HTTP_MORE = 0, /* no complete head yet */
	HTTP_DONE = 1, /* a request: see struct http_req */
	HTTP_BAD = -1, /* refused: answer status with why */
};

struct http_req {
	int connect; /* CONNECT host:port (else absolute-form) */
	char method[24];
	char host[256]; /* as sent, brackets removed for IPv6 */
	uint16_t port;
	size_t head_len; /* bytes of the head, final blank line included */
	/* absolute-form only: offsets into the buffer */
	size_t target_off, target_len; /* origin-form path ("/x?y") */
	size_t version_off;	       /* "HTTP/1.x" */
	size_t headers_off;	       /* first header line */
	/* absolute-form only: the body's length (Content-Length, 0 without
	 * one); the request ends there, and nothing after it is relayed */
	uint64_t body_len;
	int status;	 /* with HTTP_BAD */
	const char *why; /* with HTTP_BAD */
};

/* An absolute-form request with a Transfer-Encoding is refused (411): its
 * end could only be found by decoding its chunks, and a request whose end
 * the wire does not know could carry a second request to the server
 * unchecked. Content-Length must be digits, the same in every copy. */
enum http_result http_parse_head(const char *buf, size_t len,
				 struct http_req *r);

/* The head to send upstream for an absolute-form request: the request line
 * in origin form, hop-by-hop and Proxy-* headers dropped and
 * "Connection: close" added, so one client connection never carries calls
 * to a second host. Every Host header the client sent is replaced by one
 * naming the URL's host and port, the ones the grants checked and the log
 * shows (a different Host would pick another site on a shared address). */
void http_rewrite_head(const char *buf, const struct http_req *r,
		       struct buf *out);

/* A complete response the proxy sends itself (403, 400, 502, 504). */
/* "Host: HOST[:PORT]\r\n" for an upstream request: an IPv6 host in
 * brackets, the port left out where it is the scheme's own (default_port:
 * 80 for http, 443 for https). */
void http_put_host(struct buf *out, const char *host, unsigned port,
		   unsigned default_port);

void http_error_response(struct buf *out, int status, const char *target,
			 const char *why);
