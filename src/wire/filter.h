/* The wire's grants: which hosts, LAN machines and loopback ports a sandbox
 * may reach (product text, "Choose what it can reach").
 *
 * A call passes two checks. First the name or literal it asks for must match
 * a grant (filter_match_host). Then every address it resolves to must be
 * allowed for that grant (filter_check_addr), and the wire connects to
 * exactly those addresses: a name that matches a pattern but resolves to
 * this machine or its network is refused (DESIGN.md, invariant 3). What is
 * this machine or its network is the kernel's answer for that address at
 * that moment (route.h), besides what the address's class says.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "common/err.h"
#include "common/util.h"
#include "wire/addr.h"
#include "wire/route.h"

#define HOST_MAX 253

/* Normalizes a host name for matching: lower case, one trailing dot
 * removed; refuses anything but an A-label DNS name (letters, digits, '-',
 * '_' in labels of 1..63, at most 253 bytes) or an IP literal. out holds
 * HOST_MAX + 1 bytes. 0 or -EINVAL with *why set. */
int host_normalize(const char *in, char *out, const char **why);

/* Does the normalized pattern ("*", "name", "*.suffix") match the
 * normalized host? "*.example.com" matches names below example.com, not
 * example.com itself, not evilexample.com, not example.com.evil.test. */
bool host_pattern_match(const char *pattern, const char *host);

struct lan_rule {
	bool is_net; /* an address or CIDR, else a name */
	char name[HOST_MAX + 1];
	struct lnk_addr net;
	unsigned prefix;
	uint16_t port; /* 0: every port */
};

/* Parses a [lan] entry: name, address or CIDR, optional :port
 * ("nas.local", "nas.local:445", "192.168.1.0/24", "10.0.0.5:22",
 * "[fd00::5]:22", "fd00::/8"). 0 or -EINVAL. */
int lan_rule_parse(const char *s, struct lan_rule *r, struct lnk_err *err);

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
