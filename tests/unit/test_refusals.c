/* How many refused calls the log takes one by one (src/store/refusals.c):
 * a burst, then one a second; the rest counted, and the count due at most
 * once a minute and at the end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store/refusals.h"
#include "store/shut.h"
#include "store/tripbox.h"

#include <string.h>

static void burst_then_one_a_second(void **state)
{
	struct refusals r;

	(void)state;
	refusals_init(&r, 1000);
	for (int i = 0; i < REFUSAL_BURST; i++)
		assert_true(refusals_take(&r, 1000));
	/* a flood: counted, not logged */
	for (int i = 0; i < 5000; i++)
		assert_false(refusals_take(&r, 1500));
	assert_int_equal(r.unlogged, 5000);
	/* a second later, one more row */
	assert_true(refusals_take(&r, 1000 + REFUSAL_EVERY_MS));
	assert_false(refusals_take(&r, 1000 + REFUSAL_EVERY_MS));
	/* ten seconds later, ten */
	int64_t t = 1000 + 11 * REFUSAL_EVERY_MS;
	int rows = 0;
	for (int i = 0; i < 100; i++)
		rows += refusals_take(&r, t);
	assert_int_equal(rows, 10);
	/* a long quiet time fills the burst again, never more */
	t += 1000LL * REFUSAL_EVERY_MS * REFUSAL_BURST;
	rows = 0;
	for (int i = 0; i < 3 * REFUSAL_BURST; i++)
		rows += refusals_take(&r, t);
	assert_int_equal(rows, REFUSAL_BURST);
}

static void summary_once_a_minute_and_at_the_end(void **state)
{
	struct refusals r;

	(void)state;
	refusals_init(&r, 0);
	assert_int_equal(refusals_due(&r, 0, true), 0); /* nothing counted */
	for (int i = 0; i < REFUSAL_BURST + 7; i++)
		(void)refusals_take(&r, 10);
	assert_int_equal(refusals_due(&r, 20, false), 0); /* not yet */
	assert_int_equal(refusals_due(&r, REFUSAL_SUMMARY_MS, false), 7);
	assert_int_equal(refusals_due(&r, REFUSAL_SUMMARY_MS, false), 0);
	/* a minute refilled 60 rows: the 61st to 63rd are counted */
	for (int i = 0; i < 63; i++)
		(void)refusals_take(&r, REFUSAL_SUMMARY_MS + 1);
	/* the end says what is left, whenever it comes */
	assert_int_equal(refusals_due(&r, REFUSAL_SUMMARY_MS + 2, true), 3);
	assert_int_equal(refusals_due(&r, REFUSAL_SUMMARY_MS + 3, true), 0);
}

/* The wire's closed state is seen by a process forked before it closed
 * (the tools broker), with its cause and rule; opening clears both; a
 * word no wire writes reads as closed, never as open. */
static void shut_is_shared_and_fails_closed(void **state)
{
	enum ctl_cause c;
	enum trip_rule r;

	(void)state;
	assert_false(shut_closed(NULL, &c, &r)); /* no wire: nothing shut */
	struct shut *s = shut_new();
	assert_non_null(s);
	assert_false(shut_closed(s, &c, &r));
	pid_t p = fork();
	if (p == 0) {
		shut_set(s, CTL_CAUSE_TRIP, TRIP_REFUSED_RATE);
		_exit(0);
	}
	int ws;
	assert_int_equal(waitpid(p, &ws, 0), p);
	assert_true(shut_closed(s, &c, &r));
	assert_int_equal(c, CTL_CAUSE_TRIP);
	assert_int_equal(r, TRIP_REFUSED_RATE);
	assert_string_equal(ctl_closed_reason(c, r),
			    "paused: too many calls refused within a minute");
	shut_set(s, CTL_CAUSE_NONE, TRIP_METADATA);
	assert_false(shut_closed(s, &c, &r));
	assert_int_equal(c, CTL_CAUSE_NONE);
	assert_int_equal(r, TRIP_NONE);
	shut_set(s, (enum ctl_cause)77, (enum trip_rule)99);
	assert_true(shut_closed(s, &c, &r));
	assert_int_equal(c, CTL_CAUSE_HAND);
	assert_int_equal(r, TRIP_NONE);
	shut_set(s, CTL_CAUSE_STOP, TRIP_NONE);
	assert_true(shut_closed(s, &c, NULL));
	assert_string_equal(ctl_closed_reason(c, TRIP_NONE), "stopped");
	shut_free(s);
}

/* The tools broker's refusals reach the wire's tripwires: what a process
 * forked before puts is taken, oldest first, each target cut to fit; a
 * full box counts what it could not hold; and counts the other process
 * left out of bounds never index past the box. */
static void tripbox_carries_refusals_bounded(void **state)
{
	char got[TRIPBOX_SLOTS][TRIPBOX_TARGET_MAX];
	uint64_t lost = 1;

	(void)state;
	tripbox_put(NULL, "x"); /* no wire: nothing */
	assert_int_equal(tripbox_take(NULL, got, TRIPBOX_SLOTS, &lost), 0);
	assert_int_equal(lost, 0);
	struct tripbox *t = tripbox_new();
	assert_non_null(t);
	char longer[TRIPBOX_TARGET_MAX * 2];
	memset(longer, 'a', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	pid_t p = fork();
	if (p == 0) {
		tripbox_put(t, "mytool probe0");
		tripbox_put(t, longer);
		for (int i = 0; i < TRIPBOX_SLOTS + 5; i++)
			tripbox_put(t, "more");
		_exit(0);
	}
	int ws;
	assert_int_equal(waitpid(p, &ws, 0), p);
	assert_int_equal(tripbox_take(t, got, 1, &lost), 1);
	assert_string_equal(got[0], "mytool probe0");
	assert_int_equal(lost, 7); /* 2 + 69 put, 64 held */
	assert_int_equal(tripbox_take(t, got, TRIPBOX_SLOTS, &lost),
			 TRIPBOX_SLOTS - 1);
	assert_int_equal(lost, 0);
	assert_int_equal(strlen(got[0]), TRIPBOX_TARGET_MAX - 1);
	assert_string_equal(got[1], "more");
	assert_int_equal(tripbox_take(t, got, TRIPBOX_SLOTS, &lost), 0);
	/* two long targets that differ only past the cut stay apart */
	longer[sizeof(longer) - 2] = 'b';
	tripbox_put(t, longer);
	longer[sizeof(longer) - 2] = 'c';
	tripbox_put(t, longer);
	assert_int_equal(tripbox_take(t, got, TRIPBOX_SLOTS, &lost), 2);
	assert_string_not_equal(got[0], got[1]);
	assert_int_equal(strncmp(got[0], longer, 64), 0);
	/* the other process wrote its counts out of bounds */
	unsigned *counts = (unsigned *)((char *)t + sizeof(pthread_mutex_t));
	counts[0] = 1000000;
	counts[1] = 1000000;
	assert_int_equal(tripbox_take(t, got, TRIPBOX_SLOTS, &lost),
			 TRIPBOX_SLOTS);
	tripbox_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(burst_then_one_a_second),
	    cmocka_unit_test(summary_once_a_minute_and_at_the_end),
	    cmocka_unit_test(shut_is_shared_and_fails_closed),
	    cmocka_unit_test(tripbox_carries_refusals_bounded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
