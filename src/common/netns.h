/* Which network namespace a socket belongs to, and the one act that
 * depends on it: binding the sandbox's port 53.
 *
 * Threat: a socket handed in from the sandbox (by lnk-init, or taken from
 * a hijacked wire) that is really one of this machine's. Port 53 needs a
 * right only the owner of the sandbox's user namespace holds outside
 * (docs/kernel-facts.md, userns-owner-binds-low-ports); bound on a socket
 * of this machine's namespace it would be this machine's port. So only an
 * unbound IPv4 socket of another namespace than the caller's is bound.
 * Linux only (SO_NETNS_COOKIE, Linux 5.14). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* fd's network namespace cookie, 0 when it cannot be told. */
uint64_t netns_cookie(int fd);
/* The calling process's own, 0 when it cannot be told. */
uint64_t netns_own(void);
/* Binds fd to 127.0.0.1:53 (a TCP one listens) when it is an unbound
 * IPv4 socket of another network namespace than own (which must be
 * known). Whether it was bound. */
bool netns_bind_dns(int fd, uint64_t own);
/* The same for a --port listener below the unprivileged ports: fd, an
 * unbound IPv4 TCP socket of another network namespace than own, bound
 * to that namespace's 127.0.0.1:port and listening. Nothing inside the
 * sandbox may bind such a port (bwrap drops every capability); the
 * owner of its user namespace may (docs/kernel-facts.md,
 * userns-owner-binds-low-ports). Whether it was bound. */
bool netns_bind_port(int fd, uint64_t own, uint16_t port);
