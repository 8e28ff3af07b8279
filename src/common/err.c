#include "common/err.h"
#include "common/esc.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int err_set(struct lnk_err *err, int code, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
		/* A message quotes names a file, spec or program chose; what
		 * the format did not escape is escaped here, so no message
		 * carries a control or invisible character, or a newline. */
		esc_msg(err->msg, sizeof(err->msg), ESC_LINE);
		err->code = code;
	}
	return code;
}

int err_prefix(struct lnk_err *err, const char *fmt, ...)
{
	char head[512], old[sizeof(err->msg)];
	va_list ap;

	if (!err)
		return 0;
	va_start(ap, fmt);
	vsnprintf(head, sizeof(head), fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof(old));
	snprintf(err->msg, sizeof(err->msg), "%s%s", head, old);
	esc_msg(err->msg, sizeof(err->msg), ESC_LINE);
	return err->code;
}
