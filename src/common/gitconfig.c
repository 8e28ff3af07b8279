#include "common/gitconfig.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "common/util.h"

char gitconfig_lower(char ch)
{
	return ch >= 'A' && ch <= 'Z' ? (char)(ch - 'A' + 'a') : ch;
}

char *gitconfig_blanks_past(char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* Where gitconfig_text_fix is in a line, as git's parser is. */
enum at { AT_START, AT_HEADER, AT_KEY, AT_VALUE, AT_COMMENT };

void gitconfig_text_fix(char *text, size_t len)
{
	if (!text)
		return;
	/* a NUL is a byte git reads past (in a comment, it skips it): not
	 * the text's end */
	for (size_t i = 0; i < len; i++)
		if (!text[i])
			text[i] = ' ';
	char *in = text, *out = text;
	if ((unsigned char)in[0] == 0xef && (unsigned char)in[1] == 0xbb &&
	    (unsigned char)in[2] == 0xbf)
		in += 3;
	enum at at = AT_START;
	bool quoted = false;
	while (*in) {
		if (in[0] == '\r' && in[1] == '\n')
			in++;
		/* a CR of its own is a blank to git (its isspace): "\rkey"
		 * is a key, "[x]\r[core]" two headers */
		if (in[0] == '\r')
			in[0] = ' ';
		char c = *in;
		if (c == '\n') {
			*out++ = *in++;
			at = AT_START;
			quoted = false;
			continue;
		}
		switch (at) {
		case AT_START:
			if (c == '#' || c == ';')
				at = AT_COMMENT;
			else if (c == '[')
				at = AT_HEADER;
			else if (c != ' ' && c != '\t')
				at = AT_KEY;
			break;
		case AT_HEADER:
			/* a header never continues on the next line; after
			 * its ']' the same line is read again from the start
			 * (another header, a variable) */
			if (c == '"')
				quoted = !quoted;
			else if (c == '\\' && quoted && in[1] && in[1] != '\n')
				*out++ = *in++;
			else if (c == ']' && !quoted)
				at = AT_START;
			break;
		case AT_KEY:
			if (c == '=')
				at = AT_VALUE;
			break;
		case AT_VALUE:
			/* only a value continues, at a backslash that no other
			 * escapes, outside a comment */
			if (c == '\\' && in[1] == '\n') {
				in += 2;
				continue;
			}
			if (c == '\\' && in[1] == '\r' && in[2] == '\n') {
				in += 3;
				continue;
			}
			if (c == '\\' && in[1]) {
				*out++ = *in++;
				break;
			}
			if (c == '"')
				quoted = !quoted;
			else if (!quoted && (c == '#' || c == ';'))
				at = AT_COMMENT;
			break;
		case AT_COMMENT:
			break;
		}
		*out++ = *in++;
	}
	*out = '\0';
}

char *gitconfig_value(char *p)
{
	char *out = p, *start = p, *last_kept = p;
	bool quoted = false;

	for (p = gitconfig_blanks_past(p); *p; p++) {
		if (*p == '"') {
			quoted = !quoted;
			last_kept = out;
			continue;
		}
		if (!quoted && (*p == '#' || *p == ';'))
			break;
		if (*p == '\\' && p[1]) {
			p++;
			*out++ = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p;
			last_kept = out;
			continue;
		}
		*out++ = *p;
		if (quoted || (*p != ' ' && *p != '\t'))
			last_kept = out;
	}
	*last_kept = '\0';
	return start;
}

/* A header, p past its '[': the section (lower case) and subsection into
 * the buffers; p past the ']' and its blanks, or NULL when it has none.
 * A name longer than its buffer is read to its end and kept cut, so the
 * ']' looked for is the one git ends the header at, never one inside a
 * long subsection. */
static char *header(char *p, char *section, size_t ssz, char *sub, size_t bsz)
{
	size_t n = 0;
	for (; *p && *p != ']' && *p != ' ' && *p != '\t' && *p != '"' &&
	       *p != '.';
	     p++)
		if (n + 1 < ssz)
			section[n++] = gitconfig_lower(*p);
	section[n] = '\0';
	n = 0;
	p = gitconfig_blanks_past(p);
	if (*p == '"' || *p == '.') {
		/* [s "Sub"] as written, with its escapes; [s.Sub], the older
		 * form, in lower case */
		char end = *p == '"' ? '"' : ']';
		for (p++; *p && *p != end; p++) {
			if (end == '"' && *p == '\\' && p[1])
				p++;
			if (n + 1 < bsz)
				sub[n++] =
				    end == ']' ? gitconfig_lower(*p) : *p;
		}
		if (end == '"' && *p == '"')
			p++;
	}
	sub[n] = '\0';
	char *close = strchr(p, ']');
	return close ? gitconfig_blanks_past(close + 1) : NULL;
}

void gitconfig_each(char *text,
		    void (*fn)(void *ctx, const char *section, const char *sub,
			       const char *key, char *value),
		    void *ctx)
{
	char section[64] = "", sub[256] = "";

	for (char *cur = text, *line; (line = line_next(&cur));) {
		char *p = gitconfig_blanks_past(line);
		/* git goes on reading the line after a header: another '['
		 * is another header ("[x][core]", "[x] [core]"), and the
		 * keys after it are the last one's. Threat: a reader that
		 * stops at the first ']' files a core.fsmonitor under x. */
		while (p && *p == '[')
			p = header(p + 1, section, sizeof(section), sub,
				   sizeof(sub));
		if (!p || !*p || *p == '#' || *p == ';')
			continue;
		char key[64];
		size_t n = 0;
		/* a name longer than the buffer is read whole (git takes
		 * it) and kept cut: no key of a table is that long */
		for (; (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		       (*p >= '0' && *p <= '9') || *p == '-';
		     p++)
			if (n + 1 < sizeof(key))
				key[n++] = gitconfig_lower(*p);
		key[n] = '\0';
		p = gitconfig_blanks_past(p);
		if (!n || *p != '=')
			continue;
		fn(ctx, section, sub, key, p + 1);
	}
}
