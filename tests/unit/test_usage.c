/* The model route's readers: usage in JSON answers and server-sent events
 * (Anthropic's and OpenAI's), chunked or not, split at every byte and
 * every pair of boundaries; the request's model, stream and
 * stream_options; hostile answers that must never yield a guess. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/buf.h"
#include "policy/models.h"
#include "wire/usage.h"

static const char anthropic_sse[] =
    "event: message_start\r\n"
    "data: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"usage\":"
    "{\"input_tokens\":11,\"cache_read_input_tokens\":4,\"output_tokens\":1}"
    "}}\r\n\r\n"
    "event: content_block_delta\n"
    "data: {\"type\":\"content_block_delta\",\"delta\":{\"text\":"
    "\"\\\"usage\\\": {\\\"input_tokens\\\": 999}\"}}\n\n"
    ": a comment\n"
    "event: message_delta\n"
    "data: {\"type\":\"message_delta\",\"usage\":{\"output_tokens\":7}}\n\n"
    "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";

static const char openai_sse[] =
    "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}],\"usage\":null}\n\n"
    "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":13,"
    "\"completion_tokens\":5,\"total_tokens\":18,"
    "\"prompt_tokens_details\":{\"cached_tokens\":100}}}\n\n"
    "data: [DONE]\n\n";

static const char openai_json[] =
    "{\"id\":\"c\",\"choices\":[{\"message\":{\"content\":\"x\"}}],"
    "\"usage\":{\"prompt_tokens\":13,\"completion_tokens\":5}}";

/* An HTTP answer around body: chunked in pieces of csize (0: one
 * Content-Length body). */
static void answer(struct buf *b, const char *ctype, const char *body,
		   size_t csize)
{
	size_t n = strlen(body);
	buf_printf(b, "HTTP/1.1 200 OK\r\nContent-Type: %s\r\n", ctype);
	if (!csize) {
		buf_printf(b, "Content-Length: %zu\r\n\r\n", n);
		buf_append(b, body, n);
		return;
	}
	buf_puts(b, "Transfer-Encoding: chunked\r\n\r\n");
	for (size_t i = 0; i < n; i += csize) {
		size_t k = n - i < csize ? n - i : csize;
		buf_printf(b, "%zx;ext=1\r\n", k);
		buf_append(b, body + i, k);
		buf_puts(b, "\r\n");
	}
	buf_puts(b, "0\r\nX-Trailer: 1\r\n\r\n");
}

/* Feeds s split at a and at b (a <= b), then ends it. */
static void read3(const char *s, size_t n, size_t a, size_t b, int64_t *in,
		  int64_t *out, bool *done)
{
	struct usage_reader u;
	usage_init(&u);
	usage_feed(&u, s, a);
	usage_feed(&u, s + a, b - a);
	usage_feed(&u, s + b, n - b);
	*done = usage_done(&u);
	usage_finish(&u);
	*in = u.in;
	*out = u.out;
	usage_free(&u);
}

static void every_split(const struct buf *b, int64_t want_in, int64_t want_out)
{
	for (size_t a = 0; a <= b->len; a++) {
		int64_t in, out;
		bool done;
		read3(b->p, b->len, a, a, &in, &out, &done);
		assert_int_equal(in, want_in);
		assert_int_equal(out, want_out);
		assert_true(done);
	}
	/* two splits: a sample of pairs (every pair is quadratic) */
	for (size_t a = 0; a <= b->len; a += 11)
		for (size_t c = a; c <= b->len; c += 17) {
			int64_t in, out;
			bool done;
			read3(b->p, b->len, a, c, &in, &out, &done);
			assert_int_equal(in, want_in);
			assert_int_equal(out, want_out);
		}
}

static void anthropic_stream_split_everywhere(void **state)
{
	(void)state;
	for (size_t cs = 0; cs < 40; cs += 13) {
		struct buf b = {0};
		answer(&b, "text/event-stream; charset=utf-8", anthropic_sse,
		       cs ? cs : 1);
		every_split(&b, 15, 7);
		buf_free(&b);
	}
}

