/* Model route entries (models.h). A spec can come from anyone: the entry
 * names where the wire sends the user's API key, so it is checked
 * strictly and kept in one normal form (the trust digest covers it). */
#include "policy/models.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define BAD(...) err_set(err, -EINVAL, __VA_ARGS__)

/* The inference calls of each API: what a route carries unless its entry
 * lists its own (paths under the route's base). */
#define OPENAI_CALLS                             \
	.calls = {{"POST", "/chat/completions"}, \
		  {"POST", "/responses"},        \
		  {"POST", "/completions"},      \
		  {"POST", "/embeddings"}},      \
	.ncalls = 4

static const struct model_def builtins[] = {
    {.name = "anthropic",
     .api = MODEL_API_ANTHROPIC,
     .host = "api.anthropic.com",
     .port = 443,
     .base = "",
     .builtin = 1,
     .calls = {{"POST", "/v1/messages"}, {"POST", "/v1/messages/count_tokens"}},
     .ncalls = 2},
    {.name = "openai",
     .api = MODEL_API_OPENAI,
     .host = "api.openai.com",
     .port = 443,
     .base = "/v1",
     .builtin = 1,
     OPENAI_CALLS},
};

/* A route of one's own speaks the OpenAI API: its inference calls. */
static const struct model_def own_default = {OPENAI_CALLS};

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '-';
}

/* A path character of the base: unreserved and sub-delims, '/', '%'
 * escapes; no '?', '#', space, or dot segment (the base must say where
 * requests go, not climb out of it). */
static bool path_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || strchr("-._~/!$&'()*+,;=:@%", c);
}

/* A word of a call's path: what an API's path segment is, and nothing a
 * server could read as more (no escape, no dot segment, no ';'). */
static bool word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '~' ||
	       c == '-';
}

/* One call of an entry's list: "METHOD /path" (METHOD in capitals, the
 * path's segments words or '*'). */
static int parse_call(const char *s, size_t n, struct model_call *c,
		      const char *q, struct lnk_err *err)
{
	const char *sp = memchr(s, ' ', n);
	size_t ml = sp ? (size_t)(sp - s) : n;
	if (!sp || ml == 0 || ml >= sizeof(c->method))
		return BAD("%s: a call the route carries is 'METHOD /path' "
			   "(as 'POST /chat/completions'), calls separated by "
			   "','",
			   q);
	for (size_t i = 0; i < ml; i++)
		if (s[i] < 'A' || s[i] > 'Z')
			return BAD("%s: a call's method is in capitals (POST, "
				   "GET)",
				   q);
	const char *p = sp;
	while (p < s + n && *p == ' ')
		p++;
	size_t pl = (size_t)(s + n - p);
	if (pl == 0 || p[0] != '/' || pl >= sizeof(c->path))
		return BAD("%s: a call's path starts with '/' under the "
			   "route's base and has at most %d characters",
			   q, MODEL_CALL_PATH_MAX - 1);
	for (size_t i = 0; i < pl;) {
		size_t j = i + 1;
		while (j < pl && p[j] != '/')
			j++;
		const char *w = p + i + 1;
		size_t wl = j - i - 1;
		bool ok = wl > 0 && !(wl == 1 && w[0] == '.') &&
			  !(wl == 2 && w[0] == '.' && w[1] == '.');
		if (ok && !(wl == 1 && w[0] == '*'))
			for (size_t k = 0; ok && k < wl; k++)
				ok = word_char(w[k]);
		if (!ok)
			return BAD("%s: a call's path is segments of letters, "
				   "digits, '.', '_', '~' and '-' (no '.' or "
				   "'..' alone), or '*' for any one segment",
				   q);
		i = j;
	}
	memcpy(c->method, s, ml);
	c->method[ml] = '\0';
	memcpy(c->path, p, pl);
	c->path[pl] = '\0';
	return 0;
}

