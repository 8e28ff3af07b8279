/* The tripwire rules with a fake clock (wire/trip.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <cmocka.h>

#include "wire/trip.h"

#define SEC 1000
#define MIN (60 * SEC)

static bool refuse(struct trip *t, int64_t now, const char *target,
		   struct trip_verdict *v)
{
	return trip_note(t, now, TRIP_EV_REFUSED, target, v);
}

static void rate_29_does_not_trip(void **state)
{
	(void)state;
	struct trip t;
	trip_init(&t);
	/* 29 refusals of one target inside one second: nothing. */
	for (int i = 0; i < 29; i++)
		assert_false(refuse(&t, 1000 + i, "a.test:443", NULL));
	assert_false(trip_tripped(&t));
}

static void rate_30_trips(void **state)
{
	(void)state;
	struct trip t;
	struct trip_verdict v;
	trip_init(&t);
	/* Spread over 59.9 s: the 30th trips. */
	for (int i = 0; i < 29; i++)
		assert_false(refuse(&t, (int64_t)i * 2065, "a.test:443", NULL));
	assert_true(refuse(&t, 59900, "a.test:443", &v));
	assert_int_equal(v.rule, TRIP_REFUSED_RATE);
	assert_int_equal(v.at_ms, 59900);
	assert_string_equal(v.target, "a.test:443");
	assert_true(trip_tripped(&t));
	/* It trips once; while tripped nothing counts. */
	assert_false(refuse(&t, 60000, "a.test:443", NULL));
	assert_false(
	    trip_note(&t, 60001, TRIP_EV_METADATA, "169.254.169.254:80", NULL));
}

static void rate_window_slides(void **state)
{
	(void)state;
	struct trip t;
	trip_init(&t);
	/* 30 refusals where the 30th comes exactly 60 s after the first: not
	 * "within a minute". */
	for (int i = 0; i < 29; i++)
		assert_false(refuse(&t, (int64_t)i * 1000, "a.test:1", NULL));
	assert_false(refuse(&t, 60 * SEC, "a.test:1", NULL));
	/* The window slides: the first fell out, the next one at 60.5 s makes
	 * 30 within [1 s, 60.5 s]. */
	assert_true(refuse(&t, 60 * SEC + 500, "a.test:1", NULL));

	/* One refusal every 2.1 s forever never trips. */
	trip_init(&t);
	for (int i = 0; i < 10000; i++)
		assert_false(refuse(&t, (int64_t)i * 2100, "a.test:1", NULL));
}

static void targets_19_vs_20(void **state)
{
	(void)state;
	struct trip t;
	struct trip_verdict v;
	char name[64];
	trip_init(&t);
	/* 19 different targets, each refused once, 30 s apart (9.5 min):
	 * spaced so the rate rule cannot be what trips. */
	for (int i = 0; i < 19; i++) {
		snprintf(name, sizeof(name), "h%d.test:443", i);
		assert_false(refuse(&t, (int64_t)i * 30 * SEC, name, NULL));
	}
	assert_false(trip_tripped(&t));
	/* The 20th different one at 9 min 50 s trips. */
	assert_true(refuse(&t, 9 * MIN + 50 * SEC, "h19.test:443", &v));
	assert_int_equal(v.rule, TRIP_REFUSED_TARGETS);
	assert_string_equal(v.target, "h19.test:443");
}

static void targets_window_slides(void **state)
{
	(void)state;
	struct trip t;
	char name[64];
	trip_init(&t);
	for (int i = 0; i < 19; i++) {
		snprintf(name, sizeof(name), "h%d.test:443", i);
		assert_false(refuse(&t, (int64_t)i * 31 * SEC, name, NULL));
	}
	/* At 10 min the first (at 0) has left the window: still 19. */
	assert_false(refuse(&t, 10 * MIN, "h19.test:443", NULL));
	/* Refreshing h1 (refused at 31 s) keeps it in; a new one at 10 min
	 * 20 s makes 20 within the window. */
	assert_false(refuse(&t, 10 * MIN + 10 * SEC, "h1.test:443", NULL));
	assert_true(refuse(&t, 10 * MIN + 20 * SEC, "new.test:443", NULL));
}

