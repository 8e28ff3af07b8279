/* toml-decode: the toml-test decoder for our TOML parser.
 *
 * Reads TOML on standard input and prints the document as toml-test's
 * "tagged JSON" (every value an object {"type": ..., "value": "..."};
 * tables and arrays plain JSON). Invalid input: the parser's message on
 * standard error and exit status 1.
 */
#include "common/buf.h"
#include "common/err.h"
#include "common/util.h"
#include "toml/toml.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static void tagged(struct buf *b, const char *type, const char *val, size_t n)
{
	buf_printf(b, "{\"type\":\"%s\",\"value\":", type);
	buf_json_str(b, val, n);
	buf_putc(b, '}');
}

/* Recursion is bounded: the parser refuses values deeper than
 * TOML_MAX_DEPTH. */
static void emit(struct buf *b, const struct toml_value *v)
{
	char num[64];

	switch (v->type) {
	case TOML_STRING:
		tagged(b, "string", v->u.str.s, v->u.str.len);
		break;
	case TOML_INTEGER:
		snprintf(num, sizeof(num), "%" PRId64, v->u.i);
		tagged(b, "integer", num, strlen(num));
		break;
	case TOML_FLOAT:
		if (isnan(v->u.f))
			snprintf(num, sizeof(num), "nan");
		else if (isinf(v->u.f))
			snprintf(num, sizeof(num), "%sinf",
				 v->u.f < 0 ? "-" : "");
		else
			snprintf(num, sizeof(num), "%.17g", v->u.f);
		tagged(b, "float", num, strlen(num));
		break;
	case TOML_BOOL:
		tagged(b, "bool", v->u.b ? "true" : "false", v->u.b ? 4 : 5);
		break;
	case TOML_DATETIME:
		tagged(b, "datetime", v->u.dt, strlen(v->u.dt));
		break;
	case TOML_DATETIME_LOCAL:
		tagged(b, "datetime-local", v->u.dt, strlen(v->u.dt));
		break;
	case TOML_DATE_LOCAL:
		tagged(b, "date-local", v->u.dt, strlen(v->u.dt));
		break;
	case TOML_TIME_LOCAL:
		tagged(b, "time-local", v->u.dt, strlen(v->u.dt));
		break;
	case TOML_ARRAY:
		buf_putc(b, '[');
		for (size_t i = 0; i < v->u.arr.n; i++) {
			if (i)
				buf_putc(b, ',');
			emit(b, v->u.arr.items[i]);
		}
		buf_putc(b, ']');
		break;
	case TOML_TABLE:
		buf_putc(b, '{');
		for (size_t i = 0; i < v->u.tab.n; i++) {
			const struct toml_kv *kv = &v->u.tab.items[i];
			if (i)
				buf_putc(b, ',');
			buf_json_str(b, kv->key, kv->keylen);
			buf_putc(b, ':');
			emit(b, kv->val);
		}
		buf_putc(b, '}');
		break;
	}
}

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : "stdin";
	char *text = NULL;
	size_t len = 0;
	struct lnk_err err = {0};
	struct toml_value *root = NULL;
	struct buf out = {0};

	int r = read_fd_all(0, TOML_MAX_SIZE + 1, &text, &len);
	if (r < 0) {
		fprintf(stderr, "toml-decode: cannot read standard input: %s\n",
			strerror(-r));
		return 2;
	}
	r = toml_parse(text, len, name, &root, &err);
	free(text);
	if (r < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	emit(&out, root);
	buf_putc(&out, '\n');
	toml_free(root);
	r = write_all(1, out.p, out.len);
	buf_free(&out);
	return r < 0 ? 2 : 0;
}
