/* THE table of keys, and the check of one entry of each key's type.
 *
 * Flags, specs, `lnk sandbox permissions`, `lnk sandbox spec` and --help
 * all read this table (docs/design.md, "One model"). Every entry a
 * flag or a spec gives is checked here before anything else sees it: a spec
 * can come from anyone, so each check is strict and says what to write
 * instead.
 */
#include "policy/keys.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "common/buf.h"
#include "common/esc.h"
#include "common/util.h"
#include "net/grammar.h"
#include "policy/models.h"

static const struct key_def table[K__COUNT] = {
    [K_NAME] = {K_NAME, NULL, "name", "--name", "NAME", KT_NAME, MERGE_REPLACE,
		"the sandbox's name in the log and for pause and resume: "
		"letters, digits, '.', '_' and '-', up to 64, not "
		"starting with '.' or '-'"},
    [K_VERSION] = {K_VERSION, NULL, "version", NULL, NULL, KT_VERSION,
		   MERGE_REPLACE, "the spec's format; 1 is the only one"},
    [K_FILES_WRITE] = {K_FILES_WRITE, "files", "write", "--write", "DIR",
		       KT_PATHS, MERGE_REPLACE,
		       "a folder it may read and write; repeats"},
    [K_FILES_READ] = {K_FILES_READ, "files", "read", "--read", "DIR", KT_PATHS,
		      MERGE_REPLACE,
		      "a folder (or file) it may only read; repeats; '~' is "
		      "your home folder, never lnk's settings"},
    [K_FILES_HIDE] = {K_FILES_HIDE, "files", "hide", "--hide", "DIR", KT_PATHS,
		      MERGE_ADD,
		      "a folder closed to it, except the write and read "
		      "folders inside it; beside --spec it adds to the file's"},
    [K_FILES_WRITE_DOT_FILES] = {K_FILES_WRITE_DOT_FILES, "files",
				 "write_dot_files", "--write-dot-files", "DIR",
				 KT_PATHS, MERGE_REPLACE,
				 "a write folder where it may change what "
				 "runs outside (.git, .envrc, ...), so it "
				 "can commit"},
    [K_FILES_CHANGES] = {K_FILES_CHANGES, "files", "changes", "--changes",
			 "WHAT", KT_CHANGES, MERGE_REPLACE,
			 "what lnk says on stderr, when the program ends, of "
			 "what it left in the write folders: 'summary' (one "
			 "line of counts and every file that runs later, "
			 "with what runs it; the default), 'full' (and every "
			 "file it changed) or 'off'"},
    [K_INTERNET_HOSTS] = {K_INTERNET_HOSTS, "internet", "hosts",
			  "--internet-host", "HOST", KT_HOSTS, MERGE_REPLACE,
			  "a host it may reach on the internet: a name, "
			  "'*.example.com' for the names under it, or '*' for "
			  "any; never this machine or its network; write "
			  "non-ASCII names in their xn-- form"},
    [K_INTERNET_MODELS] = {K_INTERNET_MODELS, "internet", "models", "--model",
			   "MODEL", KT_MODELS, MERGE_REPLACE,
			   "a hosted model it may call through the wire, which "
			   "adds your API key from outside: 'anthropic', "
			   "'openai', or 'NAME=https://host/base' for one that "
			   "speaks the OpenAI API; a route carries model calls "
			   "only (its provider's inference calls, or those "
			   "listed after the URL: ' POST /path, GET /path')"},
    [K_LAN_HOSTS] = {K_LAN_HOSTS, "lan", "hosts", "--lan-host", "HOST", KT_LAN,
		     MERGE_REPLACE,
		     "a machine on this network: a name, an address or a "
		     "CIDR range, with an optional :port ([v6]:port for "
		     "IPv6)"},
    [K_LOCALHOST_PORTS] = {K_LOCALHOST_PORTS, "localhost", "ports", "--port",
			   "PORT", KT_PORTS, MERGE_REPLACE,
			   "a port on this machine's loopback it may connect "
			   "to, 1 to 65535"},
    [K_TOOLS_ALLOW] = {K_TOOLS_ALLOW, "tools", "allow", "--tool", "TOOL",
		       KT_TOOLS, MERGE_REPLACE,
		       "a tool that runs outside the sandbox, as you: 'gh "
		       "pr list' lets exactly that call run at once, 'gh pr "
		       "view *' that command with any further arguments, "
		       "'gh' only the calls stored with 'lnk sandbox tool "
		       "add'; other calls ask"},
    [K_TOOLS_ASK_WAIT] = {K_TOOLS_ASK_WAIT, "tools", "ask_wait", "--ask-wait",
			  "SECONDS", KT_COUNT, MERGE_REPLACE,
			  "the seconds a tool's call or a page waits for your "
			  "answer before it counts as no, 1 to 3600 (120 "
			  "unless your settings say)"},
    [K_BROWSER_OPEN] = {K_BROWSER_OPEN, "browser", "open", "--browser-open",
			"URL", KT_URLS, MERGE_REPLACE,
			"an http:// or https:// page, and the pages below "
			"it by whole path segments ('*.' before the host for "
			"the names under it), it may open in your browser"},
    [K_COMMANDS_ALLOW] = {K_COMMANDS_ALLOW, "commands", "allow", "--command",
			  "CMD", KT_COMMANDS, MERGE_REPLACE,
			  "a program it may run: a name on PATH, an absolute "
			  "path, a folder ending in '/' for every program "
			  "under it (node_modules/, ~/bin/; a relative one is "
			  "the spec's, or the working folder's for a flag), "
			  "or '*' for every system program"},
    [K_COMMANDS_ENV] = {K_COMMANDS_ENV, "commands", "env", "--env", "NAME",
			KT_ENV, MERGE_REPLACE,
			"an environment variable passed in from lnk's "
			"environment, by name; repeats"},
    [K_LIMITS_MEMORY] = {K_LIMITS_MEMORY, "limits", "memory", "--memory",
			 "SIZE", KT_SIZE, MERGE_REPLACE,
			 "the memory it may use, tmpfs files included, such "
			 "as \"512M\" or \"2G\"; only lowers the limit of "
			 "your settings"},
    [K_LIMITS_TASKS] = {K_LIMITS_TASKS, "limits", "tasks", "--tasks", "N",
			KT_COUNT, MERGE_REPLACE,
			"the processes and threads it may have at once; only "
			"lowers the limit of your settings"},
    [K_LIMITS_TMP_SIZE] = {K_LIMITS_TMP_SIZE, "limits", "tmp_size",
			   "--tmp-size", "SIZE", KT_SIZE, MERGE_REPLACE,
			   "the size of each of its /tmp, /var/tmp, /dev/shm "
			   "and empty home; only lowers the limit of your "
			   "settings"},
    [K_TRIP_CALLS] = {K_TRIP_CALLS, "tripwires", "refused_calls",
		      "--trip-refused-calls", "N", KT_COUNT, MERGE_REPLACE,
		      "the wire pauses itself at this many calls refused "
		      "within a minute (30 unless your settings say; only "
		      "lowers it, 0 keeps it)"},
    [K_TRIP_TARGETS] = {K_TRIP_TARGETS, "tripwires", "refused_targets",
			"--trip-refused-targets", "N", KT_COUNT, MERGE_REPLACE,
			"the wire pauses itself at this many different "
			"targets refused within 10 minutes (20 unless your "
			"settings say; only lowers it, 0 keeps it)"},
};