static void openai_stream_and_json(void **state)
{
	(void)state;
	struct buf b = {0};
	answer(&b, "text/event-stream", openai_sse, 5);
	every_split(&b, 13, 5);
	buf_free(&b);
	answer(&b, "application/json", openai_json, 0);
	every_split(&b, 13, 5);
	buf_free(&b);
	answer(&b, "application/json", openai_json, 1);
	every_split(&b, 13, 5);
	buf_free(&b);
}

static void unknown_is_never_guessed(void **state)
{
	(void)state;
	static const char *const bodies[] = {
	    "{\"choices\":[]}",			   /* no usage */
	    "{\"usage\":null}",			   /* null */
	    "{\"usage\":{\"prompt_tokens\":-3}}",  /* negative */
	    "{\"usage\":{\"prompt_tokens\":1.5}}", /* not whole */
	    "{\"usage\":{\"prompt_tokens\":1e3}}",
	    "{\"usage\":{\"prompt_tokens\":99999999999999999999}}",
	    "{\"usage\":{\"prompt_tokens\":\"12\"}}", /* a string */
	    "{\"usage\":{\"prompt_tokens\":12}",      /* cut */
	    "{\"usage\":{\"prompt_tokens\":12}} x",   /* trailing */
	    "{\"usage\":{\"prompt_tokens\":12,}}",    /* bad comma */
	    "[\"usage\",{\"prompt_tokens\":12}]",     /* not a key */
	};
	for (size_t i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++) {
		struct buf b = {0};
		answer(&b, "application/json", bodies[i], 0);
		struct usage_reader u;
		usage_init(&u);
		usage_feed(&u, b.p, b.len);
		usage_finish(&u);
		assert_int_equal(u.in, -1);
		assert_int_equal(u.out, -1);
		usage_free(&u);
		buf_free(&b);
	}
	/* a compressed answer is not read */
	struct usage_reader u;
	usage_init(&u);
	const char *gz =
	    "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n"
	    "Content-Length: 61\r\n\r\n"
	    "{\"usage\":{\"prompt_tokens\":13,\"completion_tokens\":5}}"
	    "        ";
	usage_feed(&u, gz, strlen(gz));
	usage_finish(&u);
	assert_int_equal(u.in, -1);
	usage_free(&u);
}

static void hostile_answers(void **state)
{
	(void)state;
	/* not HTTP, bad chunk sizes, a huge head, deep nesting: no crash, no
	 * count */
	static const char *const bad[] = {
	    "\x00\xff garbage\r\n\r\n",
	    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
	    ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
	     "ffffffffffffffffff\r\n"),
	    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct usage_reader u;
		usage_init(&u);
		usage_feed(&u, bad[i], strlen(bad[i]));
		usage_finish(&u);
		assert_int_equal(u.in, -1);
		assert_int_equal(u.out, -1);
		usage_free(&u);
	}
	struct usage_reader u;
	usage_init(&u);
	const char *h = "HTTP/1.1 200 OK\r\n";
	usage_feed(&u, h, strlen(h));
	char junk[4096];
	memset(junk, 'a', sizeof(junk));
	for (int i = 0; i < 40; i++)
		usage_feed(&u, junk, sizeof(junk));
	assert_true(usage_bad(&u)); /* the head has a bound */
	usage_free(&u);
	/* nesting beyond the bound is refused, not recursed into */
	struct buf d = {0};
	for (int i = 0; i < 100000; i++)
		buf_putc(&d, '[');
	int64_t in = -1, out = -1;
	assert_int_equal(usage_scan_json(d.p, d.len, &in, &out), -1);
	buf_free(&d);
	/* an endless event stream holds no more than one event */
	usage_init(&u);
	h = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n"
	    "data: ";
	usage_feed(&u, h, strlen(h));
	for (int i = 0; i < 2000; i++)
		usage_feed(&u, junk, sizeof(junk));
	assert_true(u.doc.len <= USAGE_DOC_MAX);
	usage_finish(&u);
	assert_int_equal(u.in, -1);
	usage_free(&u);
	/* a 1xx answer first, then the real one */
	usage_init(&u);
	struct buf b = {0};
	buf_puts(&b, "HTTP/1.1 100 Continue\r\n\r\n");
	answer(&b, "application/json", openai_json, 0);
	usage_feed(&u, b.p, b.len);
	assert_true(usage_done(&u));
	assert_int_equal(u.status, 200);
	assert_int_equal(u.in, 13);
	usage_free(&u);
	buf_free(&b);
}

