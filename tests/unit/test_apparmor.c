/* launch/host.h: the AppArmor profile ready offers for bubblewrap, against
 * its golden copy (tests/e2e/golden/apparmor-bwrap.profile, which the
 * end-to-end test compares with what ready prints). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "launch/host.h"

static void test_profile_is_golden(void **state)
{
	(void)state;
	char *golden = NULL;
	size_t len = 0;
	assert_int_equal(read_file("tests/e2e/golden/apparmor-bwrap.profile",
				   1 << 16, &golden, &len),
			 0);
	char *p = host_apparmor_profile("/usr/bin/bwrap");
	assert_string_equal(p, golden);
	free(p);
	free(golden);
}

static void test_profile_names_the_bwrap_found(void **state)
{
	(void)state;
	char *p = host_apparmor_profile("/usr/local/bin/bwrap");
	assert_non_null(
	    strstr(p, "\nprofile bwrap /usr/local/bin/bwrap flags=(unconfined) "
		      "{\n  userns,\n"));
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_profile_is_golden),
	    cmocka_unit_test(test_profile_names_the_bwrap_found),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
