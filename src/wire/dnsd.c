/* The sandbox's resolver (dnsd.h). */
#include "wire/dnsd.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/compat.h"
#include "common/util.h"
#include "proto/bytes.h"
#include "wire/wire_int.h"

#define RCODE_FORMERR DNSD_RCODE_FORMERR
#define RCODE_SERVFAIL DNSD_RCODE_SERVFAIL
#define RCODE_NXDOMAIN DNSD_RCODE_NXDOMAIN
#define RCODE_REFUSED DNSD_RCODE_REFUSED
#define QTYPE_A DNSD_QTYPE_A
#define QTYPE_AAAA DNSD_QTYPE_AAAA
#define QCLASS_IN 1
#define UDP_ANSWER_MAX DNSD_UDP_ANSWER_MAX
#define MEMORY_MAX 4096
#define PENDING_MAX 512
#define TCP_CLIENTS_MAX 64
#define TCP_IDLE_MS 10000
#define RECENT_REFUSALS 32

/* ---- the server ---- */

struct tcp_client;

struct pending {
	struct dnsd *d;
	struct dns_query *q;
	struct dnsd_question qs;
	uint8_t query[12 + 260]; /* header and question, echoed */
	unsigned grants;
	uint16_t lan_port;
	int64_t seq; /* the lookup's log row, 0 when only counted */
	/* where the answer goes: a UDP peer, or a TCP client */
	struct sockaddr_storage peer;
	socklen_t plen;
	struct tcp_client *tc;
	struct pending *prev, *next;
};

struct tcp_client {
	struct loop_handler h; /* first */
	struct dnsd *d;
	uint8_t buf[2 + DNSD_MSG_MAX];
	size_t len;
	int64_t deadline;
	struct pending *p;
	struct tcp_client *prev, *next;
};

struct sock {
	struct loop_handler h; /* first */
	struct dnsd *d;
	bool stream;
};

struct memo {
	struct lnk_addr a;
	char name[HOST_MAX + 1];
	uint64_t stamp;
};

struct dnsd {
	struct wire *w;
	struct sock socks[4];
	size_t nsocks;
	struct pending *pending;
	size_t npending;
	struct tcp_client *clients;
	size_t nclients;
	struct memo *memo;
	size_t nmemo;
	uint64_t stamp;
	char recent[RECENT_REFUSALS][HOST_MAX + 1];
	size_t nrecent;
};

static void remember(struct dnsd *d, const struct lnk_addr *a, const char *name)
{
	struct memo *m = NULL;
	for (size_t i = 0; i < d->nmemo && !m; i++)
		if (d->memo[i].a.family == a->family &&
		    addr_equal(&d->memo[i].a, a))
			m = &d->memo[i];
	if (!m && d->nmemo < MEMORY_MAX)
		m = &d->memo[d->nmemo++];
	if (!m) {
		/* full: the oldest answer goes */
		m = &d->memo[0];
		for (size_t i = 1; i < d->nmemo; i++)
			if (d->memo[i].stamp < m->stamp)
				m = &d->memo[i];
	}
	m->a = *a;
	snprintf(m->name, sizeof(m->name), "%s", name);
	m->stamp = ++d->stamp;
}

const char *dnsd_name_for(const struct dnsd *d, const struct lnk_addr *a)
{
	if (!d)
		return NULL;
	for (size_t i = 0; i < d->nmemo; i++)
		if (d->memo[i].a.family == a->family &&
		    addr_equal(&d->memo[i].a, a))
			return d->memo[i].name;
	return NULL;
}

/* Which grants cover a name on some port: the internet grants, and the
 * LAN grants of that name (with the port of the last, for the address
 * check). */
static unsigned name_grants(const struct filter *f, const char *name,
			    uint16_t *lan_port)
{
	unsigned g = filter_match_host(f, name, NULL, 0);
	*lan_port = 0;
	for (size_t i = 0; i < f->nlan; i++) {
		const struct lan_rule *r = &f->lan[i];
		if (!r->is_net && strcmp(r->name, name) == 0) {
			g |= GRANT_LAN;
			*lan_port = r->port;
		}
	}
	return g;
}