static void request_fields(void **state)
{
	(void)state;
	struct model_req_info ri;
	const char *r =
	    " {\"model\": \"gpt-4o-mini\", \"stream\" : true,"
	    "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
	assert_int_equal(usage_scan_request(r, strlen(r), &ri), 0);
	assert_string_equal(ri.model, "gpt-4o-mini");
	assert_true(ri.stream);
	assert_false(ri.has_stream_options);
	assert_int_equal(ri.obj_open, 2);
	r = "{\"stream_options\":{\"x\":1},\"stream\":false,\"model\":"
	    "\"a\\u0000b\"}";
	assert_int_equal(usage_scan_request(r, strlen(r), &ri), 0);
	assert_false(ri.stream);
	assert_true(ri.has_stream_options);
	assert_false(ri.has_include_usage);
	assert_int_equal(r[ri.so_open - 1], '{');
	assert_string_equal(ri.model, ""); /* escapes: not shown */
	r = "{\"stream_options\":{\"include_usage\":false},\"model\":"
	    "\"m;rm -rf\"}";
	assert_int_equal(usage_scan_request(r, strlen(r), &ri), 0);
	assert_true(ri.has_include_usage);
	assert_string_equal(ri.model, ""); /* not a model's name: not shown */
	r = "{\"model\":\"m\x1b[2J\"}";	   /* a raw control: not JSON */
	assert_int_equal(usage_scan_request(r, strlen(r), &ri), -1);
	assert_int_equal(usage_scan_request("[1]", 3, &ri), -1);
	assert_int_equal(usage_scan_request("{\"a\":}", 6, &ri), -1);
	assert_int_equal(usage_scan_request("{}", 2, &ri), 0);
}

static void model_entries(void **state)
{
	(void)state;
	struct model_def d;
	struct lnk_err err = {0};
	char out[MODEL_ENTRY_MAX];
	assert_int_equal(model_parse("anthropic", 9, &d, &err), 0);
	assert_int_equal(d.api, MODEL_API_ANTHROPIC);
	assert_string_equal(d.host, "api.anthropic.com");
	assert_int_equal(model_parse("OpenAI", 6, &d, &err), 0);
	model_format(&d, out, sizeof(out));
	assert_string_equal(out, "openai");
	const char *e = "My-GW=HTTPS://LLM.Example.com:8443/v1/";
	assert_int_equal(model_parse(e, strlen(e), &d, &err), 0);
	model_format(&d, out, sizeof(out));
	assert_string_equal(out, "my-gw=https://llm.example.com:8443/v1");
	model_key_var(&d, out, sizeof(out));
	assert_string_equal(out, "MY_GW_API_KEY");
	static const char *const bad[] = {
	    "gemini",
	    "anthropic=https://evil.example/",
	    "gw=http://llm.example.com/v1",
	    "gw=https://user@llm.example.com/v1",
	    "gw=https://llm.example.com/v1?key=1",
	    "gw=https://llm.example.com/../x",
	    "gw=https://llm.example.com/v1/./x",
	    "gw=https://llm.example.com:0/v1",
	    "gw=https:///v1",
	    "g w=https://llm.example.com/v1",
	    "gw=https://llm.example.com/v 1",
	    "=https://llm.example.com",
	    "gw=https://127.1/v1",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err.msg[0] = '\0';
		assert_int_not_equal(
		    model_parse(bad[i], strlen(bad[i]), &d, &err), 0);
		assert_true(err.msg[0] != '\0');
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(anthropic_stream_split_everywhere),
	    cmocka_unit_test(openai_stream_and_json),
	    cmocka_unit_test(unknown_is_never_guessed),
	    cmocka_unit_test(hostile_answers),
	    cmocka_unit_test(request_fields),
	    cmocka_unit_test(model_entries),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
