/* The control socket of a wire: PAUSE, RESUME, STOP, STOP_OFF, STATUS.
 *
 * Each wire listens on ~/.lnk/sandbox/run/<name>.sock (the folder 0700, the
 * socket 0600) and checks every accepted peer with SO_PEERCRED: only its
 * owner's uid may control it (not even root, who can kill it but has no
 * business steering another user's wire). Threats: another local user
 * pausing or reopening someone's wire; a hostile or buggy client sending
 * garbage, half a message, or nothing at all to the wire's loop.
 *
 * The protocol is fixed in form and versioned, one request per connection:
 *
 *   request, 8 bytes:   "LNKc" | version (1) | op | 0 0
 *   reply, 128 bytes:   "LNKr" | version | op | result | state | cause |
 *                       rule | 0 0 | conns u32 | since i64 (unix ms) |
 *                       up u64 | down u64 | detail (88 bytes: printable
 *                       ASCII, NUL-terminated, zero-padded)
 *
 * All integers are little-endian. Every byte is checked: a wrong magic,
 * version, op or reserved byte, a short or an over-long message is
 * malformed; the server answers CTL_R_BAD and closes that client, and
 * nothing else. A client that has not sent its 8 bytes within
 * CTL_CLIENT_TIMEOUT_MS is closed.
 *
 * How the wire uses this
 *   at start (after registry_register, see store/registry.h):
 *       struct ctl_server *cs;
 *       ctl_server_open(home, name, &cs, &err);      listening, 0700/0600
 *       a loop handler on ctl_server_fd(cs), LOOP_IN (wire/loop.h)
 *   when that fd is readable (one fd: the server keeps its own event loop
 *   over the listener and its clients):
 *       ctl_server_dispatch(cs, now_ms, on_ctl, wire);
 *   about once a second (its timer):
 *       ctl_server_tick(cs, now_ms);                 closes slow clients
 *   on_ctl(wire, op, &st) applies op and fills st with the state after:
 *       CTL_PAUSE    close the wire, cause CTL_CAUSE_HAND (see below)
 *       CTL_RESUME   open it (whatever closed it), trip_reset
 *       CTL_STOP     close it, cause CTL_CAUSE_STOP
 *       CTL_STOP_OFF open it if it was closed by stop; else unchanged
 *       CTL_STATUS   change nothing
 *   "close the wire": refuse new calls with the reason "paused" (or
 *   "stopped"), end every open connection now, record it with
 *   registry_set_closed; "open": registry_set_open. Returns CTL_R_OK, or
 *   CTL_R_FAILED if it could not.
 *   when it trips: ctl_notify_trip(name, &verdict, 2)  (the keeper)
 *   at exit: ctl_server_close(cs)                    unlinks the socket
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/err.h"
#include "proto/ctl.h"
#include "wire/trip.h"

#define CTL_CLIENT_TIMEOUT_MS 2000
#define CTL_MAX_CLIENTS 16

/* ~/.lnk/sandbox/run/<name>.sock; NULL if name is not a valid name. */
char *ctl_socket_path(const char *home, const char *name);

/* The server. */
struct ctl_server;
typedef enum ctl_result (*ctl_handler_fn)(void *ctx, enum ctl_op op,
					  struct ctl_status *st);

/* Creates the run folder (0700) and listens on <name>.sock. A socket left
 * by a dead wire is replaced; one a live wire answers on is -EADDRINUSE. */
int ctl_server_open(const char *home, const char *name, struct ctl_server **out,
		    struct lnk_err *err);
/* The same at an explicit path (tests), owner uid allowed to control. */
int ctl_server_open_at(const char *path, uid_t owner, struct ctl_server **out,
		       struct lnk_err *err);
int ctl_server_fd(const struct ctl_server *s);
/* Accepts pending clients, reads what they sent, answers complete requests
 * through h, closes malformed and finished ones. Never blocks. Returns the
 * number of requests handled. */
int ctl_server_dispatch(struct ctl_server *s, int64_t now_ms, ctl_handler_fn h,
			void *ctx);
/* Closes clients that have not sent a whole request in time. */
void ctl_server_tick(struct ctl_server *s, int64_t now_ms);
/* Number of clients connected now (tests). */
unsigned ctl_server_clients(const struct ctl_server *s);
/* Closes everything and unlinks the socket. NULL is fine. */
void ctl_server_close(struct ctl_server *s);

/* The client: one request to the socket at path, waiting at most
 * timeout_ms for the reply. -ECONNREFUSED/-ENOENT when no wire listens;
 * -ETIMEDOUT; -EBADMSG for a malformed reply. A reply with a result other
 * than CTL_R_OK is returned as 0 with rep->result set. */
int ctl_request(const char *path, enum ctl_op op, int timeout_ms,
		struct ctl_reply *rep, struct lnk_err *err);

/* Tells the person that the wire of name paused itself: always one line on
 * err_fd ("lnk: run-1234: wire paused: too many calls refused within a minute
 * ...; 'lnk sandbox resume run-1234' opens it"), and a desktop notification
 * when DBUS_SESSION_BUS_ADDRESS is set and notify-send is on PATH: started
 * with fork+exec (no shell) and a clean environment (the bus's and the
 * display's variables, a fixed PATH), detached by a double fork so the
 * caller neither waits for it nor leaves a zombie. Safe in a threaded
 * process. The wire's keeper calls it (keeper.h): the confined wire can
 * run nothing. */
void ctl_notify_trip(const char *name, const struct trip_verdict *v,
		     int err_fd);