/* The calls after a route's URL: " METHOD /path, METHOD /path ...". */
static int parse_calls(const char *s, size_t n, struct model_def *d,
		       const char *q, struct lnk_err *err)
{
	d->own_calls = 1;
	d->ncalls = 0;
	size_t i = 0;
	for (;;) {
		while (i < n && s[i] == ' ')
			i++;
		size_t j = i;
		while (j < n && s[j] != ',')
			j++;
		size_t e = j;
		while (e > i && s[e - 1] == ' ')
			e--;
		if (d->ncalls == MODEL_CALLS_MAX)
			return BAD("%s lists more than %d calls", q,
				   MODEL_CALLS_MAX);
		int r = parse_call(s + i, e - i, &d->calls[d->ncalls], q, err);
		if (r < 0)
			return r;
		d->ncalls++;
		if (j == n)
			return 0;
		i = j + 1;
	}
}

int model_parse(const char *s, size_t len, struct model_def *d,
		struct lnk_err *err)
{
	char q[256];
	net_quote(q, sizeof(q), s, len);
	memset(d, 0, sizeof(*d));
	const char *eq = memchr(s, '=', len);
	size_t nl = eq ? (size_t)(eq - s) : len;
	if (!eq && memchr(s, ' ', len))
		return BAD("%s: a built-in route carries its provider's "
			   "inference calls; a list of calls is for a route of "
			   "your own ('NAME=https://host/base POST /path')",
			   q);
	if (nl == 0 || nl > MODEL_NAME_MAX)
		return BAD("%s: a model route is 'anthropic', 'openai', or "
			   "'NAME=https://host/base' with a NAME of 1 to %d "
			   "letters, digits, '_' or '-'",
			   q, MODEL_NAME_MAX);
	for (size_t i = 0; i < nl; i++) {
		if (!name_char(s[i]))
			return BAD("%s: the route's name holds only letters, "
				   "digits, '_' and '-'",
				   q);
		d->name[i] = (char)tolower((unsigned char)s[i]);
	}
	for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++) {
		if (strcmp(d->name, builtins[i].name) != 0)
			continue;
		if (eq)
			return BAD("%s: '%s' is built in; give another name "
				   "for a provider of your own",
				   q, builtins[i].name);
		*d = builtins[i];
		return 0;
	}
	if (!eq)
		return BAD("%s is no built-in model route (anthropic, openai): "
			   "give 'NAME=https://host/base' for a provider that "
			   "speaks the OpenAI API",
			   q);
	const char *u = eq + 1;
	size_t ul = len - nl - 1;
	if (ul < 8 || strncasecmp(u, "https://", 8) != 0)
		return BAD("%s: the provider's URL starts with https:// (the "
			   "wire sends your key only over TLS)",
			   q);
	/* the URL ends at the first space; the route's calls may follow */
	const char *end = memchr(u, ' ', ul);
	const char *calls = end;
	if (!end)
		end = s + len;
	const char *h = u + 8;
	const char *he = h;
	while (he < end && *he != '/' && *he != '?' && *he != '#')
		he++;
	if (he < end && *he != '/')
		return BAD("%s: the URL takes no query or fragment", q);
	if (memchr(h, '@', (size_t)(he - h)))
		return BAD("%s has '@' before its host: give the host alone "
			   "(the key comes from outside)",
			   q);
	const char *colon = NULL;
	const char *hs = h, *hend = he;
	if (h < he && *h == '[') {
		const char *rb = memchr(h, ']', (size_t)(he - h));
		if (!rb)
			return BAD("%s has '[' without ']'", q);
		hs = h + 1;
		hend = rb;
		if (rb + 1 < he) {
			if (rb[1] != ':')
				return BAD("%s: after ']' only ':port' may "
					   "follow",
					   q);
			colon = rb + 1;
		}
	} else {
		colon = memchr(h, ':', (size_t)(he - h));
		if (colon)
			hend = colon;
	}
	size_t hl = (size_t)(hend - hs);
	if (hl == 0 || hl > HOST_MAX)
		return BAD("%s has no host: write it as "
			   "'NAME=https://llm.example.com/v1'",
			   q);
	char host[HOST_MAX + 1];
	memcpy(host, hs, hl);
	host[hl] = '\0';
	const char *why = NULL;
	if (host_normalize(host, d->host, &why) < 0)
		return BAD("%s does not have a valid host: %s", q, why);
	struct lnk_addr a;
	if (addr_parse_literal(d->host, &a) == LIT_AMBIGUOUS)
		return BAD("%s: the host reads as an address in more than one "
			   "way; write the address in dotted decimal",
			   q);
	d->port = 443;
	if (colon &&
	    port_parse(colon + 1, (size_t)(he - colon - 1), &d->port) < 0)
		return BAD("%s: the port must be " PORT_RULE, q);
	size_t bl = (size_t)(end - he);
	while (bl && he[bl - 1] == '/')
		bl--;
	if (bl >= MODEL_BASE_MAX)
		return BAD("%s: the base path is too long", q);
	for (size_t i = 0; i < bl; i++) {
		if (!path_char(he[i]))
			return BAD("%s: the base path has a character a URL "
				   "path does not (percent-encode it)",
				   q);
		if (he[i] == '/' && i + 1 < bl && he[i + 1] == '.' &&
		    (i + 2 == bl || he[i + 2] == '/' ||
		     (he[i + 2] == '.' && (i + 3 == bl || he[i + 3] == '/'))))
			return BAD("%s: the base path has a '.' or '..' "
				   "segment",
				   q);
	}
	memcpy(d->base, he, bl);
	d->base[bl] = '\0';
	d->api = MODEL_API_OPENAI;
	if (calls)
		return parse_calls(calls, (size_t)(s + len - calls), d, q, err);
	memcpy(d->calls, own_default.calls, sizeof(d->calls));
	d->ncalls = own_default.ncalls;
	return 0;
}

