/* The lnk: line for a refused host (src/net/said.h): the flag that
 * allows it, once a host, bounded, escaped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "net/said.h"

#define GRANTS "host not in the sandbox's grants"

static void names_the_flag_once_a_host(void **state)
{
	struct wire_said s = {0};
	char line[1024];

	(void)state;
	wire_said_line(&s, "box", "nope.example", 443, GRANTS, line,
		       sizeof(line));
	assert_non_null(strstr(line, "lnk: refused nope.example:443: "));
	assert_non_null(strstr(line, "--internet-host nope.example allows"));
	assert_non_null(strstr(line, "[internet] hosts"));
	assert_int_equal(line[strlen(line) - 1], '\n');
	/* the same host on another port, or looked up: said already */
	wire_said_line(&s, "box", "nope.example", 80, GRANTS, line,
		       sizeof(line));
	assert_string_equal(line, "");
	wire_said_line(&s, "box", "nope.example", 0, GRANTS, line,
		       sizeof(line));
	assert_string_equal(line, "");
}

/* The flag named must allow the call: localhost is this machine
 * whatever an internet grant says (--port reaches it), an IPv4-mapped
 * literal is the IPv4 address it connects to, and a form the flag
 * refuses gets no flag at all. */
static void the_flag_named_allows_the_call(void **state)
{
	struct wire_said s = {0};
	char line[1024];

	(void)state;
	wire_said_line(&s, "box", "localhost", 8080, GRANTS, line,
		       sizeof(line));
	assert_null(strstr(line, "--internet-host"));
	assert_non_null(strstr(line, "--port 8080 "));
	wire_said_line(&s, "box", "db.localhost", 5432, GRANTS, line,
		       sizeof(line));
	assert_non_null(strstr(line, "--port 5432 "));
	wire_said_line(&s, "box", "::ffff:198.18.0.2", 80, GRANTS, line,
		       sizeof(line));
	assert_non_null(strstr(line, "--internet-host 198.18.0.2 allows"));
	wire_said_line(&s, "box", "bad_name!", 80, GRANTS, line, sizeof(line));
	assert_string_equal(line, "");
}

static void each_reason_its_flag(void **state)
{
	struct wire_said s = {0};
	char line[1024];

	(void)state;
	wire_said_line(&s, "box", "router.lan", 80,
		       "address on this machine's network, not the internet",
		       line, sizeof(line));
	assert_non_null(strstr(line, "--lan-host router.lan allows"));
	wire_said_line(&s, "box", "127.0.0.1", 5432,
		       "loopback address (use --port for this machine)", line,
		       sizeof(line));
	assert_non_null(strstr(line, "--port 5432 "));
	/* a port refused is said per port */
	wire_said_line(&s, "box", "127.0.0.1", 6379,
		       "loopback address (use --port for this machine)", line,
		       sizeof(line));
	assert_non_null(strstr(line, "--port 6379 "));
	wire_said_line(&s, "box", "a.example", 443, "stopped", line,
		       sizeof(line));
	assert_non_null(strstr(line, "'lnk sandbox stop --off'"));
	wire_said_line(&s, "box", "b.example", 443, "paused", line,
		       sizeof(line));
	assert_non_null(strstr(line, "'lnk sandbox resume box'"));
}

static void the_first_routers_refusals_name_the_lan_grant(void **state)
{
	struct wire_said s = {0};
	char line[1024];

	(void)state;
	/* the first router's own address, and a probe never answered */
	wire_said_line(&s, "box", "203.0.113.9", 443, WIRE_FIRST_HOP_WHY, line,
		       sizeof(line));
	assert_non_null(strstr(line, "--lan-host 203.0.113.9 allows"));
	wire_said_line(&s, "box", "203.0.113.10", 443, WIRE_HOP_UNKNOWN_WHY,
		       line, sizeof(line));
	assert_non_null(strstr(line, "may be tried again; --lan-host "
				     "203.0.113.10 reaches it"));
	/* an IPv6 address with its port, as the log writes it */
	wire_said_line(&s, "box", "2001:db8:1::5", 80, WIRE_FIRST_HOP_WHY, line,
		       sizeof(line));
	assert_non_null(strstr(line, "lnk: refused [2001:db8:1::5]:80: "));
	assert_non_null(strstr(line, "--lan-host 2001:db8:1::5 allows"));
}

static void what_no_grant_allows_is_not_said(void **state)
{
	struct wire_said s = {0};
	char line[1024];

	(void)state;
	for (int i = 0; i < 20; i++) {
		wire_said_line(&s, "box", "169.254.169.254", 80,
			       "cloud metadata address", line, sizeof(line));
		assert_string_equal(line, "");
	}
	/* and takes no place of the bound */
	assert_int_equal(s.n, 0);
	wire_said_line(&s, "box", "-", 0, GRANTS, line, sizeof(line));
	assert_string_equal(line, "");
}

static void bounded_then_one_line_then_nothing(void **state)
{
	struct wire_said s = {0};
	char line[1024], host[32];
	int said = 0, more = 0;

	(void)state;
	for (int i = 0; i < 100; i++) {
		snprintf(host, sizeof(host), "h%d.example", i);
		wire_said_line(&s, "box", host, 80, GRANTS, line, sizeof(line));
		if (strstr(line, "more hosts"))
			more++;
		else if (line[0])
			said++;
	}
	assert_int_equal(said, WIRE_SAID_MAX);
	assert_int_equal(more, 1);
	/* without a wire no log holds them: the line sends no one there */
	struct wire_said t = {.nolog = true};
	for (int i = 0; i <= WIRE_SAID_MAX; i++) {
		snprintf(host, sizeof(host), "n%d.example", i);
		wire_said_line(&t, "box", host, 0,
			       "this sandbox has no network grant", line,
			       sizeof(line));
	}
	assert_non_null(strstr(line, "more hosts"));
	assert_null(strstr(line, "log"));
}

static void names_are_escaped(void **state)
{
	struct wire_said s = {0};
	char line[1024];

	(void)state;
	wire_said_line(&s, "box", "evil\x1b]0;x\x07.example", 80,
		       "address on this machine's network, not the internet",
		       line, sizeof(line));
	assert_true(line[0]);
	assert_null(strchr(line, '\x1b'));
	assert_null(strchr(line, '\x07'));
	assert_int_equal(strchr(line, '\n') - line, (long)strlen(line) - 1);
}

int main(void)
{
	const struct CMUnitTest t[] = {
	    cmocka_unit_test(names_the_flag_once_a_host),
	    cmocka_unit_test(the_flag_named_allows_the_call),
	    cmocka_unit_test(each_reason_its_flag),
	    cmocka_unit_test(the_first_routers_refusals_name_the_lan_grant),
	    cmocka_unit_test(what_no_grant_allows_is_not_said),
	    cmocka_unit_test(bounded_then_one_line_then_nothing),
	    cmocka_unit_test(names_are_escaped),
	};
	return cmocka_run_group_tests(t, NULL, NULL);
}
