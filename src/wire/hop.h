/* The first hop: is an address the router's own?
 *
 * The threat: a route through a gateway says "internet", but the gateway
 * itself has more addresses than the one the routing table names (a home
 * router's public address, which any "what is my IP" answer gives the
 * program), and a port forward on such an address (hairpin NAT) leads
 * back to this machine or its network. No list of addresses tells them:
 * the router got its public address from its provider, not from us.
 *
 * What tells them is one packet. A TCP SYN to the address and port the
 * program asked for, sent with a hop limit of 1 (IP_TTL / IPV6_UNICAST_HOPS),
 * dies at the first router; what comes back says who that router is:
 *  - the destination answers (the connect completes, or a reset refuses
 *    it), or an ICMP error comes from the destination's own address (its
 *    port is forwarded: Linux's NAT sends the "time exceeded" of the
 *    forwarded probe from the address the probe was sent to, measured;
 *    docs/kernel-facts.md, first-hop-probe): the address is the first
 *    hop's, judged as this machine's network;
 *  - an ICMP error from another address (the router's "time exceeded"
 *    from its own inside address): the address is farther, the internet;
 *  - nothing within HOP_PROBE_MS, or an error without an ICMP origin:
 *    unknown. Once the first router has answered any probe of this wire,
 *    unknown refuses (fail closed) and is not kept: the answer an attacker
 *    could most easily bring about is silence (a router sends a few ICMP
 *    errors a second to one host at most, and a program can spend them,
 *    but only after the wire's own probes have heard the router at least
 *    once), so silence then never opens a door; the same holds for a
 *    router an earlier wire of the user heard (heard.h: one sandbox's
 *    program can spend the errors meant for the next one's wire). Before
 *    any answer was heard, silence is the network's way (a first router
 *    that sends no ICMP errors at all, as some clouds' do): the address is
 *    taken as the internet (HOP_QUIET, kept for that port only), so
 *    that '*' still works there; on such a
 *    network a port forward on the router's own address stays reachable,
 *    since nothing tells it apart (docs/design.md). A quiet verdict is
 *    asked again as soon as the router has been heard.
 * The keeper (keeper.c) probes before it connects to an address the wire
 * may reach as internet only, and keeps each verdict (HOP_CACHE_MAX
 * addresses, the oldest forgotten first) until the kernel announces a
 * routing change: another network has another first router. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net/addr.h"

enum hop_verdict {
	HOP_UNKNOWN, /* no answer to judge by: refused, not kept */
	HOP_FARTHER, /* beyond the first router: the internet */
	HOP_FIRST,   /* the first router's own address */
	HOP_QUIET,   /* silence while the first router was never heard:
		      * the internet, asked again once it has been */
};

/* How long a probe waits for its answer. The first router is one link
 * away: its answer takes a LAN's round trip (well under 10 ms; a slow
 * Wi-Fi link tens). */
#define HOP_PROBE_MS 300
/* Silence from a router that has answered is asked again HOP_RETRIES
 * times, HOP_RETRY_MS apart (a Linux router sends one error a second to
 * a host after a burst of at most 6), before the call is refused: at
 * most about 8 s, within the wire's 10 s for a connect. */
#define HOP_RETRIES 6
#define HOP_RETRY_MS 1000
/* Addresses whose verdict is kept. */
#define HOP_CACHE_MAX 4096

/* What a probe's outcome says about dst (pure; unit-tested). err: the
 * probe socket's error (0 when the connect completed); offender: the
 * origin of the ICMP error the socket queued, or NULL when none came. */
enum hop_verdict hop_judge(int err, const struct lnk_addr *offender,
			   const struct lnk_addr *dst);

/* Starts a probe of a (an IPv4 or a plain IPv6 address, no IPv4-mapped
 * one) at port: a non-blocking TCP socket with a hop limit of 1 and its
 * ICMP errors queued (IP_RECVERR), connecting. The socket (CLOEXEC) into
 * *fd; poll it for POLLOUT. 0, or -errno when it cannot even start (no
 * route: the call's own connect would fail the same way). */
int hop_probe_start(const struct lnk_addr *a, uint16_t port, int *fd);
/* Reads the answer of a probe socket that polled ready; closes nothing. */
enum hop_verdict hop_probe_read(int fd, const struct lnk_addr *a);

/* The verdicts kept: a ring of addresses, the oldest replaced first.
 * An answer judges the address whatever the port, but silence only the
 * port probed: a router drops what comes to its own address on the ports
 * it serves nothing on (a home router's firewall), and answers a probe of
 * the port it forwards back to this machine. A quiet verdict of one port
 * must not let another port of that address through unprobed. */
struct hop_cache {
	struct lnk_addr addr[HOP_CACHE_MAX];
	uint16_t port[HOP_CACHE_MAX]; /* the port a quiet verdict is for */
	uint8_t verdict[HOP_CACHE_MAX];
	size_t n, next;
};
/* HOP_UNKNOWN when a has no verdict kept, or only a quiet one of another
 * port than port. */
enum hop_verdict hop_cache_get(const struct hop_cache *c,
			       const struct lnk_addr *a, uint16_t port);
/* Keeps v for a (a quiet one for a:port only), replacing what was kept
 * (an unknown verdict is not kept). */
void hop_cache_put(struct hop_cache *c, const struct lnk_addr *a, uint16_t port,
		   enum hop_verdict v);
