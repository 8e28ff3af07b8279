/* A growable byte buffer, always NUL-terminated, for building text. */
#pragma once

#include <stddef.h>

struct buf {
	char *p;
	size_t len, cap;
};

void buf_append(struct buf *b, const void *data, size_t n);
void buf_puts(struct buf *b, const char *s);
void buf_putc(struct buf *b, char c);
void buf_printf(struct buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Appends s as a JSON string literal, quotes included, escaped as
 * common/esc.h says. */
void buf_json_str(struct buf *b, const char *s, size_t n);
/* Appends s as a TOML basic string literal, quotes included, escaped as
 * common/esc.h says. */
void buf_toml_str(struct buf *b, const char *s, size_t n);
void buf_free(struct buf *b);
/* Returns the string and leaves b empty. */
char *buf_steal(struct buf *b);
