/* The supervisor handles exactly the calls lnk-init's filter notifies:
 * a notified call it did not know would be answered ENOSYS (safe, but a
 * broken program), and an open whose O_CREAT it looked for in another
 * argument would be a hole. Compiles lnk-init's policy file in, since it
 * belongs to the lnk-init binary rather than to lnk's core library. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../src/init/seccomp_policy.c"
#include "guard/internal.h"

static void test_same_table(void **state)
{
	(void)state;
	assert_true(seccomp_notified_count >= 15);
	for (size_t i = 0; i < seccomp_notified_count; i++) {
		const struct seccomp_notified *e = &seccomp_notified[i];
		int flags_arg = -2;
		if (!guard_handles(e->nr, &flags_arg))
			fail_msg("lnk-init notifies %s, the supervisor does "
				 "not handle it",
				 e->name);
		if (flags_arg != e->creat_flag_arg)
			fail_msg("%s: the filter tests O_CREAT in argument %d, "
				 "the supervisor reads flags from %d",
				 e->name, e->creat_flag_arg, flags_arg);
	}
}

static void test_unknown_not_handled(void **state)
{
	(void)state;
	int f;
	assert_false(guard_handles(__NR_read, &f));
	assert_false(guard_handles(__NR_utimensat, &f));
	assert_false(guard_handles(__NR_openat2, &f));
	assert_false(guard_handles(-1, &f));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_same_table),
	    cmocka_unit_test(test_unknown_not_handled),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
