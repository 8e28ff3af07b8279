#include "net/grammar.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common/buf.h"
#include "common/esc.h"
#include "common/util.h"

void net_quote(char *dst, size_t cap, const char *s, size_t len)
{
	/* escaped by the one escaper (common/esc.h): a hostile spec must not
	 * write over the terminal; single quotes, as every other message */
	char inner[256];
	esc_to_n(inner, sizeof(inner), s, len);
	snprintf(dst, cap, "'%s'", inner);
}

#define QUOTE(q, s, len) \
	char q[256];     \
	net_quote(q, sizeof(q), s, len)

int port_parse(const char *s, size_t len, uint16_t *out)
{
	if (len == 0 || len > 5 || s[0] == '0')
		return -EINVAL;
	unsigned v = 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	if (v < 1 || v > 65535)
		return -EINVAL;
	*out = (uint16_t)v;
	return 0;
}

/* A host as written must be plain ASCII text: a NUL would cut it short
 * where C reads it, and a name outside ASCII could look like another (a
 * homograph); its xn-- form says which it is. q is s quoted for messages. */
static int host_text_check(const char *q, const char *s, size_t len,
			   struct lnk_err *err)
{
	if (memchr(s, '\0', len))
		return err_set(err, -EINVAL, "%s holds a NUL character", q);
	if (has_non_ascii(s, len))
		return err_set(err, -EINVAL,
			       "%s has letters outside ASCII: write an "
			       "international name in its xn-- form (its "
			       "A-label, as 'idn2' prints it)",
			       q);
	return 0;
}

const char *dns_name_why(const char *s, size_t len)
{
	if (len == 0)
		return "empty host";
	if (len > HOST_MAX)
		return "host name too long";
	if (has_non_ascii(s, len))
		return "host name not in A-label (xn--) form";
	size_t start = 0;
	for (size_t i = 0; i <= len; i++) {
		if (i == len || s[i] == '.') {
			size_t l = i - start;
			if (l == 0)
				return "empty label in host name";
			if (l > 63)
				return "label longer than 63 in host name";
			if (s[start] == '-' || s[i - 1] == '-')
				return "label starting or ending with '-' in "
				       "host name";
			start = i + 1;
			continue;
		}
		char c = s[i];
		if (!(isalnum((unsigned char)c) || c == '-' || c == '_'))
			return "invalid character in host name";
	}
	/* The last label decides whether resolvers read it as an address. */
	char t[HOST_MAX + 1];
	memcpy(t, s, len);
	t[len] = '\0';
	struct lnk_addr a;
	if (addr_parse_literal(t, &a) != LIT_NAME)
		return ADDR_AMBIGUOUS_WHY;
	return NULL;
}

int sandbox_name_check(const char *s, size_t len, struct lnk_err *err)
{
	QUOTE(q, s, len);
	if (len == 0 || len > SANDBOX_NAME_MAX)
		return err_set(err, -EINVAL,
			       "%s is not a sandbox name: it needs 1 to %d "
			       "characters",
			       q, SANDBOX_NAME_MAX);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (!(c < 0x80 &&
		      (isalnum(c) || c == '.' || c == '_' || c == '-')))
			return err_set(err, -EINVAL,
				       "%s is not a sandbox name: use only "
				       "letters, digits, '.', '_' and '-'",
				       q);
	}
	/* The name becomes a file name under ~/.lnk ('.', '..', hidden) and
	 * an argument ('-x' read as an option). */
	if (s[0] == '.' || s[0] == '-')
		return err_set(err, -EINVAL,
			       "%s is not a sandbox name: it must not start "
			       "with '.' or '-'",
			       q);
	return 0;
}

bool sandbox_name_valid(const char *name)
{
	return name && sandbox_name_check(name, strlen(name), NULL) == 0;
}