static void same_target_counts_once(void **state)
{
	(void)state;
	struct trip t;
	trip_init(&t);
	/* 25 refusals of 5 targets, in any case, 20 s apart (under the rate
	 * rule): 5 distinct targets, no trip. */
	static const char *const names[] = {"a.test:1", "B.TEST:1", "c.test:1",
					    "d.test:1", "e.test:1"};
	for (int i = 0; i < 25; i++)
		assert_false(
		    refuse(&t, (int64_t)i * 20 * SEC, names[i % 5], NULL));
	assert_false(refuse(&t, 25 * 20 * SEC, "b.test:1", NULL));
	assert_false(refuse(&t, 26 * 20 * SEC, "A.test:1", NULL));
	assert_false(trip_tripped(&t));
}

static void metadata_trips_at_once(void **state)
{
	(void)state;
	struct trip t;
	struct trip_verdict v;
	trip_init(&t);
	assert_true(
	    trip_note(&t, 5, TRIP_EV_METADATA, "169.254.169.254:80", &v));
	assert_int_equal(v.rule, TRIP_METADATA);
	assert_int_equal(v.at_ms, 5);
	assert_string_equal(v.target, "169.254.169.254:80");
	/* trip_reset (resume) starts afresh. */
	trip_reset(&t);
	assert_false(trip_tripped(&t));
	for (int i = 0; i < 29; i++)
		assert_false(refuse(&t, 10 + i, "x.test:1", NULL));
	assert_true(refuse(&t, 40, "x.test:1", &v));
	assert_int_equal(v.rule, TRIP_REFUSED_RATE);
}

static void flood_is_bounded(void **state)
{
	(void)state;
	struct trip t;
	char name[300];
	trip_init(&t);
	/* 200,000 distinct targets, one every 32 s, some over-long: the
	 * state is the fixed struct (no heap), and it never trips since no
	 * 10 minutes hold 20 of them. */
	for (int i = 0; i < 200000; i++) {
		if (i % 7 == 0) {
			memset(name, 'x', 290);
			snprintf(name + 290, 10, "%d", i % 1000);
		} else {
			snprintf(name, sizeof(name), "h%d.test:443", i);
		}
		assert_false(refuse(&t, (int64_t)i * 32 * SEC, name, NULL));
		assert_true(t.ntargets < TRIP_TARGETS);
	}
	/* After 11 quiet minutes, a burst of distinct targets trips at
	 * exactly the 20th. */
	int64_t base = (int64_t)200000 * 32 * SEC + 11 * MIN;
	int tripped_at = -1;
	for (int i = 0; i < 40 && tripped_at < 0; i++) {
		snprintf(name, sizeof(name), "burst%d.test:443", i);
		if (refuse(&t, base + (int64_t)i * 4 * SEC, name, NULL))
			tripped_at = i;
	}
	assert_int_equal(tripped_at, 19);
	assert_int_equal(t.verdict.rule, TRIP_REFUSED_TARGETS);
}

static void long_targets_stay_distinct(void **state)
{
	(void)state;
	struct trip t;
	char name[400];
	trip_init(&t);
	/* Names sharing a 300-byte prefix must not collapse into one. */
	int tripped_at = -1;
	for (int i = 0; i < 25 && tripped_at < 0; i++) {
		memset(name, 'y', 300);
		snprintf(name + 300, 50, ".%d.test:443", i);
		if (refuse(&t, (int64_t)i * 10 * SEC, name, NULL))
			tripped_at = i;
	}
	assert_int_equal(tripped_at, 19);
	assert_true(strlen(t.verdict.target) <= TRIP_TARGET_MAX);
}

static void clock_going_back(void **state)
{
	(void)state;
	struct trip t;
	trip_init(&t);
	/* A clock jumping back counts as no time passing: refusals do not
	 * become "old" or "new" by it, and nothing crashes. */
	for (int i = 0; i < 29; i++)
		assert_false(refuse(&t, 100 * SEC - i * SEC, "a.test:1", NULL));
	assert_true(refuse(&t, 0, "a.test:1", NULL));
}