void model_format(const struct model_def *d, char *out, size_t cap)
{
	if (d->builtin) {
		snprintf(out, cap, "%s", d->name);
		return;
	}
	bool v6 = strchr(d->host, ':') != NULL;
	char port[8] = "";
	if (d->port != 443)
		snprintf(port, sizeof(port), ":%u", d->port);
	int w = snprintf(out, cap, "%s=https://%s%s%s%s%s", d->name,
			 v6 ? "[" : "", d->host, v6 ? "]" : "", port, d->base);
	for (size_t i = 0; d->own_calls && i < d->ncalls; i++) {
		if (w < 0 || (size_t)w >= cap)
			return;
		int k = snprintf(out + w, cap - (size_t)w, "%s%s %s",
				 i ? ", " : " ", d->calls[i].method,
				 d->calls[i].path);
		w = k < 0 ? k : w + k;
	}
}

void model_key_var(const struct model_def *d, char *out, size_t cap)
{
	size_t i = 0;
	for (; d->name[i] && i + 1 < cap; i++)
		out[i] = d->name[i] == '-'
			     ? '_'
			     : (char)toupper((unsigned char)d->name[i]);
	snprintf(out + i, cap - i, "_API_KEY");
}

/* A pattern's path against the program's: segment by segment, '*' one
 * segment of word characters (no dot segment). */
static bool path_match(const char *pat, const char *p, size_t n)
{
	size_t i = 0;
	while (*pat) {
		if (i >= n || *pat != '/' || p[i] != '/')
			return false;
		pat++;
		i++;
		if (pat[0] == '*' && (pat[1] == '/' || !pat[1])) {
			size_t j = i;
			while (j < n && p[j] != '/')
				j++;
			if (j == i || (j - i == 1 && p[i] == '.') ||
			    (j - i == 2 && p[i] == '.' && p[i + 1] == '.'))
				return false;
			for (size_t k = i; k < j; k++)
				if (!word_char(p[k]))
					return false;
			i = j;
			pat++;
			continue;
		}
		while (*pat && *pat != '/') {
			if (i >= n || p[i] != *pat)
				return false;
			i++;
			pat++;
		}
		if (i < n && p[i] != '/')
			return false;
	}
	return i == n;
}

static bool hex_digit(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	       (c >= 'A' && c <= 'F');
}

