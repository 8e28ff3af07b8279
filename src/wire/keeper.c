/* The keeper (see keeper.h). Everything the wire sends or asks is hostile:
 * after setup the wire may be an attacker's, so each message is decoded
 * into a checked struct first (one fixed size and form, proto/keeper.h),
 * setup messages end with the listener, and every address is checked
 * before the keeper makes a call with it.
 *
 * Over 1000 lines: one process with one loop: the wire's notified calls,
 * its connect asks with their first-hop probes and retries, and its setup
 * messages share the keeper's state (the rules, the probes, the waiting
 * asks); the probe itself and the routers heard are apart (hop.c,
 * heard.c). */
#include "wire/keeper.h"
#include "wire/route.h"

#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/compat.h"
#include "config.h"
#include "common/netns.h"
#include "common/util.h"
#include "wire/ctl.h"
#include "wire/heard.h"
#include "wire/hop.h"
#include "wire/near.h"

/* The channel's messages are proto/keeper.h's: the wire encodes each with
 * keeper_msg_encode, the keeper decodes each with keeper_msg_decode before
 * it acts, and answers with keeper_reply_encode. */

/* ---- the wire's side ---- */

/* One message to the keeper: 0, or -errno (-EIO when cut). */
static int send_msg(int chan, const struct keeper_msg *km, int flags)
{
	uint8_t m[KEEPER_MSG_SIZE];
	keeper_msg_encode(km, m);
	ssize_t n = send(chan, m, sizeof(m), flags | MSG_NOSIGNAL);
	if (n < 0)
		return -errno;
	return n == (ssize_t)sizeof(m) ? 0 : -EIO;
}

/* The keeper's word on a setup message: true when it took it. */
static bool keeper_took(int chan)
{
	uint8_t m[KEEPER_ANSWER_SIZE + 1];
	struct keeper_reply r;
	ssize_t n;
	while ((n = recv(chan, m, sizeof(m), 0)) < 0 && errno == EINTR)
		;
	return n > 0 && keeper_reply_decode(m, (size_t)n, &r) == 0 &&
	       r.kind == KEEPER_R_ACK;
}

int keeper_send_dns(int chan, const struct lnk_addr *a, uint16_t port)
{
	struct keeper_msg km = {.kind = KEEPER_M_DNS, .addr = *a, .port = port};
	return send_msg(chan, &km, 0) == 0 ? 0 : -EIO;
}

int keeper_send_listener(int chan, int notify_fd, struct lnk_err *err)
{
	struct keeper_msg km = {.kind = KEEPER_M_LISTENER, .fd = notify_fd};
	if (send_msg(chan, &km, 0) < 0)
		return err_set(err, -EIO, "cannot reach its keeper");
	if (!keeper_took(chan))
		return err_set(err, -EIO,
			       "its keeper did not take the seccomp "
			       "listener");
	return 0;
}

int keeper_bind_port(int chan, int fd, uint16_t port, struct lnk_err *err)
{
	struct keeper_msg km = {
	    .kind = KEEPER_M_BIND_PORT, .fd = fd, .port = port};
	if (send_msg(chan, &km, 0) < 0)
		return err_set(err, -EIO, "cannot reach its keeper");
	if (!keeper_took(chan))
		return err_set(err, -EADDRINUSE,
			       "cannot listen on the sandbox's 127.0.0.1 "
			       "port %u",
			       port);
	return 0;
}

int keeper_bind_dns(int chan, int fd, struct lnk_err *err)
{
	struct keeper_msg km = {.kind = KEEPER_M_BIND, .fd = fd};
	if (send_msg(chan, &km, 0) < 0)
		return err_set(err, -EIO, "cannot reach its keeper");
	if (!keeper_took(chan))
		return err_set(err, -EADDRINUSE,
			       "cannot serve DNS on the sandbox's "
			       "127.0.0.1:53");
	return 0;
}

void keeper_send_trip(int chan, const struct trip_verdict *v)
{
	struct keeper_msg km = {.kind = KEEPER_M_TRIP, .rule = v->rule};
	ctl_printable(km.target, sizeof(km.target), v->target);
	(void)send_msg(chan, &km, MSG_DONTWAIT);
}

int keeper_send_closed(int chan)
{
	struct keeper_msg km = {.kind = KEEPER_M_CLOSED};
	int r = send_msg(chan, &km, MSG_DONTWAIT);
	return r == -ENOBUFS ? -EAGAIN : r;
}

int keeper_ask_connect(int chan, uint64_t cookie, const struct lnk_addr *a,
		       uint16_t port, unsigned flags)
{
	struct keeper_msg km = {.kind = KEEPER_M_CONNECT,
				.addr = *a,
				.port = port,
				.flags = flags,
				.cookie = cookie,
				.cpu = near_cpu_now()};
	int r = send_msg(chan, &km, MSG_DONTWAIT);
	if (r == 0)
		return 0;
	return r == -EAGAIN || r == -ENOBUFS ? -EAGAIN : -EIO;
}

