/* One client connection of the wire: read the request (HTTP head, SOCKS5
 * greeting and request, or nothing for a --port listener), decide by the
 * grants, resolve, connect to exactly the checked address, then relay both
 * ways until both are done, honouring half-close. Every call is logged
 * (outcome, reason, bytes) and never its path, headers or body.
 *
 * Over 1000 lines: one connection's life (read, decide, resolve, connect,
 * relay, log) as one state machine; the steps call each other through its
 * states.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/compat.h"
#include "common/buf.h"
#include "net/said.h"
#include "proto/tproxy.h"
#include "wire/http.h"
#include "wire/keeper.h"
#include "wire/model.h"
#include "wire/socks5.h"
#include "wire/wire_int.h"

enum cstate {
	CS_HTTP_HEAD,
	CS_SOCKS_GREET,
	CS_SOCKS_REQ,
	CS_TPROXY_HEAD, /* the guard's head (proto/tproxy.h) */
	CS_RESOLVE,
	CS_ASK, /* the keeper makes the connect (keeper.h) */
	CS_CONNECT,
	CS_RELAY,
	CS_LINGER, /* refused: answer sent, reading until the client closes */
};

struct dir {
	char *buf; /* bytes read but not yet written to the other side */
	size_t off, len;
	int pipe[2];   /* splice pipe, once this direction carries bulk */
	size_t inpipe; /* bytes in the pipe */
	uint64_t total;
	bool eof;  /* the source ended */
	bool shut; /* and the end went on to the destination */
	/* A plain-HTTP request's end: only left more bytes go on; what the
	 * client sends after them is read and dropped (http.h). */
	bool capped;
	uint64_t left;
};

struct conn {
	struct loop_handler ch, uh; /* client, upstream */
	struct wire *w;
	enum init_listener_kind kind;
	enum cstate st;
	int64_t deadline; /* 0: none (relaying) */
	char *in;	  /* request bytes so far */
	size_t in_len;
	bool http_connect; /* CONNECT, else absolute-form */
	char host[HOST_MAX + 1];
	uint16_t port;
	char target[HOST_MAX + 16];
	const char *verb;
	unsigned grants;
	struct lnk_addr addrs[DNS_MAX_ADDRS];
	size_t naddrs, ai;
	int last_err;
	struct dns_query *q;
	int64_t seq;
	bool logged;   /* an "allowed" row exists, to end later */
	size_t log_at; /* where it sits in the wire's batch (db.h) */
	struct dir c2u, u2c;
	struct conn *prev, *next;
	/* asked of the keeper: its slot in w->asks (-1: none), or waiting in
	 * w's queue for a free one */
	int ask_slot;
	bool ask_queued;
	struct conn *q_prev, *q_next;
	struct lnk_addr ask_addr;
	unsigned ask_flags;
};

#define WIRE_KEEPER_BUSY_WHY "too many new addresses at once; try again"
#define WIRE_LEFT_WHY "the program closed the call before its connect ended"
#define WIRE_LEFT_LOOKUP_WHY \
	"the program closed the call while its name was looked up"

#define CONN_OF(h, member) \
	((struct conn *)((char *)(h)-offsetof(struct conn, member)))

static void on_client(struct loop_handler *h, uint32_t ev);
static void on_upstream(struct loop_handler *h, uint32_t ev);
static void try_connect(struct conn *c);
static void relay(struct conn *c, bool read_client, bool read_up);

static void refuse_log_down(struct conn *c);
static void refuse_closed(struct conn *c);
static void end_under_way(struct conn *c, const char *what);

/* One deadline for every address of the call together. Nothing goes out
 * while the log cannot be written: every call is logged, or it does not
 * happen. */
static void start_connect(struct conn *c)
{
	if (c->w->log_down) {
		refuse_log_down(c);
		return;
	}
	c->ai = 0;
	c->deadline = loop_now_ms() + WIRE_CONNECT_TIMEOUT_MS;
	try_connect(c);
}

static bool pending(const struct dir *d)
{
	return d->len || d->inpipe;
}

static void dir_free(struct wire *w, struct dir *d)
{
	free(d->buf);
	d->buf = NULL;
	d->len = d->off = 0;
	if (d->pipe[0] >= 0) {
		close(d->pipe[0]);
		close(d->pipe[1]);
		w->pipe_fds -= 2;
	}
	d->pipe[0] = d->pipe[1] = -1;
}

static void conn_log(struct conn *c, enum db_outcome o, const char *reason)
{
	struct wire *w = c->w;
	if (o == DB_ENDED)
		db_batch_update_at(&w->batch, c->log_at, c->seq, o, reason,
				   c->c2u.total, c->u2c.total);
	else if ((o != DB_REFUSED || wire_refusal_logged(w)) &&
		 (o != DB_FAILED || wire_failure_logged(w)))
		/* allowed, refused or failed: nothing carried yet; refused
		 * and failed calls under their caps, the rest counted */
		c->log_at = db_batch_call(
		    &w->batch, c->seq, time(NULL), c->verb,
		    c->target[0] ? c->target : "-", o, reason, 0, 0);
	if (o == DB_ALLOWED)
		c->logged = true;
}

static void queue_unlink(struct conn *c)
{
	struct wire *w = c->w;
	if (!c->ask_queued)
		return;
	if (c->q_prev)
		c->q_prev->q_next = c->q_next;
	else
		w->ask_head = c->q_next;
	if (c->q_next)
		c->q_next->q_prev = c->q_prev;
	else
		w->ask_tail = c->q_prev;
	c->q_prev = c->q_next = NULL;
	c->ask_queued = false;
}

/* The call no longer waits for the keeper: an answer that comes later
 * finds no call (its socket is closed). */
static void ask_detach(struct conn *c)
{
	if (c->ask_slot >= 0)
		c->w->asks[c->ask_slot].c = NULL;
	c->ask_slot = -1;
	queue_unlink(c);
}

