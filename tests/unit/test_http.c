/* The HTTP head parser: CONNECT, absolute-form, rewrites, and hostile
 * heads (malformed, oversized, split at every byte). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/util.h"
#include "wire/http.h"

static void test_connect(void **state)
{
	(void)state;
	struct http_req r;
	const char *s = "CONNECT example.com:443 HTTP/1.1\r\n"
			"Host: example.com:443\r\n\r\nTLS";
	assert_int_equal(http_parse_head(s, strlen(s), &r), HTTP_DONE);
	assert_true(r.connect);
	assert_string_equal(r.host, "example.com");
	assert_int_equal(r.port, 443);
	assert_int_equal(r.head_len, strlen(s) - 3);
	s = "CONNECT [2001:db8::1]:8443 HTTP/1.1\r\n\r\n";
	assert_int_equal(http_parse_head(s, strlen(s), &r), HTTP_DONE);
	assert_string_equal(r.host, "2001:db8::1");
	assert_int_equal(r.port, 8443);
}

static void test_absolute(void **state)
{
	(void)state;
	struct http_req r;
	const char *s =
	    "GET http://Origin.lnk-test:8080/a/b?c=d#frag HTTP/1.1\r\n"
	    "Host: origin.lnk-test:8080\r\n"
	    "Proxy-Connection: keep-alive\r\n"
	    "Proxy-Authorization: Basic eA==\r\n"
	    "Connection: keep-alive\r\n"
	    "Accept: */*\r\n\r\n";
	assert_int_equal(http_parse_head(s, strlen(s), &r), HTTP_DONE);
	assert_false(r.connect);
	assert_string_equal(r.host, "Origin.lnk-test");
	assert_int_equal(r.port, 8080);
	struct buf b = {0};
	http_rewrite_head(s, &r, &b);
	assert_string_equal(b.p, "GET /a/b?c=d HTTP/1.1\r\n"
				 "Host: Origin.lnk-test:8080\r\n"
				 "Accept: */*\r\n"
				 "Connection: close\r\n\r\n");
	buf_free(&b);
	s = "HEAD http://h.test HTTP/1.0\r\n\r\n";
	assert_int_equal(http_parse_head(s, strlen(s), &r), HTTP_DONE);
	assert_int_equal(r.port, 80);
	http_rewrite_head(s, &r, &b);
	assert_string_equal(b.p, "HEAD / HTTP/1.0\r\nHost: h.test\r\n"
				 "Connection: close\r\n\r\n");
	buf_free(&b);
	s = "GET http://h.test?x HTTP/1.1\r\n\r\n";
	assert_int_equal(http_parse_head(s, strlen(s), &r), HTTP_DONE);
	http_rewrite_head(s, &r, &b);
	assert_string_equal(b.p, "GET /?x HTTP/1.1\r\nHost: h.test\r\n"
				 "Connection: close\r\n\r\n");
	buf_free(&b);
}

/* The Host upstream is the URL's, the one the grants checked: a client's
 * other Host (one, several, any case) never goes on. */
struct host_row {
	const char *head, *want;
};

static const struct host_row host_rows[] = {
    {"GET http://granted.test/ HTTP/1.1\r\nHost: other.test\r\n\r\n",
     "GET / HTTP/1.1\r\nHost: granted.test\r\nConnection: close\r\n\r\n"},
    {"GET http://granted.test/ HTTP/1.1\r\nhOsT: other.test\r\n"
     "A: b\r\nHOST: third.test\r\n\r\n",
     "GET / HTTP/1.1\r\nHost: granted.test\r\nA: b\r\n"
     "Connection: close\r\n\r\n"},
    {"GET http://granted.test:8080/x HTTP/1.1\r\nHost: granted.test\r\n\r\n",
     "GET /x HTTP/1.1\r\nHost: granted.test:8080\r\n"
     "Connection: close\r\n\r\n"},
    {"GET http://[2001:db8::1]/ HTTP/1.1\r\nHost: other.test\r\n\r\n",
     "GET / HTTP/1.1\r\nHost: [2001:db8::1]\r\nConnection: close\r\n\r\n"},
    {"GET http://198.18.0.2:81/ HTTP/1.0\r\nHost:other.test\r\n\r\n",
     "GET / HTTP/1.0\r\nHost: 198.18.0.2:81\r\nConnection: close\r\n\r\n"},
    /* a header that only starts with "host" stays */
    {"GET http://g.test/ HTTP/1.1\r\nHostile: 1\r\n\r\n",
     "GET / HTTP/1.1\r\nHost: g.test\r\nHostile: 1\r\n"
     "Connection: close\r\n\r\n"},
};