int keeper_take_answer(int chan, struct keeper_answer *ans)
{
	uint8_t m[KEEPER_ANSWER_SIZE + 1];
	union {
		char b[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = {.iov_base = m, .iov_len = sizeof(m)};
	struct msghdr mh = {.msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = ctl.b,
			    .msg_controllen = sizeof(ctl.b)};
	ssize_t n = recvmsg(chan, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -EIO;
	if (n == 0)
		return -EIO;
	int fd = -1;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
		    c->cmsg_len == CMSG_LEN(sizeof(int)) && fd < 0)
			memcpy(&fd, CMSG_DATA(c), sizeof(int));
	memset(ans, 0, sizeof(*ans));
	ans->fd = -1;
	struct keeper_reply r;
	bool whole = keeper_reply_decode(m, (size_t)n, &r) == 0 &&
		     r.kind == KEEPER_R_ANSWER;
	if (!whole || (mh.msg_flags & MSG_CTRUNC) ||
	    (r.answer == KEEPER_CONNECTING) != (fd >= 0)) {
		if (fd >= 0)
			close(fd);
		ans->kind = KEEPER_FAILED;
		/* A whole answer whose socket could not be received (no
		 * descriptor left here) fails its call now, with its row,
		 * rather than leave it waiting for its connect's timeout. */
		ans->error =
		    whole && (mh.msg_flags & MSG_CTRUNC) ? EMFILE : EPROTO;
		ans->cookie = whole ? r.cookie : UINT64_MAX;
		return 1;
	}
	ans->cookie = r.cookie;
	ans->kind = r.answer;
	ans->error = r.error;
	ans->fd = fd;
	return 1;
}

/* ---- the check ---- */

bool keeper_is_local(void *rs, const struct lnk_addr *a)
{
	/* The routing table's answer for this exact address, as the wire's
	 * filter asks it (route.c): a local route (an interface's address,
	 * AnyIP) is this machine. No answer counts as this machine too, so
	 * the keeper fails closed. A bind probe would be fooled by
	 * net.ipv4.ip_nonlocal_bind. */
	struct route_sock own;
	struct route_sock *use = rs;
	if (!use) {
		if (route_open(&own) < 0)
			return true;
		use = &own;
	}
	enum route_where w = route_lookup(use, a);
	if (use == &own)
		route_close(&own);
	return w == ROUTE_LOCAL || w == ROUTE_NONE;
}

static bool port_granted(const struct keeper_rules *kr, uint16_t port)
{
	for (size_t i = 0; i < kr->nports; i++)
		if (kr->ports[i] == port)
			return true;
	return false;
}

static bool dns_server(const struct keeper_rules *kr, const struct lnk_addr *a,
		       uint16_t port)
{
	for (size_t i = 0; i < kr->ndns; i++)
		if (kr->dns_port[i] == port && addr_equal(&kr->dns[i], a))
			return true;
	return false;
}

/* The port of an internet address, 0 for another family. */
static uint16_t ss_port(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)ss)->sin_port);
	if (ss->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
	return 0;
}

/* One of the wire's DNS servers, also as an IPv4-mapped address. */
static bool resolver(const struct keeper_rules *kr, const struct lnk_addr *a,
		     uint16_t port)
{
	struct lnk_addr inner;
	return dns_server(kr, a, port) ||
	       (addr_v4_mapped(a, &inner) && dns_server(kr, &inner, port));
}

int keeper_dest_check(const struct keeper_rules *kr, int domain,
		      const struct sockaddr *sa, socklen_t len,
		      const char **why)
{
	*why = "";
	if (len < (socklen_t)sizeof(sa_family_t))
		return -EINVAL;
	if (domain == AF_NETLINK) {
		const struct sockaddr_nl *nl = (const struct sockaddr_nl *)sa;
		if (sa->sa_family != AF_NETLINK || len < sizeof(*nl))
			return -EINVAL;
		if (nl->nl_pid != 0 || nl->nl_groups != 0) {
			*why = "netlink to another process";
			return -EACCES;
		}
		return 0;
	}
	if (domain != AF_INET && domain != AF_INET6) {
		*why = "not an internet socket";
		return -EACCES;
	}
	if (sa->sa_family == AF_UNSPEC)
		return 0; /* dissolves a datagram socket's association */
	socklen_t need = sa->sa_family == AF_INET ? sizeof(struct sockaddr_in)
			 : sa->sa_family == AF_INET6
			     ? sizeof(struct sockaddr_in6)
			     : 0;
	if (!need) {
		*why = "not an internet address";
		return -EAFNOSUPPORT;
	}
	if (len < need)
		return -EINVAL;
	struct lnk_addr a;
	if (addr_from_sockaddr(sa, &a) < 0)
		return -EINVAL;
	uint16_t port =
	    ntohs(sa->sa_family == AF_INET
		      ? ((const struct sockaddr_in *)sa)->sin_port
		      : ((const struct sockaddr_in6 *)sa)->sin6_port);
	/* the IPv4 address a mapped one is; those another form embeds only
	 * add reasons to call it this machine (addr.h) */
	struct lnk_addr inner = a, e[ADDR_EMBED_MAX];
	bool mapped = addr_v4_mapped(&a, &inner);
	size_t ne = addr_embedded(&a, e);
	enum addr_class c = addr_classify(&a);
	/* Azure's platform DNS answers at its WireServer's address: the
	 * machine's DNS server there, on its port only. */
	if (c == AC_METADATA && !resolver(kr, &a, port)) {
		*why = "a cloud metadata address";
		return -EACCES;
	}
	bool here = c == AC_LOOPBACK || c == AC_UNSPECIFIED ||
		    kr->is_local(kr->local_ctx, &a);
	for (size_t i = 0; i < ne && !here; i++)
		here = kr->is_local(kr->local_ctx, &e[i]);
	if (!here)
		return 0; /* the wire's own filter decided this one */
	/* --port P: the wire connects to 127.0.0.1:P or [::1]:P, nothing
	 * else of loopback */
	static const struct lnk_addr lo4 = {.family = AF_INET,
					    .a = {127, 0, 0, 1}};
	static const struct lnk_addr lo6 = {.family = AF_INET6,
					    .a = {[15] = 1}};
	if ((addr_equal(&inner, &lo4) || addr_equal(&a, &lo6)) &&
	    port_granted(kr, port))
		return 0;
	if (dns_server(kr, &a, port) ||
	    (mapped && dns_server(kr, &inner, port)))
		return 0;
	*why = "this machine";
	return -EACCES;
}

/* ---- the keeper's side ---- */

/* First-hop probes at once; a connect that finds none free waits for
 * one (the wire's connect deadline bounds the wait). */
#define KEEPER_PROBES_MAX 16

struct probe {
	int fd; /* -1: free */
	struct lnk_addr a;
	uint16_t port;
	int64_t deadline;
	uint64_t gen; /* hop_gen when it was sent */
};

/* The routers this wire noted in the routers file since the last routing
 * change: each is written once, not at every probe it answers. */
#define KEEPER_NOTED_MAX 8

