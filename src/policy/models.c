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

static const struct model_def builtins[] = {
    {.name = "anthropic",
     .api = MODEL_API_ANTHROPIC,
     .host = "api.anthropic.com",
     .port = 443,
     .base = "",
     .builtin = 1},
    {.name = "openai",
     .api = MODEL_API_OPENAI,
     .host = "api.openai.com",
     .port = 443,
     .base = "/v1",
     .builtin = 1},
};

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

int model_parse(const char *s, size_t len, struct model_def *d,
		struct lnk_err *err)
{
	char q[256];
	net_quote(q, sizeof(q), s, len);
	memset(d, 0, sizeof(*d));
	const char *eq = memchr(s, '=', len);
	size_t nl = eq ? (size_t)(eq - s) : len;
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
	const char *h = u + 8, *end = s + len;
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
	snprintf(out, cap, "%s=https://%s%s%s%s%s", d->name, v6 ? "[" : "",
		 d->host, v6 ? "]" : "", port, d->base);
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