static void test_host_rewrite(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(host_rows) / sizeof(host_rows[0]); i++) {
		struct http_req r;
		const char *s = host_rows[i].head;
		assert_int_equal(http_parse_head(s, strlen(s), &r), HTTP_DONE);
		struct buf b = {0};
		http_rewrite_head(s, &r, &b);
		if (strcmp(b.p, host_rows[i].want) != 0)
			fail_msg("row %zu: got %s", i, b.p);
		buf_free(&b);
	}
}

struct bad {
	const char *head;
	int status;
};

static const struct bad bads[] = {
    {"GET /local HTTP/1.1\r\n\r\n", 400},
    {"GET https://x.test/ HTTP/1.1\r\n\r\n", 400},
    {"GET ftp://x.test/ HTTP/1.1\r\n\r\n", 400},
    {"GET http://user:pw@x.test/ HTTP/1.1\r\n\r\n", 400},
    {"GET http://x.test:0/ HTTP/1.1\r\n\r\n", 400},
    {"GET http://x.test:65536/ HTTP/1.1\r\n\r\n", 400},
    {"GET http://x.test:8a/ HTTP/1.1\r\n\r\n", 400},
    /* the grammar's port: no leading zero, as the spec refuses it */
    {"GET http://x.test:080/ HTTP/1.1\r\n\r\n", 400},
    {"GET http:/// HTTP/1.1\r\n\r\n", 400},
    {"GET http://[::1/ HTTP/1.1\r\n\r\n", 400},
    {"GET http://[x.test]/ HTTP/1.1\r\n\r\n", 400},
    {"CONNECT x.test HTTP/1.1\r\n\r\n", 400},
    {"CONNECT x.test: HTTP/1.1\r\n\r\n", 400},
    {"CONNECT :443 HTTP/1.1\r\n\r\n", 400},
    {"GET http://x.test/ HTTP/2.0\r\n\r\n", 505},
    {"GET http://x.test/ HTTP/1.1 \r\n\r\n", 505},
    {"GET  http://x.test/ HTTP/1.1\r\n\r\n", 400},
    {"GET http://x.test/\tHTTP/1.1\r\n\r\n", 400},
    {"GET http://x.test/ HTTP/1.1\nHost: x\r\n\r\n", 400},
    {"GET http://x.test/ HTTP/1.1\r\nHost: x\rX: y\r\n\r\n", 400},
    {"GET http://x.test/ HTTP/1.1\r\nHost : x\r\n\r\n", 400},
    {"GET http://x.test/ HTTP/1.1\r\n folded\r\n\r\n", 400},
    {"GET http://x.test/ HTTP/1.1\r\nNoColon\r\n\r\n", 400},
    {"G(T http://x.test/ HTTP/1.1\r\n\r\n", 400},
    /* a request whose end the wire cannot know is not relayed */
    {"POST http://x.test/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", 411},
    {"POST http://x.test/ HTTP/1.1\r\ntransfer-encoding: identity\r\n"
     "Content-Length: 3\r\n\r\n",
     411},
    {"POST http://x.test/ HTTP/1.1\r\nContent-Length: 3\r\n"
     "Content-Length: 4\r\n\r\n",
     400},
    {"POST http://x.test/ HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400},
    {"POST http://x.test/ HTTP/1.1\r\nContent-Length: 3, 3\r\n\r\n", 400},
    {"POST http://x.test/ HTTP/1.1\r\nContent-Length: 0x10\r\n\r\n", 400},
    {"POST http://x.test/ HTTP/1.1\r\nContent-Length:\r\n\r\n", 400},
    {"POST http://x.test/ HTTP/1.1\r\nContent-Length: "
     "1234567890123456789\r\n\r\n",
     400},
    {"\r\n\r\n", 400},
    {"GET http://x.test/\x01 HTTP/1.1\r\n\r\n", 400},
    {"GET http://x\\y.test/ HTTP/1.1\r\n\r\n", 400},
};

static void test_bad(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		struct http_req r;
		enum http_result h =
		    http_parse_head(bads[i].head, strlen(bads[i].head), &r);
		if (h != HTTP_BAD || r.status != bads[i].status)
			fail_msg("row %zu: result %d status %d, want %d", i, h,
				 r.status, bads[i].status);
	}
	/* a NUL inside */
	static const char nul[] =
	    "GET http://x.test/ HTTP/1.1\r\nA: \0\r\n\r\n";
	struct http_req r;
	assert_int_equal(http_parse_head(nul, sizeof(nul) - 1, &r), HTTP_BAD);
}