static void conn_close(struct conn *c)
{
	struct wire *w = c->w;
	ask_detach(c);
	if (c->logged)
		conn_log(c, DB_ENDED, "");
	else if (c->st == CS_ASK || c->st == CS_CONNECT)
		/* A connect asked of the keeper, or under way, reaches the
		 * host (its handshake: which host, which port and when carry
		 * data) though nothing was carried: a call of the log also
		 * when the program leaves before it ends. */
		conn_log(c, DB_FAILED, WIRE_LEFT_WHY);
	else if (c->st == CS_RESOLVE)
		/* the name has left for the resolver (data in names) */
		conn_log(c, DB_FAILED, WIRE_LEFT_LOOKUP_WHY);
	c->logged = false;
	dns_cancel(c->q);
	c->q = NULL;
	/* The client's socket is the wire's alone (accepted here, never
	 * passed on): closing it takes it out of the loop, without a call of
	 * its own. The upstream socket came from the keeper, whose copy may
	 * still be open for a moment: taken out first, or its events would
	 * still come for a freed connection. */
	loop_forget(&c->ch);
	loop_del(w->loop, &c->uh);
	if (c->ch.fd >= 0)
		close(c->ch.fd);
	if (c->uh.fd >= 0)
		close(c->uh.fd);
	c->ch.fd = c->uh.fd = -1;
	dir_free(c->w, &c->c2u);
	dir_free(c->w, &c->u2c);
	free(c->in);
	c->in = NULL;
	if (c->prev)
		c->prev->next = c->next;
	else
		w->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	w->nconns--;
	/* freed after this loop batch: another event for it may wait */
	c->next = w->graveyard;
	c->prev = NULL;
	w->graveyard = c;
}

void conn_reap(struct wire *w)
{
	model_reap(w);
	while (w->graveyard) {
		struct conn *c = w->graveyard;
		w->graveyard = c->next;
		free(c);
	}
}

static void set_interest(struct conn *c)
{
	struct loop *l = c->w->loop;
	uint32_t ce = 0, ue = 0;
	switch (c->st) {
	case CS_HTTP_HEAD:
	case CS_SOCKS_GREET:
	case CS_SOCKS_REQ:
	case CS_TPROXY_HEAD:
	case CS_LINGER:
		ce = LOOP_IN;
		break;
	case CS_RESOLVE:
	case CS_ASK:
		break;
	case CS_CONNECT:
		ue = LOOP_OUT;
		break;
	case CS_RELAY:
		if (!c->c2u.eof && !pending(&c->c2u))
			ce |= LOOP_IN;
		if (pending(&c->u2c))
			ce |= LOOP_OUT;
		if (!c->u2c.eof && !pending(&c->u2c))
			ue |= LOOP_IN;
		if (pending(&c->c2u))
			ue |= LOOP_OUT;
		break;
	}
	if (c->ch.fd >= 0 && loop_set(l, &c->ch, ce) < 0)
		conn_close(c);
	else if (c->uh.fd >= 0 && loop_set(l, &c->uh, ue) < 0)
		conn_close(c);
}

/* The transparent path's verdict for a SOCKS5 reply code: the same
 * refusals, one byte (proto/tproxy.h). */
static uint8_t tproxy_verdict_of(enum socks5_rep rep)
{
	switch (rep) {
	case SOCKS5_NOT_ALLOWED:
		return TPROXY_REFUSED;
	case SOCKS5_CONN_REFUSED:
		return TPROXY_CONN_REFUSED;
	case SOCKS5_TTL_EXPIRED:
		return TPROXY_TIMEDOUT;
	case SOCKS5_NET_UNREACH:
		return TPROXY_NET_UNREACH;
	case SOCKS5_HOST_UNREACH:
		return TPROXY_HOST_UNREACH;
	case SOCKS5_OK:
	case SOCKS5_FAILURE:
	case SOCKS5_CMD_UNSUPPORTED:
	case SOCKS5_ATYP_UNSUPPORTED:
		break;
	}
	return TPROXY_FAILED;
}

/* A refusal or failure the program can read: 403/502/504 with the reason
 * for HTTP, the matching reply code for SOCKS5. Then wait (briefly) for the
 * client to close, so unread request bytes do not turn our answer into a
 * reset it never sees. */
