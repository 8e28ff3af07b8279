/* The model route's readers: usage in JSON answers and server-sent events
 * (Anthropic's and OpenAI's), chunked or not, split at every byte and
 * every pair of boundaries; the request's model, stream and
 * stream_options read as the provider reads them (escapes decoded, what
 * could be read two ways refused); the calls a route carries; hostile
 * answers that must never yield a guess. */
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
#include "proto/usage.h"

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
	assert_int_equal(usage_scan_json(d.p, d.len, &in, &out, NULL), -1);
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

static int scan(const char *r, struct model_req_info *ri)
{
	return usage_scan_request(r, strlen(r), ri);
}

static void request_fields(void **state)
{
	(void)state;
	struct model_req_info ri;
	const char *r =
	    " {\"model\": \"gpt-4o-mini\", \"stream\" : true,"
	    "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
	assert_int_equal(scan(r, &ri), 0);
	assert_string_equal(ri.model, "gpt-4o-mini");
	assert_true(ri.stream);
	assert_false(ri.has_stream_options);
	assert_int_equal(ri.obj_open, 2);
	r = "{\"stream_options\":{\"x\":1},\"stream\":false,\"model\":"
	    "\"a/b:c@d\"}";
	assert_int_equal(scan(r, &ri), 0);
	assert_false(ri.stream);
	assert_true(ri.has_stream_options);
	assert_false(ri.has_include_usage);
	assert_int_equal(r[ri.so_open - 1], '{');
	assert_string_equal(ri.model, "a/b:c@d");
	r = "{\"stream_options\":{\"include_usage\":false},\"model\":"
	    "\"m;x\",\"stream\":null}";
	assert_int_equal(scan(r, &ri), 0);
	assert_true(ri.has_include_usage);
	assert_false(ri.stream);
	assert_string_equal(ri.model, "m;x");
	assert_int_equal(scan("{}", &ri), 0);
	assert_int_equal(scan("{\"messages\":[]}", &ri), 0);
	assert_string_equal(ri.model, ""); /* not given */
}

/* The provider decodes keys and strings before it reads them: so does
 * the route, or a stream it does not see goes uncounted and a model it
 * does not see goes unnamed. */
static void request_escapes_decoded(void **state)
{
	(void)state;
	struct model_req_info ri;
	const char *r =
	    "{\"m\\u006fdel\":\"gpt\\u002d4o\",\"str\\u0065am\":true}";
	assert_int_equal(scan(r, &ri), 0);
	assert_string_equal(ri.model, "gpt-4o");
	assert_true(ri.stream);
	r = "{\"\\u006D\\u006F\\u0064\\u0065\\u006C\":\"m\\/1\","
	    "\"stream\\u005foptions\":{\"include\\u005Fusage\":true},"
	    "\"s\\u0074ream\":true}";
	assert_int_equal(scan(r, &ri), 0);
	assert_string_equal(ri.model, "m/1");
	assert_true(ri.stream);
	assert_true(ri.has_stream_options);
	assert_true(ri.has_include_usage);
	/* a surrogate pair and UTF-8 in other strings are fine */
	r = "{\"model\":\"m\",\"x\":\"\\ud83d\\ude00 \xf0\x9f\x98\x80\","
	    "\"y\":\"\\ud800 lone in a value\"}";
	assert_int_equal(scan(r, &ri), 0);
}

