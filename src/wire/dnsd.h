/* The sandbox's resolver: a DNS server of the wire on the sandbox's
 * 127.0.0.1:53 (UDP and TCP), which the sandbox's /etc/resolv.conf names
 * (lnk-sandbox(1), the transparent path; docs/design.md).
 *
 * It answers A and AAAA only for names a grant allows, with addresses the
 * wire resolved itself and checked as a call to that name would be
 * checked (a name that resolves to this machine, its network or metadata
 * is refused, like a rebinding attempt); every other name gets NXDOMAIN
 * and a log row (verb dns). It remembers which name each answered
 * address was for, so that a later connect to that address is decided,
 * and logged, as a call to the name (conn.c), while the wire still
 * connects only to the address it resolved. /etc/hosts entries for
 * granted names are remembered the same way when the wire starts.
 *
 * Queries are hostile bytes: one question, bounded, no compression in
 * it, nothing else read.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "net/addr.h"
#include "proto/dnsmsg.h"

struct wire;
struct dnsd;

/* For w, which must have its filter, loop and resolver. */
struct dnsd *dnsd_new(struct wire *w);
void dnsd_free(struct dnsd *d);
/* Serves a socket the keeper bound to the sandbox's 127.0.0.1:53: a UDP
 * socket, or a listening TCP one. 0 or -errno. */
int dnsd_serve(struct dnsd *d, int fd, bool stream, struct lnk_err *err);
/* The name an address was answered for, or NULL. */
const char *dnsd_name_for(const struct dnsd *d, const struct lnk_addr *a);
/* Timeouts of TCP clients; call every tick. */
void dnsd_tick(struct dnsd *d, int64_t now);

/* The messages themselves: proto/dnsmsg.h. */