static void test_limits(void **state)
{
	(void)state;
	struct http_req r;
	/* oversized: no end within the limit */
	char *big = xmalloc(HTTP_HEAD_MAX + 100);
	memcpy(big, "GET http://x.test/ HTTP/1.1\r\nA: ", 32);
	memset(big + 32, 'a', HTTP_HEAD_MAX + 100 - 32);
	assert_int_equal(http_parse_head(big, HTTP_HEAD_MAX + 100, &r),
			 HTTP_BAD);
	assert_int_equal(r.status, 431);
	/* under the limit but incomplete: more */
	assert_int_equal(http_parse_head(big, 1000, &r), HTTP_MORE);
	free(big);
	/* too many header lines */
	struct buf b = {0};
	buf_puts(&b, "GET http://x.test/ HTTP/1.1\r\n");
	for (int i = 0; i < HTTP_HEADERS_MAX + 5; i++)
		buf_puts(&b, "A: b\r\n");
	buf_puts(&b, "\r\n");
	assert_int_equal(http_parse_head(b.p, b.len, &r), HTTP_BAD);
	assert_int_equal(r.status, 431);
	buf_free(&b);
}

/* Where a plain-HTTP request ends: its head and Content-Length bytes;
 * what follows (a pipelined second request) is no part of it. */
static void test_request_end(void **state)
{
	(void)state;
	struct http_req r;
	const char *two = "GET http://x.test/ HTTP/1.1\r\nHost: x.test\r\n\r\n"
			  "GET / HTTP/1.1\r\nHost: other.test\r\n\r\n";
	assert_int_equal(http_parse_head(two, strlen(two), &r), HTTP_DONE);
	assert_int_equal(r.head_len, 45);
	assert_int_equal(r.body_len, 0);
	const char *post = "POST http://x.test/ HTTP/1.1\r\n"
			   "content-length:  5 \r\nContent-Length: 5\r\n\r\n"
			   "helloGET / HTTP/1.1\r\n\r\n";
	assert_int_equal(http_parse_head(post, strlen(post), &r), HTTP_DONE);
	assert_int_equal(r.body_len, 5);
	/* CONNECT carries a tunnel, not a request body */
	const char *c = "CONNECT x.test:443 HTTP/1.1\r\n"
			"Transfer-Encoding: chunked\r\n\r\n";
	assert_int_equal(http_parse_head(c, strlen(c), &r), HTTP_DONE);
}

/* Split at every byte: MORE until the last byte, then the same answer. */
static void test_split(void **state)
{
	(void)state;
	const char *s = "CONNECT origin.lnk-test:443 HTTP/1.1\r\n"
			"User-Agent: t\r\n\r\n";
	size_t n = strlen(s);
	for (size_t i = 0; i < n; i++) {
		struct http_req r;
		if (http_parse_head(s, i, &r) != HTTP_MORE)
			fail_msg("complete at %zu of %zu", i, n);
	}
	struct http_req r;
	assert_int_equal(http_parse_head(s, n, &r), HTTP_DONE);
}

static void test_error_response(void **state)
{
	(void)state;
	struct buf b = {0};
	http_error_response(&b, 403, "x.test:443", "host not in the grants");
	assert_non_null(strstr(b.p, "HTTP/1.1 403 Forbidden\r\n"));
	const char *body = strstr(b.p, "\r\n\r\n") + 4;
	char want[64];
	snprintf(want, sizeof(want), "Content-Length: %zu\r\n", strlen(body));
	assert_non_null(strstr(b.p, want));
	buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_connect),
	    cmocka_unit_test(test_absolute),
	    cmocka_unit_test(test_host_rewrite),
	    cmocka_unit_test(test_bad),
	    cmocka_unit_test(test_limits),
	    cmocka_unit_test(test_split),
	    cmocka_unit_test(test_request_end),
	    cmocka_unit_test(test_error_response),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
