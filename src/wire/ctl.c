/* The control socket of a wire (see ctl.h). Every byte a client sends is
 * hostile until checked; a bad client is closed, and nothing else is. */
#include "wire/ctl.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/compat.h"
#include "common/esc.h"
#include "common/notify.h"
#include "common/unaddr.h"
#include "common/util.h"
#include "store/paths.h"
#include "store/secure.h"
#include "store/registry.h"
#include "wire/loop.h"

char *ctl_socket_path(const char *home, const char *name)
{
	if (!registry_name_valid(name))
		return NULL;
	_cleanup_free_ char *dir = paths_run_dir(home);
	return xasprintf("%s/%s.sock", dir, name);
}

/* The socket's address (common/unaddr.h), the failure said. */
static int make_addr(const char *path, struct sockaddr_un *sa, socklen_t *len,
		     int *dirfd, struct lnk_err *err)
{
	int r = unaddr_make(path, sa, len, dirfd);
	if (r == -ENAMETOOLONG)
		return err_set(err, r,
			       "socket path '%s' is too long: it must be "
			       "under %zu bytes here; use a shorter HOME",
			       path, sizeof(sa->sun_path));
	if (r < 0)
		return err_set(err, r, "cannot open the folder of '%s': %s",
			       path, strerror(-r));
	return 0;
}

struct ctl_server;

struct ctl_client {
	struct loop_handler h;
	struct ctl_server *s;
	int fd;		/* -1: free slot */
	bool not_owner; /* another user: whatever it sends, NOT_OWNER */
	size_t have;
	uint8_t buf[CTL_REQ_SIZE];
	int64_t accepted_ms;
};

/* The server keeps an event loop of its own over the listener and its
 * clients; its descriptor is the one the wire's loop watches (loop.h). */
struct ctl_server {
	int listen_fd;
	struct loop *loop;
	struct loop_handler lh; /* the listener's */
	uid_t owner;
	char *path;
	struct ctl_client c[CTL_MAX_CLIENTS];
	/* while ctl_server_dispatch runs: what its handlers need */
	ctl_handler_fn fn;
	void *ctx;
	int64_t now;
	int handled;
};

int ctl_server_fd(const struct ctl_server *s)
{
	return loop_fd(s->loop);
}

static void on_listener(struct loop_handler *h, uint32_t events);
static void on_client(struct loop_handler *h, uint32_t events);

unsigned ctl_server_clients(const struct ctl_server *s)
{
	unsigned n = 0;
	for (size_t i = 0; i < CTL_MAX_CLIENTS; i++)
		n += s->c[i].fd >= 0;
	return n;
}

/* Is a live wire answering at path? Decides whether a socket left there is
 * stale (its wire died) or a name is in use. */
static int probe_live(const struct sockaddr_un *sa, socklen_t len)
{
	int fd = socket_cloexec(AF_UNIX, SOCK_STREAM, 0, COMPAT_NONBLOCK);
	if (fd < 0)
		return -errno;
	int r = connect(fd, (const struct sockaddr *)sa, len);
	int e = errno;
	close(fd);
	if (r == 0 || e == EAGAIN)
		return 1; /* listening (EAGAIN: its backlog is full) */
	return e == ECONNREFUSED || e == ENOENT ? 0 : -e;
}

int ctl_server_open_at(const char *path, uid_t owner, struct ctl_server **out,
		       struct lnk_err *err)
{
	struct sockaddr_un sa;
	socklen_t len;
	_cleanup_close_ int dirfd = -1;
	int r = make_addr(path, &sa, &len, &dirfd, err);
	if (r < 0)
		return r;

