/* Name resolution that never blocks the wire's loop (c-ares on that
 * loop). The answer's addresses are what the wire checks and then
 * connects to, each exactly once: no second lookup can rebind a name. */
#pragma once

#include <stddef.h>

#include "common/err.h"
#include "net/addr.h"
#include "wire/loop.h"

#define DNS_MAX_ADDRS 16

struct dns;
struct dns_query;

/* status: 0 with n >= 1 addresses, or -ENOENT (no such name), -ETIMEDOUT,
 * -EIO (the resolver failed). */
typedef void (*dns_cb)(void *ud, int status, const struct lnk_addr *addrs,
		       size_t n);

/* server: "IP:PORT" of the DNS server to ask (LNK_DNS_SERVER), or NULL for
 * the system's resolver configuration. */
int dns_new(struct dns **out, struct loop *l, const char *server,
	    struct lnk_err *err);
void dns_free(struct dns *d);
/* Starts a lookup; cb runs later from the loop, never from inside this
 * call. Returns a handle for dns_cancel. */
struct dns_query *dns_resolve(struct dns *d, const char *name, dns_cb cb,
			      void *ud);
/* cb will not run (the client went away). */
void dns_cancel(struct dns_query *q);
/* Drives timeouts; call every tick. */
void dns_tick(struct dns *d);
/* Calls fn for each server the resolver asks (address and port; UDP and
 * TCP ports both, when they differ): what the wire may reach on this
 * machine for DNS (keeper.h). */
void dns_servers(struct dns *d,
		 void (*fn)(void *ud, const struct lnk_addr *a, uint16_t port),
		 void *ud);
