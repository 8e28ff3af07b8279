#include "common/esc.h"
#include "common/buf.h"
#include "common/util.h"

#include <stdio.h>
#include <string.h>

size_t esc_utf8_next(const unsigned char *s, size_t n, uint32_t *cp)
{
	unsigned char c = s[0];
	size_t len;
	uint32_t v, min;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2, v = c & 0x1f, min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3, v = c & 0x0f, min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4, v = c & 0x07, min = 0x10000;
	} else {
		return 0; /* a continuation byte, 0xc0/0xc1 or 0xf5-0xff */
	}
	if (n < len)
		return 0; /* truncated */
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = (v << 6) | (s[i] & 0x3f);
	}
	/* Overlong forms would smuggle '/' or NUL past a check; surrogates
	 * and values above U+10FFFF are no characters. */
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return len;
}

bool esc_utf8_valid(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	uint32_t cp;
	for (size_t i = 0; i < n;) {
		size_t l = esc_utf8_next(u + i, n - i, &cp);
		if (!l)
			return false;
		i += l;
	}
	return true;
}

/* Ranges of the hidden class above U+009F, sorted. */
static const struct {
	uint32_t lo, hi;
} hidden[] = {
    {0x00a0, 0x00a0},	{0x00ad, 0x00ad},   {0x034f, 0x034f},
    {0x0600, 0x0605},	{0x061c, 0x061c},   {0x06dd, 0x06dd},
    {0x070f, 0x070f},	{0x0890, 0x0891},   {0x08e2, 0x08e2},
    {0x115f, 0x1160},	{0x1680, 0x1680},   {0x17b4, 0x17b5},
    {0x180b, 0x180f},	{0x2000, 0x200f},   {0x2028, 0x202f},
    {0x205f, 0x206f},	{0x2800, 0x2800},   {0x3000, 0x3000},
    {0x3164, 0x3164},	{0xfe00, 0xfe0f},   {0xfeff, 0xfeff},
    {0xffa0, 0xffa0},	{0xfff9, 0xfffb},   {0x110bd, 0x110bd},
    {0x110cd, 0x110cd}, {0x13430, 0x1343f}, {0x1bca0, 0x1bca3},
    {0x1d173, 0x1d17a}, {0xe0000, 0xe007f}, {0xe0100, 0xe01ef},
};

bool esc_hidden(uint32_t cp)
{
	if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f))
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(hidden); i++) {
		if (cp < hidden[i].lo)
			return false;
		if (cp <= hidden[i].hi)
			return true;
	}
	return false;
}

/* One piece of output: the escaped form of one character or one byte. */
static size_t piece(char *out, const unsigned char *s, size_t len, uint32_t cp,
		    enum esc_form form)
{
	bool json = form == ESC_JSON, toml = form == ESC_TOML;

	if (!len) {
		/* A byte that is not UTF-8. */
		if (json || toml)
			return (size_t)sprintf(out,
					       json ? "\\ufffd" : "\\uFFFD");
		return (size_t)sprintf(out, "\\x%02x", s[0]);
	}
	if (json || toml) {
		const char *shortf = NULL;
		switch (cp) {
		case '"':
			shortf = "\\\"";
			break;
		case '\\':
			shortf = "\\\\";
			break;
		case '\b':
			shortf = "\\b";
			break;
		case '\f':
			shortf = "\\f";
			break;
		case '\n':
			shortf = "\\n";
			break;
		case '\r':
			shortf = "\\r";
			break;
		case '\t':
			shortf = "\\t";
			break;
		}
		if (shortf)
			return (size_t)sprintf(out, "%s", shortf);
		if (!esc_hidden(cp)) {
			memcpy(out, s, len);
			return len;
		}
		if (cp <= 0xffff)
			return (size_t)sprintf(
			    out, json ? "\\u%04x" : "\\u%04X", (unsigned)cp);
		if (toml)
			return (size_t)sprintf(out, "\\U%08X", (unsigned)cp);
		uint32_t v = cp - 0x10000;
		return (size_t)sprintf(out, "\\u%04x\\u%04x",
				       (unsigned)(0xd800 + (v >> 10)),
				       (unsigned)(0xdc00 + (v & 0x3ff)));
	}

