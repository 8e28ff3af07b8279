/* libFuzzer target for the one escaper (common/esc.h): any bytes, in every
 * terminal form, give valid UTF-8 with nothing of the hidden class (ESC_LINES
 * keeping only newline, tab and a CR before a newline); ESC_ASCII gives
 * printable ASCII without markup; JSON and TOML give valid UTF-8 without
 * raw controls; a cut never overruns its buffer and always ends. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/esc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_shown(const struct buf *b, enum esc_form f)
{
	const unsigned char *u = (const unsigned char *)b->p;
	if (!esc_utf8_valid(b->p, b->len))
		abort();
	for (size_t i = 0; i < b->len;) {
		uint32_t cp;
		size_t l = esc_utf8_next(u + i, b->len - i, &cp);
		bool kept =
		    f == ESC_LINES &&
		    (cp == '\n' || cp == '\t' ||
		     (cp == '\r' && i + 1 < b->len && u[i + 1] == '\n'));
		if (esc_hidden(cp) && !kept)
			abort();
		if (f == ESC_ASCII &&
		    (cp >= 0x7f || cp == '<' || cp == '>' || cp == '&'))
			abort();
		i += l;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum esc_form forms[] = {ESC_TEXT,	 ESC_LINE, ESC_LINES,
					      ESC_ASCII, ESC_JSON, ESC_TOML};
	const char *s = (const char *)data;
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		struct buf b = {0};
		esc_append(&b, s, size, forms[i]);
		if (!b.p)
			b.p = "";
		if (forms[i] == ESC_JSON || forms[i] == ESC_TOML) {
			if (!esc_utf8_valid(b.p, b.len))
				abort();
			for (size_t k = 0; k < b.len; k++)
				if ((unsigned char)b.p[k] < 0x20 ||
				    b.p[k] == 0x7f)
					abort();
		} else {
			check_shown(&b, forms[i]);
		}
		if (b.len)
			buf_free(&b);
		/* cut into a small buffer: in bounds, ended, a prefix */
		char d[24];
		memset(d, 'Z', sizeof(d));
		size_t cap = size % sizeof(d);
		esc_into(d, cap, s, size, forms[i]);
		if (cap && !memchr(d, '\0', cap))
			abort();
	}
	return 0;
}
