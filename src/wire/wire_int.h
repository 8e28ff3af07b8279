/* The wire process's state, shared by wire.c (the process, its listeners,
 * its tick) and conn.c (one client connection each). Not for other
 * folders: their door is wire.h. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "proto/initcfg.h"
#include "store/db.h"
#include "store/registry.h"
#include "wire/ctl.h"
#include "wire/dns.h"
#include "wire/dnsd.h"
#include "wire/filter.h"
#include "wire/keeper.h"
#include "wire/loop.h"
#include "wire/route.h"
#include "net/said.h"
#include "store/refusals.h"
#include "wire/trip.h"
#include "wire/plan.h"

/* Hostile clients get bounded time (as in relayd: "a bad client
 * closes that client only"): a slow head, a slow name, a slow connect. */
#define WIRE_HEAD_TIMEOUT_MS 10000
#define WIRE_DNS_TIMEOUT_MS 10000
#define WIRE_CONNECT_TIMEOUT_MS 10000
#define WIRE_LINGER_MS 2000
/* Once the wire is closed, a connection that carries nothing (its request
 * not come, or refused and read to its end) stays at most this long: the
 * spec's "ends open ones within a second", with the tick's 250 ms. */
#define WIRE_CLOSED_GRACE_MS 750
#define WIRE_TICK_MS 250
#define WIRE_SCRATCH (256 * 1024)
/* A direction that has carried this much is a bulk transfer: relay it
 * with splice through a pipe, without copying through user space. */
#define WIRE_SPLICE_AFTER (1024 * 1024)

struct wire;
struct conn;

struct listener {
	struct loop_handler h; /* first */
	struct wire *w;
	enum init_listener_kind kind;
	int family;
	uint16_t port;
};

struct wire {
	const struct wire_plan *wp;
	struct loop *loop;
	struct dns *dns;
	struct dnsd *dnsd; /* the sandbox's resolver */
	struct filter filter;
	struct route_sock route; /* asked for every address called */
	struct db_writer *writer;
	struct db_batch batch; /* calls since the last tick */
	uint64_t up, down;     /* every byte, since the wire started */
	int64_t seq;	       /* the last call's number */
	struct conn *conns;    /* every open connection */
	size_t nconns, max_conns;
	/* Descriptors of splice pipes open, and how many may be: a tunnel
	 * past a MiB takes a pipe a way (two descriptors each) on top of its
	 * two sockets; without a bound, busy tunnels took the descriptors
	 * new calls need, which then hung unanswered and unlogged. */
	size_t pipe_fds, pipe_budget;
	struct conn *graveyard; /* closed in this batch; freed after it */
	struct listener *listeners;
	size_t nlisteners;
	struct loop_handler handoff, lifeline;
	int keeper;		      /* the channel to the keeper (keeper.h) */
	struct loop_handler keeper_h; /* its answers to connects */
	/* Connects asked of the keeper and not yet answered, by cookie (the
	 * call's seq); c (or m, a model route's call) is NULL once the call
	 * ended (its socket, when it comes, is closed). Past KEEPER_ASKS_MAX,
	 * calls wait in order; a model call is refused then (model.c). */
	struct wire_ask {
		struct conn *c;
		struct mconn *m;
		int64_t cookie;
		bool used;
	} asks[KEEPER_ASKS_MAX];
	size_t nasks;
	struct conn *ask_head, *ask_tail;
	bool handed_off, stopping;
	bool dns_warned;  /* the resolver could not be set up, said once */
	bool failed;	  /* stopping because the wire cannot go on */
	pid_t supervisor; /* `lnk sandbox run`, which stop signals */
	char *scratch;
	int spare_fd; /* given up under EMFILE to accept and close */
	/* The control socket, the registry and the closed state. */
	struct ctl_server *ctl; /* NULL without a home (the harness) */
	struct loop_handler ctl_h;
	struct registry *state;
	bool registered;
	struct trip trip;
	struct wire_said said; /* the refused hosts named on lnk's stderr */
	/* how many are logged one by one: the plan's cap, shared with the
	 * tools broker, or own_cap */
	struct refusals_shared *cap, *own_cap;
	/* Lookups sent upstream: how many (traffic), and how many of the
	 * resolver's are logged one by one (the refusals' cap) */
	uint64_t lookups;
	struct refusals lookup_rows;
	/* and failed calls (allowed, nothing carried), in a count of their
	 * own: a loop of connects to a granted host's closed port wrote a
	 * row each, 180 KB a second, without end */
	struct refusals failed_rows;
	bool closed;	/* every new call is refused */
	bool close_now; /* end the open connections after this batch */
	/* the keeper is yet to hear that the wire closed (its channel was
	 * full): said again at each tick until it is */
	bool keeper_close_due;
	enum ctl_cause cause;
	enum trip_rule rule;
	int64_t closed_ms; /* unix ms */
	char detail[CTL_DETAIL_MAX];
	/* The call log cannot be written (a full disk): no call goes out
	 * that could not be logged. Set and cleared each tick from the
	 * writer's last commit. */
	bool log_down;
	/* The model routes (model.h): their calls, and the TLS context
	 * made before the wire was confined, with the OpenSSL it was made
	 * by (tls_lib.h: opened only with a route). */
	struct ssl_ctx_st *tls;
	struct tls_lib *tl;
	struct mconn *models;
	struct mconn *model_graveyard;
	size_t nmodel_conns;
	size_t model_held; /* request bytes the model calls hold */
};

