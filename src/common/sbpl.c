#include "common/sbpl.h"

#include <errno.h>

int sbpl_quote(struct buf *b, const char *s, struct lnk_err *err)
{
	for (const unsigned char *c = (const unsigned char *)s; *c; c++)
		if ((*c < 0x20 && *c != '\n' && *c != '\t' && *c != '\r') ||
		    *c == 0x7f)
			return err_set(err, -EINVAL,
				       "'%s' holds a control character, which "
				       "a Seatbelt profile cannot name; rename "
				       "it or grant its folder",
				       s);
	buf_putc(b, '"');
	for (const char *c = s; *c; c++) {
		switch (*c) {
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
		default:
			buf_putc(b, *c);
		}
	}
	buf_putc(b, '"');
	return 0;
}
