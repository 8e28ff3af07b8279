/* The route's key masked in the provider's answer (src/wire/scrub.c):
 * whole, split across reads at every point, several times, next to a
 * false start; a quote of it cut short at any point; a short key left
 * alone; a key of the longest length; nothing held at the end that is not
 * given. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/buf.h"
#include "wire/scrub.h"

static const char KEY[] = "sk-ant-api03-SECRETSECRET";

/* in fed in pieces of `step` bytes (0: whole), then the end. */
static char *run(const char *key, const char *in, size_t step, uint64_t *masked)
{
	struct scrub s;
	struct buf out = {0};
	size_t n = strlen(in);
	scrub_init(&s, key, strlen(key));
	for (size_t at = 0; at < n;) {
		size_t k = step && step < n - at ? step : n - at;
		scrub_feed(&s, in + at, k, &out);
		at += k;
	}
	scrub_end(&s, &out);
	scrub_free(&s);
	if (masked)
		*masked = s.masked;
	char *r = strdup(out.p ? out.p : "");
	buf_free(&out);
	return r;
}

/* in fed in pieces of every size: always want, with `masked` keys. */
static void every_split(const char *in, const char *want, uint64_t masked)
{
	for (size_t step = 0; step <= strlen(in); step++) {
		uint64_t got_masked = masked + 1;
		char *got = run(KEY, in, step, &got_masked);
		assert_string_equal(got, want);
		assert_int_equal(got_masked, masked);
		free(got);
	}
}

static void masked_whole_and_split(void **state)
{
	(void)state;
	const char *in = "HTTP/1.1 200 OK\r\nContent-Length: 60\r\n\r\n"
			 "{\"echo\":\"x-api-key: sk-ant-api03-SECRETSECRET\","
			 "\"k2\":\"sk-ant-api03-SECRETSECRETsk-ant-api03-"
			 "SECRETSECRET\"}";
	const char *want = "HTTP/1.1 200 OK\r\nContent-Length: 60\r\n\r\n"
			   "{\"echo\":\"x-api-key: *************************\","
			   "\"k2\":\"***********************************"
			   "***************\"}";
	every_split(in, want, 3);
}

static void false_starts_pass_unchanged(void **state)
{
	(void)state;
	/* starts of the key shorter than a piece that do not go on, at the
	 * very end too */
	const char *in = "sk-ant- sk-ant-api0 SECRETSECRE sk-a s";
	every_split(in, in, 0);
	/* a piece of 12 bytes or more is the key's, cut short or not */
	every_split("sk-ant- sk-ant-api03-SECRET sk-a s",
		    "sk-ant- ******************* sk-a s", 1);
}

/* An echo that changes the letters' case shows all of the key but the
 * case: masked in any case, split or not. */
static void masked_in_any_letter_case(void **state)
{
	(void)state;
	every_split("up: SK-ANT-API03-SECRETSECRET, low: sk-ant-api03-secret",
		    "up: *************************, low: *******************",
		    2);
}

/* An answer that quotes the request cut short, at every length: the
 * program moves the cut by what it sends and would read the key a byte at
 * a time. No cut shows 12 bytes of it in a row. */
static void a_quote_cut_short_shows_no_piece(void **state)
{
	(void)state;
	const size_t klen = strlen(KEY);
	for (size_t cut = 0; cut <= klen; cut++)
		for (size_t from = 0; from < cut; from++) {
			char in[128];
			snprintf(in, sizeof(in),
				 "400 {\"error\":\"%.*s... "
				 "(truncated)\"}",
				 (int)(cut - from), KEY + from);
			for (size_t step = 0; step < 9; step++) {
				char *got = run(KEY, in, step, NULL);
				for (size_t o = 0; o + SCRUB_MIN <= klen; o++) {
					char piece[SCRUB_MIN + 1];
					memcpy(piece, KEY + o, SCRUB_MIN);
					piece[SCRUB_MIN] = '\0';
					assert_null(strstr(got, piece));
				}
				/* what is shorter than a piece goes as it is */
				if (cut - from < SCRUB_MIN)
					assert_string_equal(got, in);
				free(got);
			}
		}
}

/* A key of the longest length a route takes (a gateway's long token) is
 * masked like any other, split or not. */
static void the_longest_key_masked(void **state)
{
	(void)state;
	char *key = malloc(SCRUB_KEY_MAX + 1);
	unsigned seed = 7;
	for (size_t i = 0; i < SCRUB_KEY_MAX; i++)
		key[i] =
		    "abcdefghijklmnopqrstuvwxyz0123456789"[rand_r(&seed) % 36];
	key[SCRUB_KEY_MAX] = '\0';
	char *in = malloc(2 * SCRUB_KEY_MAX + 64);
	snprintf(in, 2 * SCRUB_KEY_MAX + 64, "Authorization: Bearer %s\r\n",
		 key);
	for (size_t step = 0; step < 4000; step += 997) {
		char *got = run(key, in, step, NULL);
		assert_null(strstr(got, key));
		assert_non_null(strstr(got, "Bearer ****"));
		assert_int_equal(
		    strspn(got + strlen("Authorization: Bearer "), "*"),
		    SCRUB_KEY_MAX);
		free(got);
	}
	free(in);
	free(key);
}

static void short_key_not_masked(void **state)
{
	(void)state;
	char *got = run("dummy", "a dummy answer", 0, NULL);
	assert_string_equal(got, "a dummy answer");
	free(got);
	got = run("", "anything", 3, NULL);
	assert_string_equal(got, "anything");
	free(got);
}

