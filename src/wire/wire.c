/* The wire process: plan, start, listeners, the loop and its tick. */
#include "wire/wire.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/compat.h"
#include "config.h"
#include "net/grammar.h"
#include "store/paths.h"
#include "store/shut.h"
#include "wire/confine.h"
#include "proto/handoff.h"
#include "wire/heard.h"
#include "wire/keeper.h"
#include "wire/model.h"
#include "wire/wire_int.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

static void wire_open(struct wire *w)
{
	w->closed = false;
	w->close_now = false;
	w->cause = CTL_CAUSE_NONE;
	w->rule = TRIP_NONE;
	w->closed_ms = 0;
	w->detail[0] = '\0';
	shut_set(w->wp->shut, CTL_CAUSE_NONE, TRIP_NONE);
	if (w->registered) {
		struct lnk_err err = {0};
		if (registry_set_open(w->state, w->wp->name, &err) < 0)
			fprintf(stderr, "lnk: wire: %s\n", err.msg);
	}
}

/* A control request from the owner (ctl.c checked the peer's uid and the
 * message's form). */
static enum ctl_result wire_ctl(void *ctx, enum ctl_op op,
				struct ctl_status *st)
{
	struct wire *w = ctx;
	switch (op) {
	case CTL_PAUSE:
		/* a tripped wire stays tripped: pausing must not hide why */
		if (!w->closed || w->cause == CTL_CAUSE_STOP)
			wire_close(w, CTL_CAUSE_HAND, TRIP_NONE, "");
		break;
	case CTL_STOP:
		if (!w->closed)
			wire_close(w, CTL_CAUSE_STOP, TRIP_NONE, "");
		break;
	case CTL_STOP_OFF:
		/* --off reopens only what a stop closed */
		if (w->closed && w->cause == CTL_CAUSE_STOP)
			wire_open(w);
		break;
	case CTL_RESUME:
		trip_reset(&w->trip);
		if (w->closed)
			wire_open(w);
		break;
	case CTL_STATUS:
		break;
	}
	memset(st, 0, sizeof(*st));
	st->closed = w->closed;
	st->cause = w->cause;
	st->rule = w->rule;
	st->conns = (uint32_t)w->nconns;
	st->since_ms = w->closed ? w->closed_ms : 0;
	st->up = w->up;
	st->down = w->down;
	snprintf(st->detail, sizeof(st->detail), "%s", w->detail);
	return CTL_R_OK;
}

static void on_ctl(struct loop_handler *h, uint32_t ev)
{
	struct wire *w =
	    (struct wire *)((char *)h - offsetof(struct wire, ctl_h));
	(void)ev;
	ctl_server_dispatch(w->ctl, loop_now_ms(), wire_ctl, w);
}

/* Opens the wire's control socket and registers it, before it accepts any
 * call. Registering first, then reading the stop, means a concurrent
 * `lnk sandbox stop` either finds this wire or this wire finds the stop. */
static int wire_control_start(struct wire *w, struct lnk_err *err)
{
	const struct wire_plan *wp = w->wp;
	trip_init_at(&w->trip, wp->trip_calls, wp->trip_targets);
	w->cap = wp->cap;
	if (!w->cap &&
	    !(w->cap = w->own_cap = refusals_shared_new(loop_now_ms())))
		return err_set(err, -ENOMEM, "cannot keep the log's cap");
	refusals_init(&w->lookup_rows, loop_now_ms());
	refusals_init(&w->failed_rows, loop_now_ms());
	if (!wp->home)
		return 0;
	int r = registry_open_at(wp->db_path, &w->state, err);
	if (r < 0)
		return r;
	struct registry_entry e;
	memset(&e, 0, sizeof(e));
	snprintf(e.name, sizeof(e.name), "%s", wp->name);
	e.uid = getuid();
	registry_proc_self(w->supervisor, &e.supervisor);
	registry_proc_self(getpid(), &e.wire);
	e.started_ms = registry_now_ms();
	_cleanup_free_ char *sock = ctl_socket_path(wp->home, wp->name);
	if (sock)
		snprintf(e.socket, sizeof(e.socket), "%s", sock);
	/* The socket listens before the entry exists: `paused` takes a
	 * registered wire that does not answer for a dead one ("down"). A
	 * live wire of the same name keeps its socket (-EADDRINUSE). */
	if ((r = ctl_server_open(wp->home, wp->name, &w->ctl, err)) < 0) {
		if (r == -EADDRINUSE)
			return err_set(err, r,
				       "a sandbox named '%s' is already "
				       "running; choose another --name",
				       wp->name);
		return r;
	}
	if ((r = registry_register_wire(w->state, &e, err)) < 0)
		return r;
	w->registered = true;
	bool stopped = false;
	if ((r = registry_stop_get(w->state, &stopped, NULL, err)) < 0)
		return r;
	if (stopped)
		wire_close(w, CTL_CAUSE_STOP, TRIP_NONE, "");
	w->ctl_h =
	    (struct loop_handler){.fn = on_ctl, .fd = ctl_server_fd(w->ctl)};
	if (loop_set(w->loop, &w->ctl_h, LOOP_IN) < 0)
		return err_set(err, -EINVAL,
			       "cannot watch the wire's control socket");
	return 0;
}