/* "A", "AAAA", or "TYPE<n>": the question's type as the log shows it. */
static void type_name(uint16_t qtype, char *out, size_t cap)
{
	if (qtype == QTYPE_A)
		snprintf(out, cap, "A");
	else if (qtype == QTYPE_AAAA)
		snprintf(out, cap, "AAAA");
	else
		snprintf(out, cap, "TYPE%u", qtype);
}

/* A lookup's log target: "NAME TYPE" ("-" for a name host_normalize did
 * not take: only such a name reaches the log). */
static void lookup_target(const char *name, uint16_t qtype, char *out,
			  size_t cap)
{
	char t[16];
	type_name(qtype, t, sizeof(t));
	if (strcmp(name, "-") == 0 || !name[0])
		snprintf(out, cap, "-");
	else
		snprintf(out, cap, "%s %s", name, t);
}

/* A refusal's log row, once per name among the last few (a client asks
 * for A and AAAA, and again). */
static void log_refused(struct dnsd *d, const char *name, uint16_t qtype,
			const char *why)
{
	wire_say_refused(d->w, name, 0, why);
	for (size_t i = 0; i < d->nrecent && i < RECENT_REFUSALS; i++)
		if (strcmp(d->recent[i], name) == 0)
			return;
	snprintf(d->recent[d->nrecent % RECENT_REFUSALS], HOST_MAX + 1, "%s",
		 name);
	d->nrecent++;
	struct wire *w = d->w;
	if (!wire_refusal_logged(w))
		return;
	char target[HOST_MAX + 24];
	lookup_target(name, qtype, target, sizeof(target));
	db_batch_call(&w->batch, ++w->seq, time(NULL), "dns", target,
		      DB_REFUSED, why, 0, 0);
}

/* How a lookup sent upstream ended, on its own row when it has one. A
 * refusal without a row of its own is logged as one (with the refusals'
 * bound). */
/* What a lookup sent carried upstream, beside its outcome: the wire asks
 * for both families whatever the question (src/wire/dns.c), and the log
 * says what left, not only what was asked. A refusal's reason stays the
 * wire's own words (the terminal's hint is chosen by them). */
#define SENT_BOTH "; sent upstream as A and AAAA"

static void log_outcome(struct dnsd *d, const struct pending *p,
			enum db_outcome o, const char *why)
{
	struct wire *w = d->w;
	char r[DB_REASON_MAX];
	snprintf(r, sizeof(r), "%s%s", why, o == DB_REFUSED ? "" : SENT_BOTH);
	if (p->seq)
		db_batch_update(&w->batch, p->seq, o, r, 0, 0);
	else if (o == DB_REFUSED)
		log_refused(d, p->qs.name, p->qs.qtype, why);
}

static void tcp_close(struct tcp_client *tc);
static void tcp_rearm(struct tcp_client *tc);

static void pending_free(struct pending *p)
{
	struct dnsd *d = p->d;
	if (p->q && p->seq) /* sent, and no answer will come */
		db_batch_update(&d->w->batch, p->seq, DB_FAILED,
				"the client left before the answer" SENT_BOTH,
				0, 0);
	dns_cancel(p->q);
	if (p->prev)
		p->prev->next = p->next;
	else
		d->pending = p->next;
	if (p->next)
		p->next->prev = p->prev;
	d->npending--;
	if (p->tc)
		p->tc->p = NULL;
	free(p);
}

static void send_answer(struct dnsd *d, int sfd, struct pending *p, int rcode,
			const struct lnk_addr *a, size_t n)
{
	uint8_t out[2 + DNSD_MSG_MAX];
	if (p->tc) {
		size_t len = dnsd_answer(p->query, &p->qs, rcode, a, n, out + 2,
					 DNSD_MSG_MAX);
		bytes_put_be16(out, (uint16_t)len);
		struct tcp_client *tc = p->tc;
		ssize_t s =
		    send(tc->h.fd, out, len + 2, MSG_NOSIGNAL | MSG_DONTWAIT);
		tc->p = NULL;
		p->tc = NULL;
		if (s != (ssize_t)(len + 2))
			tcp_close(tc);
		else
			tcp_rearm(tc);
		return;
	}
	(void)d;
	size_t len =
	    dnsd_answer(p->query, &p->qs, rcode, a, n, out, UDP_ANSWER_MAX);
	if (len && sendto(sfd, out, len, MSG_DONTWAIT | MSG_NOSIGNAL,
			  (struct sockaddr *)&p->peer, p->plen) < 0) {
		/* the client is gone: nothing to tell */
	}
}