	if (cp == '\\' && (form == ESC_TEXT || form == ESC_ASCII))
		return (size_t)sprintf(out, "\\\\");
	if (form == ESC_LINES && (cp == '\n' || cp == '\t')) {
		out[0] = (char)cp;
		return 1;
	}
	bool show = esc_hidden(cp) ||
		    (form == ESC_ASCII &&
		     (cp >= 0x80 || cp == '<' || cp == '>' || cp == '&'));
	if (!show) {
		memcpy(out, s, len);
		return len;
	}
	if (cp < 0x80)
		return (size_t)sprintf(out, "\\x%02x", (unsigned)cp);
	return (size_t)sprintf(out, "\\u{%x}", (unsigned)cp);
}

/* Appends s to b in form, stopping before a piece would make b longer
 * than limit bytes. Returns false when it stopped early. */
static bool escape(struct buf *b, const char *s, size_t n, enum esc_form form,
		   size_t limit)
{
	const unsigned char *u = (const unsigned char *)s;
	char out[32];
	uint32_t cp = 0;

	for (size_t i = 0; i < n;) {
		size_t len = esc_utf8_next(u + i, n - i, &cp);
		size_t k;
		if (form == ESC_LINES && len == 1 && cp == '\r' && i + 1 < n &&
		    u[i + 1] == '\n')
			k = (size_t)sprintf(out, "\r"); /* a line's end */
		else
			k = piece(out, u + i, len, cp, form);
		if (b->len + k > limit)
			return false;
		buf_append(b, out, k);
		i += len ? len : 1;
	}
	return true;
}

void esc_append(struct buf *b, const char *s, size_t n, enum esc_form form)
{
	(void)escape(b, s, n, form, (size_t)-1);
}

void esc_into(char *dst, size_t cap, const char *s, size_t n,
	      enum esc_form form)
{
	struct buf b = {0};
	if (!cap)
		return;
	if (!escape(&b, s, n, form, cap - 1)) {
		/* Cut between two pieces, with room for "..." if there is. */
		bool dots = cap > 4;
		b.len = 0;
		(void)escape(&b, s, n, form, dots ? cap - 4 : cap - 1);
		if (dots)
			buf_puts(&b, "...");
	}
	if (b.len)
		memcpy(dst, b.p, b.len);
	dst[b.len] = '\0';
	buf_free(&b);
}

const char *esc_to(char *dst, size_t cap, const char *s)
{
	esc_into(dst, cap, s ? s : "", s ? strlen(s) : 0, ESC_TEXT);
	return dst;
}

const char *esc_to_n(char *dst, size_t cap, const char *s, size_t n)
{
	esc_into(dst, cap, s, n, ESC_TEXT);
	return dst;
}

char *esc_dup(const char *s)
{
	struct buf b = {0};
	esc_append(&b, s, strlen(s), ESC_TEXT);
	return buf_steal(&b);
}

static bool word_safe(const char *s)
{
	if (!*s)
		return false;
	for (const char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || strchr("_@+:,./-", *p)))
			return false;
	return true;
}

/* s as one shell word; escaped: its pieces in ESC_TEXT, a quote of its own
 * as '\'' (ESC_TEXT is exact, so its backslash is one); else raw, a quote
 * of its own as '"'"' (no backslash, which the escaping where the text is
 * shown would double). */
static char *word_dup(const char *s, bool escaped)
{
	struct buf b = {0};

	if (word_safe(s)) {
		buf_puts(&b, s);
		return buf_steal(&b);
	}
	buf_putc(&b, '\'');
	for (const char *p = s;;) {
		const char *q = strchr(p, '\'');
		size_t n = q ? (size_t)(q - p) : strlen(p);
		if (escaped)
			esc_append(&b, p, n, ESC_TEXT);
		else
			buf_append(&b, p, n);
		if (!q)
			break;
		buf_puts(&b, escaped ? "'\\''" : "'\"'\"'");
		p = q + 1;
	}
	buf_putc(&b, '\'');
	return buf_steal(&b);
}

char *esc_word_dup(const char *s)
{
	return word_dup(s, true);
}

char *shell_word_dup(const char *s)
{
	return word_dup(s, false);
}

void esc_msg(char *msg, size_t cap, enum esc_form form)
{
	char *copy = xstrdup(msg);
	esc_into(msg, cap, copy, strlen(copy), form);
	free(copy);
}
