#include "wire/filter.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int filter_init(struct filter *f, const struct strv *hosts,
		const struct strv *lan, const uint16_t *ports, size_t nports,
		struct lnk_err *err)
{
	memset(f, 0, sizeof(*f));
	for (size_t i = 0; hosts && i < hosts->n; i++) {
		const char *h = hosts->v[i];
		char norm[HOST_PATTERN_MAX];
		if (strcmp(h, "*") == 0) {
			f->any_internet = true;
			strv_push(&f->hosts, "*");
			continue;
		}
		/* The spec's grammar: an entry the spec would refuse is
		 * refused here with the same words. */
		int r = host_pattern_parse(h, strlen(h), norm, err);
		if (r < 0) {
			filter_free(f);
			return r;
		}
		strv_push(&f->hosts, norm);
	}
	if (lan && lan->n) {
		f->lan = xcalloc(lan->n, sizeof(*f->lan));
		for (size_t i = 0; i < lan->n; i++) {
			int r = lan_rule_parse(lan->v[i], strlen(lan->v[i]),
					       &f->lan[i], err);
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
			 * grant names that address, however either is
			 * spelled; "*.x" never matches a literal. */
			struct lnk_addr pa;
			if (lit ? addr_parse_literal(p, &pa) == LIT_ADDR &&
				      addr_equal(&pa, lit)
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
	const char *never = addr_never_why(c);
	if (never)
		return never;
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
					    : ADDR_NOT_INTERNET_WHY;
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
