/* launch/limits.h: sizes as users write them, and the [limits] table of the
 * settings file. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "launch/limits.h"

static void sizes(void **state)
{
	uint64_t v;
	(void)state;
	assert_int_equal(limits_parse_size("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(limits_parse_size("1048576", &v), 0);
	assert_int_equal(v, 1048576);
	assert_int_equal(limits_parse_size("512M", &v), 0);
	assert_int_equal(v, 512ULL << 20);
	assert_int_equal(limits_parse_size("4g", &v), 0);
	assert_int_equal(v, 4ULL << 30);
	assert_int_equal(limits_parse_size("2T", &v), 0);
	assert_int_equal(v, 2ULL << 40);
	const char *bad[] = {"",
			     "M",
			     "-1",
			     "1.5G",
			     "4GB",
			     "4 G",
			     "0x10",
			     "99999999999999999999",
			     "17179869184T"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (limits_parse_size(bad[i], &v) != -EINVAL)
			fail_msg("'%s' was taken", bad[i]);
}

static int settings(const char *text, struct limits *l, struct lnk_err *err)
{
	char path[] = "/tmp/lnk-test-limits-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	int r = limits_load_settings(path, l, err);
	unlink(path);
	return r;
}

static void load(void **state)
{
	struct limits l = {1, 2, 3};
	struct lnk_err err = {0};
	(void)state;
	assert_int_equal(
	    limits_load_settings("/nonexistent/settings.toml", &l, &err), 0);
	assert_int_equal(l.memory, 1);
	assert_int_equal(settings("[other]\nx = 1\n", &l, &err), 0);
	assert_int_equal(l.tasks, 2);
	assert_int_equal(settings("[limits]\nmemory = \"2G\"\ntasks = 0\n"
				  "tmp_size = 1024\n",
				  &l, &err),
			 0);
	assert_int_equal(l.memory, 2ULL << 30);
	assert_int_equal(l.tasks, 0);
	assert_int_equal(l.tmp_size, 1024);
	assert_int_equal(settings("[limits]\ntasks = \"5\"\n", &l, &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, ":2: [limits] tasks must be"));
	assert_int_equal(settings("[limits]\nmemroy = 1\n", &l, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "no key 'memroy'"));
	assert_int_equal(settings("[limits\n", &l, &err), -EINVAL);
}

/* [tripwires]: two thresholds, 0 the default, bounded; no metadata key. */
static void tripwire_settings(void **state)
{
	struct limits l = {0};
	struct lnk_err err = {0};
	(void)state;
	assert_int_equal(settings("[tripwires]\nrefused_calls = 5\n"
				  "refused_targets = 200\n",
				  &l, &err),
			 0);
	assert_int_equal(l.trip_calls, 5);
	assert_int_equal(l.trip_targets, 200);
	assert_int_equal(
	    settings("[tripwires]\nrefused_targets = 201\n", &l, &err),
	    -EINVAL);
	assert_non_null(strstr(err.msg, "from 1 to 200"));
	assert_int_equal(
	    settings("[tripwires]\nrefused_calls = -1\n", &l, &err), -EINVAL);
	assert_int_equal(settings("[tripwires]\nmetadata = 0\n", &l, &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "cannot be turned off"));
	assert_int_equal(settings("tripwires = 1\n", &l, &err), -EINVAL);
}

static void set_flag(struct policy *p, enum key_id id, const char *v)
{
	struct lnk_err err = {0};
	assert_int_equal(policy_add_flag(p, id, v, &err), 0);
}

/* A spec or flag lowers; it never raises, and says so when it tries. */
static void lower(void **state)
{
	(void)state;
	struct limits l = {.memory = 1ULL << 30, .tasks = 100, .tmp_size = 0};
	struct policy p;
	struct strv notes = {0};
	policy_init(&p);
	set_flag(&p, K_LIMITS_MEMORY, "4G");
	set_flag(&p, K_LIMITS_TASKS, "10");
	set_flag(&p, K_LIMITS_TMP_SIZE, "64M");
	set_flag(&p, K_TRIP_CALLS, "40");
	set_flag(&p, K_TRIP_TARGETS, "0");
	limits_lower(&l, &p, &notes);
	assert_int_equal(l.memory, 1ULL << 30); /* not raised */
	assert_int_equal(l.tasks, 10);
	assert_int_equal(l.tmp_size, 64ULL << 20); /* settings: no limit */
	assert_int_equal(l.trip_calls, 30);	   /* the default stays */
	assert_int_equal(l.trip_targets, 20);	   /* 0 keeps it */
	assert_int_equal(notes.n, 2);
	assert_non_null(strstr(
	    notes.v[0], "--memory: 4G is above the 1 GiB your settings give"));
	assert_non_null(strstr(notes.v[1], "--trip-refused-calls: 40 is above "
					   "the 30 calls"));
	strv_free(&notes);
	policy_free(&p);

	/* Settings with no memory limit: a spec's limit applies. */
	struct limits none = {.trip_calls = 8};
	policy_init(&p);
	set_flag(&p, K_LIMITS_MEMORY, "256M");
	set_flag(&p, K_TRIP_CALLS, "3");
	limits_lower(&none, &p, &notes);
	assert_int_equal(none.memory, 256ULL << 20);
	assert_int_equal(none.trip_calls, 3);
	assert_int_equal(notes.n, 0);
	policy_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(sizes),
	    cmocka_unit_test(load),
	    cmocka_unit_test(tripwire_settings),
	    cmocka_unit_test(lower),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