static const char *const sections[] = {
    "files",   "internet", "lan",    "localhost", "tools",
    "browser", "commands", "limits", "tripwires", NULL,
};

const struct key_def *keys_table(void)
{
	return table;
}

const struct key_def *key_def(enum key_id id)
{
	if ((unsigned)id >= K__COUNT)
		return NULL;
	return &table[id];
}

const struct key_def *key_by_flag(const char *name)
{
	for (size_t i = 0; i < K__COUNT; i++)
		if (table[i].flag && strcmp(table[i].flag, name) == 0)
			return &table[i];
	return NULL;
}

static bool same_section(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcmp(a, b) == 0;
}

const struct key_def *key_by_name(const char *section, const char *key)
{
	for (size_t i = 0; i < K__COUNT; i++)
		if (same_section(table[i].section, section) &&
		    strcmp(table[i].key, key) == 0)
			return &table[i];
	return NULL;
}

const char *const *keys_sections(void)
{
	return sections;
}

size_t keys_names_in(const char *section, const char **out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < K__COUNT && n < max; i++)
		if (same_section(table[i].section, section))
			out[n++] = table[i].key;
	if (!section)
		for (size_t i = 0; sections[i] && n < max; i++)
			out[n++] = sections[i];
	return n;
}

bool key_is_list(enum key_type t)
{
	switch (t) {
	case KT_NAME:
	case KT_VERSION:
	case KT_SIZE:
	case KT_COUNT:
	case KT_CHANGES:
		return false;
	case KT_PATHS:
	case KT_HOSTS:
	case KT_LAN:
	case KT_PORTS:
	case KT_TOOLS:
	case KT_URLS:
	case KT_COMMANDS:
	case KT_ENV:
	case KT_MODELS:
		return true;
	}
	return false;
}

