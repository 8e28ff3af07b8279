#include "common/buf.h"
#include "common/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void grow(struct buf *b, size_t more)
{
	if (b->len + more + 1 <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < b->len + more + 1)
		cap *= 2;
	b->p = xrealloc(b->p, cap);
	b->cap = cap;
}

void buf_append(struct buf *b, const void *data, size_t n)
{
	grow(b, n);
	memcpy(b->p + b->len, data, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void buf_puts(struct buf *b, const char *s)
{
	buf_append(b, s, strlen(s));
}

void buf_putc(struct buf *b, char c)
{
	buf_append(b, &c, 1);
}

void buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	grow(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

static void escape(struct buf *b, const char *s, size_t n, int toml)
{
	buf_putc(b, '"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		switch (c) {
		case '"':
			buf_puts(b, "\\\"");
			break;
		case '\\':
			buf_puts(b, "\\\\");
			break;
		case '\n':
			buf_puts(b, "\\n");
			break;
		case '\t':
			buf_puts(b, "\\t");
			break;
		case '\r':
			buf_puts(b, "\\r");
			break;
		case '\b':
			buf_puts(b, "\\b");
			break;
		case '\f':
			buf_puts(b, "\\f");
			break;
		default:
			if (c < 0x20 || c == 0x7f)
				buf_printf(b, toml ? "\\u%04X" : "\\u%04x", c);
			else
				buf_putc(b, (char)c);
		}
	}
	buf_putc(b, '"');
}

void buf_json_str(struct buf *b, const char *s, size_t n)
{
	escape(b, s, n, 0);
}

void buf_toml_str(struct buf *b, const char *s, size_t n)
{
	escape(b, s, n, 1);
}

void buf_free(struct buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

char *buf_steal(struct buf *b)
{
	char *p = b->p ? b->p : xstrdup("");
	b->p = NULL;
	b->len = b->cap = 0;
	return p;
}
