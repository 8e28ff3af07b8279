/* A socket's network namespace (netns.h). */
#include "common/netns.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/compat.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

uint64_t netns_cookie(int fd)
{
	uint64_t c = 0;
	socklen_t l = sizeof(c);
	if (getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, &c, &l) < 0)
		return 0;
	return c;
}

uint64_t netns_own(void)
{
	int s = socket_cloexec(AF_INET, SOCK_DGRAM, 0, 0);
	if (s < 0)
		return 0;
	uint64_t c = netns_cookie(s);
	close(s);
	return c;
}

/* fd, an unbound IPv4 socket of a network namespace other than own (the
 * binder's), bound to that namespace's 127.0.0.1:port, and listening
 * when a stream; false for anything else. stream_only: no datagram. */
static bool bind_loopback(int fd, uint64_t own, uint16_t port, bool stream_only)
{
	int type = 0, dom = 0, one = 1;
	socklen_t l = sizeof(int);
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	uint64_t c = netns_cookie(fd);
	if (!own || !c || c == own ||
	    getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &l) < 0 ||
	    dom != AF_INET ||
	    getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &l) < 0 ||
	    (type != SOCK_DGRAM && type != SOCK_STREAM) ||
	    (stream_only && type != SOCK_STREAM) ||
	    getsockname(fd, (struct sockaddr *)&sa, &sl) < 0 ||
	    sa.sin_port != 0 || port == 0)
		return false;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	sa = (struct sockaddr_in){.sin_family = AF_INET,
				  .sin_port = htons(port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	return bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
	       (type == SOCK_DGRAM || listen(fd, port == 53 ? 64 : 4096) == 0);
}

bool netns_bind_dns(int fd, uint64_t own)
{
	return bind_loopback(fd, own, 53, false);
}

bool netns_bind_port(int fd, uint64_t own, uint16_t port)
{
	return bind_loopback(fd, own, port, true);
}