/* What two readers could read two ways is refused, with a reason. */
static void request_refusals(void **state)
{
	(void)state;
	struct model_req_info ri;
	static const struct {
		const char *body, *why;
	} rows[] = {
	    /* duplicates, however spelled */
	    {"{\"model\":\"a\",\"model\":\"b\"}", "\"model\" twice"},
	    {"{\"model\":\"a\",\"m\\u006fdel\":\"b\"}", "\"model\" twice"},
	    {"{\"stream\":false,\"stream\":true}", "\"stream\" twice"},
	    {"{\"str\\u0065am\":false,\"stream\":true}", "\"stream\" twice"},
	    {"{\"stream_options\":{},\"stream_options\":{}}", "twice"},
	    {"{\"stream_options\":{\"include_usage\":false,"
	     "\"include_usage\":true}}",
	     "\"include_usage\" twice"},
	    {"{\"a\":1,\"b\":2,\"\\u0061\":3}", "a top-level key twice"},
	    /* what a case-blind reader (Go's) takes for a key read here */
	    {"{\"Model\":\"a\"}", "read as \"model\""},
	    {"{\"STREAM\":true}", "read as \"stream\""},
	    {"{\"\xc5\xbftream\":true}", "read as \"stream\""},
	    {"{\"\\u017ftream\":true}", "read as \"stream\""},
	    {"{\"stream_options\":{\"Include_Usage\":true}}",
	     "\"include_usage\""},
	    {"{\"stream_opt\u0131ons\":{}}", "\"stream_options\""},
	    {"{\"stream_options\":{\"\u0130nclude_usage\":true}}",
	     "\"include_usage\""},
	    /* values the route reads must be what they say */
	    {"{\"stream\":\"true\"}", "not true or false"},
	    {"{\"stream\":1}", "not true or false"},
	    {"{\"model\":7}", "\"model\" is not a name"},
	    {"{\"model\":\"\"}", "\"model\" is not a name"},
	    {"{\"model\":\"a b\"}", "\"model\" is not a name"},
	    {"{\"model\":\"a\\u0000b\"}", "\"model\" is not a name"},
	    {"{\"model\":\"\\u00e9\"}", "\"model\" is not a name"},
	    /* malformed: never guessed */
	    {"{\"model\":\"m\x1b[2J\"}", "malformed"},
	    {"{\"model\":\"m\\x\"}", "malformed"},
	    {"{\"model\":\"m\\u12\"}", "malformed"},
	    {"{\"a\":}", "malformed"},
	    {"{\"a\":1,}", "malformed"},
	    {"{\"a\":NaN}", "malformed"},
	    {"{\"a\":1", "malformed"},
	    {"[1]", "not one JSON object"},
	    {"\xef\xbb\xbf{}", "not one JSON object"},
	    {"{} {}", "more than one JSON value"},
	    {"{\"a\":\"\xc0\xaf\"}", "not valid UTF-8"},
	    {"{\"a\":\"\xed\xa0\x80\"}", "not valid UTF-8"},
	    {"{\"a\":\"\xff\"}", "not valid UTF-8"},
	    {"{\"mod\xc3\"}", "not valid UTF-8"},
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		ri.why[0] = '\0';
		if (scan(rows[i].body, &ri) != -1 ||
		    !strstr(ri.why, rows[i].why))
			fail_msg("row %zu: %s -> '%s'", i, rows[i].body,
				 ri.why);
		assert_string_equal(ri.model, "");
		assert_false(ri.stream);
	}
}

/* Bounded: depth, the number and the length of top-level keys. */
static void request_bounds(void **state)
{
	(void)state;
	struct model_req_info ri;
	struct buf b = {0};
	buf_puts(&b, "{\"a\":");
	for (int i = 0; i < 70; i++)
		buf_putc(&b, '[');
	for (int i = 0; i < 70; i++)
		buf_putc(&b, ']');
	buf_putc(&b, '}');
	assert_int_equal(usage_scan_request(b.p, b.len, &ri), -1);
	assert_non_null(strstr(ri.why, "deeper"));
	buf_free(&b);
	buf_putc(&b, '{');
	for (int i = 0; i <= USAGE_REQ_KEYS_MAX; i++)
		buf_printf(&b, "%s\"k%d\":0", i ? "," : "", i);
	buf_putc(&b, '}');
	assert_int_equal(usage_scan_request(b.p, b.len, &ri), -1);
	assert_non_null(strstr(ri.why, "more than 1024"));
	/* one fewer: read, and a duplicate among many still found */
	b.len = 0;
	buf_putc(&b, '{');
	for (int i = 0; i < USAGE_REQ_KEYS_MAX; i++)
		buf_printf(&b, "%s\"k%d\":0", i ? "," : "", i);
	buf_putc(&b, '}');
	assert_int_equal(usage_scan_request(b.p, b.len, &ri), 0);
	b.len = 0;
	buf_putc(&b, '{');
	for (int i = 0; i < 600; i++)
		buf_printf(&b, "\"k%d\":0,", i);
	buf_puts(&b, "\"k\\u0035\\u00311\":1}"); /* k511 */
	assert_int_equal(usage_scan_request(b.p, b.len, &ri), -1);
	assert_non_null(strstr(ri.why, "twice"));
	b.len = 0;
	buf_puts(&b, "{\"");
	for (int i = 0; i < 257; i++)
		buf_putc(&b, 'k');
	buf_puts(&b, "\":1}");
	assert_int_equal(usage_scan_request(b.p, b.len, &ri), -1);
	assert_non_null(strstr(ri.why, "longer than 256"));
	buf_free(&b);
}

/* The answer's keys are decoded too: a provider's escaped usage counts. */
static void answer_keys_decoded(void **state)
{
	(void)state;
	int64_t in = -1, out = -1;
	const char *j = "{\"us\\u0061ge\":{\"prompt_\\u0074okens\":3,"
			"\"completion_tokens\":4}}";
	assert_int_equal(usage_scan_json(j, strlen(j), &in, &out, NULL), 0);
	assert_int_equal(in, 3);
	assert_int_equal(out, 4);
}

/* The model the answer says answered, as the log keeps it: the
 * document's own "model", or its "message"'s (Anthropic's message_start)
 * or "response"'s (OpenAI's Responses events); the first one found; only
 * a printable name (a hostile answer writes no control characters or
 * spaces into the log); a "model" deeper than that is no answer's. */
