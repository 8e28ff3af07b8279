/* The words a question shows: what will run outside, if the person says
 * yes.
 *
 * Threat: the program chooses every argument of its call, and the person
 * answers for what they read. A call longer than the screen would push its
 * first lines (the tool, `log --output=~/.bashrc`) out of sight while
 * arguments padded to read as a harmless call (`git status --short`) sit
 * beside the code; an argument holding a newline or an escape would draw a
 * line that looks like lnk's own. So:
 *   - each argument is one shell word (esc_word_dup: escaped, quoted when
 *     it holds a space, a quote or nothing) on a line of its own, after its
 *     number and an indentation lnk chose: no argument starts a line;
 *   - a tool's call that would be folded or cut (question_whole) is never
 *     asked about; a longer text (a page) is folded: the first
 *     QUESTION_HEAD and the last QUESTION_TAIL arguments are shown, and
 *     one line in between says how many arguments and bytes are not
 *     shown;
 *   - an argument longer than a line is cut, and says how many bytes were
 *     not shown;
 *   - the first line names the tool and the first argument, whatever
 *     follows; every line is at most QUESTION_COLS columns, and there are
 *     at most QUESTION_LINES lines.
 * A terminal narrower or lower than that folds and cuts again
 * (launch/askterm.c), never wraps. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "common/util.h"

#define QUESTION_HEAD 6
#define QUESTION_TAIL 4
#define QUESTION_ARGS_MAX (QUESTION_HEAD + QUESTION_TAIL + 1)
/* The first line, the arguments (folded: head, one line, tail). */
#define QUESTION_LINES (1 + QUESTION_ARGS_MAX)
#define QUESTION_COLS 240

/* The question: QUESTION_LINES lines at most, each ended by '\n', each
 * printable (no control character, valid UTF-8) and at most QUESTION_COLS
 * columns (question_cols). Line 1: the tool and its first argument, how
 * many arguments, and the folder ("in /home/me/proj"; folder NULL: none
 * said, as for a page). Then one line per argument, "  1  --output=x".
 * Allocated. */
char *question_text(const char *tool, const struct strv *args,
		    const char *folder);

/* Whether question_text shows every argument whole: at most
 * QUESTION_ARGS_MAX of them, none cut. A call it would fold or cut is
 * never asked about (tools/broker.c): a yes would allow what no screen
 * showed. */
bool question_whole(const struct strv *args);

/* One line, at most QUESTION_COLS columns: the tool, its first argument,
 * how many arguments, the folder: "git log ... (3 arguments), in /x". A
 * folder of more than 120 columns shows its start and end around "[...]".
 * Allocated. */
char *question_summary(const char *tool, const struct strv *args,
		       const char *folder);
/* The folder as question_summary shows it after ", in ". Allocated. */
char *question_folder(const char *folder);

/* The columns s (n bytes, printable UTF-8) takes on a terminal, counted
 * so that it never takes more: a character from U+0080 counts two (it may
 * be wide). */
size_t question_cols(const char *s, size_t n);

/* The longest start of s (n bytes) that takes at most cols columns, by
 * question_cols, ending on a whole character: its length in bytes. */
size_t question_fit(const char *s, size_t n, size_t cols);

/* Where the longest end of s (n bytes) that takes at most cols columns
 * starts, on a whole character. */
size_t question_fit_tail(const char *s, size_t n, size_t cols);