static void wire_control_end(struct wire *w)
{
	if (w->ctl) {
		loop_del(w->loop, &w->ctl_h);
		ctl_server_close(w->ctl);
		w->ctl = NULL;
	}
	if (w->registered) {
		struct lnk_err err = {0};
		registry_unregister_wire(w->state, w->wp->name, &err);
	}
	registry_close(w->state);
	w->state = NULL;
}

/* ---- the process ---- */

static void on_accept(struct loop_handler *h, uint32_t ev)
{
	struct listener *l = (struct listener *)h;
	struct wire *w = l->w;
	(void)ev;
	for (int i = 0; i < 64; i++) {
		int fd = accept_cloexec(h->fd, NULL, NULL, COMPAT_NONBLOCK);
		if (fd >= 0) {
			conn_accept(w, l, fd);
			continue;
		}
		if ((errno == EMFILE || errno == ENFILE) && w->spare_fd >= 0) {
			/* out of descriptors: refuse one client (close it)
			 * rather than spin on a listener we cannot drain */
			close(w->spare_fd);
			fd = accept_cloexec(h->fd, NULL, NULL, 0);
			if (fd >= 0) {
				close(fd);
				wire_refused_unread(
				    w, "the wire has no descriptor left: it "
				       "was closed before it was read");
			}
			w->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		}
		return;
	}
}

/* fd's type when it is an unbound IPv4 socket of another network
 * namespace than the wire's (the sandbox's, handed over for the keeper
 * to bind there), else 0. */
static int sandbox_unbound(const struct wire *w, int fd)
{
	int type = 0, dom = 0;
	uint64_t mine = 0, theirs = 0;
	socklen_t l = sizeof(int), cl = sizeof(uint64_t);
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &l) < 0 ||
	    (type != SOCK_DGRAM && type != SOCK_STREAM) ||
	    getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &l) < 0 ||
	    dom != AF_INET ||
	    getsockname(fd, (struct sockaddr *)&sa, &sl) < 0 ||
	    sa.sin_port != 0 ||
	    getsockopt(w->route.fd, SOL_SOCKET, SO_NETNS_COOKIE, &mine, &cl) <
		0 ||
	    getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, &theirs, &cl) < 0 ||
	    mine == theirs)
		return 0;
	return type;
}

/* The resolver's sockets: unbound IPv4 UDP or TCP sockets of the
 * sandbox's network namespace (not the wire's own), which the keeper
 * binds to the sandbox's 127.0.0.1:53 (keeper.h); then dnsd serves them. */
