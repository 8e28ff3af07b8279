#include "common/buf.h"
#include "common/esc.h"
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

void buf_json_str(struct buf *b, const char *s, size_t n)
{
	buf_putc(b, '"');
	esc_append(b, s, n, ESC_JSON);
	buf_putc(b, '"');
}

void buf_toml_str(struct buf *b, const char *s, size_t n)
{
	buf_putc(b, '"');
	esc_append(b, s, n, ESC_TOML);
	buf_putc(b, '"');
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