/* Lower thresholds trip sooner, by the same windows. */
static void thresholds_set_lower(void **state)
{
	(void)state;
	struct trip t;
	struct trip_verdict v;
	trip_init_at(&t, 3, 0);
	assert_false(refuse(&t, 0, "a.test:443", NULL));
	assert_false(refuse(&t, 1 * SEC, "a.test:443", NULL));
	assert_true(refuse(&t, 2 * SEC, "a.test:443", &v));
	assert_int_equal(v.rule, TRIP_REFUSED_RATE);
	/* Resume keeps the thresholds. */
	trip_reset(&t);
	assert_false(refuse(&t, 10 * SEC, "a.test:443", NULL));
	assert_false(refuse(&t, 11 * SEC, "a.test:443", NULL));
	assert_true(refuse(&t, 12 * SEC, "a.test:443", NULL));
	/* Three refusals spread over more than a minute: no trip. */
	trip_init_at(&t, 3, 0);
	assert_false(refuse(&t, 0, "a.test:443", NULL));
	assert_false(refuse(&t, 30 * SEC, "a.test:443", NULL));
	assert_false(refuse(&t, 60 * SEC, "a.test:443", NULL));
	/* Targets: the second different one trips at 2. */
	trip_init_at(&t, 0, 2);
	assert_false(refuse(&t, 0, "a.test:1", NULL));
	assert_false(refuse(&t, 1, "a.test:1", NULL));
	assert_true(refuse(&t, 2, "b.test:1", &v));
	assert_int_equal(v.rule, TRIP_REFUSED_TARGETS);
}

/* 0 is the default; above the most the struct holds is that most; a
 * raised threshold (the user's settings) is honoured up to it. */
static void thresholds_bounds(void **state)
{
	(void)state;
	struct trip t;
	trip_init_at(&t, 0, 0);
	assert_int_equal(t.rate_limit, TRIP_RATE_COUNT);
	assert_int_equal(t.targets_limit, TRIP_TARGETS);
	trip_init_at(&t, 1u << 30, 1u << 30);
	assert_int_equal(t.rate_limit, TRIP_RATE_MAX);
	assert_int_equal(t.targets_limit, TRIP_TARGETS_MAX);
	/* The table never overflows at the maximum: every target distinct,
	 * one a second spread so the rate rule does not come first. */
	int i;
	for (i = 0; i < TRIP_TARGETS_MAX - 1; i++) {
		char tg[32];
		snprintf(tg, sizeof(tg), "h%d.test:1", i);
		assert_false(refuse(&t, (int64_t)i * SEC, tg, NULL));
	}
	assert_true(refuse(&t, (int64_t)i * SEC, "last.test:1", NULL));
	/* Raised to 40: 30 in a minute no longer trips, 40 does. */
	trip_init_at(&t, 40, 0);
	for (i = 0; i < 39; i++)
		assert_false(refuse(&t, i, "a.test:1", NULL));
	assert_true(refuse(&t, 39, "a.test:1", NULL));
	/* Metadata has no threshold: at once, whatever they are. */
	trip_init_at(&t, TRIP_RATE_MAX, TRIP_TARGETS_MAX);
	assert_true(
	    trip_note(&t, 0, TRIP_EV_METADATA, "169.254.169.254:80", NULL));
}

static bool lookup(struct trip *t, int64_t now, const char *name,
		   struct trip_verdict *v)
{
	return trip_note(t, now, TRIP_EV_LOOKUP, name, v);
}

/* Threat: data carried out in the names looked up under a granted
 * domain, with no connection: 50 different names under one domain within
 * a minute trip, and the verdict names the domain. */
static void lookups_burst_trips(void **state)
{
	(void)state;
	struct trip t;
	struct trip_verdict v;
	char name[64];
	trip_init(&t);
	for (int i = 0; i < TRIP_NAMES - 1; i++) {
		snprintf(name, sizeof(name), "c%d.x.leak.test", i);
		assert_false(lookup(&t, 1000 + i * 100, name, NULL));
	}
	/* the same names again, and other domains, count nothing new */
	for (int i = 0; i < 200; i++) {
		snprintf(name, sizeof(name), "c%d.x.leak.test", i % 10);
		assert_false(lookup(&t, 7000, name, NULL));
		snprintf(name, sizeof(name), "d%d.other%d.test", i, i);
		assert_false(lookup(&t, 7000, name, NULL));
	}
	assert_true(lookup(&t, 8000, "C-last.Y.LEAK.test", &v));
	assert_int_equal(v.rule, TRIP_DNS_NAMES);
	assert_string_equal(v.target, "*.leak.test");
	/* refusals do not count toward it, nor it toward them */
	trip_reset(&t);
	for (int i = 0; i < TRIP_NAMES + 10; i++) {
		snprintf(name, sizeof(name), "n%d.slow.test", i);
		/* one a 1.5 s: never 50 inside a minute of the first */
		assert_false(
		    lookup(&t, 100000 + (int64_t)i * 1500, name, NULL));
	}
	assert_false(trip_tripped(&t));
}