static int adopt_dns(struct wire *w, const struct handoff_listener *hl,
		     struct lnk_err *err)
{
	int type = sandbox_unbound(w, hl->fd);
	if (!type)
		return err_set(err, -EPROTO,
			       "the sandbox handed over a DNS socket that is "
			       "no unbound socket of its own");
	int r = keeper_bind_dns(w->keeper, hl->fd, err);
	if (r < 0)
		return r;
	int fl = fcntl(hl->fd, F_GETFL);
	if (fl < 0 || fcntl(hl->fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return err_set(err, -errno, "cannot set up a DNS socket: %s",
			       strerror(errno));
	return dnsd_serve(w->dnsd, hl->fd, type == SOCK_STREAM, err);
}

/* A --port listener below the unprivileged ports, which lnk-init could
 * not bind: an unbound IPv4 TCP socket of the sandbox's namespace (not
 * the wire's own), bound by the keeper to the sandbox's 127.0.0.1 and a
 * granted port (the keeper checks both again); then adopted as any
 * listener. 1 when hl is no such socket (the checks below judge it), 0
 * once bound, or -errno. */
static int bind_low_port(struct wire *w, const struct handoff_listener *hl,
			 struct lnk_err *err)
{
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	if (hl->tag.kind != INIT_L_PORT ||
	    getsockname(hl->fd, (struct sockaddr *)&sa, &sl) < 0 ||
	    sa.sin_family != AF_INET || sa.sin_port != 0)
		return 1;
	if (sandbox_unbound(w, hl->fd) != SOCK_STREAM ||
	    !wire_plan_has_port(w->wp, hl->tag.port))
		return err_set(err, -EPROTO,
			       "the sandbox handed over a socket that is no "
			       "unbound socket of its own for a granted port");
	return keeper_bind_port(w->keeper, hl->fd, hl->tag.port, err);
}

/* The sender is inside the sandbox: check each socket ourselves. */
static int adopt_listener(struct wire *w, const struct handoff_listener *hl,
			  struct lnk_err *err)
{
	if (hl->tag.kind == INIT_L_DNS)
		return adopt_dns(w, hl, err);
	int low = bind_low_port(w, hl, err);
	if (low < 0)
		return low;
	int type = 0, acc = 0, dom = 0;
	socklen_t l = sizeof(int);
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	struct lnk_addr a;
	if (getsockopt(hl->fd, SOL_SOCKET, SO_TYPE, &type, &l) < 0 ||
	    type != SOCK_STREAM ||
	    getsockopt(hl->fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &l) < 0 ||
	    !acc || getsockopt(hl->fd, SOL_SOCKET, SO_DOMAIN, &dom, &l) < 0 ||
	    (dom != AF_INET && dom != AF_INET6) ||
	    getsockname(hl->fd, (struct sockaddr *)&ss, &sl) < 0 ||
	    addr_from_sockaddr((struct sockaddr *)&ss, &a) < 0 ||
	    addr_classify(&a) != AC_LOOPBACK)
		return err_set(err, -EPROTO,
			       "the sandbox handed over a socket that is no "
			       "loopback listener");
	uint16_t port =
	    ntohs(dom == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
				 : ((struct sockaddr_in6 *)&ss)->sin6_port);
	const struct wire_plan *wp = w->wp;
	enum init_listener_kind kind;
	if (hl->tag.kind == INIT_L_HTTP && port == wp->http_port)
		kind = INIT_L_HTTP;
	else if (hl->tag.kind == INIT_L_SOCKS && port == wp->socks_port)
		kind = INIT_L_SOCKS;
	else if (hl->tag.kind == INIT_L_PORT && wire_plan_has_port(wp, port))
		kind = INIT_L_PORT;
	else if (hl->tag.kind == INIT_L_TCP && port == wp->tcp_port)
		kind = INIT_L_TCP;
	else
		return err_set(err, -EPROTO,
			       "the sandbox handed over a listener on port %u "
			       "that the plan does not have",
			       port);
	/* TCP_NODELAY (the wire relays small writes at once) set here,
	 * once: each client's socket inherits it from its listener
	 * (docs/kernel-facts.md, accepted-inherits-nodelay), one call less
	 * per connection */
	int fl = fcntl(hl->fd, F_GETFL), one = 1;
	if (fl < 0 || fcntl(hl->fd, F_SETFL, fl | O_NONBLOCK) < 0 ||
	    setsockopt(hl->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0)
		return err_set(err, -errno, "cannot set up a listener: %s",
			       strerror(errno));
	w->listeners =
	    xrealloc(w->listeners, (w->nlisteners + 1) * sizeof(*w->listeners));
	struct listener *li = &w->listeners[w->nlisteners++];
	*li = (struct listener){
	    .h = {.fn = on_accept, .fd = hl->fd},
	    .w = w,
	    .kind = kind,
	    .family = dom,
	    .port = port,
	};
	return 0;
}

struct pending_listeners {
	struct handoff_listener *v;
	size_t n;
};

static void on_handoff(struct loop_handler *h, uint32_t ev)
{
	struct wire *w =
	    (struct wire *)((char *)h - offsetof(struct wire, handoff));
	(void)ev;
	struct pending_listeners pl = {0};
	struct lnk_err err = {0};
	int r = handoff_recv_one(h->fd, &pl.v, &pl.n, &err);
	for (size_t i = 0; r >= 0 && i < pl.n; i++) {
		int a = adopt_listener(w, &pl.v[i], &err);
		if (a < 0 && pl.v[i].tag.kind == INIT_L_DNS) {
			/* without its resolver the sandbox keeps the proxy
			 * and the transparent path by address: say so once,
			 * go on */
			if (!w->dns_warned)
				fprintf(stderr,
					"lnk: wire: %s; programs without proxy "
					"settings cannot look up names\n",
					err.msg);
			w->dns_warned = true;
			continue;
		}
		if (a < 0)
			r = a;
		else
			pl.v[i].fd = -1;
	}
	for (size_t i = 0; i < pl.n; i++)
		if (pl.v[i].fd >= 0)
			close(pl.v[i].fd);
	free(pl.v);
	if (r < 0) {
		/* fail closed: no wire, no network for the sandbox */
		fprintf(stderr, "lnk: wire: %s\n", err.msg);
		w->stopping = w->failed = true;
		return;
	}
	if (r == 0) {
		/* the listeners are all here; nothing more comes from
		 * inside (invariant 6) */
		loop_del(w->loop, h);
		close(h->fd);
		h->fd = -1;
		w->handed_off = true;
		for (size_t i = 0; i < w->nlisteners; i++) {
			struct listener *li = &w->listeners[i];
			li->h.mask = 0;
			if (loop_set(w->loop, &li->h, LOOP_IN) < 0) {
				fprintf(stderr, "lnk: wire: cannot watch a "
						"listener\n");
				w->stopping = w->failed = true;
			}
		}
	}
}

static void on_lifeline(struct loop_handler *h, uint32_t ev)
{
	struct wire *w =
	    (struct wire *)((char *)h - offsetof(struct wire, lifeline));
	char b[64];
	(void)ev;
	ssize_t n = read(h->fd, b, sizeof(b));
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
		w->stopping = true;
}

static size_t raise_nofile(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 1024;
	/* descriptors per tunnel: take all the kernel lets us */
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
	getrlimit(RLIMIT_NOFILE, &rl);
	return rl.rlim_cur > (1u << 20) ? (1u << 20) : (size_t)rl.rlim_cur;
}

/* The refusals and lookups counted and not logged one by one
 * (refusals.h), as one row each, when one is due. */
static void wire_log_unlogged(struct wire *w, bool end)
{
	uint64_t k = refusals_due(&w->lookup_rows, loop_now_ms(), end);
	if (k) {
		char why[160];
		snprintf(why, sizeof(why),
			 "%llu more lookups, not logged one by one (after %d "
			 "at once, one a second)",
			 (unsigned long long)k, REFUSAL_BURST);
		db_batch_call(&w->batch, ++w->seq, time(NULL), "dns", "-",
			      DB_ENDED, why, 0, 0);
	}
	uint64_t f = refusals_due(&w->failed_rows, loop_now_ms(), end);
	if (f) {
		char why[160];
		snprintf(why, sizeof(why),
			 "%llu more calls failed (allowed, nothing carried), "
			 "not logged one by one (after %d at once, one a "
			 "second)",
			 (unsigned long long)f, REFUSAL_BURST);
		db_batch_call(&w->batch, ++w->seq, time(NULL), "wire", "-",
			      DB_FAILED, why, 0, 0);
	}
	uint64_t n = refusals_shared_due(w->cap, loop_now_ms(), end);
	if (!n)
		return;
	char why[160];
	snprintf(why, sizeof(why),
		 "%llu more calls refused, not logged one by one (after %d "
		 "at once, one a second)",
		 (unsigned long long)n, REFUSAL_BURST);
	db_batch_call(&w->batch, ++w->seq, time(NULL), "wire", "-", DB_REFUSED,
		      why, 0, 0);
}

static void wire_log_health(struct wire *w)
{
	size_t backlog = 0;
	char why[DB_WHY_MAX];
	int r = db_writer_health(w->writer, &backlog, why, sizeof(why));
	if (r < 0 && !w->log_down) {
		w->log_down = true;
		fprintf(stderr,
			"lnk: wire: the call log cannot be written (%s); new "
			"calls are refused until it can, and the %zu entries "
			"waiting are kept\n",
			why, backlog);
	} else if (r == 0 && w->log_down) {
		w->log_down = false;
		fprintf(stderr, "lnk: wire: the call log is written again; "
				"calls go on\n");
	}
}

static void tell_keeper_dns(void *ud, const struct lnk_addr *a, uint16_t port)
{
	int *chan = ud;
	(void)keeper_send_dns(*chan, a, port);
}

#ifdef LNK_TEST_HOOKS
/* TEST BUILDS ONLY (meson -Dtest_hooks=true): with LNK_TEST_WIRE_ATTACK=PORT
 * the confined wire plays a wire taken over by the program, and says on
 * stderr how each act ended: it opens ~/.ssh/id_ed25519, connects to
 * 127.0.0.1:PORT, sends a datagram there, and runs /bin/sh (the filter
 * kills it there). tests/e2e/test_inv9_confined.py checks every act failed. */
static void test_attack(void)
{
	const char *port = getenv("LNK_TEST_WIRE_ATTACK");
	const char *home = getenv("HOME");
	if (!port || !home)
		return;
	char path[4096];
	snprintf(path, sizeof(path), "%s/.ssh/id_ed25519", home);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	fprintf(stderr, "lnk-test-attack: open ssh: %s\n",
		fd >= 0 ? "opened" : strerror(errno));
	struct sockaddr_in sa = {.sin_family = AF_INET,
				 .sin_port = htons((uint16_t)atoi(port)),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	fd = socket_cloexec(AF_INET, SOCK_STREAM, 0, 0);
	int r = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	fprintf(stderr, "lnk-test-attack: connect loopback: %s\n",
		r == 0 ? "connected" : strerror(errno));
	fd = socket_cloexec(AF_INET, SOCK_DGRAM, 0, 0);
	ssize_t n = sendto(fd, "x", 1, 0, (struct sockaddr *)&sa, sizeof(sa));
	fprintf(stderr, "lnk-test-attack: sendto loopback: %s\n",
		n == 1 ? "sent" : strerror(errno));
	fprintf(stderr, "lnk-test-attack: exec: trying\n");
	char *argv[] = {"/bin/sh", "-c", "echo lnk-test-attack: exec: ran >&2",
			NULL};
	execve(argv[0], argv, argv + 3);
	fprintf(stderr, "lnk-test-attack: exec: %s\n", strerror(errno));
}

/* TEST BUILDS ONLY: with LNK_TEST_WIRE_ATTACK_NET=IPV4:PORT (an address of
 * this machine's network: the LAN, the first router's own) the confined
 * wire connects there itself, then asks its keeper on the channel to
 * connect there without the first-hop flag, and says how each ended. */
static void test_attack_net(int chan)
{
	const char *t = getenv("LNK_TEST_WIRE_ATTACK_NET");
	const char *colon = t ? strrchr(t, ':') : NULL;
	if (!colon)
		return;
	char ip[64];
	snprintf(ip, sizeof(ip), "%.*s", (int)(colon - t), t);
	struct lnk_addr a = {.family = AF_INET};
	uint16_t port = (uint16_t)atoi(colon + 1);
	if (inet_pton(AF_INET, ip, a.a) != 1)
		return;
	struct sockaddr_storage ss;
	socklen_t len = addr_to_sockaddr(&a, port, &ss);
	int fd = socket_cloexec(AF_INET, SOCK_STREAM, 0, 0);
	int r = connect(fd, (struct sockaddr *)&ss, len);
	fprintf(stderr, "lnk-test-attack: connect net: %s\n",
		r == 0 ? "connected" : strerror(errno));
	close(fd);
	const uint64_t cookie = 0x7e57;
	if (keeper_ask_connect(chan, cookie, &a, port, 0) < 0)
		return;
	for (int i = 0; i < 1500; i++) {
		struct keeper_answer ans;
		if (keeper_take_answer(chan, &ans) == 1 &&
		    ans.cookie == cookie) {
			static const char *kinds[] = {
			    [KEEPER_CONNECTING] = "connecting",
			    [KEEPER_FAILED] = "failed",
			    [KEEPER_FIRST_HOP] = "first hop",
			    [KEEPER_HOP_UNKNOWN] = "hop unknown",
			    [KEEPER_BUSY] = "busy"};
			fprintf(stderr, "lnk-test-attack: ask net: %s\n",
				kinds[ans.kind]);
			if (ans.fd >= 0)
				close(ans.fd);
			return;
		}
		struct timespec ms = {.tv_nsec = 10000000};
		nanosleep(&ms, NULL);
	}
	fprintf(stderr, "lnk-test-attack: ask net: no answer\n");
}
#endif

/* From here on the wire reads what the sandbox sends: confine it
 * (confine.h) and hand its seccomp listener to the keeper. */
static int wire_confine(struct wire *w, struct lnk_err *err)
{
	if (w->keeper < 0)
		return err_set(err, -EINVAL, "no keeper to confine it");
	dns_servers(w->dns, tell_keeper_dns, &w->keeper);
	struct confine_plan cp = {.db_path = w->wp->db_path};
	int notify_fd = -1;
	int r = confine_wire(&cp, &notify_fd, err);
	if (r < 0)
		return r;
	r = keeper_send_listener(w->keeper, notify_fd, err);
	close(notify_fd);
#ifdef LNK_TEST_HOOKS
	if (r == 0) {
		test_attack_net(w->keeper);
		test_attack();
	}
#endif
	return r;
}

static int wire_run(const struct wire_plan *wp, int handoff_fd, int lifeline_fd,
		    int keeper_fd, pid_t supervisor)
{
	struct wire w;
	struct lnk_err err = {0};
	int status = LNK_EXIT_FAIL;
	memset(&w, 0, sizeof(w));
	w.wp = wp;
	w.spare_fd = -1;
	w.route.fd = -1;
	w.route.watch = -1;
	w.keeper = keeper_fd;
	w.supervisor = supervisor;

	/* splice and send to a closed peer must not kill the wire */
	signal(SIGPIPE, SIG_IGN);
	size_t nofile = raise_nofile();
	/* Each call holds two sockets, and a busy one up to two splice
	 * pipes (four more): the calls take half of what is left after the
	 * wire's own, the pipes the other half; a call past both budgets is
	 * refused with a row (conn_accept), never left waiting for a
	 * descriptor. */
	w.max_conns = nofile > 128 ? (nofile - 64) / 4 : 16;
	w.pipe_budget = nofile > 128 ? (nofile - 64) - 2 * w.max_conns : 0;
	w.scratch = xmalloc(WIRE_SCRATCH);
	w.spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	if (filter_init(&w.filter, &wp->internet_hosts, &wp->lan_hosts,
			wp->ports, wp->nports, &err) < 0)
		goto out;
	/* opened now, before anything confines the wire: every call asks it
	 * whether an address is this machine or its network */
	int r = route_open(&w.route);
	if (r < 0) {
		err_set(&err, r, "cannot open a route socket: %s",
			strerror(-r));
		goto out;
	}
	if (loop_new(&w.loop, &err) < 0 ||
	    dns_new(&w.dns, w.loop, wp->dns_server, &err) < 0 ||
	    !(w.dnsd = dnsd_new(&w)) ||
	    db_writer_open(wp->db_path, wp->name, (long)getpid(), WIRE_TICK_MS,
			   &w.writer, &err) < 0 ||
	    wire_control_start(&w, &err) < 0 || model_tls_setup(&w, &err) < 0 ||
	    wire_confine(&w, &err) < 0 || db_writer_run(w.writer, &err) < 0)
		goto out;
	w.handoff = (struct loop_handler){.fn = on_handoff, .fd = handoff_fd};
	w.lifeline =
	    (struct loop_handler){.fn = on_lifeline, .fd = lifeline_fd};
	w.keeper_h =
	    (struct loop_handler){.fn = conn_keeper_input, .fd = w.keeper};
	if (loop_set(w.loop, &w.handoff, LOOP_IN) < 0 ||
	    loop_set(w.loop, &w.lifeline, LOOP_IN) < 0 ||
	    loop_set(w.loop, &w.keeper_h, LOOP_IN) < 0) {
		err_set(&err, -EINVAL, "cannot watch the wire's sockets");
		goto out;
	}
	int64_t next_tick = loop_now_ms() + WIRE_TICK_MS;
	while (!w.stopping) {
		int64_t now = loop_now_ms();
		int wait = next_tick > now ? (int)(next_tick - now) : 0;
		r = loop_once(w.loop, wait);
		if (r < 0) {
			err_set(&err, r, "the wire's loop failed: %s",
				strerror(-r));
			goto out;
		}
		dns_tick(w.dns);
		if (w.close_now) {
			/* closed within this batch: end the open calls */
			conn_end_open_calls(&w);
			w.close_now = false;
		}
		conn_reap(&w);
		now = loop_now_ms();
		if (now >= next_tick) {
			if (w.ctl)
				ctl_server_tick(w.ctl, now);
			wire_tell_keeper_closed(&w);
			wire_trip_told(&w);
			conn_tick(&w, now);
			conn_reap(&w);
			dnsd_tick(w.dnsd, now);
			wire_log_unlogged(&w, false);
			w.batch.lookups = w.lookups;
			db_writer_submit(w.writer, &w.batch, w.up, w.down);
			wire_log_health(&w);
			next_tick = now + WIRE_TICK_MS;
		}
	}
	status = w.failed ? LNK_EXIT_FAIL : 0;
out:
	if (status != 0 && err.msg[0])
		fprintf(stderr, "lnk: wire: %s\n", err.msg);
	wire_control_end(&w);
	conn_close_all(&w);
	conn_reap(&w);
	if (w.writer) {
		wire_log_unlogged(&w, true);
		w.batch.lookups = w.lookups;
		db_writer_submit(w.writer, &w.batch, w.up, w.down);
		db_writer_stop(w.writer);
	}
	db_batch_free(&w.batch);
	for (size_t i = 0; i < w.nlisteners; i++) {
		loop_del(w.loop, &w.listeners[i].h);
		close(w.listeners[i].h.fd);
	}
	free(w.listeners);
	dnsd_free(w.dnsd);
	dns_free(w.dns);
	loop_free(w.loop);
	filter_free(&w.filter);
	model_tls_free(&w);
	route_close(&w.route);
	free(w.scratch);
	if (w.spare_fd >= 0)
		close(w.spare_fd);
	return status;
}

/* A wire that ended before its sandbox is a row of the log too (verb
 * "wire", outcome failed): whoever reads the log later must see that the
 * calls stop there because the network was gone, not because the program
 * made none. The wire cannot write it (it is dead); its keeper does, on a
 * connection of its own. A log that cannot be written is said on stderr:
 * the line above has told the person already. */
static void log_wire_end(const struct wire_plan *wp, const char *why)
{
	if (!wp->db_path)
		return;
	struct db *db = NULL;
	struct lnk_err err = {0};
	struct db_batch b = {0};
	char reason[DB_REASON_MAX];
	snprintf(reason, sizeof(reason), "the wire %s; no network from then on",
		 why);
	db_batch_call(&b, 0, time(NULL), "wire", "", DB_FAILED, reason, 0, 0);
	if (db_open(wp->db_path, false, &db, &err) < 0 ||
	    db_record(db, wp->name, &b, &err) < 0)
		warnx_("call log: %s", err.msg);
	db_batch_free(&b);
	db_close(db);
}

/* The wire's keeper (keeper.c) serves the confined wire until it ends;
 * then, when it ended before its sandbox (killed, by its filter too,
 * crashed, or failed), this says so on lnk's stderr. The
 * sandbox is then without network: the listeners lived only in the wire
 * (fail closed), and the program must not be left to guess why. Normal
 * ends (the lifeline closed) are silent. */
static int watch_wire(const struct wire_plan *wp, int chan, pid_t wire,
		      const struct keeper_heard *heard)
{
	const char *name = wp->name;
	_cleanup_free_ char *sock =
	    wp->home ? ctl_socket_path(wp->home, wp->name) : NULL;
	int st = keeper_run(name, sock, wp->ports, wp->nports,
			    wp->lan_hosts.n > 0, chan, wire, heard);
	if (st < 0) {
		fprintf(stderr, "lnk: wire: its keeper cannot watch it: %s\n",
			strerror(-st));
		return LNK_EXIT_FAIL;
	}
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	char why[64];
	if (WIFSIGNALED(st))
		snprintf(why, sizeof(why), "was killed (signal %d)",
			 WTERMSIG(st));
	else
		snprintf(why, sizeof(why), "failed (status %d)",
			 WEXITSTATUS(st));
	char nm[REGISTRY_NAME_MAX + 1];
	ctl_printable(nm, sizeof(nm), name);
	char line[512];
	snprintf(line, sizeof(line),
		 "lnk: %s: the wire %s; the sandbox has no network from now "
		 "on (its program runs on)\n",
		 nm, why);
	term_write(STDERR_FILENO, line);
	log_wire_end(wp, why);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Moves fd to exactly target (which must be free or fd itself). */
static int move_fd(int fd, int target)
{
	if (fd == target)
		return fcntl(fd, F_SETFD, FD_CLOEXEC) < 0 ? -errno : 0;
	if (dup_cloexec_to(fd, target) < 0)
		return -errno;
	close(fd);
	return 0;
}

int wire_start(const struct wire_plan *wp, int handoff_fd, int lifeline_fd,
	       pid_t *pid, struct lnk_err *err)
{
	fflush(NULL);
	pid_t p = fork();
	if (p < 0)
		return err_set(err, -errno, "cannot start the wire: %s",
			       strerror(errno));
	if (p > 0) {
		*pid = p;
		return 0;
	}
	/* The child keeps only stderr, the handoff socket and the lifeline:
	 * holding the lifeline's write end (or the sandbox's end of the
	 * handoff) would keep it alive after the supervisor is gone. */
	setsid(); /* the terminal's ^C is for the program, not the wire */
	proc_set_name("lnk-wire");
	int h = fcntl(handoff_fd, F_DUPFD_CLOEXEC, 100);
	int l = fcntl(lifeline_fd, F_DUPFD_CLOEXEC, 100);
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (h < 0 || l < 0 || null < 0 || dup2(null, 0) < 0 ||
	    dup2(null, 1) < 0 || move_fd(h, 3) < 0 || move_fd(l, 4) < 0) {
		fprintf(stderr, "lnk: wire: cannot set up its descriptors\n");
		_exit(LNK_EXIT_FAIL);
	}
	close_from(5);
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGTSTP, SIG_IGN);
	pid_t supervisor = getppid();
	/* The routers heard by earlier wires (heard.h), this user's and the
	 * machine's, opened (and made, their room reserved) before the wire
	 * starts, so before the program can fill the disk. */
	struct keeper_heard heard = {KEEPER_HEARD_NONE, -1, -1};
	if (wp->home) {
		_cleanup_free_ char *hp = paths_routers_heard(wp->home);
		heard.own = heard_open(hp);
		heard.dir = heard_dir_open(HEARD_DIR);
		if (heard.dir >= 0)
			heard.mine = heard_dir_mine(heard.dir);
		if (heard.dir < 0)
			heard.dir = -1;
		if (heard.mine < 0)
			heard.mine = -1;
	}
	/* The keeper's channel: fixed-size messages (keeper.h). */
	int kp[2];
	if (socketpair_cloexec(AF_UNIX, SOCK_SEQPACKET, 0, kp) < 0) {
		fprintf(stderr, "lnk: wire: cannot set up its keeper\n");
		_exit(LNK_EXIT_FAIL);
	}
	pid_t wire = fork();
	if (wire < 0) {
		fprintf(stderr, "lnk: wire: cannot start: %s\n",
			strerror(errno));
		_exit(LNK_EXIT_FAIL);
	}
	if (wire == 0) {
		/* A session, and so a scheduling group (the kernel's
		 * autogroup), apart from its keeper's: in one group the
		 * keeper, woken by each ask, preempted the wire in the
		 * middle of its batch (bench/README.md, connections). */
		setsid();
		close(kp[0]);
		int hs[] = {heard.own, heard.dir, heard.mine};
		for (size_t i = 0; i < ARRAY_SIZE(hs); i++)
			if (hs[i] >= 0)
				close(hs[i]);
		_exit(wire_run(wp, 3, 4, kp[1], supervisor));
	}
	/* The keeper keeps neither end: the listeners must die with the
	 * wire, and the lifeline's end is the wire's alone. */
	close(3);
	close(4);
	close(kp[1]);
	proc_set_name("lnk-wire-keep");
	_exit(watch_wire(wp, kp[0], wire, &heard));
}
