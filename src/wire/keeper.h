/* The keeper: the wire's parent, outside the wire's confinement.
 *
 * The wire (confine_linux.c) may not reach this machine, run programs or open
 * files; three things it needs do that, so the keeper does them for it,
 * and it never parses the program's bytes:
 *  - it waits for the wire, and says on lnk's terminal when the wire ends
 *    before its sandbox (the sandbox then has no network);
 *  - it makes the wire's connect() and sendto()-with-an-address calls,
 *    which the wire's seccomp filter hands it, after checking the address
 *    (a fixed-size sockaddr): nothing on this machine (loopback, the
 *    unspecified address, this machine's own addresses) but the granted
 *    --port on loopback and the DNS servers, and never a cloud metadata
 *    address;
 *  - it binds the sandbox's DNS sockets to port 53 inside (and nothing
 *    else: only sockets of another network namespace than its own, whose
 *    every address is the sandbox's), and lets the wire send on such
 *    sockets to any address, all of which are the sandbox's loopback;
 *  - it makes the wire's outgoing TCP connections, asked on the channel
 *    without the wire waiting (keeper_ask_connect): it checks the address
 *    as above, for an address the wire may reach as internet only first
 *    asks whether it is the first router's own (hop.h), makes the socket,
 *    connects it without blocking and hands it back (SCM_RIGHTS), so the
 *    wire relays other connections meanwhile and many connects share one
 *    wake-up of each side;
 *  - it shows a desktop notification when the wire trips, from a
 *    fixed-size message whose only text is the escaped, length-bounded
 *    target, running notify-send with a clean environment.
 *
 * The channel between them is a SOCK_SEQPACKET pair of fixed-size
 * messages, whose form is proto/keeper.h's (the keeper decodes each with
 * keeper_msg_decode before it acts). During setup the wire sends its DNS servers and then the
 * number of its seccomp listener descriptor, which the keeper takes with
 * pidfd_getfd; after that, the keeper takes nothing but trip messages,
 * DNS sockets to bind (during the handoff, before any connection) and
 * connects to make.
 */
#pragma once

#include <limits.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "common/err.h"
#include "net/addr.h"
#include "proto/keeper.h"
#include "wire/trip.h"

_Static_assert(TRIP_TARGET_MAX <= KEEPER_TARGET_MAX,
	       "a trip's target fits the keeper's message");

/* ---- the wire's side ---- */

/* A DNS server the wire's resolver uses (setup only). 0 or -errno. */
int keeper_send_dns(int chan, const struct lnk_addr *a, uint16_t port);
/* Hands over the seccomp listener (setup's last message) and waits for
 * the keeper to hold it; the caller then closes its own. 0 or -errno. */
int keeper_send_listener(int chan, int notify_fd, struct lnk_err *err);
/* Asks the keeper to bind the sandbox's DNS socket fd (an unbound IPv4
 * UDP or TCP socket of the sandbox's network namespace) to 127.0.0.1:53
 * there, and a TCP one to listen: the port needs a right the confined
 * wire does not hold and the keeper holds in the sandbox's namespaces
 * only (it owns them). Waits for the answer. 0 or -errno. */
int keeper_bind_dns(int chan, int fd, struct lnk_err *err);
/* The same for a --port listener below the unprivileged ports: fd bound
 * to the sandbox's 127.0.0.1:port by the keeper, and listening. */
int keeper_bind_port(int chan, int fd, uint16_t port, struct lnk_err *err);
/* The wire tripped: never blocks (a message that does not fit is lost,
 * the line on the terminal with it). */
void keeper_send_trip(int chan, const struct trip_verdict *v);
/* The wire closed: every connect it asked before is dropped, not made
 * (answered KEEPER_FAILED, ECANCELED), one waiting for a probe too.
 * Never blocks: 0, -EAGAIN (the channel is full: send it again), or
 * another -errno. */
int keeper_send_closed(int chan);

/* The most connects the wire has asked for and not had answered: the
 * answers (one message each, with a descriptor) then always fit the
 * channel, so the keeper never waits to send one. */
#define KEEPER_ASKS_MAX 64

/* Asks the keeper to connect a TCP socket to a:port (never blocks);
 * flags KEEPER_ASK_* (proto/keeper.h). The answer comes later with the
 * same cookie (keeper_take_answer). 0, or -EAGAIN when the channel is
 * full, -EIO when the keeper is gone. */
int keeper_ask_connect(int chan, uint64_t cookie, const struct lnk_addr *a,
		       uint16_t port, unsigned flags);

struct keeper_answer {
	uint64_t cookie;
	enum keeper_answer_kind kind;
	int error; /* errno, with KEEPER_FAILED */
	int fd;	   /* with KEEPER_CONNECTING, else -1 */
};
/* Takes one answer from the channel (never blocks): 1 with *ans filled,
 * 0 when none waits, -EIO when the keeper is gone. A descriptor that came
 * with anything but a well-formed KEEPER_CONNECTING answer is closed. */
int keeper_take_answer(int chan, struct keeper_answer *ans);

/* ---- the keeper's side ---- */

struct keeper_rules {
	const uint16_t *ports; /* granted loopback ports */
	size_t nports;
	struct lnk_addr dns[KEEPER_MAX_DNS];
	uint16_t dns_port[KEEPER_MAX_DNS];
	size_t ndns;
	/* Is a one of this machine's addresses? keeper_is_local (its ctx
	 * the keeper's route socket), or a fake in tests. */
	bool (*is_local)(void *ctx, const struct lnk_addr *a);
	void *local_ctx;
	/* The sandbox has a [lan] grant. Without one the keeper holds a wire
	 * taken over to what an honest one asks: its own connects go to the
	 * DNS servers only, and a connect it asks for reaches the internet
	 * only, its first hop probed whatever flag the wire sent. With one,
	 * which addresses the grant reaches is known by name only, in the
	 * wire: such a wire reaches this machine's network (man page, GAPS
	 * AND LIMITS). */
	bool lan_granted;
};

/* Asks the kernel's routing table at the time of the call, through rs (a
 * struct route_sock opened once by the keeper; NULL opens one for this
 * call): an address with a local route (any interface's, and local routes
 * such as AnyIP) is this machine's; no answer counts as this machine's. */
bool keeper_is_local(void *rs, const struct lnk_addr *a);

/* May a socket of this domain (AF_INET, AF_INET6, AF_NETLINK) connect or
 * send to sa? 0, or -errno (EACCES: this machine, metadata, another
 * netlink peer) with *why set to a constant phrase. */
int keeper_dest_check(const struct keeper_rules *kr, int domain,
		      const struct sockaddr *sa, socklen_t len,
		      const char **why);

/* Serves the wire (pid wire, channel chan) until it ends; returns its
 * wait status, or -errno when the keeper could not watch it (then the
 * wire has been killed). name is the sandbox's (for messages); sock (or
 * NULL) the wire's control socket, which the keeper removes at the end
 * (the confined wire cannot) if it is still the one the wire made.
 * heard: the routers heard (heard.h), open, which the keeper closes. own:
 * this user's file; KEEPER_HEARD_NONE when none is kept (a harness:
 * silence before this wire heard its router is the router's way); another
 * -errno when it could not be opened (then silence is always refused).
 * dir and mine: the machine's folder and this user's file in it, or -1
 * (then this user's file alone decides). */
#define KEEPER_HEARD_NONE INT_MIN
struct keeper_heard {
	int own, dir, mine;
};
int keeper_run(const char *name, const char *sock, const uint16_t *ports,
	       size_t nports, bool lan_granted, int chan, pid_t wire,
	       const struct keeper_heard *heard);
