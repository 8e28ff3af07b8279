/* The resolver of a sandbox without a network grant.
 *
 * Such a sandbox has no wire and no network, so a program's lookup found
 * no server on the sandbox's loopback and failed with "temporary
 * failure", and lnk said nothing: npm then retried for 71 s without a
 * word of why. This small process answers the sandbox's 127.0.0.1:53
 * (UDP and TCP, which its /etc/resolv.conf names) at once with NXDOMAIN
 * for every name, as the wire's resolver answers a name outside the
 * grants, and says each name on lnk's stderr with the flag that allows it
 * (`--internet-host NAME`): the first few distinct names, then one line
 * (src/wire/said.h). It logs nothing: without a wire there is no call to
 * log, only a lookup that never left.
 *
 * lnk-init makes its two sockets, unbound, in the sandbox's network
 * namespace and hands them over as it hands the wire its listeners
 * (proto/handoff.h). The resolver binds them to port 53 itself: forked
 * from lnk, it is of the user who owns the sandbox's user namespace
 * (docs/kernel-facts.md, userns-owner-binds-low-ports), and it binds only
 * an unbound IPv4 socket of another network namespace, so a sender inside
 * cannot turn it into a port of this machine. Then, before it reads a
 * byte the program chose, it confines itself with the kit (no file at
 * all; its sockets, stderr, nothing else). It ends when lnk closes the
 * lifeline.
 */
#pragma once

#include <sys/types.h>

#include "common/err.h"
#include "proto/initcfg.h"

/* The listeners lnk-init is to make for it: *l (one entry, caller frees)
 * and *n, as wire_plan_listeners gives the wire's. */
void nonet_listeners(struct init_listener **l, size_t *n);

/* Forks the resolver for the sandbox name: it takes the handoff's other
 * end (handoff_fd) and the lifeline's read end, which the caller then
 * closes. 0 and *pid, or -errno. */
int nonet_start(const char *name, int handoff_fd, int lifeline_fd, pid_t *pid,
		struct lnk_err *err);
