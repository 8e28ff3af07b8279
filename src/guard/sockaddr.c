/* How the kernel reads a socket address given to bind(2) or connect(2)
 * (pure). The guard performs these calls for the program, with its own
 * credentials: it must check what the kernel will use, read the way the
 * kernel reads it. The kernel reads an address by the SOCKET's family,
 * never by the family field the program wrote (an AF_INET socket binds
 * an AF_UNSPEC address as AF_INET), and takes every length it accepts
 * (an AF_INET6 address of 24 bytes, without sin6_scope_id, is accepted:
 * SIN6_LEN_RFC2133). Whatever this reads, the kernel gets the same bytes
 * and the same length afterwards and answers its own errors.
 */
#include "guard/internal.h"

#include <errno.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

int guard_sockaddr_parse(int domain, const void *addr, size_t alen,
			 struct guard_sockaddr *out)
{
	const unsigned char *b = addr;
	sa_family_t fam = 0;
	const size_t pathoff = offsetof(struct sockaddr_un, sun_path);

	memset(out, 0, sizeof(*out));
	out->kind = GUARD_SA_OTHER;
	if (alen >= sizeof(fam))
		memcpy(&fam, b, sizeof(fam));
	switch (domain) {
	case AF_UNIX:
		/* unix_bind, unix_stream_connect, unix_dgram_connect: a bare
		 * family is autobind; AF_UNSPEC (dgram disconnect) and other
		 * families never reach a path; 3..110 bytes hold one. */
		if (alen < sizeof(fam) || fam != AF_UNIX)
			return 0;
		if (alen == pathoff)
			return 0;
		if (alen > sizeof(struct sockaddr_un))
			return -EINVAL;
		if (b[pathoff] == '\0') {
			out->kind =
			    GUARD_SA_ABSTRACT; /* in the socket's netns */
			return 0;
		}
		/* the kernel ends the path at alen, or at a NUL before */
		memcpy(out->path, b + pathoff, alen - pathoff);
		out->path[alen - pathoff] = '\0';
		out->kind = GUARD_SA_PATH;
		return 0;
	case AF_INET:
	case AF_INET6:
		/* sin_port and sin6_port share offset 2. Read whatever the
		 * family field says and from 4 bytes on: inet_bind takes
		 * AF_UNSPEC for INADDR_ANY, inet6_bind 24 bytes and more,
		 * SCTP an AF_INET address on an AF_INET6 socket. A port the
		 * kernel would refuse the address for is still a port. */
		if (alen >= offsetof(struct sockaddr_in, sin_port) +
				sizeof(in_port_t)) {
			out->kind = GUARD_SA_PORT;
			out->port = (uint16_t)((b[2] << 8) | b[3]);
		}
		return 0;
	case AF_NETLINK:
		/* netlink_bind, netlink_connect: 12 bytes, AF_NETLINK */
		if (alen >= sizeof(struct sockaddr_nl) && fam == AF_NETLINK) {
			struct sockaddr_nl nl;
			memcpy(&nl, b, sizeof(nl));
			out->kind = GUARD_SA_GROUPS;
			out->groups = nl.nl_groups;
		}
		return 0;
	default:
		return 0;
	}
}

/* rtnetlink's bind refuses these two groups without CAP_NET_ADMIN in the
 * network namespace (rtnetlink_bind); nl_groups bit n is group n + 1. */
#define RTNLGRP_MROUTE_R_BITS ((1u << (30 - 1)) | (1u << (31 - 1)))

bool guard_netlink_groups_ok(int protocol, uint32_t groups)
{
	if (!groups)
		return true;
	/* netlink families that let anyone listen (NL_CFG_F_NONROOT_RECV)
	 * and whose own bind checks nothing more, but for the two above */
	if (protocol == NETLINK_ROUTE)
		return !(groups & RTNLGRP_MROUTE_R_BITS);
	return protocol == NETLINK_KOBJECT_UEVENT;
}
