/* A question's words (question.h). */
#include "tools/question.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/buf.h"
#include "common/esc.h"

/* What a cut line ends with: "..." and how long the whole was. */
#define CUT_ROOM 32
/* The first line's parts, at most: the tool, the first argument and the
 * folder each keep their place on it. */
#define HEAD_TOOL_COLS 24
#define HEAD_ARG_COLS 40
#define HEAD_DIR_COLS 120
/* Bytes of an argument escaped to show its start: enough for any line. */
#define ARG_PEEK (QUESTION_COLS * 4)

size_t question_cols(const char *s, size_t n)
{
	size_t cols = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x80)
			cols++;
		else if ((c & 0xc0) != 0x80)
			cols += 2;
	}
	return cols;
}

size_t question_fit(const char *s, size_t n, size_t cols)
{
	size_t used = 0, i = 0;

	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		size_t len = 1, w = c < 0x80 ? 1 : 2;
		if (c >= 0x80)
			while (i + len < n &&
			       ((unsigned char)s[i + len] & 0xc0) == 0x80)
				len++;
		if (used + w > cols)
			break;
		used += w;
		i += len;
	}
	return i;
}

size_t question_fit_tail(const char *s, size_t n, size_t cols)
{
	size_t used = 0, i = n;

	while (i > 0) {
		size_t j = i - 1;
		while (j > 0 && ((unsigned char)s[j] & 0xc0) == 0x80)
			j--;
		size_t w = (unsigned char)s[j] < 0x80 ? 1 : 2;
		if (used + w > cols)
			break;
		used += w;
		i = j;
	}
	return i;
}

/* s as one shell word in at most cols columns; a word that does not fit
 * is cut and says the length of the whole argument, so that two
 * arguments cut alike are never taken for the same. */
static char *word(const char *s, size_t cols)
{
	size_t len = strlen(s);
	_cleanup_free_ char *peek =
	    xstrndup(s, len < ARG_PEEK ? len : ARG_PEEK);
	_cleanup_free_ char *w = esc_word_dup(peek);
	size_t wl = strlen(w);

	if (len <= ARG_PEEK && question_cols(w, wl) <= cols)
		return steal_ptr(&w);
	size_t keep =
	    question_fit(w, wl, cols > CUT_ROOM ? cols - CUT_ROOM : 1);
	return xasprintf("%.*s... (%zu bytes in all)", (int)keep, w, len);
}

/* A folder too long for its place: its start and its end, the cut
 * marked "[...]" where it is (the person is told a part is not shown,
 * never shown a path that could be another's). */
static char *folder_word(const char *dir)
{
	_cleanup_free_ char *w = esc_word_dup(dir);
	size_t wl = strlen(w);

	if (question_cols(w, wl) <= HEAD_DIR_COLS)
		return steal_ptr(&w);
	size_t head = question_fit(w, wl, 40);
	size_t tail = question_fit_tail(w, wl, HEAD_DIR_COLS - 40 - 5);
	return xasprintf("%.*s[...]%s", (int)head, w, w + tail);
}

static char *tool_word(const char *tool)
{
	_cleanup_free_ char *t = esc_dup(tool);
	size_t tl = strlen(t);

	if (question_cols(t, tl) <= HEAD_TOOL_COLS)
		return steal_ptr(&t);
	size_t keep = question_fit(t, tl, HEAD_TOOL_COLS - 3);
	return xasprintf("%.*s...", (int)keep, t);
}

char *question_folder(const char *folder)
{
	return folder_word(folder);
}

char *question_summary(const char *tool, const struct strv *args,
		       const char *folder)
{
	struct buf b = {0};
	_cleanup_free_ char *t = tool_word(tool);

	buf_puts(&b, t);
	if (args->n) {
		_cleanup_free_ char *a = word(args->v[0], HEAD_ARG_COLS);
		buf_printf(&b, " %s%s (%zu argument%s)", a,
			   args->n > 1 ? " ..." : "", args->n,
			   args->n == 1 ? "" : "s");
	} else {
		buf_puts(&b, " (no arguments)");
	}
	if (folder) {
		_cleanup_free_ char *d = folder_word(folder);
		buf_printf(&b, ", in %s", d);
	}
	buf_putc(&b, '\0');
	return buf_steal(&b);
}

/* The columns an argument's word has on its line. */
static size_t arg_cols(const struct strv *args)
{
	char digits[32];
	int width = snprintf(digits, sizeof(digits), "%zu", args->n);
	return QUESTION_COLS - 4 - (size_t)width;
}

bool question_whole(const struct strv *args)
{
	if (args->n > QUESTION_ARGS_MAX)
		return false;
	size_t cols = arg_cols(args);
	for (size_t i = 0; i < args->n; i++) {
		if (strlen(args->v[i]) > ARG_PEEK)
			return false;
		_cleanup_free_ char *w = esc_word_dup(args->v[i]);
		if (question_cols(w, strlen(w)) > cols)
			return false;
	}
	return true;
}

static void arg_line(struct buf *b, const struct strv *args, size_t i,
		     int width)
{
	size_t cols = QUESTION_COLS - 4 - (size_t)width;
	_cleanup_free_ char *w = word(args->v[i], cols);
	buf_printf(b, "  %*zu  %s\n", width, i + 1, w);
}

char *question_text(const char *tool, const struct strv *args,
		    const char *folder)
{
	struct buf b = {0};
	char digits[32];
	int width = snprintf(digits, sizeof(digits), "%zu", args->n);
	_cleanup_free_ char *head = question_summary(tool, args, folder);

	buf_puts(&b, head);
	buf_putc(&b, '\n');
	if (args->n <= QUESTION_ARGS_MAX) {
		for (size_t i = 0; i < args->n; i++)
			arg_line(&b, args, i, width);
	} else {
		size_t tail = args->n - QUESTION_TAIL, bytes = 0;
		for (size_t i = 0; i < QUESTION_HEAD; i++)
			arg_line(&b, args, i, width);
		for (size_t i = QUESTION_HEAD; i < tail; i++)
			bytes += strlen(args->v[i]);
		/* Blank where a number stands: no argument's line reads
		 * like this one. */
		buf_printf(&b,
			   "  %*s  ... %zu arguments (%zu bytes) not shown "
			   "...\n",
			   width, "", tail - QUESTION_HEAD, bytes);
		for (size_t i = tail; i < args->n; i++)
			arg_line(&b, args, i, width);
	}
	buf_putc(&b, '\0');
	return buf_steal(&b);
}
