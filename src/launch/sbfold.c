/* Names in any case, as the Mac's disks fold them (see sbfold.h). */
#include "launch/sbfold.h"

#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "common/util.h"

/* Both compare names after Unicode's case folding (and APFS after its
 * canonical decomposition too), so beside the ASCII cases a few other code
 * points name an ASCII letter or pair: the list is every code point whose
 * folding or canonical decomposition is only ASCII letters (Unicode's
 * CaseFolding.txt and UnicodeData.txt; docs/macos.md shows how it was
 * made). Full folding is covered, a superset of the simple folding. */
struct fold_alt {
	const char *ascii; /* lower case */
	const char *utf8;  /* a code point that folds to it */
};
static const struct fold_alt fold_alts[] = {
    {"s", "\xc5\xbf"},	     /* U+017F LATIN SMALL LETTER LONG S */
    {"k", "\xe2\x84\xaa"},   /* U+212A KELVIN SIGN */
    {"ss", "\xc3\x9f"},	     /* U+00DF LATIN SMALL LETTER SHARP S */
    {"ss", "\xe1\xba\x9e"},  /* U+1E9E LATIN CAPITAL LETTER SHARP S */
    {"ff", "\xef\xac\x80"},  /* U+FB00 LATIN SMALL LIGATURE FF */
    {"fi", "\xef\xac\x81"},  /* U+FB01 LATIN SMALL LIGATURE FI */
    {"fl", "\xef\xac\x82"},  /* U+FB02 LATIN SMALL LIGATURE FL */
    {"ffi", "\xef\xac\x83"}, /* U+FB03 LATIN SMALL LIGATURE FFI */
    {"ffl", "\xef\xac\x84"}, /* U+FB04 LATIN SMALL LIGATURE FFL */
    {"st", "\xef\xac\x85"},  /* U+FB05 LATIN SMALL LIGATURE LONG S T */
    {"st", "\xef\xac\x86"},  /* U+FB06 LATIN SMALL LIGATURE ST */
};

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* The length of the longest ligature (2 or 3 letters) whose letters s
 * starts with, in any case; 0 if none. */
static size_t lig_at(const char *s)
{
	size_t best = 0;
	for (size_t i = 0; i < ARRAY_SIZE(fold_alts); i++) {
		const char *a = fold_alts[i].ascii;
		size_t n = strlen(a), j = 0;
		if (n < 2)
			continue;
		while (j < n && s[j] && lower(s[j]) == a[j])
			j++;
		if (j == n && n > best)
			best = n;
	}
	return best;
}

/* One byte of a name as a regex of its foldings. */
static void fold_byte(struct buf *b, char c)
{
	char lo = lower(c);
	if (lo >= 'a' && lo <= 'z') {
		bool more = false;
		for (size_t i = 0; i < ARRAY_SIZE(fold_alts); i++)
			more |= fold_alts[i].ascii[0] == lo &&
				!fold_alts[i].ascii[1];
		if (!more) {
			buf_printf(b, "[%c%c]", lo, (char)(lo - 'a' + 'A'));
			return;
		}
		buf_printf(b, "(%c|%c", lo, (char)(lo - 'a' + 'A'));
		for (size_t i = 0; i < ARRAY_SIZE(fold_alts); i++)
			if (fold_alts[i].ascii[0] == lo &&
			    !fold_alts[i].ascii[1])
				buf_printf(b, "|%s", fold_alts[i].utf8);
		buf_putc(b, ')');
	} else if ((c >= '0' && c <= '9') || c == '/') {
		buf_putc(b, c);
	} else if (c == '"' || c == '\\' || c == '^' || c == ']' ||
		   (unsigned char)c < 0x20 || c == 0x7f) {
		/* A regex literal cannot hold the first two nor a control
		 * character, nor a bracket the next two alone: any byte (a
		 * deny that covers more). */
		buf_putc(b, '.');
	} else if ((unsigned char)c >= 0x80) {
		/* part of a UTF-8 sequence: as itself, outside a bracket,
		 * so the sequence stays whole */
		buf_putc(b, c);
	} else {
		buf_printf(b, "[%c]", c);
	}
}

void sbpl_fold(struct buf *b, const char *s)
{
	for (size_t i = 0; s[i];) {
		size_t n = lig_at(s + i);
		if (n == 0) {
			fold_byte(b, s[i++]);
			continue;
		}
		/* Where ligatures overlap ("ffi", "sst"), a spelling can mix
		 * them in more ways than are worth writing out: the run is
		 * any bytes but '/' (a deny that covers more). */
		size_t end = i + n;
		for (size_t j = i + 1; j < end; j++) {
			size_t m = lig_at(s + j);
			if (m && j + m > end)
				end = j + m;
		}
		if (end > i + n || n == 3) {
			buf_puts(b, "[^/]+");
			i = end;
			continue;
		}
		buf_putc(b, '(');
		for (size_t j = i; j < end; j++)
			fold_byte(b, s[j]);
		for (size_t k = 0; k < ARRAY_SIZE(fold_alts); k++)
			if (strlen(fold_alts[k].ascii) == n &&
			    strncasecmp(fold_alts[k].ascii, s + i, n) == 0)
				buf_printf(b, "|%s", fold_alts[k].utf8);
		buf_putc(b, ')');
		i = end;
	}
}
