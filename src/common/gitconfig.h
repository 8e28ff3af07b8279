/* git's config files (git-config(1), CONFIGURATION FILE) read by hand,
 * never by running git: as far as sections, subsections, keys and values
 * go. Pure: the text is the caller's, changed in place. */
#pragma once

#include <stddef.h>

/* The text (len bytes, then a NUL) as git reads it: a byte-order mark at
 * its start is skipped, a line may end in CR LF, a CR of its own and a
 * NUL byte are read past (a space here), and a backslash at a line's end continues a value on
 * the next line, but not one another backslash escapes ("\\\\"), nor
 * one in a comment or a header, where git ends the line. NULL is no
 * text. */
void gitconfig_text_fix(char *text, size_t len);

/* One value, unquoted and unescaped in place; p points after the '='.
 * Returns the value (within the line). */
char *gitconfig_value(char *p);

/* Calls fn for each "key = value" line of text (after gitconfig_text_fix),
 * a variable on a header's line too ("[core] x = y"), with its section
 * and key in lower case, its subsection as git reads it ("" for none:
 * [s "Sub"] as written, [s.Sub] in lower case) and value at what follows
 * the '=' (for gitconfig_value). A line git would not read is skipped. */
void gitconfig_each(char *text,
		    void (*fn)(void *ctx, const char *section, const char *sub,
			       const char *key, char *value),
		    void *ctx);

/* ch in lower case, ASCII only: git's section and key names. */
char gitconfig_lower(char ch);
/* p past its spaces and tabs. */
char *gitconfig_blanks_past(char *p);
