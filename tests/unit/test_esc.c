/* common/esc.h: the one escaper. Every class it escapes, in every form, and
 * the text it must keep readable. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/buf.h"
#include "common/err.h"
#include "common/esc.h"
#include "common/util.h"

struct row {
	const char *in;
	size_t n; /* 0: strlen(in) */
	const char *text, *json, *toml;
};

#define ROW(in, text, json, toml)       \
	{                               \
		in, 0, text, json, toml \
	}

static const struct row rows[] = {
    /* printable ASCII and every script's letters stay as they are */
    ROW("src/app.toml", "src/app.toml", "src/app.toml", "src/app.toml"),
    ROW("caf\xc3\xa9", "caf\xc3\xa9", "caf\xc3\xa9", "caf\xc3\xa9"),
    ROW("\xe6\x97\xa5\xe6\x9c\xac", "\xe6\x97\xa5\xe6\x9c\xac",
	"\xe6\x97\xa5\xe6\x9c\xac", "\xe6\x97\xa5\xe6\x9c\xac"),
    /* Hebrew letters are right-to-left but no override: kept */
    ROW("\xd7\xa2\xd7\x91", "\xd7\xa2\xd7\x91", "\xd7\xa2\xd7\x91",
	"\xd7\xa2\xd7\x91"),
    ROW("\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80",
	"\xf0\x9f\x98\x80"), /* U+1F600 */
    /* a space other than U+0020 reads as one: NBSP, ideographic */
    ROW("a\xc2\xa0z", "a\\u{a0}z", "a\\u00a0z", "a\\u00A0z"),
    ROW("a\xe3\x80\x80z", "a\\u{3000}z", "a\\u3000z", "a\\u3000z"),
    /* quoting characters of each form */
    ROW("a\\b\"c", "a\\\\b\"c", "a\\\\b\\\"c", "a\\\\b\\\"c"),
    /* C0 controls and DEL */
    ROW("\x1b]0;t\x07", "\\x1b]0;t\\x07", "\\u001b]0;t\\u0007",
	"\\u001B]0;t\\u0007"),
    ROW("a\nb\tc\rd", "a\\x0ab\\x09c\\x0dd", "a\\nb\\tc\\rd", "a\\nb\\tc\\rd"),
    ROW("\x7f", "\\x7f", "\\u007f", "\\u007F"),
    ROW("\x01\x1f", "\\x01\\x1f", "\\u0001\\u001f", "\\u0001\\u001F"),
    /* C1 controls: as UTF-8 characters and as raw bytes */
    ROW("\xc2\x9b"
	"31m",
	"\\u{9b}31m", "\\u009b31m", "\\u009B31m"),
    ROW("\xc2\x80\xc2\x9f", "\\u{80}\\u{9f}", "\\u0080\\u009f",
	"\\u0080\\u009F"),
    ROW("\x9b"
	"31m",
	"\\x9b31m", "\\ufffd31m", "\\uFFFD31m"),
    ROW("\x80", "\\x80", "\\ufffd", "\\uFFFD"),
    /* invalid UTF-8: overlongs, surrogates, past U+10FFFF, truncated,
     * bytes that never start a character */
    ROW("\xc0\xaf", "\\xc0\\xaf", "\\ufffd\\ufffd", "\\uFFFD\\uFFFD"),
    ROW("\xe0\x80\xaf", "\\xe0\\x80\\xaf", "\\ufffd\\ufffd\\ufffd",
	"\\uFFFD\\uFFFD\\uFFFD"),
    ROW("\xf0\x80\x80\xaf", "\\xf0\\x80\\x80\\xaf",
	"\\ufffd\\ufffd\\ufffd\\ufffd", "\\uFFFD\\uFFFD\\uFFFD\\uFFFD"),
    ROW("\xed\xa0\x80", "\\xed\\xa0\\x80", "\\ufffd\\ufffd\\ufffd",
	"\\uFFFD\\uFFFD\\uFFFD"),
    ROW("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80",
	"\\ufffd\\ufffd\\ufffd\\ufffd", "\\uFFFD\\uFFFD\\uFFFD\\uFFFD"),
    ROW("a\xe2\x80", "a\\xe2\\x80", "a\\ufffd\\ufffd", "a\\uFFFD\\uFFFD"),
    ROW("\xe2\x80z", "\\xe2\\x80z", "\\ufffd\\ufffdz", "\\uFFFD\\uFFFDz"),
    ROW("\xff\xfe\xc1\xbf", "\\xff\\xfe\\xc1\\xbf",
	"\\ufffd\\ufffd\\ufffd\\ufffd", "\\uFFFD\\uFFFD\\uFFFD\\uFFFD"),
    /* bidirectional embeddings, overrides and isolates */
    ROW("\xe2\x80\xae"
	"exe.txt",
	"\\u{202e}exe.txt", "\\u202eexe.txt", "\\u202Eexe.txt"),
    ROW("\xe2\x80\xaa\xe2\x80\xab\xe2\x80\xac\xe2\x80\xad",
	"\\u{202a}\\u{202b}\\u{202c}\\u{202d}", "\\u202a\\u202b\\u202c\\u202d",
	"\\u202A\\u202B\\u202C\\u202D"),
    ROW("\xe2\x81\xa6\xe2\x81\xa7\xe2\x81\xa8\xe2\x81\xa9",
	"\\u{2066}\\u{2067}\\u{2068}\\u{2069}", "\\u2066\\u2067\\u2068\\u2069",
	"\\u2066\\u2067\\u2068\\u2069"),
    ROW("\xd8\x9c", "\\u{61c}", "\\u061c", "\\u061C"),
    /* invisible format characters */
    ROW("\xe2\x80\x8b\xe2\x80\x8f", "\\u{200b}\\u{200f}", "\\u200b\\u200f",
	"\\u200B\\u200F"),
    ROW("\xe2\x80\xa8\xe2\x80\xa9", "\\u{2028}\\u{2029}", "\\u2028\\u2029",
	"\\u2028\\u2029"),
    ROW("\xef\xbb\xbf", "\\u{feff}", "\\ufeff", "\\uFEFF"),
    ROW("\xc2\xad", "\\u{ad}", "\\u00ad", "\\u00AD"),
    ROW("\xe1\xa0\x8e", "\\u{180e}", "\\u180e", "\\u180E"),
    ROW("\xe2\x81\xa0", "\\u{2060}", "\\u2060", "\\u2060"),
    /* tag characters and variation selectors */
    ROW("\xf3\xa0\x81\x81", "\\u{e0041}", "\\udb40\\udc41", "\\U000E0041"),
    ROW("\xf3\xa0\x80\x81\xf3\xa0\x81\xbf", "\\u{e0001}\\u{e007f}",
	"\\udb40\\udc01\\udb40\\udc7f", "\\U000E0001\\U000E007F"),
    ROW("\xef\xb8\x8f", "\\u{fe0f}", "\\ufe0f", "\\uFE0F"),
    ROW("\xf3\xa0\x84\x80", "\\u{e0100}", "\\udb40\\udd00", "\\U000E0100"),
    /* a NUL inside the bytes */
    {"a\0b", 3, "a\\x00b", "a\\u0000b", "a\\u0000b"},
};