static int hex_of(char c)
{
	return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

/* The query passes to the provider, so it may not say what a server or a
 * gateway in front of it could take for another path or method ("?/..",
 * "%2f", "_method=DELETE", "url=..."): plain words, '=', '&' and a few
 * separators; an escape only of such a character. */
static const char *query_why(const char *q, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char c = q[i];
		if (c == '%') {
			if (i + 2 >= n || !hex_digit(q[i + 1]) ||
			    !hex_digit(q[i + 2]))
				return "the query has a malformed escape";
			c = (char)(hex_of(q[i + 1]) * 16 + hex_of(q[i + 2]));
			i += 2;
			if (c == '.' ||
			    !(word_char(c) || (c && strchr(" +,:=&", c))))
				return "the query has an escape of a character "
				       "it may not hold ('.', '/', '%', ...)";
			continue;
		}
		if (!word_char(c) && !(c && strchr("=&+,:", c)))
			return "the query has a character it may not hold "
			       "('/', '\\', ';', ...)";
		if (c == '.' && i + 1 < n && q[i + 1] == '.')
			return "the query has '..'";
	}
	/* each parameter's name, escapes decoded (the loop above checked
	 * them) */
	for (size_t i = 0; i < n;) {
		size_t e = i;
		while (e < n && q[e] != '=' && q[e] != '&')
			e++;
		char name[256];
		size_t l = 0;
		for (size_t k = i; k < e; k++) {
			if (l == sizeof(name) - 1)
				return "the query has a parameter name longer "
				       "than 255 characters";
			char c = q[k];
			if (c == '%') {
				c = (char)(hex_of(q[k + 1]) * 16 +
					   hex_of(q[k + 2]));
				k += 2;
			}
			name[l++] = (char)tolower((unsigned char)c);
		}
		name[l] = '\0';
		if (strstr(name, "method") || strstr(name, "path") ||
		    strstr(name, "url") || strstr(name, "uri"))
			return "the query names a method, a path or a URL";
		/* the log names the body's model: a gateway that takes the
		 * query's would serve another (and the deployment, the
		 * engine: Azure's and others' ways to say it) */
		if (strstr(name, "model") || strstr(name, "deployment") ||
		    strstr(name, "engine"))
			return "the query names a model (the body names the "
			       "model, which the log shows)";
		/* what the header filter drops, said in the query (Google's
		 * APIs take key, access_token, userProject, quotaUser as
		 * either): a credential, or the account the key acts for */
		static const char *const account[] = {
		    "key",     "token",	       "auth", "secret",
		    "project", "organization", "quota"};
		for (size_t k = 0; k < sizeof(account) / sizeof(*account); k++)
			if (strstr(name, account[k]))
				return "the query names a credential or the "
				       "account the route's key acts for";
		while (e < n && q[e] != '&')
			e++;
		i = e + 1;
	}
	return NULL;
}

int model_call_check(const struct model_def *d, const char *method, size_t ml,
		     const char *target, size_t tl, const char **why)
{
	size_t pl = 0;
	while (pl < tl && target[pl] != '?')
		pl++;
	/* the path first: what a server would read as another path is
	 * refused as such, whatever the list says */
	for (size_t i = 0; i < pl; i++) {
		unsigned char c = (unsigned char)target[i];
		if (c <= 0x20 || c >= 0x7f || c == '\\' || c == '#') {
			*why = "the path has a character it may not hold";
			return 400;
		}
		if (c == '%') {
			*why = "the path has an escape (%XX): a model call's "
			       "path is plain";
			return 400;
		}
		if (c != '/')
			continue;
		if (i + 1 < pl && target[i + 1] == '/') {
			*why = "the path has an empty segment ('//')";
			return 400;
		}
		size_t j = i + 1;
		while (j < pl && target[j] != '/')
			j++;
		if ((j - i == 2 && target[i + 1] == '.') ||
		    (j - i == 3 && target[i + 1] == '.' &&
		     target[i + 2] == '.')) {
			*why = "the path has a '.' or '..' segment";
			return 400;
		}
	}
	if (pl < tl && (*why = query_why(target + pl + 1, tl - pl - 1)))
		return 400;
	for (size_t i = 0; i < d->ncalls; i++)
		if (strlen(d->calls[i].method) == ml &&
		    memcmp(d->calls[i].method, method, ml) == 0 &&
		    path_match(d->calls[i].path, target, pl))
			return 0;
	*why = d->own_calls ? "not a call this model route carries (its "
			      "entry lists the calls it carries)"
			    : "not a model call: a route carries its "
			      "provider's inference calls only";
	return 403;
}