/* A connect waiting for its address's probe. */
struct waiting {
	bool used;
	uint64_t cookie;
	struct lnk_addr a;
	uint16_t port;
	int probe;
	int tries;	  /* probes asked again after silence */
	int64_t again_ms; /* when to ask again; 0: not waiting for that */
};

struct keeper {
	const char *name;
	struct keeper_rules kr;
	pid_t wire;
	int pidfd;
	int chan;
	int notify; /* -1 until the wire hands it over */
	bool setup_done;
	int64_t last_desktop_ms;
	int64_t last_refusal_ms;
	uint64_t netns;	  /* the keeper's own network namespace (its cookie) */
	const char *sock; /* the wire's control socket, or NULL */
	dev_t sock_dev;	  /* and its identity once the wire made it */
	ino_t sock_ino;
	struct hop_cache
	    *hops;	/* the first-hop verdicts, for the wire's life */
	bool hop_heard; /* the first router has answered a probe (hop.h) */
	int heard;	/* the routers heard by earlier wires (heard.h) */
	int heard_dir;	/* the machine's folder of them, or -1 */
	int heard_mine; /* this user's file in it, or -1 */
	char noted[KEEPER_NOTED_MAX][HEARD_KEY_MAX];
	size_t nnoted;
	uint64_t hop_gen; /* the route socket's changes they were made under */
	struct probe probes[KEEPER_PROBES_MAX];
	struct waiting waits[KEEPER_ASKS_MAX];
	int spare[2];	  /* made ahead: IPv4's, IPv6's; -1: none */
	struct near near; /* on the wire's CPU (near.h) */
};

static int take_fd(struct keeper *k, uint64_t remote_fd)
{
	if (remote_fd > INT32_MAX)
		return -EBADF;
	int fd = (int)syscall(SYS_pidfd_getfd, k->pidfd, (int)remote_fd, 0);
	return fd < 0 ? -errno : fd;
}

static int read_mem(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = {.iov_base = buf, .iov_len = len};
	struct iovec remote = {.iov_base = (void *)(uintptr_t)addr,
			       .iov_len = len};
	ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	return n == (ssize_t)len ? 0 : -EFAULT;
}

/* The wire's filter never asks for what the keeper refuses: a refusal
 * means the wire went wrong. One line a second at most, so that a wire
 * gone bad cannot flood the terminal. */
static void say_refused(struct keeper *k, const char *call,
			const struct sockaddr *sa, const char *why)
{
	int64_t now = mono_ms();
	if (k->last_refusal_ms && now - k->last_refusal_ms < 1000)
		return;
	k->last_refusal_ms = now;
	char nm[64], where[64] = "?";
	ctl_printable(nm, sizeof(nm), k->name);
	struct lnk_addr a;
	if ((sa->sa_family == AF_INET || sa->sa_family == AF_INET6) &&
	    addr_from_sockaddr(sa, &a) == 0)
		addr_format(&a, where, sizeof(where));
	fprintf(stderr,
		"lnk: %s: the wire's keeper refused its %s to %s (%s)\n", nm,
		call, where, why);
}

/* Whether fd is a socket of another network namespace than the
 * keeper's: one the sandbox handed the wire (the wire makes its own in
 * the keeper's). The sandbox's namespace has loopback only. */
static bool sandbox_socket(const struct keeper *k, int fd)
{
	uint64_t c = netns_cookie(fd);
	return k->netns && c && c != k->netns;
}

/* The sandbox's DNS socket (keeper_bind_dns): bound to its 127.0.0.1:53
 * by common/netns.h's one rule, which a hijacked wire must not turn into
 * a port of this machine. */
static bool bind_dns(struct keeper *k, uint32_t remote)
{
	int fd = take_fd(k, remote);
	if (fd < 0)
		return false;
#ifdef LNK_TEST_HOOKS
	/* TEST BUILDS ONLY (meson -Dtest_hooks=true): LNK_TEST_SLOW_DNS_BIND=
	 * MS binds the sandbox's resolver that much later, as a loaded
	 * machine may: the program must not start before it is bound. */
	const char *slow = getenv("LNK_TEST_SLOW_DNS_BIND");
	if (slow) {
		long ms = strtol(slow, NULL, 10);
		struct timespec t = {.tv_sec = ms / 1000,
				     .tv_nsec = (ms % 1000) * 1000000};
		nanosleep(&t, NULL);
	}
#endif
	bool ok = netns_bind_dns(fd, k->netns);
	close(fd);
	return ok;
}

/* A --port listener below the unprivileged ports (keeper_bind_port):
 * only a port the sandbox was granted, only on a socket of the
 * sandbox's own namespace, only its 127.0.0.1 (common/netns.h): a
 * hijacked wire cannot make it a port of this machine, nor one nobody
 * granted. */
static bool bind_port(struct keeper *k, uint32_t remote, uint16_t port)
{
	if (!port_granted(&k->kr, port))
		return false;
	int fd = take_fd(k, remote);
	if (fd < 0)
		return false;
	bool ok = netns_bind_port(fd, k->netns, port);
	close(fd);
	return ok;
}

/* connect(fd, addr, len) or sendto(fd, buf, n, flags, addr, len), made
 * here on the wire's own socket once the address is checked. The address
 * and data are copied first, so the wire cannot change them after. */
