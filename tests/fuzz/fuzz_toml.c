/* libFuzzer target for the TOML parser: any bytes must give a tree or a
 * clean refusal with a "name:line:col: ..." message, never a crash, a leak
 * or undefined behaviour. On success the tree is walked to check what the
 * parser promises: depth within TOML_MAX_DEPTH, NUL-terminated strings,
 * valid UTF-8 keys, positions set. */
#include "toml/toml.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void walk(const struct toml_value *v, unsigned depth)
{
	if (depth > TOML_MAX_DEPTH || v->pos.line == 0 || v->pos.col == 0)
		abort();
	switch (v->type) {
	case TOML_STRING:
		if (v->u.str.s[v->u.str.len] != '\0')
			abort();
		break;
	case TOML_DATETIME:
	case TOML_DATETIME_LOCAL:
	case TOML_DATE_LOCAL:
	case TOML_TIME_LOCAL:
		if (strlen(v->u.dt) < 8)
			abort();
		break;
	case TOML_ARRAY:
		for (size_t i = 0; i < v->u.arr.n; i++)
			walk(v->u.arr.items[i], depth + 1);
		break;
	case TOML_TABLE:
		for (size_t i = 0; i < v->u.tab.n; i++) {
			const struct toml_kv *kv = &v->u.tab.items[i];
			if (kv->key[kv->keylen] != '\0' || kv->pos.line == 0)
				abort();
			walk(kv->val, depth + 1);
			/* toml_find sees the first key of that name. */
			if (!memchr(kv->key, 0, kv->keylen) &&
			    toml_find(v, kv->key) != kv)
				abort();
		}
		break;
	case TOML_INTEGER:
	case TOML_FLOAT:
	case TOML_BOOL:
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct toml_value *root = NULL;
	struct lnk_err err = {0};

	int r = toml_parse((const char *)data, size, "fuzz.toml", &root, &err);
	if (r < 0) {
		if (root || strncmp(err.msg, "fuzz.toml:", 10) != 0)
			abort();
		/* No C0 or C1 control characters in messages (terminal
		 * escapes from a hostile file). */
		for (const unsigned char *p = (const unsigned char *)err.msg;
		     *p; p++)
			if (*p < 0x20 || *p == 0x7f ||
			    (p[0] == 0xC2 && p[1] >= 0x80 && p[1] < 0xA0))
				abort();
		return 0;
	}
	walk(root, 0);
	toml_free(root);
	return 0;
}