	struct stat st;
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode))
			return err_set(
			    err, -EEXIST,
			    "'%s' exists and is not a socket: move it away",
			    path);
		r = probe_live(&sa, len);
		if (r > 0)
			return err_set(
			    err, -EADDRINUSE,
			    "a wire already listens on '%s': a sandbox of that name runs",
			    path);
		/* Left by a wire that died: replace it. */
		if (unlink(path) < 0 && errno != ENOENT)
			return err_set(err, -errno, "cannot remove '%s': %s",
				       path, strerror(errno));
	}

	_cleanup_close_ int fd =
	    socket_cloexec(AF_UNIX, SOCK_STREAM, 0, COMPAT_NONBLOCK);
	if (fd < 0)
		return err_set(err, -errno, "cannot create a socket: %s",
			       strerror(errno));
	/* The socket file takes the socket inode's mode at bind (less the
	 * umask): 0600 from the start, no window where others could
	 * connect. The folder is 0700 too; the peer's uid is the last word. */
	(void)fchmod(fd, 0600);
	if (bind(fd, (struct sockaddr *)&sa, len) < 0)
		return err_set(err, -errno, "cannot listen on '%s': %s", path,
			       strerror(errno));
	(void)chmod(path, 0600);
	if (listen(fd, CTL_MAX_CLIENTS) < 0) {
		r = -errno;
		unlink(path);
		return err_set(err, r, "cannot listen on '%s': %s", path,
			       strerror(-r));
	}
	struct loop *l;
	r = loop_new(&l, err);
	if (r < 0) {
		unlink(path);
		return r;
	}
	struct ctl_server *s = xcalloc(1, sizeof(*s));
	s->lh = (struct loop_handler){.fn = on_listener, .fd = fd};
	r = loop_set(l, &s->lh, LOOP_IN);
	if (r < 0) {
		loop_free(l);
		free(s);
		unlink(path);
		return err_set(err, r, "cannot watch '%s': %s", path,
			       strerror(-r));
	}
	s->listen_fd = steal_fd(&fd);
	s->loop = l;
	s->owner = owner;
	s->path = xstrdup(path);
	for (size_t i = 0; i < CTL_MAX_CLIENTS; i++)
		s->c[i].fd = -1;
	*out = s;
	return 0;
}

int ctl_server_open(const char *home, const char *name, struct ctl_server **out,
		    struct lnk_err *err)
{
	_cleanup_free_ char *path = ctl_socket_path(home, name);
	if (!path)
		return err_set(
		    err, -EINVAL,
		    "'%s' is not a sandbox name: use letters, digits, '.', '_' and '-'",
		    name);
	_cleanup_free_ char *dir = paths_run_dir(home);
	int r = paths_ensure_dir(dir, err);
	if (r < 0)
		return r;
	return ctl_server_open_at(path, getuid(), out, err);
}

static void client_close(struct ctl_server *s, struct ctl_client *c)
{
	if (c->fd < 0)
		return;
	loop_del(s->loop, &c->h);
	close(c->fd);
	c->fd = -1;
	c->have = 0;
}

static void send_reply(int fd, const struct ctl_reply *r)
{
	uint8_t out[CTL_REPLY_SIZE];
	ctl_encode_reply(r, out);
	/* Never wait on a client: a fresh socket's buffer takes 128 bytes;
	 * if not, the client gets nothing, which it reads as an error. */
	(void)!send(fd, out, sizeof(out), MSG_DONTWAIT | MSG_NOSIGNAL);
	/* Closing a unix socket with unread bytes resets the peer, which
	 * then loses our reply unread: drain what is queued (bounded). */
	uint8_t sink[256];
	for (int i = 0; i < 4; i++)
		if (recv(fd, sink, sizeof(sink), MSG_DONTWAIT) <= 0)
			break;
}

static void accept_all(struct ctl_server *s, int64_t now)
{
	/* Bounded per call, so a connect flood cannot starve the wire. */
	for (int k = 0; k < 64; k++) {
		int fd =
		    accept_cloexec(s->listen_fd, NULL, NULL, COMPAT_NONBLOCK);
		if (fd < 0)
			return;
		uid_t peer;
		/* Another user is refused whatever it asks: its request is
		 * read only so that the close does not reset it before it
		 * reads the refusal, and the handler never sees it. */
		bool not_owner = peer_uid(fd, &peer) < 0 || peer != s->owner;
		struct ctl_client *c = NULL;
		for (size_t i = 0; i < CTL_MAX_CLIENTS && !c; i++)
			if (s->c[i].fd < 0) {
				c = &s->c[i];
				c->h = (struct loop_handler){.fn = on_client,
							     .fd = fd};
				c->s = s;
				if (loop_set(s->loop, &c->h, LOOP_IN) < 0)
					c = NULL;
				break;
			}
		if (!c) {
			struct ctl_reply r = {.result = not_owner
							    ? CTL_R_NOT_OWNER
							    : CTL_R_FAILED};
			send_reply(fd, &r);
			close(fd);
			continue;
		}
		c->fd = fd;
		c->not_owner = not_owner;
		c->have = 0;
		c->accepted_ms = now;
	}
}