static int64_t serve_call(struct keeper *k, const struct seccomp_notif *rq,
			  int *error)
{
	bool is_connect = rq->data.nr == SCMP_SYS(connect);
	uint64_t addr_p = is_connect ? rq->data.args[1] : rq->data.args[4];
	uint64_t alen = is_connect ? rq->data.args[2] : rq->data.args[5];
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof(ss));
	if (alen > sizeof(ss) || alen < sizeof(sa_family_t)) {
		*error = -EINVAL;
		return 0;
	}
	if (read_mem(rq->pid, addr_p, &ss, (size_t)alen) < 0) {
		*error = -EFAULT;
		return 0;
	}
	uint8_t *data = NULL;
	size_t dlen = 0;
	if (!is_connect) {
		dlen = (size_t)rq->data.args[2];
		if (dlen > 65536) {
			*error = -EMSGSIZE;
			return 0;
		}
		data = xmalloc(dlen ? dlen : 1);
		if (dlen && read_mem(rq->pid, rq->data.args[1], data, dlen)) {
			free(data);
			*error = -EFAULT;
			return 0;
		}
	}
	/* Still the same pending call: what was read is that call's. */
	if (ioctl(k->notify, SECCOMP_IOCTL_NOTIF_ID_VALID, &rq->id) < 0) {
		free(data);
		*error = -ENOENT;
		return 0;
	}
	int fd = take_fd(k, rq->data.args[0]);
	if (fd < 0) {
		free(data);
		*error = fd;
		return 0;
	}
	int domain = 0;
	socklen_t dl = sizeof(domain);
	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &dl) < 0) {
		*error = errno == ENOTSOCK ? -ENOTSOCK : -EBADF;
		close(fd);
		free(data);
		return 0;
	}
	const char *why = "";
	int r = sandbox_socket(k, fd)
		    ? 0 /* the sandbox's namespace: its loopback only */
		    : keeper_dest_check(&k->kr, domain, (struct sockaddr *)&ss,
					(socklen_t)alen, &why);
	/* Without a [lan] grant the wire's own calls on this machine's
	 * network go to its DNS servers and nowhere else: every other
	 * connect it asks on the channel (on_connect). Threat: a wire taken
	 * over connects itself to the LAN, or to the router's port forward
	 * back to this machine, past the first-hop probe. */
	struct lnk_addr da;
	if (r == 0 && !k->kr.lan_granted && !sandbox_socket(k, fd) &&
	    (domain == AF_INET || domain == AF_INET6) &&
	    ss.ss_family != AF_UNSPEC &&
	    (addr_from_sockaddr((struct sockaddr *)&ss, &da) < 0 ||
	     !resolver(&k->kr, &da, ss_port(&ss)))) {
		r = -EACCES;
		why = "not one of its DNS servers";
	}
	int64_t val = 0;
	if (r == -EACCES)
		say_refused(k, is_connect ? "connect" : "send",
			    (struct sockaddr *)&ss, why);
	if (r == 0 && is_connect) {
		if (connect(fd, (struct sockaddr *)&ss, (socklen_t)alen) < 0)
			r = -errno;
	} else if (r == 0) {
		ssize_t n =
		    sendto(fd, data, dlen,
			   (int)rq->data.args[3] | MSG_DONTWAIT | MSG_NOSIGNAL,
			   (struct sockaddr *)&ss, (socklen_t)alen);
		if (n < 0)
			r = -errno;
		else
			val = n;
	}
	close(fd);
	free(data);
	*error = r;
	return val;
}

static void on_notify(struct keeper *k)
{
	struct seccomp_notif *rq = NULL;
	struct seccomp_notif_resp *rs = NULL;
	if (seccomp_notify_alloc(&rq, &rs) < 0)
		return;
	/* A call withdrawn after poll (the wire was killed in it) would
	 * leave the receive waiting for the next one, forever once the wire
	 * is gone: a timer interrupts it (SIGALRM, no SA_RESTART). */
	struct itimerval t = {.it_value = {.tv_sec = 1}};
	setitimer(ITIMER_REAL, &t, NULL);
	memset(rq, 0, sizeof(*rq));
	int r = ioctl(k->notify, SECCOMP_IOCTL_NOTIF_RECV, rq);
	memset(&t, 0, sizeof(t));
	setitimer(ITIMER_REAL, &t, NULL);
	if (r < 0) {
		seccomp_notify_free(rq, rs);
		return;
	}
	rs->id = rq->id;
	rs->flags = 0;
	rs->val = 0;
	rs->error = -EPERM;
	if (rq->data.nr == SCMP_SYS(connect) ||
	    rq->data.nr == SCMP_SYS(sendto)) {
		int error = 0;
		rs->val = serve_call(k, rq, &error);
		rs->error = error;
	}
	(void)ioctl(k->notify, SECCOMP_IOCTL_NOTIF_SEND, rs);
	seccomp_notify_free(rq, rs);
}

/* The answer to a connect; fd (if any) goes with it and is closed here. The
 * wire has at most KEEPER_ASKS_MAX connects unanswered, so the answers fit
 * its channel and the send never waits (a wire that asks more than that
 * loses answers: its own calls time out). */
