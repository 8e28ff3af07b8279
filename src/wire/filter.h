/* The wire's grants: which hosts, LAN machines and loopback ports a sandbox
 * may reach (lnk-sandbox(1), GRANTS).
 *
 * A call passes two checks. First the name or literal it asks for must match
 * a grant (filter_match_host). Then every address it resolves to must be
 * allowed for that grant (filter_check_addr), and the wire connects to
 * exactly those addresses: a name that matches a pattern but resolves to
 * this machine or its network is refused (docs/design.md, invariant 3). What is
 * this machine or its network is the kernel's answer for that address at
 * that moment (route.h), besides what the address's class says.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "common/err.h"
#include "common/util.h"
#include "net/addr.h"
#include "net/grammar.h"
#include "wire/route.h"

struct filter {
	struct strv hosts; /* normalized internet patterns */
	bool any_internet; /* hosts holds "*" */
	struct lan_rule *lan;
	size_t nlan;
	uint16_t *ports; /* loopback ports reached directly */
	size_t nports;
};

/* grants a target may use, from filter_match_host */
#define GRANT_INTERNET 1u
#define GRANT_LAN 2u

int filter_init(struct filter *f, const struct strv *hosts,
		const struct strv *lan, const uint16_t *ports, size_t nports,
		struct lnk_err *err);
void filter_free(struct filter *f);

/* Which grants cover host:port. host is normalized; lit is its address when
 * it is a literal (else NULL). Returns a mask of GRANT_*, 0 when none. */
unsigned filter_match_host(const struct filter *f, const char *host,
			   const struct lnk_addr *lit, uint16_t port);

/* May a call under grants connect to a at port, where is the kernel's
 * route answer for a? NULL when yes, else the reason it may not (for the
 * 403 and the log). This machine (a local route) is never reached this
 * way, whatever the grants (--port is the door to its loopback); its
 * network (an on-link route, a gateway) only through a [lan] grant; an
 * address without a usable route is refused. */
const char *filter_check_addr(const struct filter *f, unsigned grants,
			      const char *host, const struct lnk_addr *a,
			      uint16_t port, enum route_where where);

bool filter_port_allowed(const struct filter *f, uint16_t port);