/* Reads what a client sent; returns 1 when it handled a request. */
static int client_read(struct ctl_server *s, struct ctl_client *c,
		       ctl_handler_fn h, void *ctx)
{
	uint8_t tmp[64];
	ssize_t n = recv(c->fd, tmp, sizeof(tmp), MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n <= 0) {
		client_close(s, c);
		return 0;
	}
	struct ctl_reply r = {0};
	if (c->not_owner) {
		if (c->have + (size_t)n < CTL_REQ_SIZE) {
			c->have += (size_t)n;
			return 0;
		}
		r.result = CTL_R_NOT_OWNER;
		goto bad;
	}
	if (c->have + (size_t)n > CTL_REQ_SIZE) {
		r.result = CTL_R_BAD; /* over-long */
		goto bad;
	}
	memcpy(c->buf + c->have, tmp, (size_t)n);
	c->have += (size_t)n;
	if (!ctl_request_prefix_ok(c->buf, c->have)) {
		r.result = CTL_R_BAD;
		goto bad;
	}
	if (c->have < CTL_REQ_SIZE)
		return 0;
	enum ctl_op op;
	if (ctl_parse_request(c->buf, c->have, &op) < 0) {
		r.result = CTL_R_BAD;
		goto bad;
	}
	r.op = op;
	r.result = h(ctx, op, &r.st);
	send_reply(c->fd, &r);
	client_close(s, c);
	return 1;
bad:
	send_reply(c->fd, &r);
	client_close(s, c);
	return 0;
}

static void on_listener(struct loop_handler *h, uint32_t events)
{
	(void)events;
	struct ctl_server *s =
	    (struct ctl_server *)((char *)h - offsetof(struct ctl_server, lh));
	accept_all(s, s->now);
}

static void on_client(struct loop_handler *h, uint32_t events)
{
	(void)events;
	struct ctl_client *c = (struct ctl_client *)h; /* its first member */
	if (c->fd >= 0)
		c->s->handled += client_read(c->s, c, c->s->fn, c->s->ctx);
}

int ctl_server_dispatch(struct ctl_server *s, int64_t now_ms, ctl_handler_fn h,
			void *ctx)
{
	s->fn = h;
	s->ctx = ctx;
	s->now = now_ms;
	s->handled = 0;
	(void)loop_once(s->loop, 0);
	s->fn = NULL;
	s->ctx = NULL;
	return s->handled;
}

void ctl_server_tick(struct ctl_server *s, int64_t now_ms)
{
	for (size_t i = 0; i < CTL_MAX_CLIENTS; i++)
		if (s->c[i].fd >= 0 &&
		    now_ms - s->c[i].accepted_ms >= CTL_CLIENT_TIMEOUT_MS)
			client_close(s, &s->c[i]);
}

void ctl_server_close(struct ctl_server *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < CTL_MAX_CLIENTS; i++)
		client_close(s, &s->c[i]);
	loop_del(s->loop, &s->lh);
	close(s->listen_fd);
	loop_free(s->loop);
	unlink(s->path);
	free(s->path);
	free(s);
}

