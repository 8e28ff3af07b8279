/* The wire: the per-sandbox proxy outside the sandbox (docs/design.md,
 * invariants 3, 7 and 9; lnk-sandbox(1), GRANTS and COMMANDS, log and
 * traffic).
 *
 * Planned before anything forks (wire_plan is pure but for reading
 * LNK_DNS_SERVER), then started as its own process (wire_start). It gets
 * the sandbox's listening sockets from lnk-init over handoff_fd, accepts on
 * them, filters every call by the grants, relays, and logs each call to
 * ~/.lnk/sandbox/lnk.db. It exits when lifeline_fd reaches end of file; if
 * it dies, the listeners die with it and the sandbox has no network (fail
 * closed).
 */
#pragma once

#include <sys/types.h>

#include "common/err.h"
#include "wire/plan.h"

/* Forks the wire process (and its keeper, which is *pid: it waits for
 * the wire and, if the wire ends before its sandbox, says on stderr that
 * the sandbox has no network; it also makes the confined wire's connects
 * and shows its desktop notifications, keeper.h). handoff_fd: the wire's end of a unix socket
 * (SOCK_SEQPACKET preferred) whose other end is lnk-init's wire_fd.
 * lifeline_fd: the read end of a pipe whose write end only the supervisor
 * holds (never the sandbox); the wire ends at its end of file. The child
 * keeps only these two and stderr. Call it before starting threads. */
int wire_start(const struct wire_plan *wp, int handoff_fd, int lifeline_fd,
	       pid_t *pid, struct lnk_err *err);
