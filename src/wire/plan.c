/* The wire's plan: what lnk decides before anything forks and hands to
 * the wire (wire.h): its grants, ports, model routes and log. Pure but
 * for reading LNK_DNS_SERVER. */
#include "wire/plan.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/grammar.h"
#include "store/paths.h"
#include "wire/filter.h"

bool wire_plan_has_port(const struct wire_plan *wp, uint16_t p)
{
	for (size_t i = 0; i < wp->nports; i++)
		if (wp->ports[i] == p)
			return true;
	return false;
}

/* LNK_DNS_SERVER: "IP:PORT" or "[IPv6]:PORT", nothing looser. */
static int check_dns_server(const char *s, struct lnk_err *err)
{
	char host[64];
	const char *port;
	if (s[0] == '[') {
		const char *close = strchr(s, ']');
		if (!close || close[1] != ':' || (size_t)(close - s) > 60)
			goto bad;
		memcpy(host, s + 1, (size_t)(close - s - 1));
		host[close - s - 1] = '\0';
		port = close + 2;
	} else {
		const char *colon = strchr(s, ':');
		if (!colon || (size_t)(colon - s) >= sizeof(host))
			goto bad;
		memcpy(host, s, (size_t)(colon - s));
		host[colon - s] = '\0';
		port = colon + 1;
	}
	struct lnk_addr a;
	uint16_t v;
	if (addr_parse_literal(host, &a) != LIT_ADDR ||
	    port_parse(port, strlen(port), &v) < 0)
		goto bad;
	return 0;
bad:
	return err_set(err, -EINVAL,
		       "LNK_DNS_SERVER '%s' is not IP:PORT (e.g. "
		       "127.0.0.1:5353)",
		       s);
}

int wire_plan_make(const char *name, const char *db_path,
		   const struct strv *internet_hosts,
		   const struct strv *lan_hosts, const uint16_t *ports,
		   size_t nports, struct wire_plan *wp, struct lnk_err *err)
{
	memset(wp, 0, sizeof(*wp));
	wp->name = xstrdup(name);
	wp->db_path = xstrdup(db_path);
	if (internet_hosts)
		strv_copy(&wp->internet_hosts, internet_hosts);
	if (lan_hosts)
		strv_copy(&wp->lan_hosts, lan_hosts);
	if (nports) {
		wp->ports = xcalloc(nports, sizeof(*wp->ports));
		memcpy(wp->ports, ports, nports * sizeof(*ports));
		wp->nports = nports;
	}
	/* The proxy ports inside move out of the way of an allowed --port. */
	wp->http_port = WIRE_HTTP_PORT;
	while (wire_plan_has_port(wp, wp->http_port))
		wp->http_port++;
	wp->socks_port = WIRE_SOCKS_PORT;
	while (wire_plan_has_port(wp, wp->socks_port) ||
	       wp->socks_port == wp->http_port)
		wp->socks_port++;
	wp->tcp_port = WIRE_TCP_PORT;
	while (wire_plan_has_port(wp, wp->tcp_port) ||
	       wp->tcp_port == wp->http_port || wp->tcp_port == wp->socks_port)
		wp->tcp_port++;
	const char *dns = getenv("LNK_DNS_SERVER");
	if (dns && *dns) {
		int r = check_dns_server(dns, err);
		if (r < 0) {
			wire_plan_free(wp);
			return r;
		}
		wp->dns_server = xstrdup(dns);
	}
	/* The grants are checked now, before anything forks. */
	struct filter f;
	int r = filter_init(&f, &wp->internet_hosts, &wp->lan_hosts, wp->ports,
			    wp->nports, err);
	if (r < 0) {
		wire_plan_free(wp);
		return r;
	}
	filter_free(&f);
	return 0;
}

int wire_plan(const struct policy *p, const char *name, const char *home,
	      struct wire_plan *wp, struct lnk_err *err)
{
	const struct strv *ps = policy_list(p, K_LOCALHOST_PORTS);
	uint16_t *ports = ps->n ? xcalloc(ps->n, sizeof(*ports)) : NULL;
	size_t n = 0;
	for (size_t i = 0; i < ps->n; i++) {
		uint16_t v;
		if (port_parse(ps->v[i], strlen(ps->v[i]), &v) < 0) {
			free(ports);
			char q[256];
			net_quote(q, sizeof(q), ps->v[i], strlen(ps->v[i]));
			return err_set(err, -EINVAL,
				       "%s is not a port: give " PORT_RULE, q);
		}
		bool dup = false;
		for (size_t j = 0; j < n; j++)
			dup |= ports[j] == v;
		if (!dup)
			ports[n++] = (uint16_t)v;
	}
	_cleanup_free_ char *db = paths_db(home);
	int r = wire_plan_make(name, db, policy_list(p, K_INTERNET_HOSTS),
			       policy_list(p, K_LAN_HOSTS), ports, n, wp, err);
	free(ports);
	if (r < 0)
		return r;
	/* The control socket and the registry take the name as a file name
	 * and a key: refuse a bad one now, before anything forks. */
	if ((r = sandbox_name_check(name, strlen(name), err)) < 0) {
		wire_plan_free(wp);
		return r;
	}
	wp->home = xstrdup(home);
	if ((r = wire_plan_models(wp, policy_list(p, K_INTERNET_MODELS), home,
				  err)) < 0 ||
	    (r = wire_plan_models_env(wp, policy_list(p, K_COMMANDS_ENV),
				      err)) < 0) {
		wire_plan_free(wp);
		return r;
	}
	return 0;
}

void wire_plan_free(struct wire_plan *wp)
{
	free(wp->name);
	free(wp->home);
	free(wp->db_path);
	free(wp->dns_server);
	strv_free(&wp->internet_hosts);
	strv_free(&wp->lan_hosts);
	free(wp->ports);
	model_plan_free(wp);
	memset(wp, 0, sizeof(*wp));
}

void wire_plan_env(const struct wire_plan *wp, struct strv *env)
{
	static const char *const http[] = {"HTTP_PROXY", "HTTPS_PROXY",
					   "http_proxy", "https_proxy"};
	for (size_t i = 0; i < ARRAY_SIZE(http); i++)
		strv_pushf(env, "%s=http://127.0.0.1:%u", http[i],
			   wp->http_port);
	strv_pushf(env, "ALL_PROXY=socks5h://127.0.0.1:%u", wp->socks_port);
	strv_pushf(env, "all_proxy=socks5h://127.0.0.1:%u", wp->socks_port);
	strv_push(env, "NO_PROXY=localhost,127.0.0.1,::1");
	strv_push(env, "no_proxy=localhost,127.0.0.1,::1");
	model_plan_env(wp, env);
}

void wire_plan_listeners(const struct wire_plan *wp, struct init_listener **l,
			 size_t *n)
{
	*n = 4 + wp->nports;
	*l = xcalloc(*n, sizeof(**l));
	(*l)[0] =
	    (struct init_listener){.kind = INIT_L_HTTP, .port = wp->http_port};
	(*l)[1] = (struct init_listener){.kind = INIT_L_SOCKS,
					 .port = wp->socks_port};
	(*l)[2] =
	    (struct init_listener){.kind = INIT_L_TCP, .port = wp->tcp_port};
	(*l)[3] = (struct init_listener){.kind = INIT_L_DNS, .port = 53};
	for (size_t i = 0; i < wp->nports; i++)
		(*l)[4 + i] = (struct init_listener){.kind = INIT_L_PORT,
						     .port = wp->ports[i]};
}