const char *key_type_desc(enum key_type t)
{
	switch (t) {
	case KT_NAME:
		return "name";
	case KT_VERSION:
		return "integer";
	case KT_PATHS:
		return "list of folders";
	case KT_HOSTS:
		return "list of host patterns";
	case KT_LAN:
		return "list of machines";
	case KT_PORTS:
		return "list of ports";
	case KT_TOOLS:
		return "list of tool calls";
	case KT_URLS:
		return "list of page patterns";
	case KT_COMMANDS:
		return "list of programs";
	case KT_ENV:
		return "list of variable names";
	case KT_MODELS:
		return "list of model routes";
	case KT_SIZE:
		return "size";
	case KT_COUNT:
		return "whole number";
	case KT_CHANGES:
		return "off, summary or full";
	}
	return "?";
}

const char *key_toml_type(enum key_type t)
{
	switch (t) {
	case KT_NAME:
	case KT_CHANGES:
		return "string";
	case KT_VERSION:
	case KT_COUNT:
		return "integer";
	case KT_SIZE:
		return "string";
	case KT_PORTS:
		return "array of integers";
	case KT_PATHS:
	case KT_HOSTS:
	case KT_LAN:
	case KT_TOOLS:
	case KT_URLS:
	case KT_COMMANDS:
	case KT_ENV:
	case KT_MODELS:
		return "array of strings";
	}
	return "?";
}

#define BAD(...) err_set(err, -EINVAL, __VA_ARGS__)

/* ---- sizes and counts ------------------------------------------------ */

int key_parse_size(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0, mul = 1;
	size_t i = 0;

	if (!s || len == 0 || s[0] < '0' || s[0] > '9')
		return -EINVAL;
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
		if (v > (UINT64_MAX - 9) / 10)
			return -EINVAL;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (i < len) {
		switch (s[i]) {
		case 'K':
		case 'k':
			mul = 1ULL << 10;
			break;
		case 'M':
		case 'm':
			mul = 1ULL << 20;
			break;
		case 'G':
		case 'g':
			mul = 1ULL << 30;
			break;
		case 'T':
		case 't':
			mul = 1ULL << 40;
			break;
		default:
			return -EINVAL;
		}
		if (i + 1 != len)
			return -EINVAL;
	}
	if (v && mul > UINT64_MAX / v)
		return -EINVAL;
	*out = v * mul;
	return 0;
}

/* One size is written one way ("2G", not "2048M"), so the canonical text,
 * and with it the trust digest, does not change with how it was written. */
static char *size_norm(uint64_t v)
{
	static const char units[] = "TGMK";
	for (int i = 0; units[i]; i++) {
		uint64_t m = 1ULL << (10 * (4 - i));
		if (v % m == 0)
			return xasprintf("%" PRIu64 "%c", v / m, units[i]);
	}
	return xasprintf("%" PRIu64, v);
}