static char *form(const struct row *r, enum esc_form f)
{
	struct buf b = {0};
	esc_append(&b, r->in, r->n ? r->n : strlen(r->in), f);
	return buf_steal(&b);
}

static void every_class_in_every_form(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		const struct row *r = &rows[i];
		char *t = form(r, ESC_TEXT), *j = form(r, ESC_JSON),
		     *m = form(r, ESC_TOML);
		if (strcmp(t, r->text) || strcmp(j, r->json) ||
		    strcmp(m, r->toml))
			fail_msg("row %zu: text '%s' json '%s' toml '%s'", i, t,
				 j, m);
		free(t);
		free(j);
		free(m);
	}
}

static void text_output_is_never_hidden(void **state)
{
	(void)state;
	/* Whatever comes in, ESC_TEXT and ESC_ASCII give valid UTF-8 with
	 * nothing of the hidden class: every two-byte input, and a few
	 * three- and four-byte ones around the ranges. */
	for (unsigned a = 0; a < 256; a++)
		for (unsigned c = 0; c < 256; c++) {
			char in[3] = {(char)a, (char)c, 'z'};
			struct buf b = {0}, s = {0};
			esc_append(&b, in, 3, ESC_TEXT);
			esc_append(&s, in, 3, ESC_ASCII);
			assert_true(esc_utf8_valid(b.p, b.len));
			const unsigned char *u = (const unsigned char *)b.p;
			uint32_t cp;
			for (size_t k = 0; k < b.len;) {
				size_t l = esc_utf8_next(u + k, b.len - k, &cp);
				assert_true(l > 0);
				assert_false(esc_hidden(cp));
				k += l;
			}
			for (size_t k = 0; k < s.len; k++)
				assert_true(s.p[k] >= 0x20 && s.p[k] < 0x7f &&
					    s.p[k] != '<' && s.p[k] != '>' &&
					    s.p[k] != '&');
			buf_free(&b);
			buf_free(&s);
		}
}

