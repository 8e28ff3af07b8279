/* The transparent path's two small messages: the guard (outside the
 * sandbox) connects a program's TCP socket to the wire's transparent
 * listener on the sandbox's loopback and names the destination the program
 * asked for; the wire answers with one verdict before any byte of the
 * destination's.
 *
 *   head:    "LNKT" 1 (version) family (4 or 6) port (2, big-endian)
 *            address (16, network order; IPv4 in the first 4)   24 bytes
 *   verdict: one byte, enum tproxy_verdict
 *
 * The program can open the same listener and send a head itself: the wire
 * gives such a head exactly what a SOCKS5 request for that address gets
 * (the same grants, address rules, log and tripwires), so a forged head
 * reaches nothing a proxy request could not. The decoder takes the bytes as
 * hostile.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "net/addr.h"

#define TPROXY_HEAD_SIZE 24
#define TPROXY_VERSION 1

enum tproxy_verdict {
	TPROXY_OK = 0,
	TPROXY_REFUSED = 1,	 /* the grants or address rules, or closed */
	TPROXY_CONN_REFUSED = 2, /* the destination refused */
	TPROXY_TIMEDOUT = 3,
	TPROXY_NET_UNREACH = 4,
	TPROXY_HOST_UNREACH = 5,
	TPROXY_FAILED = 6, /* anything else */
};

void tproxy_head_encode(const struct lnk_addr *a, uint16_t port,
			uint8_t out[TPROXY_HEAD_SIZE]);
/* 0 and *a, *port; -EPROTO for anything but a well-formed head. */
int tproxy_head_decode(const uint8_t *in, size_t len, struct lnk_addr *a,
		       uint16_t *port);
/* The errno a program's connect() returns for a verdict (0 for OK). A
 * refusal by the grants reads as "Connection refused". */
int tproxy_verdict_errno(uint8_t v);
