/* The one escaper for text a file, a spec, the network or the program chose.
 *
 * Threat: a name lnk prints (a path, a shebang's interpreter, a host in the
 * log, a spec's value) reaches the user's terminal or a desktop. Escape
 * sequences in it (ESC, CSI as U+009B, OSC 52) would retitle the window,
 * write the clipboard, clear the screen or redraw the asked-first question;
 * bidirectional overrides and invisible characters would show a value other
 * than the one lnk acts on. So every such string passes through here.
 *
 * What is shown escaped (the "hidden" class):
 *   - C0 controls U+0000-U+001F, DEL U+007F, C1 controls U+0080-U+009F;
 *   - every format character (Unicode category Cf: soft hyphen, U+061C,
 *     U+180E, zero-width U+200B-U+200F, bidirectional embeddings and
 *     overrides U+202A-U+202E and isolates U+2066-U+2069, U+2060-U+206F,
 *     U+FEFF, U+FFF9-U+FFFB, tags U+E0000-U+E007F, ...), the line and
 *     paragraph separators U+2028/U+2029, the variation selectors
 *     (U+180B-U+180D, U+FE00-U+FE0F, U+E0100-U+E01EF) and the blank fillers
 *     (U+034F, U+115F, U+1160, U+17B4, U+17B5, U+3164, U+FFA0, and the
 *     braille blank U+2800);
 *   - every space but U+0020 (Unicode category Zs: no-break U+00A0,
 *     U+1680, U+2000-U+200A, U+202F, U+205F, ideographic U+3000): shown
 *     as a blank, one cannot be told from a space, so an argument in an
 *     asked-first question would read as two words of another call;
 *   - every byte that is not part of valid UTF-8: stray continuation bytes
 *     (so raw C1 bytes 0x80-0x9f), overlong forms, surrogates, code points
 *     above U+10FFFF and truncated sequences.
 * Everything else, including letters of every script, is kept as it is.
 *
 * The visible form on a terminal (ESC_TEXT): a backslash is doubled, an
 * escaped character below U+0080 and a byte that is not UTF-8 become \xNN
 * (two lowercase hex digits), an escaped character from U+0080 up becomes
 * \u{N} (lowercase hex, as few digits as needed). So ESC is \x1b, the C1
 * CSI character is \u{9b} while a lone 0x9b byte is \x9b, and a
 * right-to-left override is \u{202e}. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct buf;

enum esc_form {
	/* A value quoted in lnk's text, exact: \\, \xNN, \u{N}. */
	ESC_TEXT,
	/* A whole message of lnk's that may hold values: as ESC_TEXT, but a
	 * backslash stays single (so a value escaped earlier is not escaped
	 * twice) and a newline is escaped too: one line, always. */
	ESC_LINE,
	/* As ESC_LINE, but newlines, tabs and a CR before a newline stay:
	 * lnk's own lines. */
	ESC_LINES,
	/* As ESC_TEXT, and the result is printable ASCII only: every
	 * character from U+0080 becomes \u{N}, and < > & become \xNN (the
	 * body of a desktop notification is markup). */
	ESC_ASCII,
	/* The inside of a JSON string: \" \\ \b \f \n \r \t, the hidden class
	 * as \uNNNN (UTF-16 surrogate pairs above U+FFFF); a byte that is not
	 * UTF-8 becomes U+FFFD, since JSON holds only Unicode. */
	ESC_JSON,
	/* The inside of a TOML basic string: as ESC_JSON, with \uNNNN and
	 * \UNNNNNNNN in upper case; a byte that is not UTF-8 becomes U+FFFD. */
	ESC_TOML,
};

/* Decodes one UTF-8 character of s (n > 0 bytes). Returns its length and
 * sets *cp; returns 0 when s does not start with a valid, shortest-form
 * UTF-8 character (then the first byte alone is to be escaped). */
size_t esc_utf8_next(const unsigned char *s, size_t n, uint32_t *cp);

/* Whether cp is in the hidden class above. */
bool esc_hidden(uint32_t cp);

/* Whether s (n bytes) is valid UTF-8 throughout. */
bool esc_utf8_valid(const char *s, size_t n);

/* Appends s (n bytes, NULs included) to b in the given form. */
void esc_append(struct buf *b, const char *s, size_t n, enum esc_form form);

/* The n bytes at s in form into dst (cap bytes with the NUL), cut between
 * two pieces and ended with "..." (when cap > 4) if they do not fit. */
void esc_into(char *dst, size_t cap, const char *s, size_t n,
	      enum esc_form form);

/* s in ESC_TEXT into dst as esc_into does; s may be NULL (shown empty).
 * Returns dst, for use as a printf argument. */
const char *esc_to(char *dst, size_t cap, const char *s);

/* The same for the n bytes at s (which may hold NULs). */
const char *esc_to_n(char *dst, size_t cap, const char *s, size_t n);

/* s in ESC_TEXT, allocated. */
char *esc_dup(const char *s);

/* s as one word of a POSIX shell command line, allocated: as it is when
 * it holds only letters, digits and _ @ + : , . / - (and is not empty),
 * else between single quotes (a quote of its own as '\''), in ESC_TEXT.
 * Threat: a value lnk suggests after a flag ("--command X allows it") is
 * pasted into a shell; a name the program or a file chose must not become
 * more words (more grants), a tilde, a glob or a command substitution. */
char *esc_word_dup(const char *s);

/* s as one word of a POSIX shell command line as esc_word_dup quotes it,
 * but NOT escaped, and a quote of its own as '"'"' (no backslash): for
 * text stored to be escaped once where it is shown (a log row, whose
 * escaping would show every backslash of esc_word_dup's form doubled).
 * Never print it without escaping it. */
char *shell_word_dup(const char *s);

/* Rewrites msg (a NUL-terminated message in a cap-byte buffer) in place in
 * the given form (ESC_LINE or ESC_LINES), cut with "..." when the escaped
 * text does not fit. */
void esc_msg(char *msg, size_t cap, enum esc_form form);