/* Only what may begin the key is held: an answer's last bytes are not
 * kept from the program while it streams. */
static void holds_only_a_start_of_the_key(void **state)
{
	(void)state;
	struct scrub s;
	struct buf out = {0};
	scrub_init(&s, KEY, strlen(KEY));
	scrub_feed(&s, "data: {}\n\n", 10, &out);
	assert_int_equal(out.len, 10);
	scrub_feed(&s, "data: sk-an", 11, &out);
	assert_int_equal(out.len, 16);
	assert_int_equal(s.nheld, 5);
	scrub_end(&s, &out);
	assert_string_equal(out.p, "data: {}\n\ndata: sk-an");
	scrub_free(&s);
	buf_free(&out);
}

/* Random answers made of the key's own letters, copies of it and of its
 * parts, fed in random pieces: the same as masking every piece of 12 bytes
 * of the key in the whole answer at once, and never a piece left. */
static void random_answers_as_if_whole(void **state)
{
	(void)state;
	const char *key = "sk-aab-sk-aaab";
	const char alpha[] = "sk-abx*";
	size_t klen = strlen(key);
	unsigned seed = 12345;
	for (int round = 0; round < 3000; round++) {
		char in[400];
		size_t n = 0, want = (size_t)(rand_r(&seed) % 300);
		while (n < want) {
			size_t from = (size_t)(rand_r(&seed) % 4);
			size_t to = klen - (size_t)(rand_r(&seed) % 4);
			if (rand_r(&seed) % 6 == 0 &&
			    n + to - from < sizeof(in)) {
				memcpy(in + n, key + from, to - from);
				n += to - from;
			} else {
				in[n++] = alpha[rand_r(&seed) % 7];
			}
		}
		in[n] = '\0';
		/* the reference: the whole answer at once, every place a
		 * piece of the key begins found before any is masked */
		char ref[400];
		memcpy(ref, in, n + 1);
		for (size_t i = 0; i + SCRUB_MIN <= n; i++)
			if (memmem(key, klen, in + i, SCRUB_MIN))
				memset(ref + i, '*', SCRUB_MIN);
		size_t step = 1 + (size_t)(rand_r(&seed) % 20);
		char *got = run(key, in, step, NULL);
		assert_string_equal(got, ref);
		assert_null(strstr(got, key));
		free(got);
	}
}

/* A chunked body in pieces of `step` (0: whole): the wire's own chunks,
 * decoded back into the data the program's client reads. NULL when the
 * output is not chunked HTTP/1.1 ended by a last chunk. */
static char *run_chunked(const char *in, size_t step)
{
	struct scrub s;
	struct buf out = {0}, data = {0};
	size_t n = strlen(in);
	scrub_init(&s, KEY, strlen(KEY));
	scrub_chunked(&s, &out);
	for (size_t at = 0; at < n;) {
		size_t k = step && step < n - at ? step : n - at;
		scrub_feed(&s, in + at, k, &out);
		at += k;
	}
	scrub_end(&s, &out);
	scrub_free(&s);
	const char *p = out.p ? out.p : "";
	for (;;) {
		char *e;
		unsigned long sz = strtoul(p, &e, 16);
		if (e == p || strncmp(e, "\r\n", 2) != 0) {
			buf_free(&out);
			buf_free(&data);
			return NULL;
		}
		p = e + 2;
		if (!sz)
			break;
		buf_append(&data, p, sz);
		p += sz;
		assert_memory_equal(p, "\r\n", 2);
		p += 2;
	}
	assert_string_equal(p, "\r\n");
	buf_append(&data, "", 1);
	char *r = strdup(data.p);
	buf_free(&out);
	buf_free(&data);
	return r;
}

/* The key across chunk framing (a server that chunks in fixed pieces):
 * masked in the data, whatever the reads' sizes; the trailers dropped. */
static void masked_across_chunk_framing(void **state)
{
	(void)state;
	const char *in =
	    "c\r\n{\"k\":\"sk-ant\r\n"
	    "7;ext=1\r\n-api03-\r\n"
	    "d\r\nSECRETSECRET\"\r\n"
	    "1\r\n}\r\n0\r\nX-Trailer: sk-ant-api03-SECRETSECRET\r\n\r\n";
	for (size_t step = 0; step <= strlen(in); step++) {
		char *got = run_chunked(in, step);
		assert_non_null(got);
		assert_string_equal(got,
				    "{\"k\":\"*************************\"}");
		free(got);
	}
	/* framing that is not chunked HTTP/1.1: nothing more passes, and no
	 * last chunk says the body ended */
	char *got = run_chunked("3\r\nabc\r\nzz\r\nsk-ant-api03-SECRET"
				"SECRET\r\n0\r\n\r\n",
				0);
	assert_null(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(masked_whole_and_split),
	    cmocka_unit_test(false_starts_pass_unchanged),
	    cmocka_unit_test(a_quote_cut_short_shows_no_piece),
	    cmocka_unit_test(masked_in_any_letter_case),
	    cmocka_unit_test(the_longest_key_masked),
	    cmocka_unit_test(short_key_not_masked),
	    cmocka_unit_test(holds_only_a_start_of_the_key),
	    cmocka_unit_test(random_answers_as_if_whole),
	    cmocka_unit_test(masked_across_chunk_framing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