int ctl_request(const char *path, enum ctl_op op, int timeout_ms,
		struct ctl_reply *rep, struct lnk_err *err)
{
	struct sockaddr_un sa;
	socklen_t len;
	_cleanup_close_ int dirfd = -1;
	int r = make_addr(path, &sa, &len, &dirfd, err);
	if (r < 0)
		return r;
	/* Whoever can change the socket's folder can put a socket of their
	 * own there and answer "paused" while the wire stays open. */
	_cleanup_free_ char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	if (slash && slash != dir)
		*slash = '\0';
	if (slash && (r = secure_own_folder(slash == dir ? "/" : dir, err)) < 0)
		return err_prefix(err,
				  "will not talk to the wire at '%s': ", path);
	_cleanup_close_ int fd =
	    socket_cloexec(AF_UNIX, SOCK_STREAM, 0, COMPAT_NONBLOCK);
	if (fd < 0)
		return err_set(err, -errno, "cannot create a socket: %s",
			       strerror(errno));
	if (connect(fd, (struct sockaddr *)&sa, len) < 0) {
		r = -errno;
		if (r == -EAGAIN)
			return err_set(err, -ETIMEDOUT,
				       "the wire at '%s' is too busy to answer",
				       path);
		return err_set(err, r, "cannot reach the wire at '%s': %s",
			       path, strerror(-r));
	}
	/* The wire runs as us: a peer of any other uid is not our wire,
	 * and its answer would be a lie. */
	uid_t peer;
	r = peer_uid(fd, &peer);
	if (r < 0)
		return err_set(err, r, "cannot tell who listens at '%s': %s",
			       path, strerror(-r));
	if (peer != geteuid())
		return err_set(err, -EPERM,
			       "the socket '%s' is served by uid %u, not by "
			       "you: it is no wire of yours; nothing was sent",
			       path, (unsigned)peer);
	uint8_t req[CTL_REQ_SIZE];
	ctl_encode_request(op, req);
	if (send(fd, req, sizeof(req), MSG_NOSIGNAL) != (ssize_t)sizeof(req))
		return err_set(err, -EIO, "cannot send to the wire at '%s'",
			       path);

	uint8_t buf[CTL_REPLY_SIZE + 1];
	size_t have = 0;
	int64_t deadline = mono_ms() + timeout_ms;
	for (;;) {
		int64_t left = deadline - mono_ms();
		if (left <= 0)
			return err_set(
			    err, -ETIMEDOUT,
			    "the wire at '%s' did not answer within %d ms",
			    path, timeout_ms);
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int pr = poll(&p, 1, (int)left);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr < 0)
			return err_set(err, -errno, "poll: %s",
				       strerror(errno));
		if (pr == 0)
			continue;
		ssize_t n = recv(fd, buf + have, sizeof(buf) - have, 0);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n < 0)
			return err_set(err, -errno,
				       "cannot read from the wire at '%s': %s",
				       path, strerror(errno));
		if (n == 0)
			break;
		have += (size_t)n;
		if (have > CTL_REPLY_SIZE)
			break;
	}
	if (have == 0)
		return err_set(
		    err, -ECONNRESET,
		    "the wire at '%s' closed the connection without answering",
		    path);
	if (ctl_parse_reply(buf, have, rep) < 0)
		return err_set(err, -EBADMSG,
			       "the wire at '%s' sent a malformed reply", path);
	return 0;
}

void ctl_notify_trip(const char *name, const struct trip_verdict *v, int err_fd)
{
	char nm[REGISTRY_NAME_MAX + 1], tgt[TRIP_TARGET_MAX + 1];
	ctl_printable(nm, sizeof(nm), name);
	ctl_printable(tgt, sizeof(tgt), v->target);
	char line[1024];
	int w = snprintf(
	    line, sizeof(line),
	    "lnk: %s: wire paused: %s (%s); 'lnk sandbox resume %s' opens it\n",
	    nm, trip_rule_text(v->rule), tgt[0] ? tgt : "?", nm);
	if (w > 0)
		term_write(err_fd, line);

	char title[128], body[512];
	snprintf(title, sizeof(title), "lnk: %s: wire paused", nm);
	snprintf(body, sizeof(body),
		 "%s (%s). 'lnk sandbox resume %s' opens it.",
		 trip_rule_text(v->rule), tgt[0] ? tgt : "?", nm);
	(void)desktop_notify(environ, title, body, true);
}
