/* TOML 1.0.0 parser (our own: Debian ships no C TOML library).
 *
 * Specs come from anyone (docs/design.md, "Trust boundaries"), so
 * this parser treats every byte as hostile: strict UTF-8, bounded nesting,
 * no recursion without a depth limit, and an error with file:line:col that
 * says what was expected.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

enum toml_type {
	TOML_STRING,
	TOML_INTEGER,
	TOML_FLOAT,
	TOML_BOOL,
	TOML_DATETIME,	     /* offset date-time */
	TOML_DATETIME_LOCAL, /* local date-time */
	TOML_DATE_LOCAL,
	TOML_TIME_LOCAL,
	TOML_ARRAY,
	TOML_TABLE,
};

/* Limits against hostile specs: a deeper value or a longer text is refused
 * with -E2BIG before it can exhaust the stack (every walker of the tree,
 * toml_free included, recurses at most TOML_MAX_DEPTH levels) or memory. */
#define TOML_MAX_DEPTH 128	   /* the root table is depth 0 */
#define TOML_MAX_SIZE (16u << 20)  /* bytes of text */
#define TOML_MAX_VALUES (1u << 20) /* values and tables, bounds memory */

struct toml_pos {
	unsigned line, col; /* 1-based; col counts characters, not bytes */
};

struct toml_value;

struct toml_kv {
	char *key; /* UTF-8, NUL-terminated; keylen excludes the NUL */
	size_t keylen;
	struct toml_pos pos; /* where the key was written (for a.b.c = 1,
			      * each table's kv points at its own part) */
	struct toml_value *val;
};

struct toml_value {
	enum toml_type type;
	struct toml_pos pos; /* where the value (or table header) starts; a
			      * table only implied by a.b keys or a [a.b]
			      * header points at its key part */
	union {
		struct {
			char *s; /* NUL-terminated; may hold NUL (see len);
				  * CRLF in multi-line strings reads as LF */
			size_t len;
		} str;
		int64_t i;
		double f;
		bool b;
		/* datetimes: the text as written, with 'T' and 'Z' upper case
		 * (a space between date and time becomes 'T') */
		char *dt;
		struct {
			struct toml_value **items;
			size_t n;
		} arr;
		struct {
			struct toml_kv *items; /* in document order */
			size_t n;
		} tab;
	} u;
};

/* Parses text (len bytes, need not be NUL-terminated). name is used in error
 * messages ("app.toml:3:7: expected '=' after key 'write', found 'x'"). On
 * success *out is the root table (free it with toml_free), keys in document
 * order. Returns 0 or -EINVAL (syntax, *out NULL) / -E2BIG (limits: more
 * than TOML_MAX_SIZE bytes, TOML_MAX_DEPTH levels or TOML_MAX_VALUES
 * values). Messages never carry control or bidi characters from the text. */
int toml_parse(const char *text, size_t len, const char *name,
	       struct toml_value **out, struct lnk_err *err);

void toml_free(struct toml_value *v);

/* Reads the TOML file at path (at most max bytes) and parses it as
 * toml_parse does. A settings file nobody wrote is no error: a missing file
 * returns 0 with *out NULL, so the caller keeps its defaults. Any other
 * read failure (a directory, no permission, too long) is refused with the
 * path named rather than silently taken for defaults. */
int toml_load_optional(const char *path, size_t max, struct toml_value **out,
		       struct lnk_err *err);

/* The key/value of table t named key, or NULL. */
const struct toml_kv *toml_find(const struct toml_value *t, const char *key);

/* "string", "integer", "float", "boolean", "datetime", "array", "table"
 * (the four datetime kinds are all "datetime"). */
const char *toml_type_name(enum toml_type t);
