/* The grammar of what a person or a program names on the network: ports,
 * DNS names, internet host patterns, LAN machines and ranges, and sandbox
 * names.
 *
 * One parser per form, used by every side: the CLI and the spec loader
 * (through the keys table), `permissions`, the wire and check. A form read
 * two ways is a hole: a spec that accepts what the wire reads as another
 * address (1.0x7f), or grants a class the wire never reaches, promises what
 * is not kept. So what the spec accepts here the wire honours, and what the
 * wire would refuse the spec refuses with the same words (addr.h holds the
 * words for the address classes).
 *
 * Every check returns 0 or -EINVAL and, when err is not NULL, a message that
 * quotes the entry (control bytes escaped: an entry is hostile input).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "net/addr.h"

#define HOST_MAX 253
#define SANDBOX_NAME_MAX 64

/* What a port must be, in every message about one. */
#define PORT_RULE "a number from 1 to 65535"

/* An entry quoted for a message, in single quotes, control bytes and
 * quotes escaped, cut at 200 bytes. */
void net_quote(char *dst, size_t cap, const char *s, size_t len);

/* A port: decimal digits only, 1..65535, no sign, no leading zero (080
 * would be read as 80 by one parser and refused or read as octal by
 * another). 0 or -EINVAL. */
int port_parse(const char *s, size_t len, uint16_t *out);

/* Why s is no DNS name in A-label form, or NULL when it is one: labels of
 * 1..63 letters, digits, '-' (not at either end) and '_' (_dmarc, service
 * records), at most 253 bytes, ASCII only. A name whose last label is a
 * number (decimal or 0x hex) is refused: browsers and inet_aton read it as
 * an IPv4 address (127.1, 1.0x7f), which the wire refuses as ambiguous. */
const char *dns_name_why(const char *s, size_t len);

/* A sandbox name: 1 to 64 of [A-Za-z0-9._-], not starting with '.' or '-'.
 * The name becomes a file name (the control socket) and a key. */
int sandbox_name_check(const char *s, size_t len, struct lnk_err *err);
bool sandbox_name_valid(const char *name);

/* Normalizes a host a program asked for, for matching: lower case, one
 * trailing dot removed; refuses anything but name characters or an IP
 * literal's, and a name that breaks dns_name_why's rule. Whether it is a
 * literal, a name or ambiguous is addr_parse_literal's answer (the caller
 * refuses ambiguous ones in ADDR_AMBIGUOUS_WHY's words). out holds
 * HOST_MAX + 1 bytes. 0 or -EINVAL with *why set. */
int host_normalize(const char *in, char *out, const char **why);

/* Whether host (a name, normal form) is one a cloud answers its metadata
 * service on. A grant naming or covering one is refused. */
bool host_is_metadata_name(const char *host);

/* An internet host grant: '*', a DNS name, '*.suffix', or an IP literal
 * (IPv6 with or without brackets) of an internet address. Writes the
 * normal form (lower case, no trailing dot, IPv6 compressed without
 * brackets) to out (HOST_MAX + 3 bytes). */
#define HOST_PATTERN_MAX (HOST_MAX + 3)
int host_pattern_parse(const char *s, size_t len, char *out,
		       struct lnk_err *err);

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

/* A LAN grant: a name, an address or a CIDR range, with an optional :port
 * ("nas.local", "nas.local:445", "192.168.1.0/24", "10.0.0.5:22",
 * "[fd00::5]:22", "fd00::/8"). A range has no bits set after its prefix;
 * an address or range the wire never reaches (loopback, cloud metadata,
 * unspecified, multicast, broadcast, reserved) is refused. */
int lan_rule_parse(const char *s, size_t len, struct lan_rule *r,
		   struct lnk_err *err);
/* The normal form of r: "nas:22", "192.168.1.0/24", "[fe80::1]:22". */
void lan_rule_format(const struct lan_rule *r, char *out, size_t cap);
