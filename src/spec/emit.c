/* policy -> canonical TOML: the text `lnk sandbox spec` prints and the
 * text the trust digest covers. One policy has exactly one text. */
#include "spec/spec.h"

#include <errno.h>
#include <string.h>

#include "common/buf.h"
#include "common/esc.h"

static bool keep_entry(const struct key_value *kv, size_t i, unsigned flags)
{
	if (!(flags & SPEC_EMIT_SPEC_ONLY))
		return true;
	return kv->item_pos && kv->item_pos[i].line > 0;
}

/* A key set by a flag replaced the file's value (or, for --hide, the file
 * did not set it): not what the file opens. */
static bool keep_key(const struct key_value *kv, unsigned flags)
{
	if (!kv->set)
		return false;
	return !(flags & SPEC_EMIT_SPEC_ONLY) || !kv->from_flag;
}

static void emit_item(struct buf *b, const struct key_def *d, const char *v)
{
	if (d->type == KT_PORTS)
		buf_puts(b, v); /* checked decimal without leading zeros */
	else
		buf_toml_str(b, v, strlen(v));
}

static void emit_list(struct buf *b, const struct key_def *d,
		      const struct key_value *kv, unsigned flags)
{
	struct buf line = {0};
	size_t n = 0;
	buf_printf(&line, "%s = [", d->key);
	for (size_t i = 0; i < kv->list.n; i++) {
		if (!keep_entry(kv, i, flags))
			continue;
		if (n++)
			buf_puts(&line, ", ");
		emit_item(&line, d, kv->list.v[i]);
	}
	buf_puts(&line, "]\n");
	if (line.len <= 80 || n < 2) {
		buf_append(b, line.p, line.len);
		buf_free(&line);
		return;
	}
	buf_free(&line);
	/* Long lists one entry a line, so diffs of a spec stay readable. */
	buf_printf(b, "%s = [\n", d->key);
	for (size_t i = 0; i < kv->list.n; i++) {
		if (!keep_entry(kv, i, flags))
			continue;
		buf_puts(b, "    ");
		emit_item(b, d, kv->list.v[i]);
		buf_puts(b, ",\n");
	}
	buf_puts(b, "]\n");
}

/* TOML holds only UTF-8, so an entry that is not (a path on disk can be
 * any bytes) shows with U+FFFD (common/esc.h). Two such paths would then
 * be one text, and the trust digest would not see one swapped for the
 * other: a comment after the key keeps the text exact. spec refuses to
 * print such a policy (spec_emit_check). */
static void emit_raw_bytes(struct buf *b, const struct key_def *d,
			   const struct key_value *kv, unsigned flags)
{
	for (size_t i = 0; i < kv->list.n; i++) {
		const char *v = kv->list.v[i];
		if (!keep_entry(kv, i, flags) || esc_utf8_valid(v, strlen(v)))
			continue;
		buf_printf(
		    b, "# %s entry %zu is not UTF-8, its bytes: ", d->key, i);
		for (const char *c = v; *c; c++)
			buf_printf(b, "%02x", (unsigned char)*c);
		buf_putc(b, '\n');
	}
}

int spec_emit_check(const struct policy *p, struct lnk_err *err)
{
	for (size_t i = 0; i < K__COUNT; i++) {
		const struct key_def *d = key_def((enum key_id)i);
		const struct key_value *kv = &p->k[i];
		for (size_t j = 0; j < kv->list.n; j++) {
			const char *v = kv->list.v[j];
			if (esc_utf8_valid(v, strlen(v)))
				continue;
			char shown[256];
			return err_set(err, -EILSEQ,
				       "'%s' (%s) is not UTF-8, and a spec "
				       "(TOML) holds only UTF-8: rename it, "
				       "or give it by flag to lnk sandbox run",
				       esc_to(shown, sizeof(shown), v),
				       d->flag ? d->flag : d->key);
		}
	}
	return 0;
}

char *spec_emit_flags(const struct policy *p, unsigned flags)
{
	struct buf b = {0};
	bool grants = flags & SPEC_EMIT_GRANTS_ONLY;
	if (!grants || (flags & SPEC_EMIT_NAME)) {
		const struct key_value *name = &p->k[K_NAME];
		if (name->set && name->str && keep_key(name, flags)) {
			buf_puts(&b, "name = ");
			buf_toml_str(&b, name->str, strlen(name->str));
			buf_putc(&b, '\n');
		}
	}
	/* Always written: a spec says which format it is in. */
	if (!grants)
		buf_puts(&b, "version = 1\n");
	const char *const *secs = keys_sections();
	for (size_t s = 0; secs[s]; s++) {
		bool header = false;
		for (size_t i = 0; i < K__COUNT; i++) {
			const struct key_def *d = key_def((enum key_id)i);
			if (!d->section || strcmp(d->section, secs[s]) != 0)
				continue;
			const struct key_value *kv = &p->k[i];
			if (!keep_key(kv, flags) ||
			    (!key_is_list(d->type) && !kv->str))
				continue;
			if (!header) {
				if (b.len)
					buf_putc(&b, '\n');
				buf_printf(&b, "[%s]\n", secs[s]);
				header = true;
			}
			if (key_is_list(d->type)) {
				emit_list(&b, d, kv, flags);
				emit_raw_bytes(&b, d, kv, flags);
			} else if (d->type == KT_SIZE ||
				   d->type == KT_CHANGES) {
				buf_printf(&b, "%s = ", d->key);
				buf_toml_str(&b, kv->str, strlen(kv->str));
				buf_putc(&b, '\n');
			} else {
				/* KT_COUNT: checked digits (keys.c) */
				buf_printf(&b, "%s = %s\n", d->key, kv->str);
			}
		}
	}
	return buf_steal(&b);
}

char *spec_emit(const struct policy *p)
{
	return spec_emit_flags(p, 0);
}
