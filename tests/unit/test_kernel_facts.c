/* Facts of the running kernel that lnk's speed relies on, checked where
 * the tests run, so that a kernel that changes them fails here rather than
 * slowly or quietly in lnk (docs/kernel-facts.md). */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

/* proc-lists-processes-last: after the first name of /proc that is a
 * number (a process), every name is a number. launch/host.c stops
 * listing /proc there, and would miss a root-only file listed after. */
static void test_proc_lists_processes_last(void **state)
{
	(void)state;
	DIR *d = opendir("/proc");
	assert_non_null(d);
	struct dirent *de;
	bool pids = false;
	size_t after = 0, own = 0;
	while ((de = readdir(d))) {
		bool num = de->d_name[0] >= '0' && de->d_name[0] <= '9';
		if (num)
			pids = true;
		else if (pids) {
			fprintf(stderr, "'%s' listed after a process\n",
				de->d_name);
			after++;
		} else
			own++;
	}
	closedir(d);
	assert_true(pids); /* this test's own process at least */
	assert_true(own > 10);
	assert_int_equal(after, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_proc_lists_processes_last),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
