#include "wire/filter.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

static int parse_port(const char *s, uint16_t *port)
{
	if (!*s || strlen(s) > 5)
		return -EINVAL;
	unsigned v = 0;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = v * 10 + (unsigned)(*s - '0');
	}
	if (v < 1 || v > 65535)
		return -EINVAL;
	*port = (uint16_t)v;
	return 0;
}

static int parse_net(char *s, struct lan_rule *r)
{
	char *slash = strchr(s, '/');
	if (slash)
		*slash = '\0';
	if (addr_parse_literal(s, &r->net) != LIT_ADDR)
		return -EINVAL;
	unsigned max = r->net.family == AF_INET ? 32 : 128;
	r->prefix = max;
	if (slash) {
		const char *p = slash + 1;
		if (!*p || strlen(p) > 3)
			return -EINVAL;
		unsigned v = 0;
		for (; *p; p++) {
			if (*p < '0' || *p > '9')
				return -EINVAL;
			v = v * 10 + (unsigned)(*p - '0');
		}
		if (v > max)
			return -EINVAL;
		r->prefix = v;
	}
	r->is_net = true;
	return 0;
}

int lan_rule_parse(const char *s, struct lan_rule *r, struct lnk_err *err)
{
	_cleanup_free_ char *t = xstrdup(s);
	memset(r, 0, sizeof(*r));
	char *host = t, *port = NULL;
	if (t[0] == '[') {
		char *close = strchr(t, ']');
		if (!close || (close[1] && close[1] != ':'))
			goto bad;
		*close = '\0';
		host = t + 1;
		if (close[1] == ':')
			port = close + 2;
		if (parse_net(host, r) < 0 || r->net.family != AF_INET6)
			goto bad;
	} else if (strchr(t, ':') && strchr(t, ':') != strrchr(t, ':')) {
		if (parse_net(host, r) < 0) /* bare IPv6, no port */
			goto bad;
	} else {
		char *c = strchr(t, ':');
		if (c) {
			*c = '\0';
			port = c + 1;
		}
		if (strchr(host, '/') ||
		    addr_parse_literal(host, &r->net) != LIT_NAME) {
			if (parse_net(host, r) < 0)
				goto bad;
		} else {
			const char *why;
			if (host_normalize(host, r->name, &why) < 0)
				return err_set(err, -EINVAL,
					       "lan host '%s': %s", s, why);
		}
	}
	if (port && parse_port(port, &r->port) < 0)
		goto bad;
	return 0;
bad:
	return err_set(
	    err, -EINVAL,
	    "lan host '%s' is not a name, address or CIDR range with "
	    "an optional :port",
	    s);
}

int filter_init(struct filter *f, const struct strv *hosts,
		const struct strv *lan, const uint16_t *ports, size_t nports,
		struct lnk_err *err)
{
	memset(f, 0, sizeof(*f));
	for (size_t i = 0; hosts && i < hosts->n; i++) {
		const char *h = hosts->v[i];
		char norm[HOST_MAX + 1];
		const char *why;
		if (strcmp(h, "*") == 0) {
			f->any_internet = true;
			strv_push(&f->hosts, "*");
			continue;
		}
		bool wild = h[0] == '*' && h[1] == '.';
		if (host_normalize(wild ? h + 2 : h, norm, &why) < 0) {
			filter_free(f);
			return err_set(err, -EINVAL, "internet host '%s': %s",
				       h, why);
		}
		strv_pushf(&f->hosts, "%s%s", wild ? "*." : "", norm);
	}
	if (lan && lan->n) {
		f->lan = xcalloc(lan->n, sizeof(*f->lan));
		for (size_t i = 0; i < lan->n; i++) {
			int r = lan_rule_parse(lan->v[i], &f->lan[i], err);
			if (r < 0) {
				filter_free(f);
				return r;
			}
			f->nlan++;
		}
	}
	if (nports) {
		f->ports = xcalloc(nports, sizeof(*f->ports));
		memcpy(f->ports, ports, nports * sizeof(*ports));
		f->nports = nports;
	}
	return 0;
}

void filter_free(struct filter *f)
{
	strv_free(&f->hosts);
	free(f->lan);
	free(f->ports);
	memset(f, 0, sizeof(*f));
}

unsigned filter_match_host(const struct filter *f, const char *host,
			   const struct lnk_addr *lit, uint16_t port)
{
	unsigned g = 0;
	if (f->any_internet)
		g |= GRANT_INTERNET;
	else
		for (size_t i = 0; i < f->hosts.n; i++) {
			const char *p = f->hosts.v[i];
			/* An address is reached by name only when the
			 * grant names that address; "*.x" never matches a
			 * literal. */
			if (lit ? strcmp(p, host) == 0
				: host_pattern_match(p, host)) {
				g |= GRANT_INTERNET;
				break;
			}
		}
	for (size_t i = 0; i < f->nlan; i++) {
		const struct lan_rule *r = &f->lan[i];
		if (r->port && r->port != port)
			continue;
		if (r->is_net ? lit && addr_in_net(lit, &r->net, r->prefix)
			      : !lit && strcmp(r->name, host) == 0)
			g |= GRANT_LAN;
	}
	return g;
}

static bool lan_allows(const struct filter *f, const char *host,
		       const struct lnk_addr *a, uint16_t port)
{
	for (size_t i = 0; i < f->nlan; i++) {
		const struct lan_rule *r = &f->lan[i];
		if (r->port && r->port != port)
			continue;
		if (r->is_net ? addr_in_net(a, &r->net, r->prefix)
			      : strcmp(r->name, host) == 0)
			return true;
	}
	return false;
}

const char *filter_check_addr(const struct filter *f, unsigned grants,
			      const char *host, const struct lnk_addr *a,
			      uint16_t port, enum route_where where)
{
	enum addr_class c = addr_classify(a);
	/* Never, under any grant: these reach this machine, every machine,
	 * or a cloud's credentials. */
	switch (c) {
	case AC_METADATA:
	case AC_LOOPBACK:
	case AC_UNSPECIFIED:
	case AC_MULTICAST:
	case AC_BROADCAST:
	case AC_RESERVED:
		return c == AC_METADATA ? "cloud metadata address"
		       : c == AC_LOOPBACK
			   ? "loopback address (use --port for this machine)"
		       : c == AC_UNSPECIFIED ? "unspecified address"
		       : c == AC_MULTICAST   ? "multicast address"
		       : c == AC_BROADCAST   ? "broadcast address"
					     : "reserved address";
	case AC_INTERNET:
	case AC_PRIVATE:
	case AC_CGNAT:
	case AC_LINK_LOCAL:
	case AC_ULA:
		break;
	}
	switch (where) {
	case ROUTE_LOCAL:
		return "address of this machine";
	case ROUTE_NONE:
		return "no route to this address";
	case ROUTE_LAN:
	case ROUTE_INTERNET:
		break;
	}
	if ((grants & GRANT_LAN) && lan_allows(f, host, a, port))
		return NULL;
	if (where == ROUTE_LAN)
		return (grants & GRANT_LAN)
			   ? "address outside the lan grant"
			   : "address on this machine's network, not the "
			     "internet";
	if (c != AC_INTERNET)
		return (grants & GRANT_LAN) ? "address outside the lan grant"
					    : "address on this network, not "
					      "the internet";
	if (grants & GRANT_INTERNET)
		return NULL;
	return grants ? "address outside the lan grant"
		      : "host not in the sandbox's grants";
}

bool filter_port_allowed(const struct filter *f, uint16_t port)
{
	for (size_t i = 0; i < f->nports; i++)
		if (f->ports[i] == port)
			return true;
	return false;
}
