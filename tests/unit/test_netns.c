/* The one rule for binding a sandbox's low ports from outside
 * (common/netns.h): only an unbound IPv4 socket of another network
 * namespace than the binder's, only that namespace's 127.0.0.1, only a
 * stream for a --port listener. A socket of the binder's own namespace
 * (this machine's) is never bound, whatever it asks: a hijacked wire must
 * not turn the keeper's right into a port of this machine. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/netns.h"

static uint16_t port_of(int fd)
{
	struct sockaddr_in sa;
	socklen_t l = sizeof(sa);
	if (getsockname(fd, (struct sockaddr *)&sa, &l) < 0)
		return 0;
	return ntohs(sa.sin_port);
}

static void this_machines_socket_never_bound(void **state)
{
	(void)state;
	uint64_t own = netns_own();
	if (!own)
		skip(); /* no SO_NETNS_COOKIE here: nothing can be told */
	int s = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(s >= 0);
	assert_false(netns_bind_port(s, own, 8081));
	assert_int_equal(port_of(s), 0);
	assert_false(netns_bind_dns(s, own));
	assert_int_equal(port_of(s), 0);
	close(s);
}

/* Without the binder's own namespace known, nothing is bound: the
 * comparison that keeps this machine's sockets out cannot be made. */
static void unknown_own_namespace_binds_nothing(void **state)
{
	(void)state;
	int s = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(s >= 0);
	assert_false(netns_bind_port(s, 0, 8081));
	assert_false(netns_bind_dns(s, 0));
	assert_int_equal(port_of(s), 0);
	close(s);
}

/* The forms a --port listener is never: a datagram socket, IPv6, port 0.
 * Refused before any namespace question decides it (the own namespace
 * given as another, so only the form can refuse). */
static void wrong_forms_refused(void **state)
{
	(void)state;
	uint64_t own = netns_own();
	if (!own)
		skip();
	uint64_t other = own + 1;
	int u = socket(AF_INET, SOCK_DGRAM, 0),
	    v6 = socket(AF_INET6, SOCK_STREAM, 0);
	int t = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(u >= 0 && t >= 0);
	assert_false(netns_bind_port(u, other, 8081));
	if (v6 >= 0) {
		assert_false(netns_bind_port(v6, other, 8081));
		close(v6);
	}
	assert_false(netns_bind_port(t, other, 0));
	assert_int_equal(port_of(t), 0);
	close(u);
	close(t);
}

int main(void)
{
	const struct CMUnitTest t[] = {
	    cmocka_unit_test(this_machines_socket_never_bound),
	    cmocka_unit_test(unknown_own_namespace_binds_nothing),
	    cmocka_unit_test(wrong_forms_refused),
	};
	return cmocka_run_group_tests(t, NULL, NULL);
}