static void answer_model_read(void **state)
{
	(void)state;
	struct {
		const char *json;
		const char *model;
	} rows[] = {
	    {"{\"id\":\"x\",\"model\":\"gpt-4o-mini-2024-07-18\"}",
	     "gpt-4o-mini-2024-07-18"},
	    {"{\"type\":\"message_start\",\"message\":{\"model\":"
	     "\"claude-3-haiku-20240307\",\"usage\":{\"input_tokens\":5}}}",
	     "claude-3-haiku-20240307"},
	    {"{\"type\":\"response.created\",\"response\":{\"model\":"
	     "\"o4-mini\"}}",
	     "o4-mini"},
	    {"{\"m\\u006fdel\":\"esc\\u0061ped\"}", "escaped"},
	    {"{\"choices\":[{\"model\":\"deep\"}],\"x\":{\"model\":\"no\"}}",
	     ""},
	    {"{\"message\":{\"message\":{\"model\":\"two-deep\"}}}", ""},
	    {"{\"model\":\"a b\"}", ""},
	    {"{\"model\":\"x\\\",\\\"outcome\\\":\\\"refused\"}", ""},
	    {"{\"model\":\"gpt-4o;refused:x\"}", ""},
	    {"{\"model\":\"cut...\"}", ""},
	    {"{\"model\":\"meta-llama/Llama-3.1-70B@v1+q\"}",
	     "meta-llama/Llama-3.1-70B@v1+q"},
	    {"{\"model\":\"\\u001b[2J\"}", ""},
	    {"{\"model\":\"\"}", ""},
	    {"{\"model\":42}", ""},
	    {"{\"model\":\"first\",\"model\":\"second\"}", "first"},
	    {"[{\"model\":\"in-an-array\"}]", ""},
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int64_t in = -1, out = -1;
		char model[USAGE_MODEL_MAX] = "";
		assert_int_equal(usage_scan_json(rows[i].json,
						 strlen(rows[i].json), &in,
						 &out, model),
				 0);
		if (strcmp(model, rows[i].model) != 0)
			fail_msg("%s: '%s', not '%s'", rows[i].json, model,
				 rows[i].model);
	}
	/* a model already found stands: a later event's is not read */
	char model[USAGE_MODEL_MAX] = "kept";
	int64_t in = -1, out = -1;
	const char *j = "{\"model\":\"later\"}";
	assert_int_equal(usage_scan_json(j, strlen(j), &in, &out, model), 0);
	assert_string_equal(model, "kept");
	/* a name longer than 127 characters is none */
	char longj[400];
	snprintf(longj, sizeof(longj), "{\"model\":\"%0200d\"}", 0);
	model[0] = '\0';
	assert_int_equal(
	    usage_scan_json(longj, strlen(longj), &in, &out, model), 0);
	assert_string_equal(model, "");
	/* through the reader: a stream's first event names it */
	struct usage_reader u;
	usage_init(&u);
	const char *a =
	    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n"
	    "data: {\"model\":\"served-1\",\"choices\":[]}\n\n"
	    "data: {\"model\":\"served-2\",\"choices\":[]}\n\n"
	    "data: [DONE]\n\n";
	usage_feed(&u, a, strlen(a));
	usage_finish(&u);
	assert_string_equal(u.model, "served-1");
	usage_free(&u);
}

/* The calls a route carries: its provider's inference calls, or its
 * entry's own; path tricks refused as such whatever the list says. */