static void hidden_class_edges(void **state)
{
	(void)state;
	static const uint32_t in[] = {
	    0x00,   0x1f,   0x7f,   0x80,    0x9f,    0xad,    0x61c,  0x180e,
	    0x200b, 0x200f, 0x2028, 0x202e,  0x2060,  0x2066,  0x2069, 0x206f,
	    0xfe00, 0xfe0f, 0xfeff, 0xe0000, 0xe007f, 0xe0100, 0xa0,   0x1680,
	    0x2000, 0x200a, 0x202f, 0x205f,  0x2800,  0x3000};
	static const uint32_t out[] = {
	    0x20,   0x7e,    0xa1,    0xac,    0xae,	0x1fff,
	    0x2010, 0x2027,  0x2030,  0x205e,  0x2070,	0x27ff,
	    0x2801, 0x2fff,  0x3001,  0xfdff,  0xfe10,	0xfefe,
	    0xff00, 0x10000, 0x1f600, 0xe0080, 0xe01f0, 0x10ffff};
	for (size_t i = 0; i < ARRAY_SIZE(in); i++)
		if (!esc_hidden(in[i]))
			fail_msg("U+%04X should be escaped", in[i]);
	for (size_t i = 0; i < ARRAY_SIZE(out); i++)
		if (esc_hidden(out[i]))
			fail_msg("U+%04X should be kept", out[i]);
}

static void shown_as(const char *in, enum esc_form f, const char *want)
{
	struct buf b = {0};
	esc_append(&b, in, strlen(in), f);
	assert_string_equal(b.p, want);
	buf_free(&b);
}

static void message_forms(void **state)
{
	(void)state;
	/* lnk's own message: a backslash escaped earlier stays single */
	shown_as("'\\x1b' and \x1b\n\xe2\x80\xae", ESC_LINE,
		 "'\\x1b' and \\x1b\\x0a\\u{202e}");
	shown_as("a\nb\tc\r\nd\re", ESC_LINES, "a\nb\tc\r\nd\\x0de");
	/* an invalid byte between CR and LF is escaped, the CR too */
	shown_as("\r\xff\n", ESC_LINES, "\\x0d\\xff\n");
	shown_as("caf\xc3\xa9 <b>&\\", ESC_ASCII,
		 "caf\\u{e9} \\x3cb\\x3e\\x26\\\\");

	/* err_set never keeps a raw control, newline included */
	struct lnk_err err;
	err_set(&err, -EINVAL, "'%s' is bad", "x\ny\x1b\xc2\x9b");
	assert_string_equal(err.msg, "'x\\x0ay\\x1b\\u{9b}' is bad");
	err_prefix(&err, "%s: ",
		   "sp\x1b"
		   "ec");
	assert_string_equal(err.msg, "sp\\x1bec: 'x\\x0ay\\x1b\\u{9b}' is bad");
}