static int udp_fd(const struct dnsd *d)
{
	for (size_t i = 0; i < d->nsocks; i++)
		if (!d->socks[i].stream)
			return d->socks[i].h.fd;
	return -1;
}

static void resolved(void *ud, int status, const struct lnk_addr *addrs,
		     size_t n)
{
	struct pending *p = ud;
	struct dnsd *d = p->d;
	struct wire *w = d->w;
	p->q = NULL;
	int rcode = 0;
	if (status == -ENOENT) {
		rcode = RCODE_NXDOMAIN;
		log_outcome(d, p, DB_FAILED, "name not found");
	} else if (status < 0) {
		rcode = RCODE_SERVFAIL;
		log_outcome(d, p, DB_FAILED,
			    status == -ETIMEDOUT ? "name lookup timed out"
						 : "name lookup failed");
	}
	for (size_t i = 0; rcode == 0 && i < n; i++) {
		if (addr_classify(&addrs[i]) == AC_METADATA)
			wire_trip_note(w, TRIP_EV_METADATA, p->qs.name);
		/* every address as a call to the name would be checked: an
		 * answer with this machine in it is a rebinding attempt */
		const char *why = filter_check_addr(
		    &w->filter, p->grants, p->qs.name, &addrs[i], p->lan_port,
		    route_where_for(&w->route, &addrs[i]));
		if (why) {
			log_outcome(d, p, DB_REFUSED, why);
			rcode = RCODE_NXDOMAIN;
		}
	}
	if (rcode == 0 && w->closed) {
		/* it left before the wire closed: no refusal (`log
		 * --refused` would say it never left), a call whose answer
		 * the program never got */
		char why[160];
		snprintf(why, sizeof(why),
			 "sent; the wire closed (%s) before its answer came, "
			 "which was not given",
			 wire_closed_reason(w));
		log_outcome(d, p, p->seq ? DB_FAILED : DB_REFUSED, why);
		rcode = RCODE_REFUSED;
	}
	if (rcode == 0) {
		log_outcome(d, p, DB_ENDED, n ? "answered" : "no address");
		for (size_t i = 0; i < n; i++)
			remember(d, &addrs[i], p->qs.name);
	}
	send_answer(d, udp_fd(d), p, rcode, addrs, n);
	pending_free(p);
}