static void route_calls(void **state)
{
	(void)state;
	struct model_def a, o, g, own;
	struct lnk_err err = {0};
	const char *why;
	assert_int_equal(model_parse("anthropic", 9, &a, &err), 0);
	assert_int_equal(model_parse("openai", 6, &o, &err), 0);
	const char *e = "gw=https://llm.example.com/v1";
	assert_int_equal(model_parse(e, strlen(e), &g, &err), 0);
	e = "own=https://llm.example.com/v1 POST /chat/completions,GET "
	    "/models,  GET /models/*, DELETE /x/*/y";
	assert_int_equal(model_parse(e, strlen(e), &own, &err), 0);
	char out[MODEL_ENTRY_MAX];
	model_format(&own, out, sizeof(out));
	assert_string_equal(out, "own=https://llm.example.com/v1 POST "
				 "/chat/completions, GET /models, GET "
				 "/models/*, DELETE /x/*/y");
	const struct {
		const struct model_def *d;
		const char *method, *target;
		int status;
	} rows[] = {
	    {&a, "POST", "/v1/messages", 0},
	    {&a, "POST", "/v1/messages?beta=true", 0},
	    {&a, "POST", "/v1/messages/count_tokens", 0},
	    {&a, "GET", "/v1/messages", 403},
	    {&a, "POST", "/v1/files", 403},
	    {&a, "GET", "/v1/files", 403},
	    {&a, "DELETE", "/v1/files/file_1", 403},
	    {&a, "POST", "/v1/messages/batches", 403},
	    {&a, "POST", "/v1/messages/", 403},
	    {&a, "post", "/v1/messages", 403},
	    {&o, "POST", "/chat/completions", 0},
	    {&o, "POST", "/responses", 0},
	    {&o, "POST", "/completions", 0},
	    {&o, "POST", "/embeddings", 0},
	    {&o, "GET", "/files", 403},
	    {&o, "DELETE", "/files/file-abc", 403},
	    {&o, "GET", "/models", 403},
	    {&o, "POST", "", 403},
	    {&o, "POST", "?x=1", 403},
	    {&o, "GET", "/files?/chat/completions", 400},
	    {&o, "GET", "/files?a=chat", 403},
	    {&o, "POST", "/chat/completions/../../files", 400},
	    {&o, "POST", "/files/../chat/completions", 400},
	    {&o, "POST", "/./chat/completions", 400},
	    {&o, "POST", "/%2e%2e/files", 400},
	    {&o, "POST", "/chat%2Fcompletions", 400},
	    {&o, "POST", "//chat/completions", 400},
	    {&o, "POST", "/chat//completions", 400},
	    {&o, "POST", "/chat/completions;/../files", 400},
	    {&o, "POST", "/chat\\completions", 400},
	    {&o, "POST", "/chat/completions?_method=DELETE", 400},
	    {&o, "POST", "/chat/completions?x=/../../files", 400},
	    {&o, "POST", "/chat/completions?url=x", 400},
	    {&o, "POST", "/chat/completions?a=1&%5Fm%65thod=DELETE", 400},
	    {&o, "POST", "/chat/completions?X-HTTP-Method-Override=GET", 400},
	    {&o, "POST", "/chat/completions?a=%2f", 400},
	    {&o, "POST", "/chat/completions?a=%2E%2E", 400},
	    {&o, "POST", "/chat/completions?a=..", 400},
	    {&o, "POST", "/chat/completions?a=%", 400},
	    {&o, "POST", "/chat/completions?api-version=2024-10-21", 0},
	    {&g, "POST", "/chat/completions", 0},
	    {&g, "POST", "/messages", 403},
	    {&g, "GET", "/models", 403},
	    {&own, "GET", "/models", 0},
	    {&own, "GET", "/models/gpt-4o", 0},
	    {&own, "GET", "/models/a/b", 403},
	    {&own, "GET", "/models/", 403},
	    {&own, "DELETE", "/x/1/y", 0},
	    {&own, "DELETE", "/x/1/z", 403},
	    {&own, "POST", "/responses", 403},
	    {&own, "POST", "/chat/completions", 0},
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		why = NULL;
		int st = model_call_check(
		    rows[i].d, rows[i].method, strlen(rows[i].method),
		    rows[i].target, strlen(rows[i].target), &why);
		if (st != rows[i].status || (st && (!why || !*why)))
			fail_msg("row %zu: %s %s -> %d", i, rows[i].method,
				 rows[i].target, st);
	}
	static const char *const bad[] = {
	    "openai POST /files",
	    "gw=https://h.example/v1 ",
	    "gw=https://h.example/v1 post /x",
	    "gw=https://h.example/v1 POST",
	    "gw=https://h.example/v1 POST x",
	    "gw=https://h.example/v1 POST /a/../b",
	    "gw=https://h.example/v1 POST /a/%2e",
	    "gw=https://h.example/v1 POST /a//b",
	    "gw=https://h.example/v1 POST /a/",
	    "gw=https://h.example/v1 POST /a?b",
	    "gw=https://h.example/v1 POST /a,",
	    "gw=https://h.example/v1 POST /a*",
	    "gw=https://h.example/v1 POST /a;b",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err.msg[0] = '\0';
		if (model_parse(bad[i], strlen(bad[i]), &g, &err) == 0 ||
		    !err.msg[0])
			fail_msg("accepted: %s", bad[i]);
	}
	struct buf b = {0};
	buf_puts(&b, "gw=https://h.example/v1 ");
	for (int i = 0; i <= MODEL_CALLS_MAX; i++)
		buf_printf(&b, "%sPOST /a%d", i ? ", " : "", i);
	assert_int_not_equal(model_parse(b.p, b.len, &g, &err), 0);
	buf_free(&b);
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
	    cmocka_unit_test(request_escapes_decoded),
	    cmocka_unit_test(request_refusals),
	    cmocka_unit_test(request_bounds),
	    cmocka_unit_test(answer_keys_decoded),
	    cmocka_unit_test(answer_model_read),
	    cmocka_unit_test(route_calls),
	    cmocka_unit_test(model_entries),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
