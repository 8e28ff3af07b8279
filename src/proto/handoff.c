#include "proto/handoff.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/compat.h"
#include "common/fdpass.h"
#include "common/util.h"
#include "net/addr.h"

static int listen_on(int family, uint16_t port, int *out, struct lnk_err *err)
{
	int fd = socket_cloexec(family, SOCK_STREAM, 0, 0);
	if (fd < 0)
		return -errno;
	int one = 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	struct sockaddr_storage ss;
	socklen_t len = addr_loopback_sockaddr(family, port, &ss);
	if (family != AF_INET)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, 4096) < 0) {
		int e = errno;
		close(fd);
		if (family == AF_INET6 &&
		    (e == EADDRNOTAVAIL || e == EAFNOSUPPORT))
			return 1; /* no IPv6 loopback here: skip */
		return err_set(
		    err, -e,
		    "cannot listen on %s port %u inside the sandbox: "
		    "%s",
		    family == AF_INET ? "127.0.0.1" : "[::1]", port,
		    strerror(e));
	}
	*out = fd;
	return 0;
}

static int unbound_stream(int *out, struct lnk_err *err)
{
	int fd = socket_cloexec(AF_INET, SOCK_STREAM, 0, 0);
	if (fd < 0)
		return err_set(err, -errno,
			       "cannot make a listener of the sandbox's: %s",
			       strerror(errno));
	*out = fd;
	return 0;
}

static int flush_msg(int wire_fd, struct handoff_msg *m, int *fds, bool last,
		     struct lnk_err *err)
{
	m->magic = HANDOFF_MAGIC;
	m->version = HANDOFF_VERSION;
	m->flags = last ? HANDOFF_LAST : 0;
	int r = fd_send(wire_fd, fds, m->n, m, HANDOFF_MSG_SIZE);
	for (size_t i = 0; i < m->n; i++)
		close(fds[i]);
	memset(m, 0, sizeof(*m));
	if (r < 0)
		return err_set(err, r,
			       "cannot hand the listeners to the wire: %s",
			       strerror(-r));
	return 0;
}

int handoff_send(int wire_fd, const struct init_listener *l, size_t n,
		 int dns[2], struct handoff_low *low, size_t *nlow,
		 struct lnk_err *err)
{
	struct handoff_msg m;
	int fds[HANDOFF_PER_MSG];
	memset(&m, 0, sizeof(m));
	for (size_t i = 0; i < n; i++) {
		for (int v6 = 0; v6 < 2; v6++) {
			/* the resolver: one UDP, one TCP socket, unbound (port
			 * 53 needs a right nothing inside holds) */
			if (l[i].kind == INIT_L_DNS) {
				int fd = socket_cloexec(
				    AF_INET, v6 ? SOCK_STREAM : SOCK_DGRAM, 0,
				    0);
				if (fd < 0) {
					int e = errno;
					for (size_t j = 0; j < m.n; j++)
						close(fds[j]);
					return err_set(
					    err, -e,
					    "cannot make the sandbox's DNS "
					    "socket: %s",
					    strerror(e));
				}
				if (m.n == HANDOFF_PER_MSG) {
					int r = flush_msg(wire_fd, &m, fds,
							  false, err);
					if (r < 0) {
						close(fd);
						return r;
					}
				}
				if (dns && dns[v6] < 0)
					dns[v6] = fcntl(fd, F_DUPFD_CLOEXEC, 3);
				/* the wire's keeper binds them as it starts;
				 * without a wire (dns kept), lnk did before
				 * its go-ahead */
				if (!dns && low && *nlow < HANDOFF_LOW_MAX)
					low[(*nlow)++] = (struct handoff_low){
					    .fd = fcntl(fd, F_DUPFD_CLOEXEC, 3),
					    .port = 53,
					    .dgram = !v6};
				m.e[m.n] = (struct handoff_entry){
				    .kind = (uint8_t)l[i].kind,
				    .family = 4,
				    .port = l[i].port,
				};
				fds[m.n++] = fd;
				continue;
			}
			if (v6 && l[i].kind != INIT_L_PORT &&
			    l[i].kind != INIT_L_TCP)
				continue;
			int fd = -1, r = listen_on(v6 ? AF_INET6 : AF_INET,
						   l[i].port, &fd, err);
			/* A --port below the unprivileged ports: nothing
			 * inside may bind it. Its IPv4 socket goes unbound,
			 * for the keeper to bind (keeper.h); none on ::1. */
			if (r == -EACCES && l[i].kind == INIT_L_PORT) {
				*err = (struct lnk_err){0};
				r = v6 ? 1 : unbound_stream(&fd, err);
				if (r == 0 && low && *nlow < HANDOFF_LOW_MAX)
					low[(*nlow)++] = (struct handoff_low){
					    .fd = fcntl(fd, F_DUPFD_CLOEXEC, 3),
					    .port = l[i].port};
			}
			if (r < 0) {
				for (size_t j = 0; j < m.n; j++)
					close(fds[j]);
				return r;
			}
			if (r > 0)
				continue;
			if (m.n == HANDOFF_PER_MSG) {
				r = flush_msg(wire_fd, &m, fds, false, err);
				if (r < 0) {
					close(fd);
					return r;
				}
			}
			m.e[m.n] = (struct handoff_entry){
			    .kind = (uint8_t)l[i].kind,
			    .family = v6 ? 6 : 4,
			    .port = l[i].port,
			};
			fds[m.n++] = fd;
		}
	}
	return flush_msg(wire_fd, &m, fds, true, err);
}

int handoff_recv_one(int fd, struct handoff_listener **v, size_t *n,
		     struct lnk_err *err)
{
	struct handoff_msg m;
	int fds[FDPASS_MAX];
	size_t nfds = FDPASS_MAX;
	ssize_t r = fd_recv(fd, fds, &nfds, &m, sizeof(m));
	if (r == 0)
		return err_set(err, -EPIPE,
			       "the sandbox's init ended before handing over "
			       "its listeners");
	if (r < 0)
		return err_set(err, (int)r, "cannot receive the listeners: %s",
			       strerror((int)-r));
	if ((size_t)r != HANDOFF_MSG_SIZE || m.magic != HANDOFF_MAGIC ||
	    m.version != HANDOFF_VERSION || m.n > HANDOFF_PER_MSG ||
	    m.n != nfds) {
		for (size_t i = 0; i < nfds; i++)
			close(fds[i]);
		return err_set(err, -EPROTO,
			       "malformed listener handoff from the sandbox");
	}
	*v = xrealloc(*v, (*n + nfds) * sizeof(**v));
	for (size_t i = 0; i < nfds; i++)
		(*v)[(*n)++] =
		    (struct handoff_listener){.fd = fds[i], .tag = m.e[i]};
	return (m.flags & HANDOFF_LAST) ? 0 : 1;
}
