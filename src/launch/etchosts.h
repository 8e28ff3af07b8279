/* The sandbox's /etc/hosts names the sandbox itself.
 *
 * The sandbox has a host name of its own (bwrap's --hostname, its name in
 * the registry), which no DNS server knows: git, Python's getfqdn, Java
 * and others look it up, and without a line in /etc/hosts every such
 * lookup left for the wire's resolver, was refused and filled the log
 * with `dns` rows, or, without a wire, failed. The host's /etc/hosts
 * (kept: its names are the machine's choice) gains lines for localhost
 * and the sandbox's name, on the sandbox's own loopback, so these lookups
 * are answered inside and nothing leaves. */
#pragma once

#include "common/err.h"
#include "launch/host.h"

/* Replaces h's copy of /etc/hosts (or adds one) with the host's lines and
 * then localhost and name on loopback. name is the sandbox's registered
 * name; one that is no host name is left out. 0 or -errno. */
int etchosts_name(struct host_facts *h, const char *name, struct lnk_err *err);
