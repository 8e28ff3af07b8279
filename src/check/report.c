/* The verdicts of lnk sandbox check, the table and the JSON (check.h).
 *
 * The words of lnk-sandbox(1), COMMANDS, check, exactly: blocked (the sandbox
 * stopped it), allowed (a grant lets it through, as it should), failed (allowed
 * but it did not work here), missed (should have been allowed and was not),
 * open (a known gap), leaked (something nothing allows got through).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "changes/changes.h"
#include "check/check.h"
#include "common/esc.h"

const char *check_verdict_name(enum check_verdict v)
{
	switch (v) {
	case CV_BLOCKED:
		return "blocked";
	case CV_ALLOWED:
		return "allowed";
	case CV_FAILED:
		return "failed";
	case CV_MISSED:
		return "missed";
	case CV_OPEN:
		return "open";
	case CV_LEAKED:
		return "leaked";
	}
	return "?";
}

enum check_verdict check_verdict_of(enum check_expect e, enum check_outcome o,
				    enum check_host h, bool host_ok)
{
	switch (e) {
	case CHECK_DENY:
	case CHECK_REFUSE:
		/* For a write, the host is the judge: a file created in the
		 * sandbox's private /tmp or empty home reached nothing. */
		if (h != CH_NONE)
			return host_ok ? CV_BLOCKED : CV_LEAKED;
		switch (o) {
		case CO_REACHED:
			return CV_LEAKED;
		case CO_REFUSED:
			return CV_BLOCKED;
		case CO_ERROR:
			/* A call that timed out was not refused: it may have
			 * gone out to a machine that did not answer. */
			return e == CHECK_REFUSE ? CV_FAILED : CV_BLOCKED;
		case CO_NONE:
			return CV_FAILED;
		}
		break;
	case CHECK_ALLOW:
		switch (o) {
		case CO_REACHED:
			return CV_ALLOWED;
		case CO_REFUSED:
			return CV_MISSED;
		case CO_ERROR:
		case CO_NONE:
			return CV_FAILED;
		}
		break;
	case CHECK_GAP:
		/* a leftover the report must name: open when it does */
		if (h == CH_FLAGGED)
			return o != CO_REACHED ? CV_BLOCKED
			       : host_ok       ? CV_OPEN
					       : CV_LEAKED;
		if (h != CH_NONE && !host_ok)
			return CV_OPEN;
		return o == CO_REACHED ? CV_OPEN : CV_BLOCKED;
	}
	return CV_FAILED;
}

/* What the host shows now for a try that wrote. */
static bool host_ok(const struct check_try *t, char **why)
{
	switch (t->host) {
	case CH_NONE:
		return true;
	case CH_ABSENT: {
		struct stat st;
		if (lstat(t->host_path, &st) < 0)
			return true;
		*why = xasprintf("%s now exists on this machine", t->host_path);
		return false;
	}
	case CH_UNCHANGED: {
		_cleanup_free_ char *now = NULL;
		size_t len = 0;
		if (read_file(t->host_path, 1 << 16, &now, &len) == 0 &&
		    len == strlen(t->host_content) &&
		    memcmp(now, t->host_content, len) == 0)
			return true;
		*why = xasprintf("%s changed on this machine", t->host_path);
		return false;
	}
	case CH_FLAGGED: {
		struct changes_bounds b;
		changes_bounds_default(&b);
		struct changes_where in = {0};
		struct changes_folder f;
		struct lnk_err err = {0};
		size_t n = strlen(t->host_root);
		const char *rel = t->host_path + n + 1;
		bool named = false;
		if (strncmp(t->host_path, t->host_root, n) == 0 &&
		    t->host_path[n] == '/' &&
		    changes_walk(t->host_root, t->host_ctime, &in, &b, &f,
				 &err) == 0) {
			for (size_t i = 0; i < f.nflags && !named; i++)
				if (strcmp(f.flags[i].path, rel) == 0) {
					named = true;
					*why =
					    xasprintf("the end of a run names "
						      "it: %s",
						      f.flags[i].reason);
				}
			changes_folder_free(&f);
		}
		if (!named)
			*why = xasprintf("the end of a run would not name %s",
					 t->host_path);
		return named;
	}
	case CH_CTIME: {
		struct stat st;
		if (stat(t->host_path, &st) == 0 &&
		    st.st_ctim.tv_sec == t->host_ctime.tv_sec &&
		    st.st_ctim.tv_nsec == t->host_ctime.tv_nsec)
			return true;
		*why =
		    xasprintf("%s was changed on this machine", t->host_path);
		return false;
	}
	}
	return true;
}

static struct check_try *find(struct check_list *l, const char *id, size_t n)
{
	for (size_t i = 0; i < l->n; i++)
		if (strlen(l->t[i].id) == n && memcmp(l->t[i].id, id, n) == 0)
			return &l->t[i];
	return NULL;
}