uint64_t key_scalar_value(const char *norm)
{
	uint64_t v = 0;
	if (!norm || key_parse_size(norm, strlen(norm), &v) < 0)
		return 0;
	return v;
}

/* A count: digits only, at most a million (no limit or threshold of lnk
 * needs more; the bound keeps every consumer's arithmetic simple). */
#define KEY_COUNT_MAX 1000000

static int check_scalar(const struct key_def *d, const char *s, size_t len,
			const char *q, char **out, struct lnk_err *err)
{
	uint64_t v;
	if (d->type == KT_COUNT) {
		for (size_t i = 0; i < len; i++)
			if (s[i] < '0' || s[i] > '9')
				return BAD("%s is not a whole number", q);
		if (key_parse_size(s, len, &v) < 0 || v > KEY_COUNT_MAX)
			return BAD("%s is not a whole number up to %d", q,
				   KEY_COUNT_MAX);
	} else if (key_parse_size(s, len, &v) < 0) {
		return BAD("%s is not a size: write it as \"512M\" or \"2G\" "
			   "(K, M, G, T are powers of 1024)",
			   q);
	}
	/* A spec or flag only lowers the limits of the settings: 0 would
	 * read as "no limit", which is not its to give. */
	if (v == 0 && (d->id == K_LIMITS_MEMORY || d->id == K_LIMITS_TASKS ||
		       d->id == K_LIMITS_TMP_SIZE))
		return BAD("%s: 0 would be no limit, and a spec or flag can "
			   "only lower the limits of your settings; leave "
			   "the key out to keep them",
			   q);
	if (d->id == K_TOOLS_ASK_WAIT && (v < 1 || v > 3600))
		return BAD("%s: a question waits 1 to 3600 seconds", q);
	*out = d->type == KT_SIZE ? size_norm(v) : xasprintf("%" PRIu64, v);
	return 0;
}

/* ---- checks of one entry ---------------------------------------------- */

/* Internet host patterns: '*', an exact name or address, or '*.suffix'
 * (the grammar's, as the wire reads them). */
static int check_host(const char *s, size_t len, char **out,
		      struct lnk_err *err)
{
	char norm[HOST_PATTERN_MAX];
	int r = host_pattern_parse(s, len, norm, err);
	if (r < 0)
		return r;
	*out = xstrdup(norm);
	return 0;
}

/* LAN machines: a name, an address, or a CIDR range, with an optional
 * port (the grammar's, as the wire reads them). */
static int check_lan(const char *s, size_t len, char **out, struct lnk_err *err)
{
	struct lan_rule rule;
	int r = lan_rule_parse(s, len, &rule, err);
	if (r < 0)
		return r;
	char norm[HOST_PATTERN_MAX + 64];
	lan_rule_format(&rule, norm, sizeof(norm));
	*out = xstrdup(norm);
	return 0;
}

const char *key_tool_word_why(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;

	if (len == 0)
		return "is empty, which a pattern cannot hold";
	/* A word is matched whole: "a*" read as a glob would allow more than
	 * the person meant, and read literally would never match. */
	if (memchr(s, '*', len) && len != 1)
		return "holds '*', which stands alone in a pattern, for one "
		       "whole argument (it is never a glob)";
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t l = esc_utf8_next(u + i, len - i, &cp);
		/* Controls, invisible and reordering characters, and bytes
		 * that are not UTF-8 would show a word other than the one
		 * matched, in a question, a hint or tools.toml. */
		if (!l || esc_hidden(cp))
			return "holds a control or invisible character, or a "
			       "byte that is not UTF-8";
		if (cp == ' ')
			return "holds a space, which separates the words";
		/* lnk reads no shell quoting: a quote would be matched as a
		 * character the tool never sees, and breaks the hint's
		 * quoting. */
		if (cp == '\'' || cp == '"' || cp == '\\')
			return "holds a quote or a backslash (lnk reads no "
			       "shell quoting: write each argument as the "
			       "tool receives it)";
		i += l;
	}
	return NULL;
}