int host_normalize(const char *in, char *out, const char **why)
{
	size_t n = strlen(in);
	if (n && in[n - 1] == '.')
		n--; /* "example.com." is example.com */
	if (n == 0) {
		*why = "empty host";
		return -EINVAL;
	}
	if (n > HOST_MAX) {
		*why = "host name too long";
		return -EINVAL;
	}
	size_t label = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)in[i];
		if (c >= 'A' && c <= 'Z')
			c = (unsigned char)(c - 'A' + 'a');
		if (c == '.') {
			if (label == 0) {
				*why = "empty label in host name";
				return -EINVAL;
			}
			label = 0;
		} else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
			   c == '-' || c == '_' || c == ':') {
			/* ':' only for IPv6 literals, checked by the caller
			 * through addr_parse_literal */
			if (++label > 63) {
				*why = "label longer than 63 in host name";
				return -EINVAL;
			}
		} else if (c >= 0x80) {
			*why = "host name not in A-label (xn--) form";
			return -EINVAL;
		} else {
			*why = "invalid character in host name";
			return -EINVAL;
		}
		out[i] = (char)c;
	}
	out[n] = '\0';
	/* A name is held to the grants' rule; a literal, or what looks like
	 * one, is addr_parse_literal's to judge. */
	struct lnk_addr lit;
	if (addr_parse_literal(out, &lit) == LIT_NAME &&
	    (*why = dns_name_why(out, n)) != NULL)
		return -EINVAL;
	return 0;
}

bool host_pattern_match(const char *pattern, const char *host)
{
	if (strcmp(pattern, "*") == 0)
		return true;
	if (pattern[0] == '*' && pattern[1] == '.') {
		const char *suffix = pattern + 1; /* ".example.com" */
		size_t hl = strlen(host), sl = strlen(suffix);
		return hl > sl && strcmp(host + hl - sl, suffix) == 0;
	}
	return strcmp(pattern, host) == 0;
}

/* An IP literal of at most len bytes, NUL-terminated for the parser. */
static enum literal_kind literal(const char *s, size_t len, struct lnk_addr *a)
{
	char t[HOST_MAX + 1];
	if (len > HOST_MAX)
		return LIT_NAME;
	memcpy(t, s, len);
	t[len] = '\0';
	return addr_parse_literal(t, a);
}

static void lower_copy(char *out, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		out[i] = (char)tolower((unsigned char)s[i]);
	out[len] = '\0';
}

/* A grant names an address in one spelling, and the wire matches that
 * spelling only (addr.h): an IPv4-mapped one would match no call the
 * program makes to the IPv4 address, so the spec says which to write. */
static int mapped_grant(const char *q, const struct lnk_addr *v4,
			struct lnk_err *err)
{
	char t[INET6_ADDRSTRLEN];
	addr_format(v4, t, sizeof(t));
	return err_set(err, -EINVAL,
		       "%s: an IPv4-mapped address; grant the IPv4 address "
		       "itself ('%s')",
		       q, t);
}

/* The names clouds answer their instance metadata service on (the
 * credentials of the machine's role): the one list, beside the one list of
 * metadata addresses (net/addr.c). */
static const char *const metadata_names[] = {
    "metadata.google.internal",
    "metadata.goog",
    "instance-data.ec2.internal",
};

bool host_is_metadata_name(const char *host)
{
	for (size_t i = 0; i < ARRAY_SIZE(metadata_names); i++)
		if (strcasecmp(host, metadata_names[i]) == 0)
			return true;
	return false;
}

/* A grant's normal form that names a metadata name, or a '*.' pattern
 * above one: the wire never reaches those (its tripwire fires on the
 * first call), so such a grant could only pause its own wire. */
static int metadata_grant(const char *q, const char *norm, struct lnk_err *err)
{
	for (size_t i = 0; i < ARRAY_SIZE(metadata_names); i++)
		if (host_pattern_match(norm, metadata_names[i]) &&
		    strcmp(norm, "*") != 0)
			return err_set(
			    err, -EINVAL,
			    "%s: it covers '%s', a cloud's metadata "
			    "service, which no grant reaches (a call "
			    "there pauses the sandbox's wire); "
			    "grant the names you need below it "
			    "instead",
			    q, metadata_names[i]);
	return 0;
}