/* One question, from a UDP peer or a TCP client. */
static void ask(struct dnsd *d, int sfd, const uint8_t *m, size_t len,
		const struct sockaddr_storage *peer, socklen_t plen,
		struct tcp_client *tc)
{
	struct wire *w = d->w;
	struct pending tmp, *p = &tmp;
	memset(&tmp, 0, sizeof(tmp));
	tmp.d = d;
	tmp.tc = tc;
	if (peer) {
		tmp.peer = *peer;
		tmp.plen = plen;
	}
	int r = dnsd_parse(m, len, &tmp.qs);
	if (r < 0)
		return;
	if (12 + tmp.qs.qlen > sizeof(tmp.query))
		r = RCODE_FORMERR;
	if (r > 0) {
		tmp.qs.qlen = 0; /* no question echoed */
		memcpy(tmp.query, m, 12);
		send_answer(d, sfd, &tmp, r, NULL, 0);
		return;
	}
	memcpy(tmp.query, m, 12 + tmp.qs.qlen);
	char host[HOST_MAX + 1];
	const char *why = NULL;
	const char *logname = "-"; /* only a name host_normalize took */
	int rcode = 0;
	struct lnk_addr lit;
	if (tmp.qs.qclass != QCLASS_IN) {
		rcode = RCODE_REFUSED;
	} else if (host_normalize(tmp.qs.name, host, &why) < 0) {
		rcode = RCODE_NXDOMAIN;
	} else if (w->closed) {
		logname = host;
		why = wire_closed_reason(w);
		rcode = RCODE_REFUSED;
	} else {
		logname = host;
		if (trip_target_is_metadata(host))
			wire_trip_note(w, TRIP_EV_METADATA, host);
		tmp.grants = name_grants(&w->filter, host, &tmp.lan_port);
		if (addr_parse_literal(host, &lit) != LIT_NAME) {
			why = "an address is no name to look up";
			rcode = RCODE_NXDOMAIN;
		} else if (!tmp.grants) {
			why = "host not in the sandbox's grants";
			rcode = RCODE_NXDOMAIN;
		}
	}
	if (rcode) {
		if (why)
			log_refused(d, logname, tmp.qs.qtype, why);
		send_answer(d, sfd, &tmp, rcode, NULL, 0);
		return;
	}
	snprintf(tmp.qs.name, sizeof(tmp.qs.name), "%s", host);
	if (tmp.qs.qtype != QTYPE_A && tmp.qs.qtype != QTYPE_AAAA) {
		/* a granted name has no other records here */
		send_answer(d, sfd, &tmp, 0, NULL, 0);
		return;
	}
	if (d->npending >= PENDING_MAX) {
		send_answer(d, sfd, &tmp, RCODE_SERVFAIL, NULL, 0);
		return;
	}
	/* Every name sent upstream is a call in the log: a program under
	 * '*' or '*.example' can carry data out in the names alone, with no
	 * connection (the tripwire watches for that shape). */
	const char *unsent = wire_lookup_send(w, host);
	if (unsent) {
		log_refused(d, host, tmp.qs.qtype, unsent);
		send_answer(d, sfd, &tmp,
			    w->closed ? RCODE_REFUSED : RCODE_SERVFAIL, NULL,
			    0);
		return;
	}
	if (wire_lookup_logged(w)) {
		char target[HOST_MAX + 24];
		lookup_target(host, tmp.qs.qtype, target, sizeof(target));
		tmp.seq = ++w->seq;
		db_batch_call(&w->batch, tmp.seq, time(NULL), "dns", target,
			      DB_ALLOWED, "", 0, 0);
	}
	p = xmalloc(sizeof(*p));
	*p = tmp;
	p->next = d->pending;
	p->prev = NULL;
	if (d->pending)
		d->pending->prev = p;
	d->pending = p;
	d->npending++;
	if (tc) {
		tc->p = p;
		loop_set(w->loop, &tc->h, 0); /* one question at a time */
	}
	p->q = dns_resolve(w->dns, p->qs.name, resolved, p);
}

static void on_udp(struct loop_handler *h, uint32_t ev)
{
	struct sock *s = (struct sock *)h;
	(void)ev;
	for (int i = 0; i < 32; i++) {
		uint8_t m[DNSD_MSG_MAX];
		struct sockaddr_storage peer;
		socklen_t plen = sizeof(peer);
		ssize_t n = recvfrom(h->fd, m, sizeof(m), MSG_DONTWAIT,
				     (struct sockaddr *)&peer, &plen);
		if (n < 0)
			return;
		ask(s->d, h->fd, m, (size_t)n, &peer, plen, NULL);
	}
}

static void tcp_close(struct tcp_client *tc)
{
	struct dnsd *d = tc->d;
	if (tc->p) {
		tc->p->tc = NULL;
		pending_free(tc->p);
	}
	loop_del(d->w->loop, &tc->h);
	close(tc->h.fd);
	if (tc->prev)
		tc->prev->next = tc->next;
	else
		d->clients = tc->next;
	if (tc->next)
		tc->next->prev = tc->prev;
	d->nclients--;
	free(tc);
}

/* A whole question waiting in the buffer is asked; else wait for more. */
static void tcp_rearm(struct tcp_client *tc)
{
	tc->deadline = loop_now_ms() + TCP_IDLE_MS;
	if (tc->len >= 2) {
		size_t ml = bytes_get_be16(tc->buf);
		if (ml < 12) {
			tcp_close(tc);
			return;
		}
		if (tc->len >= 2 + ml) {
			uint8_t m[DNSD_MSG_MAX];
			memcpy(m, tc->buf + 2, ml);
			memmove(tc->buf, tc->buf + 2 + ml, tc->len - 2 - ml);
			tc->len -= 2 + ml;
			ask(tc->d, tc->h.fd, m, ml, NULL, 0, tc);
			return;
		}
	}
	if (loop_set(tc->d->w->loop, &tc->h, LOOP_IN) < 0)
		tcp_close(tc);
}