/* The pattern at s; q names the entry it came in (the whole --tool, or
 * the pattern alone). */
static int tool_pattern(const char *s, size_t len, const char *q, char **out,
			struct lnk_err *err)
{
	char w[160];
	struct buf b = {0};
	size_t i = 0, words = 0;

	*out = NULL;
	if (memchr(s, '\0', len))
		return BAD("%s holds a NUL character", q);
	while (i < len) {
		while (i < len && s[i] == ' ')
			i++;
		if (i == len)
			break;
		size_t start = i;
		while (i < len && s[i] != ' ')
			i++;
		const char *why = key_tool_word_why(s + start, i - start);
		if (why) {
			buf_free(&b);
			net_quote(w, sizeof(w), s + start, i - start);
			if (strstr(why, "control"))
				return BAD("%s has a control character: its "
					   "word %s %s",
					   q, w, why);
			return BAD("%s: its word %s %s", q, w, why);
		}
		if (++words > KEY_TOOL_WORDS) {
			buf_free(&b);
			return BAD("%s has more than %d words", q,
				   KEY_TOOL_WORDS);
		}
		if (b.len)
			buf_putc(&b, ' ');
		buf_append(&b, s + start, i - start);
	}
	if (!words) {
		buf_free(&b);
		return BAD("an empty call: give its words, such as 'pr list', "
			   "or 'pr view *' for any further arguments");
	}
	if (b.len > KEY_TOOL_CALL) {
		buf_free(&b);
		return BAD("%s is too long for a tool call (%d bytes at most)",
			   q, KEY_TOOL_CALL);
	}
	*out = buf_steal(&b);
	return 0;
}

int key_tool_pattern(const char *s, size_t len, char **out, struct lnk_err *err)
{
	char q[256];

	net_quote(q, sizeof(q), s, len);
	return tool_pattern(s, len, q, out, err);
}

/* A tool, and optionally a call of it that runs at once: "gh" (the
 * calls stored for it), "gh pr list" (exactly that call), "gh pr view
 * *" (with any further arguments). */
static int check_tool(const char *s, size_t len, const char *q, char **out,
		      struct lnk_err *err)
{
	size_t i = 0;

	while (i < len && s[i] == ' ')
		i++;
	size_t start = i;
	while (i < len && s[i] != ' ')
		i++;
	if (i == start)
		return BAD("an empty tool: give its name, such as 'gh', or a "
			   "call, such as 'gh pr list'");
	for (size_t j = start; j < i; j++) {
		unsigned char c = (unsigned char)s[j];
		/* Control characters (tabs, newlines, escapes) would hide
		 * what a prompt shows about the call. */
		if (c < 0x20 || c == 0x7f)
			return BAD("%s has a control character: a tool call "
				   "is words separated by spaces",
				   q);
		if (c == '/' || c >= 0x80)
			return BAD("%s: the tool is a name, such as 'gh', not "
				   "a path",
				   q);
		/* The name is a file's name inside (the tool's client) and
		 * a word of a hint to run: plain. */
		if (!(isalnum(c) || strchr("._+-", c)) ||
		    (j == start && (c == '.' || c == '-')) || i - start > 64)
			return BAD("%s: a tool's name is letters, digits, '.', "
				   "'_', '+' and '-', not starting with '.' "
				   "or '-'",
				   q);
	}
	size_t rest = i;
	while (rest < len && s[rest] == ' ')
		rest++;
	if (rest == len) {
		*out = xstrndup(s + start, i - start);
		return 0;
	}
	_cleanup_free_ char *pat = NULL;
	int r = tool_pattern(s + rest, len - rest, q, &pat, err);
	if (r < 0)
		return r;
	if (i - start + 1 + strlen(pat) > KEY_TOOL_CALL)
		return BAD("%s is too long for a tool call (%d bytes at most)",
			   q, KEY_TOOL_CALL);
	*out = xasprintf("%.*s %s", (int)(i - start), s + start, pat);
	return 0;
}