static void answer_and_linger(struct conn *c, int status, enum socks5_rep rep,
			      const char *why)
{
	switch (c->kind) {
	case INIT_L_HTTP: {
		struct buf b = {0};
		http_error_response(&b, status, c->target[0] ? c->target : NULL,
				    why);
		if (send(c->ch.fd, b.p, b.len, MSG_NOSIGNAL | MSG_DONTWAIT) <
		    0) {
			/* the client is gone or stuck: nothing to tell */
		}
		buf_free(&b);
		break;
	}
	case INIT_L_SOCKS: {
		uint8_t r[22];
		size_t n = socks5_reply(rep, NULL, 0, r);
		if (send(c->ch.fd, r, n, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
		}
		break;
	}
	case INIT_L_TCP: {
		uint8_t v = tproxy_verdict_of(rep);
		if (send(c->ch.fd, &v, 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
		}
		break;
	}
	case INIT_L_PORT:
	case INIT_L_DNS: /* dnsd.c's, never a conn */
		break;
	}
	dns_cancel(c->q); /* a late answer must not act twice */
	c->q = NULL;
	ask_detach(c);
	if (c->uh.fd >= 0) {
		loop_del(c->w->loop, &c->uh);
		close(c->uh.fd);
		c->uh.fd = -1;
	}
	free(c->in);
	c->in = NULL;
	shutdown(c->ch.fd, SHUT_WR);
	c->st = CS_LINGER;
	c->deadline = wire_deadline(c->w, WIRE_LINGER_MS);
	set_interest(c);
}

static void refuse(struct conn *c, enum socks5_rep rep, const char *why)
{
	conn_log(c, DB_REFUSED, why);
	wire_say_refused(c->w, c->host, c->port, why);
	answer_and_linger(c, 403, rep, why);
	/* after the answer: a trip only marks the wire closed, and the
	 * connections end after this batch */
	wire_trip_note(c->w, TRIP_EV_REFUSED, c->target);
}

/* The wire is closed (paused, stopped, tripped): every call is refused,
 * saying why. Not a tripwire event: these refusals are the wire's own
 * doing, not the program's. */
static void refuse_closed(struct conn *c)
{
	const char *why = wire_closed_reason(c->w);
	conn_log(c, DB_REFUSED, why);
	wire_say_refused(c->w, c->host, c->port, why);
	answer_and_linger(c, 403, SOCKS5_NOT_ALLOWED, why);
}

/* Not the program's doing, and not the grants': 503 (SOCKS: general
 * failure) with the reason. The refusal itself waits in memory with the
 * other entries until the log can be written (bounded, db.h). */
static void refuse_log_down(struct conn *c)
{
	conn_log(c, DB_REFUSED, WIRE_LOG_DOWN_REASON);
	answer_and_linger(
	    c, 503, SOCKS5_FAILURE,
	    WIRE_LOG_DOWN_REASON
	    " (is the disk full?): no call goes out until it can");
}

static void fail(struct conn *c, int status, enum socks5_rep rep,
		 const char *why)
{
	conn_log(c, DB_FAILED, why);
	answer_and_linger(c, status, rep, why);
}

/* Malformed requests: no target to log it under beyond "-", and never the
 * bytes themselves. */
static void bad_request(struct conn *c, int status, enum socks5_rep rep,
			const char *why)
{
	conn_log(c, DB_REFUSED, why);
	answer_and_linger(c, status, rep, why);
}

static void set_target(struct conn *c, const char *host, uint16_t port)
{
	bool v6 = strchr(host, ':') != NULL;
	snprintf(c->target, sizeof(c->target), "%s%s%s:%u", v6 ? "[" : "", host,
		 v6 ? "]" : "", port);
}

/* The log holds only what the filter accepted as a host, so a hostile
 * "host" cannot write arbitrary text (or a path) into it. */
static void set_raw_target(struct conn *c, const char *raw, uint16_t port)
{
	char safe[64];
	size_t i;
	for (i = 0; raw[i] && i < sizeof(safe) - 1; i++) {
		char ch = raw[i];
		safe[i] =
		    ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		     (ch >= '0' && ch <= '9') || ch == '.' || ch == '-' ||
		     ch == ':')
			? ch
			: '?';
	}
	safe[i] = '\0';
	set_target(c, safe, port);
}

/* The grants' answer for a, with the kernel's route for it now. */
static const char *check_addr(struct conn *c, const struct lnk_addr *a)
{
	enum route_where where = route_where_for(&c->w->route, a);
	return filter_check_addr(&c->w->filter, c->grants, c->host, a, c->port,
				 where);
}

static void dns_done(void *ud, int status, const struct lnk_addr *addrs,
		     size_t n)
{
	struct conn *c = ud;
	c->q = NULL;
	if (status == -ENOENT) {
		fail(c, 502, SOCKS5_HOST_UNREACH, "name not found");
		return;
	}
	if (status < 0) {
		fail(c, 502, SOCKS5_HOST_UNREACH,
		     status == -ETIMEDOUT ? "name lookup timed out"
					  : "name lookup failed");
		return;
	}
	/* A name that resolves to a cloud metadata address is a reach for
	 * cloud credentials, whatever the grants say: a tripwire. */
	for (size_t i = 0; i < n; i++)
		if (addr_classify(&addrs[i]) == AC_METADATA)
			wire_trip_note(c->w, TRIP_EV_METADATA, c->target);
	/* Every address must pass: a name that answers with one internet
	 * and one private address is a rebinding attempt, not a choice. */
	for (size_t i = 0; i < n; i++) {
		const char *why = check_addr(c, &addrs[i]);
		if (why) {
			refuse(c, SOCKS5_NOT_ALLOWED, why);
			return;
		}
	}
	if (c->w->closed) {
		/* it closed while the name was looked up */
		refuse_closed(c);
		return;
	}
	memcpy(c->addrs, addrs, n * sizeof(*addrs));
	c->naddrs = n;
	start_connect(c);
}

/* The grants decide, for a host as the program sent it. bin is the SOCKS
 * request's binary address, if it sent one. */
static void route(struct conn *c, const char *raw, uint16_t port,
		  const struct lnk_addr *bin)
{
	struct wire *w = c->w;
	struct lnk_addr lit;
	enum literal_kind k;
	const char *why;
	c->port = port;
	if (bin) {
		lit = *bin;
		k = LIT_ADDR;
		addr_format(&lit, c->host, sizeof(c->host));
	} else {
		if (host_normalize(raw, c->host, &why) < 0) {
			set_raw_target(c, raw, port);
			if (w->closed)
				refuse_closed(c);
			else
				refuse(c, SOCKS5_HOST_UNREACH, why);
			return;
		}
		k = addr_parse_literal(c->host, &lit);
	}
	set_target(c, c->host, port);
	if (w->closed) {
		refuse_closed(c);
		return;
	}
	/* The call that trips goes on to be refused for its own reason (the
	 * filter never lets a metadata address through); the next ones find
	 * the wire closed. */
	if (trip_target_is_metadata(c->host) ||
	    (k == LIT_ADDR && addr_classify(&lit) == AC_METADATA))
		wire_trip_note(w, TRIP_EV_METADATA, c->target);
	if (k == LIT_AMBIGUOUS) {
		/* a ':' that no IPv6 address holds: a name given with its
		 * port (SOCKS5 "host:80"), not a number to write plainly */
		refuse(c, SOCKS5_NOT_ALLOWED,
		       strchr(c->host, ':') ? "not a host name or an IPv6 "
					      "address (a name holds no ':')"
					    : ADDR_AMBIGUOUS_WHY);
		return;
	}
	c->grants = filter_match_host(&w->filter, c->host,
				      k == LIT_ADDR ? &lit : NULL, port);
	if (k == LIT_ADDR) {
		/* a literal names its class, whatever the grants say */
		why = check_addr(c, &lit);
		if (!why && !c->grants)
			why = "host not in the sandbox's grants";
		if (why) {
			refuse(c, SOCKS5_NOT_ALLOWED, why);
			return;
		}
		c->addrs[0] = lit;
		c->naddrs = 1;
		start_connect(c);
		return;
	}
	if (!c->grants) {
		refuse(c, SOCKS5_NOT_ALLOWED,
		       "host not in the sandbox's grants");
		return;
	}
	/* the name leaves for the resolver: counted, and watched (trip.h) */
	if (wire_lookup_send(w, c->host)) {
		if (w->closed)
			refuse_closed(c);
		else
			refuse_log_down(c);
		return;
	}
	c->st = CS_RESOLVE;
	c->deadline = loop_now_ms() + WIRE_DNS_TIMEOUT_MS;
	set_interest(c);
	c->q = dns_resolve(w->dns, c->host, dns_done, c);
}

/* A transparent connect to address a. An address the sandbox's resolver
 * answered for a name (dnsd.h) is a call to that name: the name must
 * match a grant for this port, and the address, resolved by the wire
 * itself, must pass the address rules now; the wire connects to it and
 * to nothing else (no second lookup to rebind). Any other address is a
 * SOCKS5 request for the address. */
static void tproxy_route(struct conn *c, const struct lnk_addr *given,
			 uint16_t port)
{
	struct wire *w = c->w;
	/* An IPv6 socket's IPv4-mapped address is the IPv4 address the
	 * kernel connects it to (a dual-stack client, Java's default): that
	 * address, not an embedding, so it is decided and reached as such. */
	struct lnk_addr v4;
	const struct lnk_addr *a = addr_v4_mapped(given, &v4) ? &v4 : given;
	const char *name = dnsd_name_for(w->dnsd, a);
	if (!name) {
		route(c, NULL, port, a);
		return;
	}
	c->port = port;
	snprintf(c->host, sizeof(c->host), "%s", name);
	set_target(c, c->host, port);
	if (w->closed) {
		refuse_closed(c);
		return;
	}
	if (trip_target_is_metadata(c->host) || addr_classify(a) == AC_METADATA)
		wire_trip_note(w, TRIP_EV_METADATA, c->target);
	c->grants = filter_match_host(&w->filter, c->host, NULL, port);
	if (!c->grants) {
		refuse(c, SOCKS5_NOT_ALLOWED,
		       "host not in the sandbox's grants");
		return;
	}
	const char *why = check_addr(c, a);
	if (why) {
		refuse(c, SOCKS5_NOT_ALLOWED, why);
		return;
	}
	c->addrs[0] = *a;
	c->naddrs = 1;
	start_connect(c);
}

static const char *errno_reason(int e)
{
	switch (e) {
	case ECONNREFUSED:
		return "connection refused";
	case ETIMEDOUT:
		return "connect timed out";
	case ENETUNREACH:
		return "network unreachable";
	case EHOSTUNREACH:
		return "host unreachable";
	default:
		return "connect failed";
	}
}

static enum socks5_rep errno_socks(int e)
{
	switch (e) {
	case ECONNREFUSED:
		return SOCKS5_CONN_REFUSED;
	case ETIMEDOUT:
		return SOCKS5_TTL_EXPIRED;
	case ENETUNREACH:
		return SOCKS5_NET_UNREACH;
	case EHOSTUNREACH:
		return SOCKS5_HOST_UNREACH;
	default:
		return SOCKS5_FAILURE;
	}
}

/* A new connection waits for its head (the HTTP request, the SOCKS5
 * greeting, the transparent proxy's header) in state st, for at most
 * WIRE_HEAD_TIMEOUT_MS: a hostile client that connects and stays silent
 * is closed, not kept. */
static void await_head(struct conn *c, enum cstate st, const char *verb)
{
	c->st = st;
	c->verb = verb;
	c->deadline = wire_deadline(c->w, WIRE_HEAD_TIMEOUT_MS);
	/* The head has mostly come with the connection (the client sends
	 * it as soon as it is connected): read at once, without a round of
	 * the loop to learn it is there; what is not there yet is waited
	 * for. The call may have ended (closed) or moved on meanwhile. */
	on_client(&c->ch, LOOP_IN);
	if (c->ch.fd >= 0)
		set_interest(c);
}

#ifndef __linux__
static void set_nodelay(int fd)
{
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}
#endif

static void connected(struct conn *c)
{
	c->deadline = 0;
	c->w->up += c->c2u.total; /* what was queued before connecting */
	/* TCP_NODELAY: the keeper set it on the socket it made */
	conn_log(c, DB_ALLOWED, "");
	switch (c->kind) {
	case INIT_L_HTTP:
		if (c->http_connect) {
			static const char ok[] =
			    "HTTP/1.1 200 Connection established\r\n\r\n";
			c->u2c.buf = xstrdup(ok);
			c->u2c.len = sizeof(ok) - 1;
		}
		break;
	case INIT_L_SOCKS: {
		uint8_t r[22];
		size_t n = socks5_reply(SOCKS5_OK, NULL, 0, r);
		c->u2c.buf = xmalloc(n);
		memcpy(c->u2c.buf, r, n);
		c->u2c.len = n;
		break;
	}
	case INIT_L_TCP:
		/* the verdict, before any byte of the destination's */
		c->u2c.buf = xcalloc(1, 1);
		c->u2c.buf[0] = TPROXY_OK;
		c->u2c.len = 1;
		break;
	case INIT_L_PORT:
	case INIT_L_DNS:
		break;
	}
	/* relayed at once: what the client sent while the call was made
	 * goes on, and the answer above leaves, without a round of the
	 * loop to learn that both sockets are ready. A client that asked
	 * by CONNECT or SOCKS waits for that answer before it sends, and
	 * a server just connected has rarely spoken: those reads are left
	 * to the loop. */
	c->st = CS_RELAY;
	relay(c, !c->http_connect && c->kind != INIT_L_SOCKS, false);
}

/* How the keeper is to connect to a: an address this call may reach only
 * as the internet (not by a LAN grant, not the --port door to loopback)
 * is first asked whether it is the first router's own (hop.h). */
static unsigned ask_flags(struct conn *c, const struct lnk_addr *a)
{
	if (c->kind == INIT_L_PORT)
		return 0;
	if (!filter_check_addr(&c->w->filter, c->grants, c->host, a, c->port,
			       ROUTE_LAN))
		return 0; /* a LAN grant reaches it as the LAN */
	return KEEPER_ASK_FIRST_HOP;
}

int conn_ask_model(struct wire *w, struct mconn *m, int64_t cookie,
		   const struct lnk_addr *a, uint16_t port, unsigned flags)
{
	if (w->nasks >= KEEPER_ASKS_MAX || w->ask_head)
		return -EAGAIN;
	size_t slot = 0;
	while (w->asks[slot].used)
		slot++;
	int r = keeper_ask_connect(w->keeper, (uint64_t)cookie, a, port, flags);
	if (r < 0)
		return r;
	w->asks[slot] =
	    (struct wire_ask){.m = m, .cookie = cookie, .used = true};
	w->nasks++;
	return (int)slot;
}

/* Sends c's connect to the keeper: 0, -EAGAIN when no slot is free or the
 * channel has no room (c waits), -EIO when the keeper is gone. */
static int ask_try(struct conn *c)
{
	struct wire *w = c->w;
	if (w->nasks >= KEEPER_ASKS_MAX)
		return -EAGAIN;
	size_t slot = 0;
	while (w->asks[slot].used)
		slot++;
	int r = keeper_ask_connect(w->keeper, (uint64_t)c->seq, &c->ask_addr,
				   c->port, c->ask_flags);
	if (r < 0)
		return r;
	w->asks[slot] =
	    (struct wire_ask){.c = c, .cookie = c->seq, .used = true};
	w->nasks++;
	c->ask_slot = (int)slot;
	return 0;
}

static void ask_queue(struct conn *c)
{
	struct wire *w = c->w;
	c->ask_queued = true;
	c->q_next = NULL;
	c->q_prev = w->ask_tail;
	if (w->ask_tail)
		w->ask_tail->q_next = c;
	else
		w->ask_head = c;
	w->ask_tail = c;
}

/* The calls that waited for a slot, in order, while there are slots. */
static void ask_resume(struct wire *w)
{
	/* Closed (an answer in this batch tripped it): the calls still
	 * queued never reached the keeper, and never will. */
	while (w->closed && w->ask_head)
		refuse_closed(w->ask_head);
	while (w->ask_head) {
		struct conn *c = w->ask_head;
		int r = ask_try(c);
		if (r == -EAGAIN)
			return;
		queue_unlink(c);
		if (r < 0)
			fail(c, 502, SOCKS5_FAILURE,
			     "the wire's keeper is gone");
	}
}

/* Connects to the next checked address; each was checked by the filter,
 * and none is looked up again. The keeper makes the connect (keeper.h)
 * while the wire goes on with its other calls. */
static void try_connect(struct conn *c)
{
	if (c->uh.fd >= 0) {
		loop_del(c->w->loop, &c->uh);
		close(c->uh.fd);
		c->uh.fd = -1;
	}
	if (c->w->closed) {
		/* closed meanwhile (another call's answer tripped it): no
		 * further address is asked for */
		if (c->ai > 0)
			end_under_way(c, "an earlier address's connect was "
					 "made");
		else
			refuse_closed(c);
		return;
	}
	if (c->ai >= c->naddrs) {
		fail(c, 502, errno_socks(c->last_err),
		     errno_reason(c->last_err));
		return;
	}
	const struct lnk_addr *a = &c->addrs[c->ai++];
	if (c->ai > 1) {
		/* the routes may have changed while the earlier addresses
		 * were tried: ask again */
		const char *why = check_addr(c, a);
		if (why) {
			refuse(c, SOCKS5_NOT_ALLOWED, why);
			return;
		}
	}
	c->ask_addr = *a;
	c->ask_flags = ask_flags(c, a);
	c->st = CS_ASK;
	set_interest(c);
	int r = c->w->ask_head ? -EAGAIN : ask_try(c);
	if (r == -EAGAIN)
		ask_queue(c);
	else if (r < 0)
		fail(c, 502, SOCKS5_FAILURE, "the wire's keeper is gone");
}

/* The keeper's answer for c's connect. */
static void ask_answered(struct conn *c, const struct keeper_answer *ans)
{
	switch (ans->kind) {
	case KEEPER_CONNECTING: {
		c->uh.fd = ans->fd;
		/* A near server (loopback, one link) has often answered
		 * within the keeper's connect: relay at once, without a
		 * round of the loop to learn it. */
		struct sockaddr_storage peer;
		socklen_t pl = sizeof(peer);
		if (getpeername(c->uh.fd, (struct sockaddr *)&peer, &pl) == 0) {
			connected(c);
			return;
		}
		c->st = CS_CONNECT;
		set_interest(c);
		return;
	}
	case KEEPER_FIRST_HOP:
		refuse(c, SOCKS5_NOT_ALLOWED, WIRE_FIRST_HOP_WHY);
		return;
	case KEEPER_HOP_UNKNOWN:
		refuse(c, SOCKS5_NOT_ALLOWED, WIRE_HOP_UNKNOWN_WHY);
		return;
	case KEEPER_BUSY:
		fail(c, 503, SOCKS5_FAILURE, WIRE_KEEPER_BUSY_WHY);
		return;
	case KEEPER_FAILED:
		c->last_err = ans->error;
		try_connect(c);
		return;
	}
}

void conn_keeper_input(struct loop_handler *h, uint32_t ev)
{
	struct wire *w =
	    (struct wire *)((char *)h - offsetof(struct wire, keeper_h));
	(void)ev;
	for (int n = 0; n < 2 * KEEPER_ASKS_MAX; n++) {
		struct keeper_answer ans;
		int r = keeper_take_answer(w->keeper, &ans);
		if (r == 0)
			break;
		if (r < 0) {
			/* the keeper is gone: nothing more connects; the
			 * calls waiting time out */
			loop_del(w->loop, h);
			return;
		}
		struct conn *c = NULL;
		struct mconn *m = NULL;
		bool found = false;
		for (size_t i = 0; i < KEEPER_ASKS_MAX && !found; i++) {
			struct wire_ask *a = &w->asks[i];
			if (!a->used || (uint64_t)a->cookie != ans.cookie)
				continue;
			found = true;
			c = a->c;
			m = a->m;
			*a = (struct wire_ask){0};
			w->nasks--;
		}
		if (m) {
			model_answered(m, &ans);
		} else if (c) {
			c->ask_slot = -1;
			ask_answered(c, &ans);
		} else if (ans.fd >= 0) {
			close(ans.fd);
		}
		/* nothing more is owed: the read that would find the channel
		 * empty is spared (the loop is level-triggered, so anything
		 * else there is reported again) */
		if (w->nasks == 0)
			break;
	}
	ask_resume(w);
}

void conn_accept(struct wire *w, struct listener *l, int fd)
{
	if (w->nconns + w->nmodel_conns >= w->max_conns) {
		/* the cap: this client is closed, everyone else goes on; a
		 * call of the log all the same */
		close(fd);
		wire_refused_unread(w, "too many calls open at once in this "
				       "sandbox: it was closed before it was "
				       "read");
		return;
	}
	struct conn *c = xcalloc(1, sizeof(*c));
	c->w = w;
	c->kind = l->kind;
	c->ch = (struct loop_handler){.fn = on_client, .fd = fd};
	c->uh = (struct loop_handler){.fn = on_upstream, .fd = -1};
	c->c2u.pipe[0] = c->c2u.pipe[1] = -1;
	c->u2c.pipe[0] = c->u2c.pipe[1] = -1;
	c->ask_slot = -1;
	c->seq = ++w->seq;
	c->next = w->conns;
	if (w->conns)
		w->conns->prev = c;
	w->conns = c;
	w->nconns++;
#ifndef __linux__
	/* Linux: inherited from the listener (wire.c, adopt_listener) */
	set_nodelay(fd);
#endif
	switch (l->kind) {
	case INIT_L_HTTP:
		await_head(c, CS_HTTP_HEAD, "http");
		break;
	case INIT_L_SOCKS:
		await_head(c, CS_SOCKS_GREET, "tcp");
		break;
	case INIT_L_DNS:
		conn_close(c); /* dnsd.c serves these */
		break;
	case INIT_L_TCP:
		await_head(c, CS_TPROXY_HEAD, "tcp");
		break;
	case INIT_L_PORT: {
		/* --port P: inside 127.0.0.1:P is this machine's
		 * 127.0.0.1:P, and only that port */
		c->verb = "tcp";
		c->port = l->port;
		snprintf(c->target, sizeof(c->target), "localhost:%u", l->port);
		if (w->closed) {
			refuse_closed(c);
			return;
		}
		if (!filter_port_allowed(&w->filter, l->port)) {
			refuse(c, SOCKS5_NOT_ALLOWED, "port not granted");
			return;
		}
		memset(&c->addrs[0], 0, sizeof(c->addrs[0]));
		c->addrs[0].family = l->family;
		if (l->family == AF_INET) {
			c->addrs[0].a[0] = 127;
			c->addrs[0].a[3] = 1;
		} else {
			c->addrs[0].a[15] = 1;
		}
		c->naddrs = 1;
		start_connect(c);
		break;
	}
	}
}

/* Reads what the client sent so far into c->in, up to max bytes. Returns
 * 1 when something new came, 0 on end of stream, -1 on error/limit. */
static int read_more(struct conn *c, size_t max)
{
	if (c->in_len >= max)
		return -1;
	if (!c->in)
		c->in = xmalloc(max + 1);
	ssize_t n = recv(c->ch.fd, c->in + c->in_len, max - c->in_len, 0);
	if (n < 0)
		return (errno == EAGAIN || errno == EINTR) ? 2 : -1;
	if (n == 0)
		return 0;
	c->in_len += (size_t)n;
	return 1;
}

static void queue_up(struct conn *c, const char *p, size_t n)
{
	if (!n)
		return;
	c->c2u.buf = xrealloc(c->c2u.buf, c->c2u.len + n);
	memcpy(c->c2u.buf + c->c2u.len, p, n);
	c->c2u.len += n;
	c->c2u.total += n; /* counted for the wire once connected */
}

static void http_head(struct conn *c)
{
	int r = read_more(c, HTTP_HEAD_MAX + 1);
	if (r == 2)
		return;
	if (r <= 0 && c->in_len < HTTP_HEAD_MAX + 1) {
		conn_close(c); /* gone before asking anything */
		return;
	}
	struct http_req req;
	enum http_result h = http_parse_head(c->in, c->in_len, &req);
	if (h == HTTP_MORE) {
		if (r <= 0)
			bad_request(c, 431, SOCKS5_FAILURE,
				    "request head too large");
		return;
	}
	if (h == HTTP_BAD && c->w->wp->nmodels &&
	    model_wants(c->in, c->in_len)) {
		/* a call on the model route: its own reader takes the
		 * client (model.h) */
		loop_del(c->w->loop, &c->ch);
		int fd = c->ch.fd;
		c->ch.fd = -1;
		model_take(c->w, fd, c->seq, c->in, c->in_len);
		conn_close(c);
		return;
	}
	if (h == HTTP_BAD) {
		bad_request(c, req.status, SOCKS5_FAILURE, req.why);
		return;
	}
	c->http_connect = req.connect;
	c->verb = req.connect ? "connect" : "http";
	/* what goes upstream once connected: the rewritten head (only for
	 * plain HTTP) and whatever the client sent after its head */
	size_t after = c->in_len - req.head_len;
	if (!req.connect) {
		/* One request, checked, per connection: its head (rewritten,
		 * "Connection: close") and its body go on, and nothing after
		 * its end. A second request pipelined behind it would reach
		 * the server with a Host and a path no grant checked. */
		struct buf b = {0};
		http_rewrite_head(c->in, &req, &b);
		queue_up(c, b.p, b.len);
		buf_free(&b);
		if (after > req.body_len)
			after = (size_t)req.body_len;
		c->c2u.capped = true;
		c->c2u.left = req.body_len - after;
	}
	queue_up(c, c->in + req.head_len, after);
	free(c->in);
	c->in = NULL;
	c->in_len = 0;
	route(c, req.host, req.port, NULL);
}

static void socks_input(struct conn *c)
{
	int r = read_more(c, 600);
	if (r == 2)
		return;
	if (r <= 0) {
		conn_close(c);
		return;
	}
	if (c->st == CS_SOCKS_GREET) {
		int reply;
		int n =
		    socks5_parse_greeting((uint8_t *)c->in, c->in_len, &reply);
		if (n == 0)
			return;
		if (n < 0) {
			if (reply) {
				static const uint8_t no[2] = {5, 0xff};
				if (send(c->ch.fd, no, 2,
					 MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
				}
			}
			conn_close(c);
			return;
		}
		static const uint8_t yes[2] = {5, 0};
		if (send(c->ch.fd, yes, 2, MSG_NOSIGNAL | MSG_DONTWAIT) != 2) {
			conn_close(c);
			return;
		}
		memmove(c->in, c->in + n, c->in_len - (size_t)n);
		c->in_len -= (size_t)n;
		c->st = CS_SOCKS_REQ;
		if (!c->in_len)
			return;
	}
	struct socks5_req req;
	enum socks5_rep rep;
	int n = socks5_parse_request((uint8_t *)c->in, c->in_len, &req, &rep);
	if (n == 0)
		return;
	if (n < 0) {
		bad_request(c, 400, rep,
			    "malformed or unsupported SOCKS request");
		return;
	}
	queue_up(c, c->in + n, c->in_len - (size_t)n);
	free(c->in);
	c->in = NULL;
	c->in_len = 0;
	route(c, req.host, req.port, req.is_addr ? &req.addr : NULL);
}

/* The transparent path: a fixed head naming the address and port the
 * program connected to. Whoever sent it (the guard, or the program
 * itself on the listener), it is routed as a SOCKS5 request for that
 * address would be. */
static void tproxy_input(struct conn *c)
{
	int r = read_more(c, TPROXY_HEAD_SIZE);
	if (r == 2)
		return;
	if (r <= 0 && c->in_len < TPROXY_HEAD_SIZE) {
		conn_close(c);
		return;
	}
	if (c->in_len < TPROXY_HEAD_SIZE)
		return;
	struct lnk_addr a;
	uint16_t port;
	if (tproxy_head_decode((uint8_t *)c->in, c->in_len, &a, &port) < 0) {
		bad_request(c, 400, SOCKS5_FAILURE,
			    "malformed transparent connection head");
		return;
	}
	free(c->in);
	c->in = NULL;
	c->in_len = 0;
	tproxy_route(c, &a, port);
}

static void linger_input(struct conn *c)
{
	char sink[4096];
	for (int i = 0; i < 16; i++) {
		ssize_t n = recv(c->ch.fd, sink, sizeof(sink), 0);
		if (n > 0)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		break;
	}
	conn_close(c);
}

/* Moves what it can from src to dst for one direction. Returns -1 when the
 * connection broke. */
#ifdef __linux__
/* Bulk on Linux goes socket -> pipe -> socket by splice, never through
 * the wire's memory. */
static int splice_pipe(int p[2])
{
	if (pipe_cloexec(p, COMPAT_NONBLOCK) < 0)
		return -1;
	fcntl(p[1], F_SETPIPE_SZ, 1 << 20);
	return 0;
}

static ssize_t splice_move(int from, int to, size_t n)
{
	return splice(from, NULL, to, NULL, n,
		      SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
}
#else
/* No splice on macOS: every byte goes through the scratch buffer. */
static int splice_pipe(int p[2])
{
	(void)p;
	return -1;
}

static ssize_t splice_move(int from, int to, size_t n)
{
	(void)from, (void)to, (void)n;
	errno = ENOSYS;
	return -1;
}
#endif

/* may_read: src was reported readable (or may hold bytes that came
 * before it was watched); otherwise only what is held is sent, since a
 * read would find nothing and the level-triggered loop reports src when
 * something comes. */
static int pump(struct conn *c, struct dir *d, int src, int dst, bool up,
		bool may_read)
{
	struct wire *w = c->w;
	for (int round = 0; round < 16; round++) {
		if (d->len) {
			ssize_t n = send(dst, d->buf + d->off, d->len,
					 MSG_NOSIGNAL | MSG_DONTWAIT);
			if (n < 0)
				return (errno == EAGAIN || errno == EINTR) ? 0
									   : -1;
			d->off += (size_t)n;
			d->len -= (size_t)n;
			if (!d->len) {
				free(d->buf);
				d->buf = NULL;
				d->off = 0;
			}
			continue;
		}
		if (d->inpipe) {
			ssize_t n = splice_move(d->pipe[0], dst, d->inpipe);
			if (n < 0)
				return (errno == EAGAIN || errno == EINTR) ? 0
									   : -1;
			d->inpipe -= (size_t)n;
			continue;
		}
		if (d->eof) {
			/* half-close: the other side learns the end and may
			 * still answer. When the other way has ended too,
			 * relay closes both sockets next, and the close says
			 * the end (a FIN, as the shutdown would). */
			const struct dir *o = d == &c->c2u ? &c->u2c : &c->c2u;
			if (!d->shut && !o->shut)
				shutdown(dst, SHUT_WR);
			d->shut = true;
			return 0;
		}
		if (!may_read)
			return 0;
		if (d->capped && !d->left) {
			/* past the request's end: read, never relayed */
			ssize_t n = recv(src, w->scratch, WIRE_SCRATCH, 0);
			if (n == 0)
				d->eof = true;
			else if (n < 0)
				return (errno == EAGAIN || errno == EINTR) ? 0
									   : -1;
			continue;
		}
		size_t most = WIRE_SCRATCH;
		if (d->capped && d->left < most)
			most = (size_t)d->left;
		/* a pipe while the budget has room; else through memory */
		if (d->total >= WIRE_SPLICE_AFTER && d->pipe[0] < 0 &&
		    w->pipe_fds + 2 <= w->pipe_budget) {
			if (splice_pipe(d->pipe) < 0)
				d->pipe[0] = d->pipe[1] = -1;
			else
				w->pipe_fds += 2;
		}
		ssize_t n;
		if (d->pipe[0] >= 0) {
			size_t sm = 1 << 20;
			if (d->capped && d->left < sm)
				sm = (size_t)d->left;
			n = splice_move(src, d->pipe[1], sm);
			if (n > 0)
				d->inpipe = (size_t)n;
		} else {
			n = recv(src, w->scratch, most, 0);
		}
		if (n == 0) {
			d->eof = true;
			continue;
		}
		if (n < 0)
			return (errno == EAGAIN || errno == EINTR) ? 0 : -1;
		if (d->capped)
			d->left -= (uint64_t)n;
		d->total += (uint64_t)n;
		if (up)
			w->up += (uint64_t)n;
		else
			w->down += (uint64_t)n;
		if (d->pipe[0] >= 0)
			continue;
		ssize_t m = send(dst, w->scratch, (size_t)n,
				 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (m < 0) {
			if (errno != EAGAIN && errno != EINTR)
				return -1;
			m = 0;
		}
		if (m < n) {
			/* only a stalled direction holds memory: idle
			 * tunnels cost no buffer */
			d->len = (size_t)(n - m);
			d->buf = xmalloc(d->len);
			memcpy(d->buf, w->scratch + m, d->len);
			d->off = 0;
			return 0;
		}
		/* A read shorter than asked emptied the socket: the next read
		 * would find nothing. The loop is level-triggered, so what
		 * comes later (or the end) is reported again. */
		if ((size_t)n < most)
			return 0;
	}
	return 0;
}

static void relay(struct conn *c, bool read_client, bool read_up)
{
	bool client_ended = c->c2u.eof;
	if (pump(c, &c->c2u, c->ch.fd, c->uh.fd, true, read_client) < 0) {
		conn_close(c);
		return;
	}
	/* the client's end just passed on: the server's end has mostly
	 * come with it (it closes after its answer), read it now rather
	 * than in another round of the loop */
	if (!client_ended && c->c2u.eof)
		read_up = true;
	if (pump(c, &c->u2c, c->uh.fd, c->ch.fd, false, read_up) < 0) {
		conn_close(c);
		return;
	}
	if (c->c2u.shut && c->u2c.shut) {
		conn_close(c); /* both ways done */
		return;
	}
	set_interest(c);
}

static void on_client(struct loop_handler *h, uint32_t ev)
{
	struct conn *c = CONN_OF(h, ch);
	(void)ev;
	switch (c->st) {
	case CS_HTTP_HEAD:
		http_head(c);
		break;
	case CS_SOCKS_GREET:
	case CS_SOCKS_REQ:
		socks_input(c);
		break;
	case CS_TPROXY_HEAD:
		tproxy_input(c);
		break;
	case CS_RELAY:
		relay(c, true, false);
		break;
	case CS_LINGER:
		linger_input(c);
		break;
	case CS_RESOLVE:
	case CS_ASK:
	case CS_CONNECT:
		break;
	}
}

static void on_upstream(struct loop_handler *h, uint32_t ev)
{
	struct conn *c = CONN_OF(h, uh);
	(void)ev;
	if (c->st == CS_CONNECT) {
		int e = 0;
		socklen_t l = sizeof(e);
		if (getsockopt(c->uh.fd, SOL_SOCKET, SO_ERROR, &e, &l) < 0)
			e = errno;
		if (e == 0) {
			connected(c);
			return;
		}
		c->last_err = e;
		try_connect(c);
		return;
	}
	if (c->st == CS_RELAY)
		relay(c, false, true);
}

void conn_tick(struct wire *w, int64_t now)
{
	model_tick(w, now);
	struct conn *c = w->conns, *next;
	for (; c; c = next) {
		next = c->next;
		if (!c->deadline || now < c->deadline)
			continue;
		switch (c->st) {
		case CS_HTTP_HEAD:
		case CS_SOCKS_GREET:
		case CS_SOCKS_REQ:
		case CS_TPROXY_HEAD:
		case CS_LINGER:
		case CS_RELAY:
			conn_close(c); /* slow client: only this one ends */
			break;
		case CS_RESOLVE:
			fail(c, 504, SOCKS5_HOST_UNREACH,
			     "name lookup timed out");
			break;
		case CS_ASK:
		case CS_CONNECT:
			fail(c, 504, SOCKS5_TTL_EXPIRED, "connect timed out");
			break;
		}
	}
}

void conn_close_all(struct wire *w)
{
	model_close_all(w);
	while (w->conns)
		conn_close(w->conns);
}

int64_t wire_deadline(const struct wire *w, int64_t ms)
{
	if (w->closed && ms > WIRE_CLOSED_GRACE_MS)
		ms = WIRE_CLOSED_GRACE_MS;
	return loop_now_ms() + ms;
}

int64_t wire_grace_cap(const struct wire *w, int64_t deadline)
{
	int64_t at_most = wire_deadline(w, WIRE_CLOSED_GRACE_MS);
	return deadline > at_most ? at_most : deadline;
}

/* A call the close found on its way out: the program hears why, and the
 * log says failed, not refused, with what had begun (its name sent to
 * the resolver; the keeper's connect, whose handshake may have reached
 * the host before the keeper heard of the close). */
static void end_under_way(struct conn *c, const char *what)
{
	const char *why = wire_closed_reason(c->w);
	char reason[DB_REASON_MAX];
	snprintf(reason, sizeof(reason), "%s (%s)", why, what);
	conn_log(c, DB_FAILED, reason);
	answer_and_linger(c, 403, SOCKS5_NOT_ALLOWED, why);
}

void conn_end_open_calls(struct wire *w)
{
	model_end_open_calls(w);
	struct conn *next;
	for (struct conn *c = w->conns; c; c = next) {
		next = c->next;
		switch (c->st) {
		case CS_HTTP_HEAD:
		case CS_SOCKS_GREET:
		case CS_SOCKS_REQ:
		case CS_TPROXY_HEAD:
		case CS_LINGER:
			/* nothing has gone out for it: its request, when it
			 * comes, is refused with the reason; an answered one
			 * is read to its end; within the grace either way */
			c->deadline = wire_grace_cap(w, c->deadline);
			break;
		case CS_RESOLVE:
			end_under_way(c, "its name was being looked up");
			break;
		case CS_ASK:
			/* one still in the wire's queue never reached the
			 * keeper: refused; one asked may have been made */
			if (c->ask_queued)
				refuse_closed(c);
			else
				end_under_way(c, "its connect was under way");
			break;
		case CS_CONNECT:
			end_under_way(c, "its connect was under way");
			break;
		case CS_RELAY:
			conn_close(c);
			break;
		}
	}
}