void check_judge(struct check_list *l, const char *out, size_t len)
{
	const char *p = out, *end = out + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		const char *t1 = memchr(p, '\t', (size_t)(le - p));
		const char *t2 =
		    t1 ? memchr(t1 + 1, '\t', (size_t)(le - t1 - 1)) : NULL;
		struct check_try *t = t1 ? find(l, p, (size_t)(t1 - p)) : NULL;
		/* Only the first answer counts: a program cannot overwrite
		 * the probe's answer by printing later. */
		if (t && t2 && t->out == CO_NONE) {
			size_t rn = (size_t)(t2 - t1 - 1);
			if (rn == 7 && !memcmp(t1 + 1, "reached", 7))
				t->out = CO_REACHED;
			else if (rn == 7 && !memcmp(t1 + 1, "refused", 7))
				t->out = CO_REFUSED;
			else if (rn == 5 && !memcmp(t1 + 1, "error", 5))
				t->out = CO_ERROR;
			if (t->out != CO_NONE)
				t->detail =
				    xstrndup(t2 + 1, (size_t)(le - t2 - 1));
		}
		p = nl ? nl + 1 : end;
	}
	for (size_t i = 0; i < l->n; i++) {
		struct check_try *t = &l->t[i];
		char *why = NULL;
		bool ok = host_ok(t, &why);
		t->v = check_verdict_of(t->expect, t->out, t->host, ok);
		if (why) {
			free(t->detail);
			t->detail = why;
		} else if (t->out == CO_NONE) {
			free(t->detail);
			t->detail = xstrdup("the probe did not answer");
		} else if (t->host != CH_NONE && t->out == CO_REACHED &&
			   t->v == CV_BLOCKED) {
			free(t->detail);
			t->detail = xstrdup(
			    t->host == CH_CTIME
				? "a copy inside only; nothing reached this "
				  "machine"
				: "written inside only; nothing reached this "
				  "machine");
		}
	}
}

size_t check_count(const struct check_list *l, enum check_verdict v)
{
	size_t n = 0;
	for (size_t i = 0; i < l->n; i++)
		n += l->t[i].v == v;
	return n;
}

void check_table(const struct check_list *l, const char *home, struct buf *b)
{
	(void)home;
	buf_printf(b, "%-8s  %-12s  %s\n", "RESULT", "AREA", "TRY");
	for (size_t i = 0; i < l->n; i++) {
		const struct check_try *t = &l->t[i];
		/* A try names granted paths and quotes what the probe got:
		 * the row is escaped (common/esc.h) as one line. */
		struct buf row = {0};
		buf_printf(&row, "%-8s  %-12s  %s", check_verdict_name(t->v),
			   t->area, t->what);
		if (t->detail && *t->detail)
			buf_printf(&row, ": %s", t->detail);
		if (t->v == CV_OPEN && t->gap)
			buf_printf(&row, " (known gap: %s)", t->gap);
		esc_append(b, row.p, row.len, ESC_LINE);
		buf_free(&row);
		buf_putc(b, '\n');
	}
	size_t leaked = check_count(l, CV_LEAKED);
	buf_printf(b,
		   "\n%zu tries: %zu blocked, %zu allowed, %zu failed, %zu "
		   "missed, %zu open, %zu leaked\n",
		   l->n, check_count(l, CV_BLOCKED), check_count(l, CV_ALLOWED),
		   check_count(l, CV_FAILED), check_count(l, CV_MISSED),
		   check_count(l, CV_OPEN), leaked);
	if (l->limits_line) {
		buf_puts(b, "limits: ");
		esc_append(b, l->limits_line, strlen(l->limits_line), ESC_LINE);
		buf_putc(b, '\n');
	}
	if (leaked)
		buf_puts(b, "LEAKED: something nothing allows got through; "
			    "please report it (lnk-sandbox(1), SECURITY)\n");
	else
		buf_puts(b, "nothing leaked\n");
}

static const char *expect_name(enum check_expect e)
{
	switch (e) {
	case CHECK_DENY:
		return "deny";
	case CHECK_ALLOW:
		return "allow";
	case CHECK_GAP:
		return "gap";
	case CHECK_REFUSE:
		return "deny";
	}
	return "?";
}

static void jstr(struct buf *b, const char *s)
{
	buf_json_str(b, s ? s : "", s ? strlen(s) : 0);
}

void check_json(const struct check_list *l, const struct strv *warnings,
		struct buf *b)
{
	buf_puts(b, "{\"tries\":[");
	for (size_t i = 0; i < l->n; i++) {
		const struct check_try *t = &l->t[i];
		buf_puts(b, i ? ",{" : "{");
		buf_puts(b, "\"id\":");
		jstr(b, t->id);
		buf_puts(b, ",\"area\":");
		jstr(b, t->area);
		buf_puts(b, ",\"try\":");
		jstr(b, t->what);
		buf_puts(b, ",\"expect\":");
		jstr(b, expect_name(t->expect));
		buf_puts(b, ",\"result\":");
		jstr(b, check_verdict_name(t->v));
		buf_puts(b, ",\"detail\":");
		jstr(b, t->detail);
		if (t->gap) {
			buf_puts(b, ",\"gap\":");
			jstr(b, t->gap);
		}
		buf_putc(b, '}');
	}
	buf_puts(b, "],\"counts\":{");
	for (int v = CV_BLOCKED; v <= CV_LEAKED; v++)
		buf_printf(b, "%s\"%s\":%zu", v ? "," : "",
			   check_verdict_name((enum check_verdict)v),
			   check_count(l, (enum check_verdict)v));
	buf_puts(b, "}");
	if (l->limits_line) {
		buf_puts(b, ",\"limits\":");
		jstr(b, l->limits_line);
	}
	buf_puts(b, ",\"warnings\":[");
	for (size_t i = 0; i < warnings->n; i++) {
		if (i)
			buf_putc(b, ',');
		jstr(b, warnings->v[i]);
	}
	buf_putc(b, ']');
	buf_printf(b, ",\"leaked\":%s}\n",
		   check_count(l, CV_LEAKED) ? "true" : "false");
}