/* A page pattern: http:// or https://, a host, then anything printable. */
static int check_url(const char *s, size_t len, const char *q, char **out,
		     struct lnk_err *err)
{
	size_t skip;
	if (len >= 7 && strncasecmp(s, "http://", 7) == 0)
		skip = 7;
	else if (len >= 8 && strncasecmp(s, "https://", 8) == 0)
		skip = 8;
	else
		return BAD("%s is not a page: it must start with http:// or "
			   "https://",
			   q);
	if (has_non_ascii(s, len))
		return BAD("%s has letters outside ASCII: percent-encode the "
			   "path and write the host in its xn-- form",
			   q);
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] <= 0x20 || s[i] == 0x7f)
			return BAD("%s has a space or control character: "
				   "percent-encode it",
				   q);
	size_t h = skip, e = skip;
	while (e < len && s[e] != '/' && s[e] != '?' && s[e] != '#')
		e++;
	/* user@host would show one host and open another. */
	if (memchr(s + h, '@', e - h))
		return BAD("%s has '@' before its host: give the host alone",
			   q);
	size_t hl = e - h, pl = 0;
	const char *port = NULL;
	if (hl && s[h] == '[') {
		const char *rb = memchr(s + h, ']', hl);
		if (!rb)
			return BAD("%s has '[' without ']'", q);
		struct lnk_addr a;
		size_t al = (size_t)(rb - s - h - 1);
		char t[HOST_MAX + 1];
		snprintf(t, sizeof(t), "%.*s", (int)(al < HOST_MAX ? al : 0),
			 s + h + 1);
		if (!al || al >= HOST_MAX ||
		    addr_parse_literal(t, &a) != LIT_ADDR ||
		    a.family != AF_INET6)
			return BAD("%s: inside '[' and ']' goes an IPv6 "
				   "address",
				   q);
		if ((size_t)(rb - s) + 1 < e) {
			if (rb[1] != ':')
				return BAD("%s: after ']' only ':port' may "
					   "follow",
					   q);
			port = rb + 2;
			pl = (size_t)(s + e - port);
		}
		hl = 0; /* checked */
	} else {
		const char *c = memchr(s + h, ':', hl);
		if (c) {
			port = c + 1;
			pl = (size_t)(s + e - port);
			hl = (size_t)(c - s - h);
		}
		if (hl == 0)
			return BAD("%s has no host: write it as "
				   "https://example.com/docs",
				   q);
		const char *name = s + h;
		size_t nl = hl;
		if (nl > 2 && name[0] == '*' && name[1] == '.') {
			name += 2;
			nl -= 2;
		}
		struct lnk_addr a;
		char t[HOST_MAX + 1];
		snprintf(t, sizeof(t), "%.*s", (int)(nl <= HOST_MAX ? nl : 0),
			 name);
		if (nl > HOST_MAX || (addr_parse_literal(t, &a) != LIT_ADDR &&
				      dns_name_why(name, nl)))
			return BAD("%s does not have a valid host", q);
	}
	uint16_t pv;
	if (port && port_parse(port, pl, &pv) < 0)
		return BAD("%s: the port must be " PORT_RULE, q);
	if (len > 4096)
		return BAD("%s is too long for a page", q);
	/* The scheme and host are case-insensitive: keep them lower case so
	 * one page is written one way. */
	char *o = xstrndup(s, len);
	for (size_t i = 0; i < e; i++)
		o[i] = (char)tolower((unsigned char)o[i]);
	*out = o;
	return 0;
}

static int check_env(const char *s, size_t len, const char *q,
		     struct lnk_err *err)
{
	if (len == 0 || len > 128)
		return BAD("%s is not a variable name: it needs 1 to 128 "
			   "characters",
			   q);
	if (!(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return BAD("%s is not a variable name: it starts with a letter "
			   "or '_'",
			   q);
	for (size_t i = 1; i < len; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
			return BAD("%s is not a variable name: use letters, "
				   "digits and '_' (give the name, not "
				   "NAME=value)",
				   q);
	return 0;
}

/* C0, DEL and C1 controls, C1 also as UTF-8 (U+0080-U+009F, the CSI of a
 * spec that redraws the terminal): no program is named with them. */
static bool has_control(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t l = esc_utf8_next(u + i, len - i, &cp);
		if (!l)
			cp = u[i]; /* a raw byte: 0x80-0x9f is a C1 control */
		if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f))
			return true;
		i += l ? l : 1;
	}
	return false;
}

