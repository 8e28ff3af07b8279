#include "wire/dns.h"

#include <ares.h>
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "common/util.h"

struct dns_sock {
	struct loop_handler h; /* first: the loop hands us &h */
	struct dns *d;
	struct dns_sock *next;
};

struct dns_query {
	dns_cb cb; /* NULL once cancelled */
	void *ud;
	bool in_call; /* inside ares_getaddrinfo: answer later */
	int status;
	size_t n;
	struct lnk_addr addrs[DNS_MAX_ADDRS];
	struct dns_query *next; /* on the ready list */
};

struct dns {
	ares_channel chan;
	struct loop *loop;
	struct dns_sock *socks;
	struct dns_query *ready; /* answered from inside dns_resolve */
};

static void sock_event(struct loop_handler *h, uint32_t events)
{
	struct dns_sock *s = (struct dns_sock *)h;
	int fd = h->fd;
	ares_process_fd(
	    s->d->chan,
	    (events & (LOOP_IN | LOOP_ERR | LOOP_HUP)) ? fd : ARES_SOCKET_BAD,
	    (events & LOOP_OUT) ? fd : ARES_SOCKET_BAD);
}

/* c-ares tells us which of its sockets want reading or writing. */
static void sock_state(void *data, ares_socket_t fd, int readable, int writable)
{
	struct dns *d = data;
	struct dns_sock **pp = &d->socks, *s;
	while ((s = *pp) && s->h.fd != fd)
		pp = &s->next;
	if (!readable && !writable) {
		if (s) {
			loop_del(d->loop, &s->h);
			*pp = s->next;
			free(s);
		}
		return;
	}
	if (!s) {
		s = xcalloc(1, sizeof(*s));
		s->h.fn = sock_event;
		s->h.fd = fd;
		s->d = d;
		s->next = d->socks;
		d->socks = s;
	}
	loop_set(d->loop, &s->h,
		 (readable ? LOOP_IN : 0) | (writable ? LOOP_OUT : 0));
}

int dns_new(struct dns **out, struct loop *l, const char *server,
	    struct lnk_err *err)
{
	int rc = ares_library_init(ARES_LIB_INIT_ALL);
	if (rc != ARES_SUCCESS)
		return err_set(err, -EIO, "cannot start the resolver: %s",
			       ares_strerror(rc));
	struct dns *d = xcalloc(1, sizeof(*d));
	d->loop = l;
	struct ares_options o = {0};
	o.sock_state_cb = sock_state;
	o.sock_state_cb_data = d;
	o.timeout = 2000; /* ms per try, with ARES_OPT_TIMEOUTMS */
	o.tries = 2;
	/* The name as asked, and only it: with the host's search domains
	 * (resolv.conf's search line, LOCALDOMAIN) a name that does not
	 * resolve is sent again with each appended, names the log never
	 * shows, carrying what the program put in them. An empty search
	 * list given here is kept (c-ares 1.18's getaddrinfo searches
	 * despite ARES_FLAG_NOSEARCH); the flag for its other lookups. */
	o.flags = ARES_FLAG_NOSEARCH;
	o.domains = NULL;
	o.ndomains = 0;
	rc = ares_init_options(&d->chan, &o,
			       ARES_OPT_SOCK_STATE_CB | ARES_OPT_TIMEOUTMS |
				   ARES_OPT_TRIES | ARES_OPT_FLAGS |
				   ARES_OPT_DOMAINS);
	if (rc != ARES_SUCCESS) {
		free(d);
		return err_set(err, -EIO, "cannot start the resolver: %s",
			       ares_strerror(rc));
	}
	if (server) {
		rc = ares_set_servers_ports_csv(d->chan, server);
		if (rc != ARES_SUCCESS) {
			ares_destroy(d->chan);
			free(d);
			return err_set(err, -EINVAL,
				       "LNK_DNS_SERVER '%s' is not IP:PORT: %s",
				       server, ares_strerror(rc));
		}
	}
	*out = d;
	return 0;
}