int host_pattern_parse(const char *s, size_t len, char *out,
		       struct lnk_err *err)
{
	QUOTE(q, s, len);
	int r = host_text_check(q, s, len, err);
	if (r < 0)
		return r;
	if (len == 1 && s[0] == '*') {
		strcpy(out, "*");
		return 0;
	}
	if (len > 1 && s[len - 1] == '.' && s[len - 2] != '.')
		len--; /* the root's dot: example.com. is example.com */
	const char *h = s;
	size_t hl = len;
	if (hl > 2 && h[0] == '[' && h[hl - 1] == ']') {
		h++;
		hl -= 2;
	}
	struct lnk_addr a;
	if (literal(h, hl, &a) == LIT_ADDR &&
	    (h == s || a.family == AF_INET6)) {
		enum addr_class c = addr_classify(&a);
		const char *never = addr_never_why(c);
		if (never)
			return err_set(err, -EINVAL,
				       "%s: %s, which no grant reaches", q,
				       never);
		if (c != AC_INTERNET)
			return err_set(err, -EINVAL,
				       "%s: " ADDR_NOT_INTERNET_WHY
				       " (grant it with --lan-host)",
				       q);
		struct lnk_addr v4;
		if (addr_v4_mapped(&a, &v4))
			return mapped_grant(q, &v4, err);
		addr_format(&a, out, HOST_PATTERN_MAX);
		return 0;
	}
	if (h != s)
		return err_set(err, -EINVAL,
			       "%s: inside '[' and ']' goes an IPv6 address",
			       q);
	bool wild = len >= 2 && s[0] == '*' && s[1] == '.';
	const char *name = wild ? s + 2 : s;
	size_t nlen = wild ? len - 2 : len;
	if (memchr(name, '*', nlen) || (len >= 1 && s[0] == '*' && !wild))
		return err_set(err, -EINVAL,
			       "%s is not a host pattern: '*' stands alone or "
			       "starts '*.example.com'",
			       q);
	if (memchr(name, ':', nlen) || memchr(name, '/', nlen))
		return err_set(err, -EINVAL,
			       "%s is not a host pattern: give a name without "
			       "scheme, port or path, such as 'example.com'",
			       q);
	const char *why = dns_name_why(name, nlen);
	if (why && strcmp(why, ADDR_AMBIGUOUS_WHY) == 0)
		return err_set(err, -EINVAL,
			       "%s is not a host name: " ADDR_AMBIGUOUS_WHY, q);
	if (why)
		return err_set(err, -EINVAL,
			       "%s is not a host name: %s; use letters, "
			       "digits and '-' in dot-separated labels",
			       q, why);
	if (wild)
		strcpy(out, "*.");
	lower_copy(out + (wild ? 2 : 0), name, nlen);
	return metadata_grant(q, out, err);
}

static void set_host_bits_zero(uint8_t *a, unsigned prefix, unsigned bits)
{
	for (unsigned j = prefix; j < bits; j++)
		a[j / 8] &= (uint8_t) ~(0x80 >> (j % 8));
}

/* A range's address and prefix: "192.168.1.0/24", "fd00::/8", or one
 * address. */
static int lan_net(const char *s, size_t len, const char *q, bool bracket,
		   struct lan_rule *r, struct lnk_err *err)
{
	const char *slash = memchr(s, '/', len);
	size_t alen = slash ? (size_t)(slash - s) : len;
	if (literal(s, alen, &r->net) != LIT_ADDR ||
	    (bracket && r->net.family != AF_INET6))
		return bracket ? err_set(err, -EINVAL,
					 "%s: inside '[' and ']' goes an IPv6 "
					 "address",
					 q)
			       : 1; /* not an address: the caller decides */
	unsigned bits = r->net.family == AF_INET ? 32 : 128;
	r->prefix = bits;
	if (slash) {
		const char *p = slash + 1;
		size_t pl = len - alen - 1;
		long v = -1;
		if (pl >= 1 && pl <= 3 && (pl == 1 || p[0] != '0')) {
			v = 0;
			for (size_t i = 0; i < pl; i++) {
				if (!isdigit((unsigned char)p[i])) {
					v = -1;
					break;
				}
				v = v * 10 + (p[i] - '0');
			}
		}
		if (v < 0 || v > (long)bits)
			return err_set(err, -EINVAL,
				       "%s: the range's prefix must be a "
				       "number from 0 to %u",
				       q, bits);
		r->prefix = (unsigned)v;
		/* Host bits set in a range usually mean a typo
		 * (192.168.1.5/24): say which range was meant rather than
		 * guess. */
		struct lnk_addr m = r->net;
		set_host_bits_zero(m.a, r->prefix, bits);
		if (!addr_equal(&m, &r->net)) {
			char t[INET6_ADDRSTRLEN];
			addr_format(&m, t, sizeof(t));
			return err_set(err, -EINVAL,
				       "%s: the range has bits set after its "
				       "prefix; did you mean '%s/%u'?",
				       q, t, r->prefix);
		}
	}
	/* A range wholly inside a class the wire never reaches (first and
	 * last address of one class: the classes are CIDR blocks) is a
	 * grant that cannot be kept. A wider range may hold such addresses:
	 * the wire refuses those inside it, call by call. */
	struct lnk_addr last = r->net;
	for (unsigned j = r->prefix; j < bits; j++)
		last.a[j / 8] |= (uint8_t)(0x80 >> (j % 8));
	enum addr_class c = addr_classify(&r->net);
	const char *never = addr_never_why(c);
	if (never && addr_classify(&last) == c)
		return err_set(err, -EINVAL, "%s: %s, which no grant reaches",
			       q, never);
	struct lnk_addr v4;
	if (r->prefix >= 96 && addr_v4_mapped(&r->net, &v4))
		return mapped_grant(q, &v4, err);
	r->is_net = true;
	return 0;
}