/* Why a call is refused while the log cannot be written. */
#define WIRE_LOG_DOWN_REASON "the call log cannot be written"

void conn_accept(struct wire *w, struct listener *l, int fd);
/* The keeper's channel is readable: its answers to connects. */
void conn_keeper_input(struct loop_handler *h, uint32_t ev);
/* A model route's connect asked of the keeper, as a call's is: its slot
 * in w->asks, or -EAGAIN when none is free (or calls wait for one),
 * -EIO when the keeper is gone. The answer comes to model_answered. */
int conn_ask_model(struct wire *w, struct mconn *m, int64_t cookie,
		   const struct lnk_addr *a, uint16_t port, unsigned flags);
/* Timeouts; now is loop_now_ms(). */
void conn_tick(struct wire *w, int64_t now);
/* Frees the connections closed since the last call. */
void conn_reap(struct wire *w);
/* Closes every connection (the wire is ending). */
void conn_close_all(struct wire *w);
/* The wire closed within this batch (paused, stopped, tripped): the calls
 * that carry end; one being connected is refused with the reason; one
 * whose request has not come, or that was answered, stays, and is refused
 * with the reason when its request comes. Threat: a client that connected
 * a moment before the trip saw its connection cut without a word, as if
 * the wire had failed. */
void conn_end_open_calls(struct wire *w);
/* now + ms, but at most WIRE_CLOSED_GRACE_MS once the wire is closed. */
int64_t wire_deadline(const struct wire *w, int64_t ms);
/* deadline, or the closed wire's grace from now when that comes first. */
int64_t wire_grace_cap(const struct wire *w, int64_t deadline);

/* A tripwire event (trip.h) for target; when it trips, the wire closes
 * (cause tripped), records why and tells the person on lnk's stderr.
 * Nothing is counted while the wire is closed. */
void wire_trip_note(struct wire *w, enum trip_event ev, const char *target);
/* The tools broker's refusals (store/tripbox.h), on the tick. */
void wire_trip_told(struct wire *w);
/* A refused call: true when its row is to be written, false when it is
 * only counted (refusals.h: a flood cannot grow the log without bound). */
bool wire_refusal_logged(struct wire *w);
/* A name the wire is about to send upstream to be looked up (dnsd.c for
 * the sandbox's resolver, conn.c for a call to a name): noted by the
 * tripwire (trip.h, TRIP_EV_LOOKUP), then counted for `lnk sandbox
 * traffic`. NULL to send it; else why it is not sent: the wire is closed
 * (this lookup may have tripped it), or the log cannot be written (a name
 * carries what the program puts in it, and nothing goes out unlogged). */
const char *wire_lookup_send(struct wire *w, const char *name);
/* A refused call to host (port 0: a lookup), said on lnk's stderr with
 * the flag that allows it, once a host and bounded (said.h). */
void wire_say_refused(struct wire *w, const char *host, uint16_t port,
		      const char *why);
/* A lookup's own log row (verb dns): true when it is to be written, false
 * when it is only counted, with the refusals' bound (refusals.h). */
/* A connection closed before its request was read (the cap, no
 * descriptor left): a refused row under the refusals' cap. */
void wire_refused_unread(struct wire *w, const char *why);
/* Whether a failed call gets its row, or is only counted (its own cap). */
bool wire_failure_logged(struct wire *w);
bool wire_lookup_logged(struct wire *w);
/* Why a closed wire refuses a call: "paused", "stopped", or "paused: "
 * and the rule that tripped. */
const char *wire_closed_reason(const struct wire *w);
/* Tells the keeper, when it is due, that the wire closed (record.c):
 * the connects asked before are then never made. */
void wire_tell_keeper_closed(struct wire *w);
/* Refuses every new call from now on (record.c): pause, stop, a trip. */
void wire_close(struct wire *w, enum ctl_cause cause, enum trip_rule rule,
		const char *detail);