/* A normal program's lookups: a few names of many domains, often. */
static void lookups_normal_work(void **state)
{
	(void)state;
	struct trip t;
	char name[64];
	trip_init(&t);
	for (int i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "h%d.site%d.test", i % 7, i % 40);
		assert_false(lookup(&t, i * 10, name, NULL));
	}
	assert_false(trip_tripped(&t));
}

static void rule_names(void **state)
{
	(void)state;
	/* The thresholds are the settings' or a spec's: the text names
	 * none, so it never says 30 where 3 tripped. */
	assert_string_equal(trip_rule_text(TRIP_REFUSED_RATE),
			    "too many calls refused within a minute");
	assert_string_equal(trip_rule_text(TRIP_REFUSED_TARGETS),
			    "too many different targets refused within 10 "
			    "minutes");
	for (int r = TRIP_REFUSED_RATE; r <= TRIP_RULE_LAST; r++)
		assert_int_equal(
		    trip_rule_from_name(trip_rule_name((enum trip_rule)r)), r);
	assert_int_equal(trip_rule_from_name("nope"), TRIP_NONE);
	assert_int_equal(trip_rule_from_name(NULL), TRIP_NONE);
}

static void metadata_addresses(void **state)
{
	(void)state;
	static const char *const yes[] = {
	    "169.254.169.254",
	    "100.100.100.200",
	    "fd00:ec2::254",
	    "[fd00:ec2::254]",
	    "::ffff:169.254.169.254",
	    "[::ffff:a9fe:a9fe]",
	    "64:ff9b::a9fe:a9fe",
	    "metadata.google.internal",
	    "METADATA.Google.Internal.",
	    "metadata.goog",
	    "instance-data.ec2.internal",
	    "169.254.169.254.",
	};
	static const char *const no[] = {
	    "169.254.169.253",
	    "169.254.169.2540",
	    "100.100.100.201",
	    "fd00:ec2::255",
	    "metadata.google.internal.evil.test",
	    "evilmetadata.goog",
	    "",
	    "[",
	    "[]",
	    "example.com",
	    "127.0.0.1",
	    "169.254.169",
	};
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		if (!trip_target_is_metadata(yes[i]))
			fail_msg("'%s' should be a metadata address", yes[i]);
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		if (trip_target_is_metadata(no[i]))
			fail_msg("'%s' should not be a metadata address",
				 no[i]);
	assert_false(trip_target_is_metadata(NULL));
	unsigned char a[4] = {169, 254, 169, 254};
	assert_true(trip_addr_is_metadata(AF_INET, a));
	assert_false(trip_addr_is_metadata(AF_UNIX, a));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(rate_29_does_not_trip),
	    cmocka_unit_test(rate_30_trips),
	    cmocka_unit_test(rate_window_slides),
	    cmocka_unit_test(targets_19_vs_20),
	    cmocka_unit_test(targets_window_slides),
	    cmocka_unit_test(same_target_counts_once),
	    cmocka_unit_test(metadata_trips_at_once),
	    cmocka_unit_test(flood_is_bounded),
	    cmocka_unit_test(long_targets_stay_distinct),
	    cmocka_unit_test(clock_going_back),
	    cmocka_unit_test(thresholds_set_lower),
	    cmocka_unit_test(thresholds_bounds),
	    cmocka_unit_test(rule_names),
	    cmocka_unit_test(lookups_burst_trips),
	    cmocka_unit_test(lookups_normal_work),
	    cmocka_unit_test(metadata_addresses),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
