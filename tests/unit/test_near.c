/* The keeper beside the wire (src/wire/near.c): it moves to the CPU the
 * wire names when that CPU is in the set it started with, ignores any
 * other value (the wire may be an attacker's), moves only when the CPU
 * changes, and gives its whole set back before it starts a program. */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "wire/near.h"

/* The set the test started with, given back after each case. */
static cpu_set_t start_set;

static int setup(void **state)
{
	(void)state;
	return sched_getaffinity(0, sizeof(start_set), &start_set);
}

static int teardown(void **state)
{
	(void)state;
	return sched_setaffinity(0, sizeof(start_set), &start_set);
}

/* The one CPU the process may run on, or -1 for more than one. */
static int only_cpu(void)
{
	cpu_set_t s;
	assert_int_equal(sched_getaffinity(0, sizeof(s), &s), 0);
	if (CPU_COUNT(&s) != 1)
		return -1;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &s))
			return c;
	return -1;
}

/* Two CPUs of the start set, or a skip that says why. */
static int two_cpus(int *a, int *b)
{
	*a = *b = -1;
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &start_set))
			continue;
		if (*a < 0)
			*a = c;
		else {
			*b = c;
			return 0;
		}
	}
	return -1;
}

static void follows_the_wire(void **state)
{
	(void)state;
	int a, b;
	if (two_cpus(&a, &b) < 0) {
		print_message("skipped: this process may use one CPU only\n");
		skip();
	}
	struct near n;
	near_init(&n);
	assert_true(n.on);
	assert_int_equal(only_cpu(), -1);
	near_follow(&n, a);
	assert_int_equal(only_cpu(), a);
	assert_int_equal(n.cpu, a);
	near_follow(&n, b);
	assert_int_equal(only_cpu(), b);
	/* not known: stays */
	near_follow(&n, -1);
	assert_int_equal(only_cpu(), b);
	/* before a program starts: the whole set */
	near_release(&n);
	assert_int_equal(only_cpu(), -1);
	assert_int_equal(n.cpu, -1);
	cpu_set_t s;
	assert_int_equal(sched_getaffinity(0, sizeof(s), &s), 0);
	assert_true(CPU_EQUAL(&s, &start_set));
	/* and follows again at the next ask */
	near_follow(&n, a);
	assert_int_equal(only_cpu(), a);
	near_free(&n);
}

static void a_hostile_cpu_is_ignored(void **state)
{
	(void)state;
	int a, b;
	if (two_cpus(&a, &b) < 0) {
		print_message("skipped: this process may use one CPU only\n");
		skip();
	}
	/* the keeper was started on a and b only: every other CPU is
	 * outside its set, whatever the machine has */
	cpu_set_t two;
	CPU_ZERO(&two);
	CPU_SET(a, &two);
	CPU_SET(b, &two);
	assert_int_equal(sched_setaffinity(0, sizeof(two), &two), 0);
	struct near n;
	near_init(&n);
	assert_true(n.on);
	const int bad[] = {-2,		-1,    b + 1,  CPU_SETSIZE - 1,
			   CPU_SETSIZE, 65534, 1 << 30};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (bad[i] == a || bad[i] == b)
			continue;
		near_follow(&n, bad[i]);
		assert_int_equal(only_cpu(), -1);
		assert_int_equal(n.cpu, -1);
	}
	near_free(&n);
}

static void one_cpu_means_no_following(void **state)
{
	(void)state;
	int a, b;
	if (two_cpus(&a, &b) < 0) {
		print_message("skipped: this process may use one CPU only\n");
		skip();
	}
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(a, &one);
	assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
	struct near n;
	near_init(&n);
	assert_false(n.on);
	near_follow(&n, b);
	assert_int_equal(only_cpu(), a);
	near_release(&n);
	assert_int_equal(only_cpu(), a);
	near_free(&n);
}

static void the_callers_cpu(void **state)
{
	(void)state;
	int c = near_cpu_now();
	assert_true(c >= 0 && c < CPU_SETSIZE);
	assert_true(CPU_ISSET(c, &start_set));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(follows_the_wire, setup, teardown),
	    cmocka_unit_test_setup_teardown(a_hostile_cpu_is_ignored, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(one_cpu_means_no_following, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(the_callers_cpu, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
