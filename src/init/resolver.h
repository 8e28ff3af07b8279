/* The resolver of a sandbox without a network grant.
 *
 * Such a sandbox has no wire and no network, so a program's lookup found
 * no server on the sandbox's loopback and failed with "temporary
 * failure", and lnk said nothing: npm then retried for 71 s without a
 * word of why. This small process answers the sandbox's 127.0.0.1:53
 * (UDP and TCP, which its /etc/resolv.conf names) at once with NXDOMAIN
 * for every name, as the wire's resolver answers a name outside the
 * grants, and says each name on the sandbox's stderr with the flag that
 * allows it (`--internet-host NAME`): the first few distinct names, then
 * one line (src/net/said.h). It logs nothing: without a wire there is no
 * call to log, only a lookup that never left.
 *
 * It runs inside the sandbox, a child of pid 1 forked at the first lookup:
 * it reads the program's bytes where the program already is, with every
 * layer of the sandbox's own (no_new_privs, Landlock, seccomp; a Landlock
 * domain nested in pid 1's, as the program's is), so a query that broke
 * its parser would gain nothing the program lacks. It costs the start
 * nothing: lnk forks no process for it (a fork of lnk cost about 0.5 ms
 * of CPU per run, measured in bench/README.md), and pid 1 forks it only
 * when a lookup has come, which waits in the socket meanwhile.
 *
 * Its two sockets come from lnk-init's handoff (proto/handoff.h): made
 * unbound in the sandbox's network namespace, sent to lnk, which binds
 * them to port 53 (src/launch/part_nonet.c: port 53 needs a right nothing
 * inside holds) before its go-ahead, and kept here. The resolver holds
 * the only copies once it runs: if the program kills it, the port closes
 * and lookups fail at once again, without the line of why.
 */
#pragma once

#include <sys/types.h>

/* pid 1's watch of the two sockets, dns[0] (UDP) and dns[1] (TCP,
 * listening), either -1 when missing; abi: pid 1's Landlock ABI (0:
 * none), for the resolver's nested domain. */
struct resolver_watch {
	int dns[2];
	int abi;
};

/* Has the kernel send pid 1 a SIGIO when a lookup comes (as the lifeline
 * does, reaper.h): the resolver is forked only then, so a run that looks
 * no name up forks nothing for it. 0 or -errno (then the caller forks it
 * at once). */
int resolver_arm(struct resolver_watch *w);

/* The reaper's on_io: when a lookup waits on either socket, forks the
 * resolver on both and closes pid 1's copies; nothing otherwise, and
 * nothing once it has run. */
void resolver_on_io(void *w);

/* Forks the resolver on w's sockets now, and closes pid 1's copies. */
void resolver_start(struct resolver_watch *w);
