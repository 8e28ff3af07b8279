/* THE table of keys, and the check of one entry of each key's type.
 *
 * Flags, specs, `lnk sandbox permissions`, `lnk sandbox spec` and --help
 * all read this table (DESIGN.md, "One model, three faces"). Every entry a
 * flag or a spec gives is checked here before anything else sees it: a spec
 * can come from anyone, so each check is strict and says what to write
 * instead.
 */
#include "policy/keys.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "common/buf.h"
#include "common/util.h"

static const struct key_def table[K__COUNT] = {
    [K_NAME] = {K_NAME, NULL, "name", "--name", "NAME", KT_NAME, MERGE_REPLACE,
		"the sandbox's name in the log and for pause and resume: "
		"letters, digits, '.', '_' and '-', up to 64"},
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
				 "a write folder whose dot files at the top "
				 "(.git, .envrc, ...) it may change, so it "
				 "can commit"},
    [K_INTERNET_HOSTS] = {K_INTERNET_HOSTS, "internet", "hosts",
			  "--internet-host", "HOST", KT_HOSTS, MERGE_REPLACE,
			  "a host it may reach on the internet: a name, "
			  "'*.example.com' for the names under it, or '*' for "
			  "any; never this machine or its network; write "
			  "non-ASCII names in their xn-- form"},
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
		       "a tool that runs outside the sandbox, or 'tool "
		       "subcommand...' to allow only those calls of it"},
    [K_BROWSER_OPEN] = {K_BROWSER_OPEN, "browser", "open", "--browser-open",
			"URL", KT_URLS, MERGE_REPLACE,
			"an http:// or https:// page (a prefix; '*.' before "
			"the host for the names under it) it may open in "
			"your browser"},
    [K_COMMANDS_ALLOW] = {K_COMMANDS_ALLOW, "commands", "allow", "--command",
			  "CMD", KT_COMMANDS, MERGE_REPLACE,
			  "a program it may run: a name on PATH, an absolute "
			  "path, or '*' for every system program"},
    [K_COMMANDS_ENV] = {K_COMMANDS_ENV, "commands", "env", "--env", "NAME",
			KT_ENV, MERGE_REPLACE,
			"an environment variable passed in from lnk's "
			"environment, by name; repeats"},
};

static const char *const sections[] = {
    "files", "internet", "lan",	     "localhost",
    "tools", "browser",	 "commands", NULL,
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
		return false;
	case KT_PATHS:
	case KT_HOSTS:
	case KT_LAN:
	case KT_PORTS:
	case KT_TOOLS:
	case KT_URLS:
	case KT_COMMANDS:
	case KT_ENV:
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
	}
	return "?";
}

const char *key_toml_type(enum key_type t)
{
	switch (t) {
	case KT_NAME:
		return "string";
	case KT_VERSION:
		return "integer";
	case KT_PORTS:
		return "array of integers";
	case KT_PATHS:
	case KT_HOSTS:
	case KT_LAN:
	case KT_TOOLS:
	case KT_URLS:
	case KT_COMMANDS:
	case KT_ENV:
		return "array of strings";
	}
	return "?";
}

/* ---- checks of one entry ---------------------------------------------- */

/* An entry quoted for a message: control bytes would let a hostile spec
 * write over the terminal, so they are shown escaped. */
static void quote(char *dst, size_t dstlen, const char *s, size_t len)
{
	struct buf b = {0};
	buf_json_str(&b, s, len > 200 ? 200 : len);
	/* Use single quotes as every other message does. */
	if (b.len >= 2) {
		b.p[0] = '\'';
		b.p[b.len - 1] = '\'';
	}
	snprintf(dst, dstlen, "%s%s", b.p, len > 200 ? "..." : "");
	buf_free(&b);
}

#define BAD(...) err_set(err, -EINVAL, __VA_ARGS__)

static bool is_name_char(char c)
{
	return isalnum((unsigned char)c) || c == '.' || c == '_' || c == '-';
}

static int check_name(const char *s, size_t len, const char *q,
		      struct lnk_err *err)
{
	if (len == 0 || len > 64)
		return BAD("%s is not a sandbox name: it needs 1 to 64 "
			   "characters",
			   q);
	for (size_t i = 0; i < len; i++)
		if (!is_name_char(s[i]))
			return BAD(
			    "%s is not a sandbox name: use only letters, "
			    "digits, '.', '_' and '-'",
			    q);
	/* The name becomes part of file names under ~/.lnk. */
	if (strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
		return BAD("%s is not a sandbox name: it must not be '.' or "
			   "'..'",
			   q);
	return 0;
}

/* A decimal port, strictly: digits only, no sign, no leading zero. */
static int parse_port(const char *s, size_t len, long *out)
{
	if (len == 0 || len > 5 || s[0] == '0')
		return -1;
	long v = 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	if (v < 1 || v > 65535)
		return -1;
	*out = v;
	return 0;
}

static bool has_non_ascii(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] >= 0x80)
			return true;
	return false;
}