static void on_tcp_client(struct loop_handler *h, uint32_t ev)
{
	struct tcp_client *tc = (struct tcp_client *)h;
	(void)ev;
	if (tc->p)
		return;
	ssize_t n = recv(h->fd, tc->buf + tc->len, sizeof(tc->buf) - tc->len,
			 MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		tcp_close(tc);
		return;
	}
	tc->len += (size_t)n;
	if (tc->len >= 2 && bytes_get_be16(tc->buf) > DNSD_MSG_MAX) {
		tcp_close(tc);
		return;
	}
	tcp_rearm(tc);
}

static void on_tcp_listen(struct loop_handler *h, uint32_t ev)
{
	struct sock *s = (struct sock *)h;
	struct dnsd *d = s->d;
	(void)ev;
	for (int i = 0; i < 16; i++) {
		int fd = accept_cloexec(h->fd, NULL, NULL, COMPAT_NONBLOCK);
		if (fd < 0)
			return;
		if (d->nclients >= TCP_CLIENTS_MAX) {
			close(fd);
			continue;
		}
		struct tcp_client *tc = xcalloc(1, sizeof(*tc));
		tc->h = (struct loop_handler){.fn = on_tcp_client, .fd = fd};
		tc->d = d;
		tc->next = d->clients;
		if (d->clients)
			d->clients->prev = tc;
		d->clients = tc;
		d->nclients++;
		tcp_rearm(tc);
	}
}

void dnsd_tick(struct dnsd *d, int64_t now)
{
	if (!d)
		return;
	struct tcp_client *tc = d->clients, *next;
	for (; tc; tc = next) {
		next = tc->next;
		if (!tc->p && now >= tc->deadline)
			tcp_close(tc);
	}
}

int dnsd_serve(struct dnsd *d, int fd, bool stream, struct lnk_err *err)
{
	if (d->nsocks == ARRAY_SIZE(d->socks))
		return err_set(err, -EPROTO,
			       "the sandbox handed over too many DNS sockets");
	struct sock *s = &d->socks[d->nsocks];
	*s = (struct sock){
	    .h = {.fn = stream ? on_tcp_listen : on_udp, .fd = fd},
	    .d = d,
	    .stream = stream,
	};
	if (loop_set(d->w->loop, &s->h, LOOP_IN) < 0)
		return err_set(err, -EIO, "cannot watch the DNS socket");
	d->nsocks++;
	return 0;
}

/* /etc/hosts lines for granted names: the program reads them itself and
 * connects to the address, which the wire then knows by that name. */
static void load_hosts(struct dnsd *d)
{
	FILE *f = fopen("/etc/hosts", "re");
	char line[1024];
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *save = NULL, *tok = strtok_r(line, " \t\r\n", &save);
		struct lnk_addr a;
		if (!tok || tok[0] == '#' ||
		    addr_parse_literal(tok, &a) != LIT_ADDR ||
		    addr_classify(&a) == AC_LOOPBACK)
			continue;
		while ((tok = strtok_r(NULL, " \t\r\n", &save)) &&
		       tok[0] != '#') {
			char host[HOST_MAX + 1];
			const char *why;
			uint16_t port;
			if (host_normalize(tok, host, &why) == 0 &&
			    name_grants(&d->w->filter, host, &port))
				remember(d, &a, host);
		}
	}
	fclose(f);
}

struct dnsd *dnsd_new(struct wire *w)
{
	struct dnsd *d = xcalloc(1, sizeof(*d));
	d->w = w;
	d->memo = xcalloc(MEMORY_MAX, sizeof(*d->memo));
	load_hosts(d);
	return d;
}

void dnsd_free(struct dnsd *d)
{
	if (!d)
		return;
	while (d->clients)
		tcp_close(d->clients);
	while (d->pending)
		pending_free(d->pending);
	for (size_t i = 0; i < d->nsocks; i++) {
		loop_del(d->w->loop, &d->socks[i].h);
		close(d->socks[i].h.fd);
	}
	free(d->memo);
	free(d);
}