void dns_free(struct dns *d)
{
	if (!d)
		return;
	/* runs every pending callback with ARES_EDESTRUCTION */
	ares_destroy(d->chan);
	while (d->ready) {
		struct dns_query *q = d->ready;
		d->ready = q->next;
		free(q);
	}
	while (d->socks) {
		struct dns_sock *s = d->socks;
		d->socks = s->next;
		loop_del(d->loop, &s->h);
		free(s);
	}
	free(d);
	ares_library_cleanup();
}

static void answer(void *arg, int status, int timeouts,
		   struct ares_addrinfo *res)
{
	(void)timeouts;
	struct dns_query *q = arg;
	struct lnk_addr *addrs = q->addrs;
	size_t n = 0;
	int r = 0;
	if (status == ARES_SUCCESS && res) {
		for (struct ares_addrinfo_node *ai = res->nodes;
		     ai && n < DNS_MAX_ADDRS; ai = ai->ai_next) {
			struct lnk_addr a;
			if (addr_from_sockaddr(ai->ai_addr, &a) < 0)
				continue;
			bool dup = false;
			for (size_t i = 0; i < n; i++)
				dup |= addr_equal(&addrs[i], &a) &&
				       addrs[i].family == a.family;
			if (!dup)
				addrs[n++] = a;
		}
		if (n == 0)
			r = -ENOENT;
	} else if (status == ARES_ENOTFOUND || status == ARES_ENODATA ||
		   status == ARES_ENONAME) {
		r = -ENOENT;
	} else if (status == ARES_ETIMEOUT) {
		r = -ETIMEDOUT;
	} else {
		r = -EIO;
	}
	if (res)
		ares_freeaddrinfo(res);
	q->status = r;
	q->n = n;
	if (q->in_call)
		return; /* delivered by dns_tick, after the caller stored q */
	if (q->cb)
		q->cb(q->ud, r, addrs, n);
	free(q);
}

struct dns_query *dns_resolve(struct dns *d, const char *name, dns_cb cb,
			      void *ud)
{
	struct dns_query *q = xcalloc(1, sizeof(*q));
	q->cb = cb;
	q->ud = ud;
	struct ares_addrinfo_hints hints = {0};
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	/* no sorting: c-ares would connect() probe sockets to sort */
	hints.ai_flags = ARES_AI_NOSORT;
	q->in_call = true;
	q->status = 1;
	ares_getaddrinfo(d->chan, name, NULL, &hints, answer, q);
	q->in_call = false;
	if (q->status != 1) {
		/* answered at once (/etc/hosts, a bad name): the caller must
		 * not see its callback before it has the handle */
		q->next = d->ready;
		d->ready = q;
	}
	return q;
}

void dns_cancel(struct dns_query *q)
{
	if (q)
		q->cb = NULL;
}

void dns_tick(struct dns *d)
{
	while (d->ready) {
		struct dns_query *q = d->ready;
		d->ready = q->next;
		if (q->cb)
			q->cb(q->ud, q->status, q->addrs, q->n);
		free(q);
	}
	ares_process_fd(d->chan, ARES_SOCKET_BAD, ARES_SOCKET_BAD);
}

void dns_servers(struct dns *d,
		 void (*fn)(void *ud, const struct lnk_addr *a, uint16_t port),
		 void *ud)
{
	struct ares_addr_port_node *list = NULL;
	if (ares_get_servers_ports(d->chan, &list) != ARES_SUCCESS)
		return;
	for (struct ares_addr_port_node *n = list; n; n = n->next) {
		struct lnk_addr a;
		memset(&a, 0, sizeof(a));
		a.family = n->family;
		if (n->family == AF_INET)
			memcpy(a.a, &n->addr.addr4, 4);
		else if (n->family == AF_INET6)
			memcpy(a.a, &n->addr.addr6, 16);
		else
			continue;
		/* 0: the default port */
		uint16_t udp = (uint16_t)(n->udp_port ? n->udp_port : 53);
		uint16_t tcp = (uint16_t)(n->tcp_port ? n->tcp_port : 53);
		fn(ud, &a, udp);
		if (tcp != udp)
			fn(ud, &a, tcp);
	}
	ares_free_data(list);
}