/* A strict dotted quad: four decimal parts 0..255, no leading zeros, no
 * shortened (127.1), octal (0177.0.0.1) or hex forms that inet_aton would
 * read as something else than a person sees. */
static bool parse_ipv4(const char *s, size_t len, unsigned char out[4])
{
	size_t i = 0;
	for (int part = 0; part < 4; part++) {
		if (part) {
			if (i >= len || s[i] != '.')
				return false;
			i++;
		}
		size_t start = i;
		unsigned v = 0;
		while (i < len && s[i] >= '0' && s[i] <= '9' && i - start < 4)
			v = v * 10 + (unsigned)(s[i++] - '0');
		size_t nd = i - start;
		if (nd == 0 || nd > 3 || v > 255 || (nd > 1 && s[start] == '0'))
			return false;
		out[part] = (unsigned char)v;
	}
	return i == len;
}

static bool parse_ipv6(const char *s, size_t len, unsigned char out[16])
{
	char tmp[INET6_ADDRSTRLEN + 1];
	if (len == 0 || len >= sizeof(tmp))
		return false;
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	/* Zone ids (fe80::1%eth0) name an interface of this machine, not a
	 * machine: refused by inet_pton, which is what we want. */
	return inet_pton(AF_INET6, tmp, out) == 1;
}

/* Each label of a DNS name: letters, digits, '-' and '_' (which real names
 * use: _dmarc, service records), 1..63, no '-' at either end; the whole
 * name at most 253. The last label may not be all digits: no top-level
 * domain is, so such a name is a mistyped address (127.1). */
static bool valid_dns_name(const char *s, size_t len)
{
	if (len == 0 || len > 253)
		return false;
	size_t start = 0;
	bool last_digits = true;
	for (size_t i = 0; i <= len; i++) {
		if (i == len || s[i] == '.') {
			size_t l = i - start;
			if (l == 0 || l > 63 || s[start] == '-' ||
			    s[i - 1] == '-')
				return false;
			if (i == len) {
				last_digits = true;
				for (size_t j = start; j < i; j++)
					if (!isdigit((unsigned char)s[j]))
						last_digits = false;
			}
			start = i + 1;
			continue;
		}
		char c = s[i];
		if (!(isalnum((unsigned char)c) || c == '-' || c == '_'))
			return false;
	}
	return !last_digits;
}

