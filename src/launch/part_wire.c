/* The keeper and the wire of one run (run.h, parts.c): planned before
 * anything forks (its grants checked, its listeners named for lnk-init),
 * its ends made before bwrap (lnk-init inherits one), forked as bwrap
 * starts and before any thread, told to end by its lifeline and waited
 * for, so that the call log is whole when run returns. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launch/run.h"
#include "store/shut.h"
#include "store/tripbox.h"

int wire_part_plan(struct run *r)
{
	int rc = wire_plan(r->pol, r->name, r->req->home, &r->wp, r->err);
	if (rc < 0)
		return rc;
	r->wp_init = true;
	/* Its closed state, which the tools broker reads too: made before
	 * either forks. */
	if (!(r->shut = r->wp.shut = shut_new()) ||
	    !(r->trips = r->wp.trips = tripbox_new()))
		return err_set(r->err, -ENOMEM,
			       "cannot share the wire's state: %s",
			       strerror(errno));
	r->wp.trip_calls = r->lim.trip_calls;
	r->wp.trip_targets = r->lim.trip_targets;
	/* raw while lnk relays the pty (spawn.c) */
	r->wp.stderr_raw = r->req->pty && isatty(STDERR_FILENO);
	wire_plan_env(&r->wp, &r->extra_env);
	wire_plan_listeners(&r->wp, &r->listeners, &r->nlisteners);
	/* The sandbox's resolver is the wire's (src/wire/dnsd.h). */
	return host_add_etc_text(&r->host, "/etc/resolv.conf",
				 "# the sandbox's wire answers "
				 "for the names it may reach\n"
				 "nameserver 127.0.0.1\n",
				 r->err);
}

/* The ends the wire or the resolver shares with the run: the handoff
 * pair whose other end lnk-init inherits, and the lifeline whose write
 * end only lnk holds. */
static int make_ends(struct run *r, const char *what)
{
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
		       r->wire_pair) < 0 ||
	    pipe2(r->lifeline, O_CLOEXEC) < 0)
		return err_set(r->err, -errno, "cannot %s: %s", what,
			       strerror(errno));
	return 0;
}

/* After the fork: the child's ends are its own now. rc passes through. */
static int give_ends(struct run *r, int rc)
{
	if (rc < 0)
		return rc;
	close(r->wire_pair[0]);
	r->wire_pair[0] = -1;
	close(r->lifeline[0]);
	r->lifeline[0] = -1;
	return 0;
}

/* Before bwrap: the handoff's other end is one of bwrap's slots. */
int wire_part_ends(struct run *r)
{
	return make_ends(r, "connect the wire");
}

/* Once bwrap's child has exec'd: the fork (about 0.2 ms, and the wait
 * for the registration before it) no longer delays bwrap. The child
 * closes every descriptor but its ends at once (wire_start), so it holds
 * none of the supervisor's (the sandbox's lifeline among them). What
 * lnk-init hands over waits in the pair until the wire reads it. */
int wire_part_start(struct run *r)
{
	r->wp.cap = run_shared_cap(r);
	return give_ends(r, wire_start(&r->wp, r->wire_pair[0], r->lifeline[0],
				       &r->wire_pid, r->err));
}

/* The wire is told to end first: its last write to the log takes
 * longest. */
void wire_part_stop(struct run *r, bool gone)
{
	(void)gone;
	if (r->wire_pid <= 0)
		return;
	for (int i = 0; i < 2; i++)
		if (r->lifeline[i] >= 0) {
			close(r->lifeline[i]);
			r->lifeline[i] = -1;
		}
}

/* Run returns only once the wire has ended, so the call log is whole. */
void wire_part_end(struct run *r, bool gone)
{
	if (!gone || r->wire_pid <= 0)
		return;
	int st;
	while (waitpid(r->wire_pid, &st, 0) < 0 && errno == EINTR)
		;
	r->wire_pid = -1;
}