int key_normalize(const struct key_def *d, const char *s, size_t len,
		  char **out, struct lnk_err *err)
{
	char q[256];
	net_quote(q, sizeof(q), s, len);
	*out = NULL;
	/* A TOML string may carry \u0000, which C would silently cut. */
	if (memchr(s, '\0', len))
		return BAD("%s holds a NUL character", q);
	switch (d->type) {
	case KT_NAME: {
		int r = sandbox_name_check(s, len, err);
		if (r)
			return r;
		*out = xstrndup(s, len);
		return 0;
	}
	case KT_VERSION:
		return BAD("%s: the version is a number, only in a spec", q);
	case KT_PATHS:
		if (len == 0)
			return BAD("an empty path: give a folder, such as '.'");
		if (len >= PATH_MAX)
			return BAD("%s is longer than a path can be", q);
		if (s[0] == '~' && len > 1 && s[1] != '/')
			return BAD("%s: only '~' and '~/' are expanded; give "
				   "the folder's full path",
				   q);
		*out = xstrndup(s, len);
		return 0;
	case KT_HOSTS:
		return check_host(s, len, out, err);
	case KT_LAN:
		return check_lan(s, len, out, err);
	case KT_PORTS: {
		uint16_t v;
		if (port_parse(s, len, &v) < 0)
			return BAD("%s is not a port: give " PORT_RULE, q);
		*out = xasprintf("%u", v);
		return 0;
	}
	case KT_TOOLS:
		return check_tool(s, len, q, out, err);
	case KT_URLS:
		return check_url(s, len, q, out, err);
	case KT_COMMANDS:
		if (len == 0)
			return BAD("an empty command: give a program's name, "
				   "its path, or '*'");
		if (len >= PATH_MAX)
			return BAD("%s is longer than a path can be", q);
		if (has_control(s, len))
			return BAD("%s has a control character", q);
		if (memchr(s, '*', len) && len != 1)
			return BAD("%s: '*' stands alone, for every system "
				   "program",
				   q);
		/* A relative folder (trailing slash) is the spec's, or the
		 * working folder's for a flag; a relative program is not. */
		if (s[0] != '/' && s[0] != '~' && memchr(s, '/', len) &&
		    s[len - 1] != '/')
			return BAD("%s: give a name found on PATH, an "
				   "absolute path, or a folder ending in '/'",
				   q);
		if (s[0] == '~' && (len == 1 || s[1] != '/'))
			return BAD("%s: only '~/' is expanded; give the "
				   "program's full path",
				   q);
		*out = xstrndup(s, len);
		return 0;
	case KT_ENV: {
		int r = check_env(s, len, q, err);
		if (r)
			return r;
		*out = xstrndup(s, len);
		return 0;
	}
	case KT_SIZE:
	case KT_COUNT:
		return check_scalar(d, s, len, q, out, err);
	case KT_CHANGES:
		if ((len == 3 && memcmp(s, "off", 3) == 0) ||
		    (len == 7 && memcmp(s, "summary", 7) == 0) ||
		    (len == 4 && memcmp(s, "full", 4) == 0)) {
			*out = xstrndup(s, len);
			return 0;
		}
		return BAD("%s: give 'summary', 'full' or 'off'", q);
	case KT_MODELS: {
		struct model_def md;
		int r = model_parse(s, len, &md, err);
		if (r)
			return r;
		char norm[MODEL_ENTRY_MAX];
		model_format(&md, norm, sizeof(norm));
		*out = xstrdup(norm);
		return 0;
	}
	}
	return BAD("%s: unknown key type", q);
}