static void answer(struct keeper *k, uint64_t cookie,
		   enum keeper_answer_kind kind, int error, int fd)
{
	struct keeper_reply r = {.kind = KEEPER_R_ANSWER,
				 .answer = kind,
				 .error = error,
				 .cookie = cookie};
	uint8_t m[KEEPER_ANSWER_SIZE];
	keeper_reply_encode(&r, m);
	union {
		char b[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	memset(&ctl, 0, sizeof(ctl));
	struct iovec iov = {.iov_base = m, .iov_len = sizeof(m)};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
	if (fd >= 0) {
		mh.msg_control = ctl.b;
		mh.msg_controllen = sizeof(ctl.b);
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	if (k->chan >= 0)
		(void)!sendmsg(k->chan, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (fd >= 0)
		close(fd);
}

/* A new TCP socket of family, not blocking, for the wire: -1 with
 * errno on failure. */
static int new_socket(int family)
{
	int fd = socket_cloexec(family, SOCK_STREAM, 0, COMPAT_NONBLOCK);
	if (fd < 0)
		return -1;
	/* the wire relays small writes at once (as on its own sockets) */
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

/* The keeper's own socket, connecting without blocking, for the wire.
 * It was made ahead (an unconnected socket is no call: nothing leaves
 * until connect), so the wire waits for the connect only; the next one
 * is made after the answer. */
static void make_connect(struct keeper *k, uint64_t cookie,
			 const struct lnk_addr *a, uint16_t port)
{
	struct sockaddr_storage ss;
	socklen_t len = addr_to_sockaddr(a, port, &ss);
	int *spare = &k->spare[a->family == AF_INET6];
	int fd = *spare >= 0 ? *spare : new_socket(a->family);
	*spare = -1;
	if (fd < 0) {
		answer(k, cookie, KEEPER_FAILED, errno, -1);
		return;
	}
	if (connect(fd, (struct sockaddr *)&ss, len) < 0 &&
	    errno != EINPROGRESS) {
		int e = errno;
		close(fd);
		answer(k, cookie, KEEPER_FAILED, e, -1);
	} else {
		answer(k, cookie, KEEPER_CONNECTING, 0, fd);
	}
	*spare = new_socket(a->family);
}

/* What the verdict on an address means for a connect that waited on it. */
static void act_on(struct keeper *k, uint64_t cookie, const struct lnk_addr *a,
		   uint16_t port, enum hop_verdict v)
{
	switch (v) {
	case HOP_FARTHER:
	case HOP_QUIET:
		make_connect(k, cookie, a, port);
		return;
	case HOP_FIRST:
		answer(k, cookie, KEEPER_FIRST_HOP, EACCES, -1);
		return;
	case HOP_UNKNOWN:
		answer(k, cookie, KEEPER_HOP_UNKNOWN, ETIMEDOUT, -1);
		return;
	}
}

/* Gives waiting connect j a probe of its address: one under way, or a new
 * one in a free slot; with none free it stays waiting (probe -1) until a
 * probe ends. */
static void assign_probe(struct keeper *k, int j)
{
	struct waiting *wt = &k->waits[j];
	int free_p = -1;
	for (int i = 0; i < KEEPER_PROBES_MAX; i++) {
		/* only a probe of the same port: its silence says nothing
		 * of another port (hop.h) */
		if (k->probes[i].fd >= 0 && k->probes[i].port == wt->port &&
		    addr_equal(&k->probes[i].a, &wt->a)) {
			wt->probe = i;
			return;
		}
		if (k->probes[i].fd < 0 && free_p < 0)
			free_p = i;
	}
	if (free_p < 0)
		return;
	int fd;
	int r = hop_probe_start(&wt->a, wt->port, &fd);
	if (r < 0) {
		wt->used = false;
		answer(k, wt->cookie, KEEPER_FAILED, -r, -1);
		return;
	}
	k->probes[free_p] = (struct probe){.fd = fd,
					   .a = wt->a,
					   .port = wt->port,
					   .deadline = mono_ms() + HOP_PROBE_MS,
					   .gen = k->hop_gen};
	wt->probe = free_p;
}

/* The connects that wait for a probe: for a free slot, or for the time
 * to ask again after silence. */
static void assign_waiting(struct keeper *k, int64_t now)
{
	for (int j = 0; j < KEEPER_ASKS_MAX; j++) {
		struct waiting *wt = &k->waits[j];
		if (!wt->used || wt->probe >= 0 ||
		    (wt->again_ms && wt->again_ms > now))
			continue;
		wt->again_ms = 0;
		/* another call's probe may have judged the address since */
		enum hop_verdict v = hop_cache_get(k->hops, &wt->a, wt->port);
		if (v != HOP_UNKNOWN && !(v == HOP_QUIET && k->hop_heard)) {
			wt->used = false;
			act_on(k, wt->cookie, &wt->a, wt->port, v);
			continue;
		}
		assign_probe(k, j);
	}
}

/* A change of the routing the kernel announced (the route socket's watch,
 * read by the check just made) may put a new first router in front:
 * an address beyond the old one can be the new one's own (a laptop moved
 * to another network). Every verdict is dropped and the new router is
 * not yet heard, as when the wire started. Without a watch the verdicts
 * stay for the wire's life. */
static void forget_hops_on_change(struct keeper *k)
{
	const struct route_sock *rs = k->kr.local_ctx;
	if (!rs || rs->gen == k->hop_gen)
		return;
	k->hop_gen = rs->gen;
	memset(k->hops, 0, sizeof(*k->hops));
	k->hop_heard = false;
	k->nnoted = 0;
}

/* The first router of a connection to a, named for the routers file
 * (heard.h): 0, or -errno when it has no name. */
static int router_key(struct keeper *k, const struct lnk_addr *a, char *key,
		      size_t cap)
{
	struct route_sock *rs = k->kr.local_ctx;
	struct route_router r;
	if (!rs)
		return -EBADF;
	int e = route_router_of(rs, a, &r);
	return e < 0 ? e : heard_key(&r, key, cap);
}

/* This wire has just heard the first router of a connection to a: kept
 * for the wires after it. Every router heard, not only the wire's first:
 * on a machine with two first routers, one the wires heard only after
 * the other would have no record, and a later wire would take its
 * silence (its errors spent by another sandbox) for a router that never
 * answers. A record that cannot be written costs only a later wire's
 * trust in silence (its keeper asks again). */
static void note_heard(struct keeper *k, const struct lnk_addr *a)
{
	char key[HEARD_KEY_MAX];
	if (k->heard < 0 || router_key(k, a, key, sizeof(key)) != 0)
		return;
	for (size_t i = 0; i < k->nnoted; i++)
		if (strcmp(k->noted[i], key) == 0)
			return;
	(void)heard_note(k->heard, key, time(NULL));
	if (k->heard_mine >= 0)
		(void)heard_note(k->heard_mine, key, time(NULL));
	if (k->nnoted < KEEPER_NOTED_MAX)
		memcpy(k->noted[k->nnoted++], key, sizeof(key));
}

/* Silence from a first router this wire has not heard: the router's way
 * (one that never answers) only when no wire of this user heard it, nor
 * any user's in the machine's folder (heard.h: another user's program
 * can spend the router's errors). Not knowing (no file, a router with no
 * name) refuses, unless no file is kept at all (KEEPER_HEARD_NONE). */
static bool silence_is_the_networks(struct keeper *k, const struct lnk_addr *a)
{
	if (k->heard == KEEPER_HEARD_NONE)
		return true;
	char key[HEARD_KEY_MAX];
	if (k->heard < 0)
		return false;
	int e = router_key(k, a, key, sizeof(key));
	if (e == -ENOENT)
		/* a router that cannot be named (no link-layer address)
		 * cannot be told from another network's: as before any
		 * record, the network's way */
		return true;
	time_t now = time(NULL);
	return e == 0 && !heard_knows(k->heard, key, now) &&
	       !(k->heard_dir >= 0 && heard_dir_knows(k->heard_dir, key, now));
}

static void probe_done(struct keeper *k, int i, enum hop_verdict v)
{
	struct probe *p = &k->probes[i];
	if (v != HOP_UNKNOWN) {
		note_heard(k, &p->a);
		k->hop_heard = true;
	} else if (!k->hop_heard) {
		if (silence_is_the_networks(k, &p->a))
			v = HOP_QUIET; /* a network whose first router is
					* silent */
		else
			k->hop_heard = true; /* heard before: silence is
					      * spent errors */
	}
	/* a verdict of the network before a change decides its own waiting
	 * connects (sent before the change), and is not kept */
	if (p->gen == k->hop_gen)
		hop_cache_put(k->hops, &p->a, p->port, v);
	close(p->fd);
	p->fd = -1;
	int64_t now = mono_ms();
	for (size_t j = 0; j < KEEPER_ASKS_MAX; j++) {
		struct waiting *wt = &k->waits[j];
		if (!wt->used || wt->probe != i)
			continue;
		/* Silence from a router that answers: most often its limit
		 * on errors to this host (a Linux router's: a burst of 6,
		 * then one a second), met by a program that calls many new
		 * addresses at once. Asked again a second later, a few
		 * times, while the call may still wait; silence never
		 * passes. */
		if (v == HOP_UNKNOWN && wt->tries < HOP_RETRIES) {
			wt->tries++;
			wt->probe = -1;
			wt->again_ms = now + HOP_RETRY_MS;
			continue;
		}
		wt->used = false;
		act_on(k, wt->cookie, &wt->a, wt->port, v);
	}
	assign_waiting(k, now);
}

/* The keeper's word on a setup message of the wire's. */
static void reply(struct keeper *k, enum keeper_reply_kind kind)
{
	struct keeper_reply r = {.kind = kind};
	uint8_t m[KEEPER_ANSWER_SIZE];
	keeper_reply_encode(&r, m);
	(void)!send(k->chan, m, sizeof(m), MSG_NOSIGNAL);
}

/* A door of this machine keeper_dest_check lets through: a granted
 * --port on loopback, or a DNS server. */
static bool door(const struct keeper_rules *kr, const struct lnk_addr *a,
		 uint16_t port)
{
	static const struct lnk_addr lo4 = {.family = AF_INET,
					    .a = {127, 0, 0, 1}};
	static const struct lnk_addr lo6 = {.family = AF_INET6,
					    .a = {[15] = 1}};
	return ((addr_equal(a, &lo4) || addr_equal(a, &lo6)) &&
		port_granted(kr, port)) ||
	       resolver(kr, a, port);
}

/* Where a connection to a goes, as the wire's filter asks it (route.h);
 * no route socket is no answer (refused). */
static enum route_where where_is(struct keeper *k, const struct lnk_addr *a)
{
	struct route_sock own, *rs = k->kr.local_ctx;
	if (!rs) {
		if (route_open(&own) < 0)
			return ROUTE_NONE;
		rs = &own;
	}
	enum route_where w = route_where_for(rs, a);
	if (rs == &own)
		route_close(&own);
	return w;
}

/* Whether an IPv6 address embeds an IPv4 one (6to4, NAT64, Teredo,
 * ISATAP: net/addr.h) already judged the first router's own: a relay or a
 * translator would carry the call to the router's public address (and a
 * port forward on it) that the plain spelling is refused. An embedded
 * address not yet judged is not probed here: the IPv6 address is, as
 * any other. */
static bool embeds_first_hop(const struct keeper *k, const struct lnk_addr *a,
			     uint16_t port)
{
	struct lnk_addr e[ADDR_EMBED_MAX];
	size_t n = addr_embedded(a, e);
	for (size_t i = 0; i < n; i++)
		if (hop_cache_get(k->hops, &e[i], port) == HOP_FIRST)
			return true;
	return false;
}

/* 'C': the wire asks for a connection to an address it checked; the
 * keeper checks it again (keeper_dest_check) and, for an address the wire
 * may reach as internet only, knows or asks whether it is the first
 * router's own (hop.h) before it connects. bad: the decoder's refusal of
 * the message (0 when it is well formed). */
static void on_connect(struct keeper *k, const struct keeper_msg *m, int bad)
{
	uint64_t cookie = m->cookie;
	if (bad < 0 || !k->setup_done) {
		answer(k, cookie, KEEPER_FAILED, bad < 0 ? -bad : EAFNOSUPPORT,
		       -1);
		return;
	}
	near_follow(&k->near, m->cpu);
	struct lnk_addr a = m->addr, v4;
	/* an IPv4-mapped address is the IPv4 address it maps: connect (and
	 * probe) that one, with an IPv4 socket */
	if (addr_v4_mapped(&a, &v4))
		a = v4;
	uint16_t port = m->port;
	struct sockaddr_storage ss;
	socklen_t len = addr_to_sockaddr(&a, port, &ss);
	const char *why = "";
	int r = keeper_dest_check(&k->kr, a.family, (struct sockaddr *)&ss, len,
				  &why);
	if (r < 0) {
		if (r == -EACCES)
			say_refused(k, "connect", (struct sockaddr *)&ss, why);
		answer(k, cookie, KEEPER_FAILED, -r, -1);
		return;
	}
	unsigned flags = m->flags;
	if (!k->kr.lan_granted && !door(&k->kr, &a, port)) {
		/* no [lan] grant: the internet only, its first hop probed,
		 * whatever a wire taken over asked (keeper.h) */
		if (embeds_first_hop(k, &a, port)) {
			say_refused(k, "connect", (struct sockaddr *)&ss,
				    "it embeds the first router's own address");
			answer(k, cookie, KEEPER_FIRST_HOP, EACCES, -1);
			return;
		}
		if (where_is(k, &a) != ROUTE_INTERNET) {
			say_refused(k, "connect", (struct sockaddr *)&ss,
				    "this machine's network");
			answer(k, cookie, KEEPER_FAILED, EACCES, -1);
			return;
		}
		flags |= KEEPER_ASK_FIRST_HOP;
	}
	if (!(flags & KEEPER_ASK_FIRST_HOP)) {
		make_connect(k, cookie, &a, port);
		return;
	}
	forget_hops_on_change(k);
	enum hop_verdict v = hop_cache_get(k->hops, &a, port);
	if (v != HOP_UNKNOWN && !(v == HOP_QUIET && k->hop_heard)) {
		act_on(k, cookie, &a, port, v);
		return;
	}
	int w = -1;
	for (int j = 0; j < KEEPER_ASKS_MAX && w < 0; j++)
		if (!k->waits[j].used)
			w = j;
	if (w < 0) {
		/* more than the wire ever has unanswered */
		answer(k, cookie, KEEPER_BUSY, EAGAIN, -1);
		return;
	}
	k->waits[w] = (struct waiting){
	    .used = true, .cookie = cookie, .a = a, .port = port, .probe = -1};
	assign_probe(k, w);
}

static void on_trip(struct keeper *k, const struct keeper_msg *m)
{
	struct trip_verdict v;
	memset(&v, 0, sizeof(v));
	v.rule = m->rule;
	snprintf(v.target, sizeof(v.target), "%s", m->target);
	/* A wire gone bad must not flood the desktop: one a second. */
	int64_t now = mono_ms();
	if (k->last_desktop_ms && now - k->last_desktop_ms < 1000)
		return;
	k->last_desktop_ms = now;
	/* notify-send gets the keeper's whole CPU set, not its one CPU */
	near_release(&k->near);
	ctl_notify_trip(k->name, &v, STDERR_FILENO);
}

static void on_chan_one(struct keeper *k, const struct keeper_msg *m, int r);

/* The wire closed: the connects waiting for a probe are dropped, each
 * answered so that the wire's slot for it is free again. */
static void on_closed(struct keeper *k)
{
	for (int j = 0; j < KEEPER_ASKS_MAX; j++) {
		struct waiting *wt = &k->waits[j];
		if (!wt->used)
			continue;
		wt->used = false;
		answer(k, wt->cookie, KEEPER_FAILED, ECANCELED, -1);
	}
}

/* Every message waiting, up to a bound, in one call (the wire's
 * connects come in bursts: one wake-up and one receive serve them all),
 * each decoded on its own (on_chan_one; one longer than a message reads
 * as one byte too long); one of none is the channel's end (a
 * SOCK_SEQPACKET peer's close reads as one). */
#define CHAN_BATCH 16
static void on_chan(struct keeper *k)
{
	static_assert(KEEPER_ASKS_MAX % CHAN_BATCH == 0, "whole batches");
	for (int round = 0; round < KEEPER_ASKS_MAX / CHAN_BATCH; round++) {
		uint8_t m[CHAN_BATCH][KEEPER_MSG_SIZE + 1];
		struct iovec iov[CHAN_BATCH];
		struct mmsghdr mm[CHAN_BATCH];
		memset(mm, 0, sizeof(mm));
		for (int i = 0; i < CHAN_BATCH; i++) {
			iov[i] = (struct iovec){.iov_base = m[i],
						.iov_len = sizeof(m[i])};
			mm[i].msg_hdr.msg_iov = &iov[i];
			mm[i].msg_hdr.msg_iovlen = 1;
		}
		if (k->chan < 0)
			return;
		int n = recvmmsg(k->chan, mm, CHAN_BATCH, MSG_DONTWAIT, NULL);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n <= 0) {
			close(k->chan);
			k->chan = -1;
			return;
		}
		/* Decoded first: a connect asked before the wire closed,
		 * read in the same batch as the close, is never made (the
		 * wire may have paused for a tripwire that very call set
		 * off). */
		struct keeper_msg km[CHAN_BATCH];
		int kr[CHAN_BATCH], closed_at = -1;
		for (int i = 0; i < n; i++) {
			kr[i] = keeper_msg_decode(m[i], mm[i].msg_len, &km[i]);
			if (kr[i] == 0 && km[i].kind == KEEPER_M_CLOSED)
				closed_at = i;
		}
		for (int i = 0; i < n && k->chan >= 0; i++) {
			if (mm[i].msg_len == 0) {
				close(k->chan);
				k->chan = -1;
				return;
			}
			if (i < closed_at && km[i].kind == KEEPER_M_CONNECT)
				answer(k, km[i].cookie, KEEPER_FAILED,
				       ECANCELED, -1);
			else
				on_chan_one(k, &km[i], kr[i]);
		}
		if (n < CHAN_BATCH)
			return; /* none left */
	}
}

static void on_listener(struct keeper *k, const struct keeper_msg *m)
{
	if (k->setup_done)
		return;
	k->setup_done = true;
	int r = take_fd(k, (uint64_t)m->fd);
	if (r < 0) {
		fprintf(stderr,
			"lnk: wire: its keeper cannot take "
			"the seccomp listener: %s\n",
			strerror(-r));
		return; /* no ack: the wire gives up */
	}
	k->notify = r;
	/* the control socket the wire made during its setup */
	struct stat st;
	if (k->sock && lstat(k->sock, &st) == 0 && S_ISSOCK(st.st_mode)) {
		k->sock_dev = st.st_dev;
		k->sock_ino = st.st_ino;
	}
	reply(k, KEEPER_R_ACK);
}

/* One message of the wire's, decoded (proto/keeper.h) before anything
 * is done with it: one that is not of its form is dropped (the wire's own
 * encoder never writes one), but a connect is answered all the same,
 * under its cookie, so its call does not wait for its timeout. */
static void on_chan_one(struct keeper *k, const struct keeper_msg *mp, int r)
{
	const struct keeper_msg m = *mp;
	if (m.kind == KEEPER_M_CONNECT) {
		on_connect(k, &m, r);
		return;
	}
	if (r < 0)
		return;
	switch (m.kind) {
	case KEEPER_M_CONNECT:
		return; /* above */
	case KEEPER_M_DNS:
		if (k->setup_done || k->kr.ndns == KEEPER_MAX_DNS)
			return;
		k->kr.dns[k->kr.ndns] = m.addr;
		k->kr.dns_port[k->kr.ndns++] = m.port;
		return;
	case KEEPER_M_LISTENER:
		on_listener(k, &m);
		return;
	case KEEPER_M_TRIP:
		if (k->setup_done)
			on_trip(k, &m);
		return;
	case KEEPER_M_CLOSED:
		on_closed(k);
		return;
	case KEEPER_M_BIND:
		reply(k, k->setup_done && bind_dns(k, (uint32_t)m.fd)
			     ? KEEPER_R_ACK
			     : KEEPER_R_NACK);
		return;
	case KEEPER_M_BIND_PORT:
		reply(k, k->setup_done && bind_port(k, (uint32_t)m.fd, m.port)
			     ? KEEPER_R_ACK
			     : KEEPER_R_NACK);
		return;
	}
}

static void on_alarm(int sig)
{
	(void)sig;
}

static void close_heard(const struct keeper_heard *h)
{
	if (h->own >= 0)
		close(h->own);
	if (h->dir >= 0)
		close(h->dir);
	if (h->mine >= 0)
		close(h->mine);
}

int keeper_run(const char *name, const char *sock, const uint16_t *ports,
	       size_t nports, bool lan_granted, int chan, pid_t wire,
	       const struct keeper_heard *heard)
{
	struct keeper k;
	memset(&k, 0, sizeof(k));
	k.name = name;
	k.sock = sock;
	k.kr.ports = ports;
	k.kr.nports = nports;
	k.kr.lan_granted = lan_granted;
	k.wire = wire;
	k.chan = chan;
	k.notify = -1;
	k.heard = heard->own;
	k.heard_dir = heard->dir;
	k.heard_mine = heard->mine;
	signal(SIGPIPE, SIG_IGN);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	k.kr.is_local = keeper_is_local;
	/* one route socket for the keeper's life, not one per call */
	struct route_sock rs;
	if (route_open(&rs) == 0)
		k.kr.local_ctx = &rs;
	k.netns = netns_own(); /* 0: then no socket counts as the sandbox's */
	k.pidfd = (int)syscall(SYS_pidfd_open, wire, 0);
	if (k.pidfd < 0) {
		int r = -errno;
		kill(wire, SIGKILL);
		waitpid(wire, NULL, 0);
		if (k.kr.local_ctx)
			route_close(&rs);
		close_heard(heard);
		return r;
	}
	k.hops = xcalloc(1, sizeof(*k.hops));
	k.spare[0] = k.spare[1] = -1;
	near_init(&k.near);
	for (int i = 0; i < KEEPER_PROBES_MAX; i++)
		k.probes[i].fd = -1;
	int st = 0;
	for (;;) {
		struct pollfd p[3 + KEEPER_PROBES_MAX] = {
		    {.fd = k.pidfd, .events = POLLIN},
		    {.fd = k.chan, .events = POLLIN},
		    {.fd = k.notify, .events = POLLIN},
		};
		/* the probes under way, and the nearest end of their wait */
		int64_t now = mono_ms(), until = -1;
		for (int i = 0; i < KEEPER_PROBES_MAX; i++) {
			struct probe *pr = &k.probes[i];
			p[3 + i].fd = pr->fd;
			p[3 + i].events = POLLOUT;
			if (pr->fd >= 0 && (until < 0 || pr->deadline < until))
				until = pr->deadline;
		}
		for (int j = 0; j < KEEPER_ASKS_MAX; j++) {
			const struct waiting *wt = &k.waits[j];
			if (wt->used && wt->again_ms &&
			    (until < 0 || wt->again_ms < until))
				until = wt->again_ms;
		}
		int wait = until < 0	 ? -1
			   : until > now ? (int)(until - now)
					 : 0;
		if (poll(p, 3 + KEEPER_PROBES_MAX, wait) < 0) {
			if (errno == EINTR)
				continue;
			kill(wire, SIGKILL);
			break;
		}
		now = mono_ms();
		for (int i = 0; i < KEEPER_PROBES_MAX; i++) {
			if (k.probes[i].fd < 0)
				continue;
			if (p[3 + i].revents)
				probe_done(&k, i,
					   hop_probe_read(k.probes[i].fd,
							  &k.probes[i].a));
			else if (now >= k.probes[i].deadline)
				probe_done(&k, i, HOP_UNKNOWN);
		}
		assign_waiting(&k, now);
		if (p[2].revents & POLLIN)
			on_notify(&k);
		else if (p[2].revents & (POLLHUP | POLLERR | POLLNVAL)) {
			close(k.notify);
			k.notify = -1;
		}
		if (p[1].revents)
			on_chan(&k);
		if (p[0].revents)
			break;
	}
	while (waitpid(wire, &st, 0) < 0)
		if (errno != EINTR) {
			st = -errno;
			break;
		}
	/* the last trip message, if it came with the wire's end */
	if (k.chan >= 0)
		on_chan(&k);
	/* Its control socket, unless another wire of that name has made
	 * its own there since. */
	struct stat sst;
	if (k.sock_ino && lstat(sock, &sst) == 0 && sst.st_dev == k.sock_dev &&
	    sst.st_ino == k.sock_ino)
		unlink(sock);
	if (k.notify >= 0)
		close(k.notify);
	if (k.chan >= 0)
		close(k.chan);
	if (k.kr.local_ctx)
		route_close(&rs);
	for (int i = 0; i < KEEPER_PROBES_MAX; i++)
		if (k.probes[i].fd >= 0)
			close(k.probes[i].fd);
	free(k.hops);
	near_free(&k.near);
	for (int i = 0; i < 2; i++)
		if (k.spare[i] >= 0)
			close(k.spare[i]);
	close(k.pidfd);
	close_heard(heard);
	return st;
}
