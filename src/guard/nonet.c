/* A TCP connect out of a sandbox without a network grant, named once on
 * lnk's stderr with the flag that allows it.
 *
 * Such a sandbox has loopback only, so the connect fails with "Network is
 * unreachable" and the program says no more than that. Its lookups are
 * answered by the resolver without network (src/wire/nonet.h), which
 * names each host; a program that connects to an address it already has
 * (written in its configuration, an IP literal) never looks one up, so
 * the guard, which makes every connect of the program when a folder is
 * granted (socket.c), names the address instead. Datagrams are not named:
 * no grant lets one leave.
 *
 * Threat: the program chooses the addresses, as many as it likes. Only
 * the first NONET_SAID_MAX distinct ones are named, then one line, then
 * nothing; the address is printed as the guard formats it, never as the
 * program wrote it. */
#include "guard/supervisor.h"

#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/util.h"
#include "net/addr.h"

#define NONET_SAID_MAX 5

/* The address and port a connect of this family names: false when the
 * kernel answers on its own (another family, a short address). */
static bool dest(int domain, const struct sockaddr_storage *ss, size_t alen,
		 struct lnk_addr *a, uint16_t *port)
{
	memset(a, 0, sizeof(*a));
	if (domain == AF_INET && ss->ss_family == AF_INET &&
	    alen >= sizeof(struct sockaddr_in)) {
		struct sockaddr_in in;
		memcpy(&in, ss, sizeof(in));
		a->family = AF_INET;
		memcpy(a->a, &in.sin_addr, 4);
		*port = ntohs(in.sin_port);
		return true;
	}
	if (domain == AF_INET6 && ss->ss_family == AF_INET6 && alen >= 24) {
		struct sockaddr_in6 in6;
		memset(&in6, 0, sizeof(in6));
		memcpy(&in6, ss, alen < sizeof(in6) ? alen : sizeof(in6));
		a->family = AF_INET6;
		memcpy(a->a, &in6.sin6_addr, 16);
		*port = ntohs(in6.sin6_port);
		return true;
	}
	return false;
}

void guard_nonet_connect(struct guard *n, int sfd, int domain,
			 const struct sockaddr_storage *ss, size_t alen)
{
	struct lnk_addr a;
	uint16_t port;
	int type = 0;
	socklen_t l = sizeof(type);

	if (!n->plan.no_network || n->plan.quiet ||
	    !dest(domain, ss, alen, &a, &port) ||
	    getsockopt(sfd, SOL_SOCKET, SO_TYPE, &type, &l) < 0 ||
	    type != SOCK_STREAM)
		return;
	enum addr_class c = addr_classify(&a);
	bool lan;
	switch (c) {
	case AC_INTERNET:
		lan = false;
		break;
	case AC_PRIVATE:
	case AC_CGNAT:
	case AC_LINK_LOCAL:
	case AC_ULA:
		lan = true;
		break;
	case AC_LOOPBACK:
	case AC_UNSPECIFIED:
	case AC_MULTICAST:
	case AC_BROADCAST:
	case AC_RESERVED:
	case AC_METADATA:
	default:
		return; /* its own loopback, or nothing a grant allows */
	}
	char at[64], key[80];
	addr_format(&a, at, sizeof(at));
	snprintf(key, sizeof(key), "%s", at);
	bool say = false, more = false;
	pthread_mutex_lock(&n->mu);
	if (!strv_contains(&n->nonet_said, key)) {
		if (n->nonet_said.n < NONET_SAID_MAX) {
			strv_push(&n->nonet_said, key);
			say = true;
		} else if (!n->nonet_more) {
			n->nonet_more = more = true;
		}
	}
	pthread_mutex_unlock(&n->mu);
	if (more)
		term_write(STDERR_FILENO,
			   "lnk: more addresses were refused; they are not "
			   "named here\n");
	if (!say)
		return;
	_cleanup_free_ char *fix =
	    lan ? xasprintf("--lan-host %s allows it (a spec's [lan] hosts)",
			    at)
		: xasprintf("--internet-host %s allows it (a spec's "
			    "[internet] hosts)",
			    at);
	_cleanup_free_ char *line = xasprintf(
	    "lnk: refused %s%s%s:%u: this sandbox has no network grant; %s\n",
	    a.family == AF_INET6 ? "[" : "", at,
	    a.family == AF_INET6 ? "]" : "", port, fix);
	term_write(STDERR_FILENO, line);
}
