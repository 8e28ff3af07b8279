/* The resolver of a sandbox without network, lnk's side (run.h, parts.c;
 * the resolver itself: src/init/resolver.h). lnk forks nothing for it:
 * it names the resolver in the sandbox's resolv.conf, asks lnk-init for
 * its two sockets, and binds them to the sandbox's 127.0.0.1:53 while
 * bwrap makes the sandbox, before the go-ahead; lnk-init serves them
 * from a child of its own.
 *
 * Threat: the handoff comes from inside the sandbox. It is lnk-init's,
 * sent before the program exists, and read with bounds
 * (proto/handoff.c); each socket is bound only when it is an unbound IPv4
 * socket of another network namespace than lnk's, so a socket of this
 * machine's (had anything inside a way to send one) never becomes its
 * port 53. */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/netns.h"
#include "common/util.h"
#include "launch/run.h"
#include "proto/handoff.h"

/* How long lnk waits for lnk-init's sockets: bwrap makes the sandbox in
 * milliseconds; a bwrap that hangs must not hold lnk (its ^C) for long.
 * Past it, lookups fail at once, only without the line of why. */
#define HANDOFF_WAIT_MS 5000

int nonet_part_plan(struct run *r)
{
	r->nlisteners = 1;
	r->listeners = xcalloc(1, sizeof(*r->listeners));
	r->listeners[0] =
	    (struct init_listener){.kind = INIT_L_DNS, .port = 53};
	return host_add_etc_text(&r->host, "/etc/resolv.conf",
				 "# no network grant: lnk answers every "
				 "name 'no such name' and says which\n"
				 "nameserver 127.0.0.1\n",
				 r->err);
}

/* The pair whose other end lnk-init inherits (LAUNCH_FD_WIRE). */
int nonet_part_start(struct run *r)
{
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
		       r->wire_pair) < 0)
		return err_set(r->err, -errno,
			       "cannot ask for the sandbox's resolver: %s",
			       strerror(errno));
	return 0;
}

/* Before the go-ahead, so the sockets are bound before the program runs;
 * after the other parts' holds (the guard's threads start while bwrap
 * makes the sandbox, not after this wait for lnk-init). A failure costs
 * only the line of why: the run goes on. */
int nonet_part_hold(struct run *r)
{
	/* bwrap holds lnk-init's end: if it ends before the handoff, the
	 * pair hangs up */
	if (r->wire_pair[1] >= 0) {
		close(r->wire_pair[1]);
		r->wire_pair[1] = -1;
	}
	struct handoff_listener *v = NULL;
	size_t nv = 0;
	struct lnk_err e = {0};
	int64_t end = mono_ms() + HANDOFF_WAIT_MS;
	int got = 1;
	while (got > 0) {
		struct pollfd p = {.fd = r->wire_pair[0], .events = POLLIN};
		int64_t left = end - mono_ms();
		int n = left > 0 ? poll(&p, 1, (int)left) : 0;
		if (n < 0 && errno == EINTR)
			continue;
		/* too late: the pair stays open (lnk-init's send must not
		 * fail), and nothing listens on port 53 */
		if (n <= 0)
			break;
		got = handoff_recv_one(r->wire_pair[0], &v, &nv, &e);
	}
	uint64_t own = netns_own();
	for (size_t i = 0; i < nv; i++) {
		if (got == 0 && v[i].tag.kind == INIT_L_DNS)
			(void)netns_bind_dns(v[i].fd, own);
		close(v[i].fd);
	}
	free(v);
	if (got <= 0) {
		close(r->wire_pair[0]);
		r->wire_pair[0] = -1;
	}
	return 0;
}

/* lnk's end of the pair, if the handoff never came. */
void nonet_part_end(struct run *r, bool gone)
{
	(void)gone;
	if (r->wire_pair[0] >= 0) {
		close(r->wire_pair[0]);
		r->wire_pair[0] = -1;
	}
}