static char *lower_dup(const char *s, size_t len)
{
	char *o = xstrndup(s, len);
	for (char *p = o; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return o;
}

static int idn_refusal(const char *q, struct lnk_err *err)
{
	return BAD("%s has letters outside ASCII: write an international name "
		   "in its xn-- form (its A-label, as 'idn2' prints it)",
		   q);
}

/* Internet host patterns: '*', an exact name or address, or '*.suffix'. */
static int check_host(const char *s, size_t len, const char *q, char **out,
		      struct lnk_err *err)
{
	if (has_non_ascii(s, len))
		return idn_refusal(q, err);
	if (len == 1 && s[0] == '*') {
		*out = xstrdup("*");
		return 0;
	}
	if (len > 1 && s[len - 1] == '.' && s[len - 2] != '.')
		len--; /* the root's dot: example.com. is example.com */
	unsigned char a[16];
	if (parse_ipv4(s, len, a)) {
		*out = xstrndup(s, len);
		return 0;
	}
	if (len > 2 && s[0] == '[' && s[len - 1] == ']' &&
	    parse_ipv6(s + 1, len - 2, a)) {
		char t[INET6_ADDRSTRLEN];
		inet_ntop(AF_INET6, a, t, sizeof(t));
		*out = xstrdup(t);
		return 0;
	}
	if (parse_ipv6(s, len, a)) {
		char t[INET6_ADDRSTRLEN];
		inet_ntop(AF_INET6, a, t, sizeof(t));
		*out = xstrdup(t);
		return 0;
	}
	const char *name = s;
	size_t nlen = len;
	bool wild = false;
	if (len >= 2 && s[0] == '*' && s[1] == '.') {
		name = s + 2;
		nlen = len - 2;
		wild = true;
	}
	if (memchr(name, '*', nlen))
		return BAD("%s is not a host pattern: '*' stands alone or "
			   "starts '*.example.com'",
			   q);
	if (memchr(name, ':', nlen) || memchr(name, '/', nlen))
		return BAD("%s is not a host pattern: give a name without "
			   "scheme, port or path, such as 'example.com'",
			   q);
	if (!valid_dns_name(name, nlen))
		return BAD("%s is not a host name: use letters, digits and '-' "
			   "in dot-separated labels (an address in full, such "
			   "as 192.0.2.1)",
			   q);
	char *l = lower_dup(name, nlen);
	*out = wild ? xasprintf("*.%s", l) : xstrdup(l);
	free(l);
	return 0;
}

/* The first bits of a and b are equal. */
static bool prefix_holds(const unsigned char *a, const unsigned char *b,
			 int bits)
{
	for (int i = 0; i < bits; i++) {
		unsigned char m = (unsigned char)(0x80 >> (i % 8));
		if ((a[i / 8] & m) != (b[i / 8] & m))
			return false;
	}
	return true;
}

/* LAN machines: a name, an address, or a CIDR range, with an optional
 * port: name:22, 192.168.1.0/24:22, [fe80::1]:22, fd00::/8. */
static int check_lan(const char *s, size_t len, const char *q, char **out,
		     struct lnk_err *err)
{
	if (has_non_ascii(s, len))
		return idn_refusal(q, err);
	if (len == 0)
		return BAD("an empty LAN host: give a name, an address or a "
			   "range");
	const char *host = s, *port = NULL;
	size_t hlen = len, plen = 0;
	bool bracket = false;
	if (s[0] == '[') {
		const char *end = memchr(s, ']', len);
		if (!end)
			return BAD("%s has '[' without ']'", q);
		host = s + 1;
		hlen = (size_t)(end - host);
		size_t rest = len - (size_t)(end + 1 - s);
		if (rest) {
			if (end[1] != ':')
				return BAD("%s: after ']' only ':port' may "
					   "follow",
					   q);
			port = end + 2;
			plen = rest - 1;
		}
		bracket = true;
	} else {
		size_t colons = 0;
		for (size_t i = 0; i < len; i++)
			colons += s[i] == ':';
		if (colons == 1) {
			const char *c = memchr(s, ':', len);
			hlen = (size_t)(c - s);
			port = c + 1;
			plen = len - hlen - 1;
		}
	}
	long pv = 0;
	if (port && parse_port(port, plen, &pv) < 0)
		return BAD("%s: the port must be a number from 1 to 65535", q);

	/* A CIDR range: address/prefix. */
	const char *slash = memchr(host, '/', hlen);
	size_t alen = slash ? (size_t)(slash - host) : hlen;
	unsigned char a[16];
	int fam = 0;
	if (!bracket && parse_ipv4(host, alen, a))
		fam = AF_INET;
	else if (parse_ipv6(host, alen, a))
		fam = AF_INET6;
	else if (bracket)
		return BAD("%s: inside '[' and ']' goes an IPv6 address", q);

	struct buf b = {0};
	if (fam) {
		int bits = fam == AF_INET ? 32 : 128;
		long prefix = bits;
		if (slash) {
			const char *ps = slash + 1;
			size_t pl = hlen - alen - 1;
			prefix = -1;
			if (pl >= 1 && pl <= 3 && (pl == 1 || ps[0] != '0')) {
				prefix = 0;
				for (size_t i = 0; i < pl; i++) {
					if (!isdigit((unsigned char)ps[i])) {
						prefix = -1;
						break;
					}
					prefix = prefix * 10 + (ps[i] - '0');
				}
			}
			if (prefix < 0 || prefix > bits)
				return BAD("%s: the range's prefix must be a "
					   "number from 0 to %d",
					   q, bits);
			/* Host bits set in a range usually mean a typo
			 * (192.168.1.5/24): say which range was meant rather
			 * than guess. */
			for (int i = (int)prefix; i < bits; i++)
				if (a[i / 8] & (0x80 >> (i % 8))) {
					unsigned char m[16];
					memcpy(m, a, sizeof(m));
					for (int j = (int)prefix; j < bits; j++)
						m[j / 8] &= (unsigned char)~(
						    0x80 >> (j % 8));
					char t[INET6_ADDRSTRLEN];
					inet_ntop(fam, m, t, sizeof(t));
					return BAD("%s: the range has bits set "
						   "after its prefix; did you "
						   "mean '%s/%ld'?",
						   q, t, prefix);
				}
		}
		/* Loopback is this machine, not the LAN: --port opens its
		 * ports, one at a time. */
		bool loop = fam == AF_INET
				? a[0] == 127
				: (memcmp(a, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\1",
					  16) == 0);
		if (loop && prefix >= 8)
			return BAD(
			    "%s is this machine's loopback, not the LAN: "
			    "use --port (or [localhost] ports)",
			    q);
		/* A cloud's metadata service hands out this machine's
		 * credentials: naming it is refused here, and the wire
		 * refuses it inside any range (and pauses itself). */
		static const unsigned char md4[4] = {169, 254, 169, 254};
		static const unsigned char md6[16] = {
		    0xfd, 0x00, 0x0e, 0xc2, 0, 0, 0,	0,
		    0,	  0,	0,    0,    0, 0, 0x02, 0x54};
		if (prefix == bits &&
		    prefix_holds(a, fam == AF_INET ? md4 : md6, bits))
			return BAD("%s would reach the cloud metadata service "
				   "(%s), which holds this machine's "
				   "credentials",
				   q,
				   fam == AF_INET ? "169.254.169.254"
						  : "fd00:ec2::254");
		char t[INET6_ADDRSTRLEN];
		inet_ntop(fam, a, t, sizeof(t));
		if (fam == AF_INET6 && port)
			buf_printf(&b, "[%s]", t);
		else
			buf_puts(&b, t);
		if (slash)
			buf_printf(&b, "/%ld", prefix);
	} else {
		if (slash)
			return BAD("%s: a range needs an address before '/', "
				   "such as 192.168.1.0/24",
				   q);
		if (memchr(host, '*', hlen))
			return BAD("%s: LAN hosts take no '*'; give a range "
				   "such as 192.168.1.0/24 instead",
				   q);
		bool dotted_digits = true;
		for (size_t i = 0; i < hlen; i++)
			if (!isdigit((unsigned char)host[i]) && host[i] != '.')
				dotted_digits = false;
		if (dotted_digits || !valid_dns_name(host, hlen))
			return BAD("%s is not a machine: give a name, a full "
				   "address (192.168.1.20) or a range "
				   "(192.168.1.0/24)",
				   q);
		char *l = lower_dup(host, hlen);
		buf_puts(&b, l);
		free(l);
	}
	if (port)
		buf_printf(&b, ":%ld", pv);
	*out = buf_steal(&b);
	return 0;
}

/* A tool, and optionally the call of it allowed: "gh" or "gh pr view". */
static int check_tool(const char *s, size_t len, const char *q, char **out,
		      struct lnk_err *err)
{
	struct buf b = {0};
	size_t i = 0, words = 0;
	while (i < len) {
		while (i < len && s[i] == ' ')
			i++;
		if (i == len)
			break;
		size_t start = i;
		while (i < len && s[i] != ' ')
			i++;
		for (size_t j = start; j < i; j++) {
			unsigned char c = (unsigned char)s[j];
			/* Control characters (tabs, newlines, escapes) would
			 * hide what a prompt shows about the call. */
			if (c < 0x20 || c == 0x7f) {
				buf_free(&b);
				return BAD("%s has a control character: a tool "
					   "call is words separated by spaces",
					   q);
			}
			if (words == 0 && (c == '/' || c >= 0x80)) {
				buf_free(&b);
				return BAD("%s: the tool is a name, such as "
					   "'gh', not a path",
					   q);
			}
		}
		if (words)
			buf_putc(&b, ' ');
		buf_append(&b, s + start, i - start);
		words++;
	}
	if (!words) {
		buf_free(&b);
		return BAD("an empty tool: give its name, such as 'gh', or "
			   "'gh pr view'");
	}
	if (b.len > 1024) {
		buf_free(&b);
		return BAD("%s is too long for a tool call", q);
	}
	*out = buf_steal(&b);
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
		unsigned char a[16];
		if (!parse_ipv6(s + h + 1, (size_t)(rb - s - h - 1), a))
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
		unsigned char a[4];
		if (!parse_ipv4(name, nl, a) && !valid_dns_name(name, nl))
			return BAD("%s does not have a valid host", q);
	}
	long pv;
	if (port && parse_port(port, pl, &pv) < 0)
		return BAD("%s: the port must be a number from 1 to 65535", q);
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

static bool has_control(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return true;
	return false;
}

int key_normalize(const struct key_def *d, const char *s, size_t len,
		  char **out, struct lnk_err *err)
{
	char q[256];
	quote(q, sizeof(q), s, len);
	*out = NULL;
	/* A TOML string may carry \u0000, which C would silently cut. */
	if (memchr(s, '\0', len))
		return BAD("%s holds a NUL character", q);
	switch (d->type) {
	case KT_NAME: {
		int r = check_name(s, len, q, err);
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
		return check_host(s, len, q, out, err);
	case KT_LAN:
		return check_lan(s, len, q, out, err);
	case KT_PORTS: {
		long v;
		if (parse_port(s, len, &v) < 0)
			return BAD("%s is not a port: give a number from 1 to "
				   "65535",
				   q);
		*out = xasprintf("%ld", v);
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
	}
	return BAD("%s: unknown key type", q);
}
