/* The report of what a run left, for a person and for tools (changes.h).
 * Every path is the program's choice: escaped (ESC_TEXT on a terminal,
 * ESC_JSON in JSON), and a reason may hold a name from a file it wrote
 * (a git config's subsection), so it is escaped too.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "changes/changes.h"
#include "common/buf.h"
#include "common/esc.h"

static void thousands(struct buf *b, size_t n)
{
	char d[32];
	int len = snprintf(d, sizeof(d), "%zu", n);
	for (int i = 0; i < len; i++) {
		if (i && (len - i) % 3 == 0)
			buf_putc(b, ',');
		buf_putc(b, d[i]);
	}
}

static void shown_path(struct buf *b, const char *top, const char *home)
{
	size_t h = home ? strlen(home) : 0;
	if (h > 1 && strncmp(top, home, h) == 0 &&
	    (top[h] == '/' || top[h] == '\0')) {
		buf_putc(b, '~');
		top += h;
	}
	esc_append(b, top, strlen(top), ESC_TEXT);
}

static void count_line(struct buf *b, const struct changes_folder *f,
		       const char *home)
{
	/* a walk cut short counted only what it reached */
	buf_puts(b, f->cut ? "changed at least " : "changed ");
	thousands(b, f->changed);
	buf_puts(b, f->changed == 1 ? " file in " : " files in ");
	shown_path(b, f->top, home);
	bool open = false;
	for (size_t i = 0; i < CHANGES_NBULKY; i++) {
		if (!f->bulky[i])
			continue;
		buf_puts(b, open ? ", " : " (");
		open = true;
		thousands(b, f->bulky[i]);
		buf_printf(b, " in %s", changes_bulky_name(i));
	}
	if (open)
		buf_putc(b, ')');
	if (f->cut) {
		buf_puts(b, "; not all looked at: ");
		esc_append(b, f->cut_why, strlen(f->cut_why), ESC_TEXT);
	}
}

void changes_text(struct buf *out, const struct changes_folder *f, size_t n,
		  enum changes_mode mode, const char *home, size_t max_shown,
		  const char *sandbox)
{
	size_t shown = 0, more = 0;
	if (mode == CHANGES_OFF || !changes_any(f, n))
		return;
	size_t flagged = 0;
	for (size_t i = 0; i < n; i++)
		flagged += f[i].nflags;
	/* one line of counts, every folder that changed */
	buf_puts(out, "lnk: ");
	bool first = true;
	for (size_t i = 0; i < n; i++) {
		if (!f[i].changed && !f[i].nflags && !f[i].cut)
			continue;
		if (!first)
			buf_puts(out, "; ");
		first = false;
		count_line(out, &f[i], home);
	}
	if (flagged)
		buf_printf(out,
			   "; %zu to review before you build, open or "
			   "cd into it:",
			   flagged);
	buf_putc(out, '\n');
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < f[i].nflags; j++) {
			if (max_shown && shown >= max_shown) {
				more++;
				continue;
			}
			shown++;
			buf_puts(out, "lnk:   ");
			shown_path(out, f[i].top, home);
			buf_putc(out, '/');
			esc_append(out, f[i].flags[j].path,
				   strlen(f[i].flags[j].path), ESC_TEXT);
			buf_puts(out, ": ");
			esc_append(out, f[i].flags[j].reason,
				   strlen(f[i].flags[j].reason), ESC_TEXT);
			buf_putc(out, '\n');
		}
		if (mode != CHANGES_FULL)
			continue;
		for (size_t j = 0; j < f[i].nlisted; j++) {
			buf_puts(out, "lnk:   changed ");
			shown_path(out, f[i].top, home);
			buf_putc(out, '/');
			esc_append(out, f[i].listed[j], strlen(f[i].listed[j]),
				   ESC_TEXT);
			buf_putc(out, '\n');
		}
		if (f[i].nlisted < f[i].changed)
			buf_printf(out, "lnk:   (%zu more not listed)\n",
				   f[i].changed - f[i].nlisted);
	}
	if (more) {
		buf_printf(out,
			   "lnk:   and %zu more to review: lnk sandbox "
			   "changes ",
			   more);
		esc_append(out, sandbox ? sandbox : "",
			   sandbox ? strlen(sandbox) : 0, ESC_TEXT);
		buf_putc(out, '\n');
	}
}

static void jstr(struct buf *b, const char *s)
{
	buf_putc(b, '"');
	esc_append(b, s, strlen(s), ESC_JSON);
	buf_putc(b, '"');
}

void changes_json(struct buf *out, const char *sandbox, int64_t ended_ms,
		  const struct changes_folder *f, size_t n)
{
	buf_puts(out, "{\"sandbox\":");
	jstr(out, sandbox ? sandbox : "");
	buf_printf(out, ",\"ended_ms\":%" PRId64 ",\"folders\":[", ended_ms);
	for (size_t i = 0; i < n; i++) {
		if (i)
			buf_putc(out, ',');
		buf_puts(out, "{\"top\":");
		jstr(out, f[i].top);
		buf_printf(out, ",\"changed\":%zu,\"seen\":%zu,\"bulky\":{",
			   f[i].changed, f[i].seen);
		bool first = true;
		for (size_t k = 0; k < CHANGES_NBULKY; k++) {
			if (!f[i].bulky[k])
				continue;
			if (!first)
				buf_putc(out, ',');
			first = false;
			jstr(out, changes_bulky_name(k));
			buf_printf(out, ":%zu", f[i].bulky[k]);
		}
		buf_printf(out, "},\"cut\":%s", f[i].cut ? "true" : "false");
		if (f[i].cut) {
			buf_puts(out, ",\"cut_why\":");
			jstr(out, f[i].cut_why);
		}
		buf_puts(out, ",\"flags\":[");
		for (size_t j = 0; j < f[i].nflags; j++) {
			if (j)
				buf_putc(out, ',');
			buf_puts(out, "{\"path\":");
			jstr(out, f[i].flags[j].path);
			buf_puts(out, ",\"reason\":");
			jstr(out, f[i].flags[j].reason);
			buf_putc(out, '}');
		}
		buf_puts(out, "]}");
	}
	buf_puts(out, "]}");
}