static void cut_between_pieces(void **state)
{
	(void)state;
	char d[10];
	assert_string_equal(esc_to(d, sizeof(d), "short"), "short");
	assert_string_equal(esc_to(d, sizeof(d), "123456789"), "123456789");
	assert_string_equal(esc_to(d, sizeof(d), "1234567890"), "123456...");
	/* never half an escape ... */
	assert_string_equal(esc_to(d, sizeof(d), "\x1b\x1b\x1b"), "\\x1b...");
	/* ... nor half a character */
	assert_string_equal(esc_to(d, 8, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"),
			    "\xc3\xa9\xc3\xa9...");
	assert_string_equal(esc_to(d, sizeof(d), NULL), "");
	/* a buffer too small for "..." still ends, and holds whole pieces */
	assert_string_equal(esc_to(d, 4, "\x1b"), "");
	assert_string_equal(esc_to(d, 4, "abcdef"), "abc");
	assert_string_equal(esc_to(d, 1, "abc"), "");
	assert_string_equal(esc_to_n(d, sizeof(d), "a\0b", 3), "a\\x00b");
	char m[16] = "a\x1b\x1b\x1b\x1b";
	esc_msg(m, sizeof(m), ESC_LINE);
	assert_string_equal(m, "a\\x1b\\x1b...");
	char *p = esc_dup("\xe2\x80\xae");
	assert_string_equal(p, "\\u{202e}");
	free(p);
}

static void utf8_decoder(void **state)
{
	(void)state;
	uint32_t cp = 0;
	assert_int_equal(
	    esc_utf8_next((const unsigned char *)"\xc2\x80", 2, &cp), 2);
	assert_int_equal(cp, 0x80);
	assert_int_equal(
	    esc_utf8_next((const unsigned char *)"\xf4\x8f\xbf\xbf", 4, &cp),
	    4);
	assert_int_equal(cp, 0x10ffff);
	/* the length given is a bound: no read past it */
	assert_int_equal(
	    esc_utf8_next((const unsigned char *)"\xc2\x80", 1, &cp), 0);
	assert_true(esc_utf8_valid("caf\xc3\xa9", 5));
	assert_false(esc_utf8_valid("\xed\xbf\xbf", 3));
}

/* A suggested flag value pasted into a shell stays one word, the value. */
static void shell_words(void **state)
{
	(void)state;
	static const struct {
		const char *in, *out;
	} words[] = {
	    {"/usr/bin/python3", "/usr/bin/python3"},
	    {"a-b_c.d+e@f:g,h", "a-b_c.d+e@f:g,h"},
	    {"", "''"},
	    {"a --write ~", "'a --write ~'"},
	    {"x;id", "'x;id'"},
	    {"$(id)`id`", "'$(id)`id`'"},
	    {"~", "'~'"},
	    {"=ls", "'=ls'"},
	    {"*", "'*'"},
	    {"it's", "'it'\\''s'"},
	    {"'", "''\\'''"},
	    {"a\x1b"
	     "b",
	     "'a\\x1bb'"},
	    {"a\nb", "'a\\x0ab'"},
	    {"\xe2\x80\xae", "'\\u{202e}'"},
	};
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		char *w = esc_word_dup(words[i].in);
		assert_string_equal(w, words[i].out);
		free(w);
	}
	/* Stored to be escaped once where shown (a log row): quoted the same
	 * way, raw, and no backslash of its own for that escaping to double. */
	static const struct {
		const char *in, *out;
	} raw[] = {
	    {"/usr/bin/python3", "/usr/bin/python3"},
	    {"", "''"},
	    {"a --write ~", "'a --write ~'"},
	    {"$(id)`id`", "'$(id)`id`'"},
	    {"it's", "'it'\"'\"'s'"},
	    {"'", "''\"'\"''"},
	    {"a\x1b"
	     "b",
	     "'a\x1b"
	     "b'"},
	    {"a\\b", "'a\\b'"},
	};
	for (size_t i = 0; i < sizeof(raw) / sizeof(raw[0]); i++) {
		char *w = shell_word_dup(raw[i].in);
		assert_string_equal(w, raw[i].out);
		assert_int_equal(strchr(w, '\\') != NULL,
				 strchr(raw[i].in, '\\') != NULL);
		free(w);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_class_in_every_form),
	    cmocka_unit_test(text_output_is_never_hidden),
	    cmocka_unit_test(hidden_class_edges),
	    cmocka_unit_test(message_forms),
	    cmocka_unit_test(cut_between_pieces),
	    cmocka_unit_test(utf8_decoder),
	    cmocka_unit_test(shell_words),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