int lan_rule_parse(const char *s, size_t len, struct lan_rule *r,
		   struct lnk_err *err)
{
	QUOTE(q, s, len);
	memset(r, 0, sizeof(*r));
	int rc = host_text_check(q, s, len, err);
	if (rc < 0)
		return rc;
	if (len == 0)
		return err_set(err, -EINVAL,
			       "an empty LAN host: give a name, an address or "
			       "a range");
	const char *host = s, *port = NULL;
	size_t hlen = len, plen = 0;
	bool bracket = false;
	if (s[0] == '[') {
		const char *end = memchr(s, ']', len);
		if (!end)
			return err_set(err, -EINVAL, "%s has '[' without ']'",
				       q);
		host = s + 1;
		hlen = (size_t)(end - host);
		size_t rest = len - (size_t)(end + 1 - s);
		if (rest) {
			if (end[1] != ':')
				return err_set(err, -EINVAL,
					       "%s: after ']' only ':port' may "
					       "follow",
					       q);
			port = end + 2;
			plen = rest - 1;
		}
		bracket = true;
	} else {
		/* One colon is name:port or address:port; more are an
		 * IPv6 address, which takes its port only in brackets. */
		const char *c = memchr(s, ':', len);
		if (c && !memchr(c + 1, ':', len - (size_t)(c + 1 - s))) {
			hlen = (size_t)(c - s);
			port = c + 1;
			plen = len - hlen - 1;
		}
	}
	if (port && port_parse(port, plen, &r->port) < 0)
		return err_set(err, -EINVAL, "%s: the port must be " PORT_RULE,
			       q);
	if (!bracket && hlen > 1 && host[hlen - 1] == '.' &&
	    host[hlen - 2] != '.')
		hlen--; /* the root's dot: nas.local. is nas.local */
	int k = lan_net(host, hlen, q, bracket, r, err);
	if (k <= 0)
		return k;
	if (memchr(host, '/', hlen))
		return err_set(err, -EINVAL,
			       "%s: a range needs an address before '/', such "
			       "as 192.168.1.0/24",
			       q);
	if (memchr(host, '*', hlen))
		return err_set(err, -EINVAL,
			       "%s: LAN hosts take no '*'; give a range such "
			       "as 192.168.1.0/24 instead",
			       q);
	const char *why = dns_name_why(host, hlen);
	if (why)
		return err_set(err, -EINVAL,
			       "%s is not a machine: %s; give a name, a full "
			       "address (192.168.1.20) or a range "
			       "(192.168.1.0/24)",
			       q, why);
	lower_copy(r->name, host, hlen);
	return metadata_grant(q, r->name, err);
}

void lan_rule_format(const struct lan_rule *r, char *out, size_t cap)
{
	char t[INET6_ADDRSTRLEN];
	unsigned bits = r->net.family == AF_INET ? 32 : 128;
	struct buf b = {0};
	if (!r->is_net)
		buf_puts(&b, r->name);
	else {
		/* An IPv6 range with a port keeps its prefix inside the
		 * brackets ("[fd00::/8]:22"), the one form the parser reads
		 * back: the normal form goes into specs and trust digests. */
		addr_format(&r->net, t, sizeof(t));
		bool br = r->net.family == AF_INET6 && r->port;
		buf_printf(&b, "%s%s", br ? "[" : "", t);
		if (r->prefix != bits)
			buf_printf(&b, "/%u", r->prefix);
		if (br)
			buf_puts(&b, "]");
	}
	if (r->port)
		buf_printf(&b, ":%u", r->port);
	snprintf(out, cap, "%s", b.p ? b.p : "");
	buf_free(&b);
}
