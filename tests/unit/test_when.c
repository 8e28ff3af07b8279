/* common/when.h: the moments --since takes, and the ones it refuses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <errno.h>
#include <string.h>
#include <time.h>

#include "common/err.h"
#include "common/when.h"

#define NOW ((time_t)1714564800) /* 2024-05-01T12:00:00Z */

static time_t ok(const char *s)
{
	struct lnk_err err = {0};
	time_t t = 0;
	int r = when_parse(s, NOW, &t, &err);
	if (r != 0)
		fail_msg("'%s' refused: %s", s, err.msg);
	return t;
}

static void test_rfc3339(void **state)
{
	(void)state;
	assert_int_equal(ok("2024-05-01T12:00:00Z"), NOW);
	assert_int_equal(ok("2024-05-01t12:00:00z"), NOW);
	assert_int_equal(ok("2024-05-01 12:00:00Z"), NOW);
	assert_int_equal(ok("2024-05-01T12:00:00.999Z"), NOW);
	assert_int_equal(ok("2024-05-01T14:30:00+02:30"), NOW);
	assert_int_equal(ok("2024-05-01T07:00:00-05:00"), NOW);
	assert_int_equal(ok("2024-02-29T00:00:00Z"), 1709164800);
	assert_int_equal(ok("1970-01-01T00:00:00Z"), 0);
}

static void test_spans(void **state)
{
	(void)state;
	assert_int_equal(ok("90s"), NOW - 90);
	assert_int_equal(ok("10m"), NOW - 600);
	assert_int_equal(ok("2h"), NOW - 7200);
	assert_int_equal(ok("7d"), NOW - 7 * 86400);
	assert_int_equal(ok("0s"), NOW);
}

static void test_refused(void **state)
{
	(void)state;
	const char *bad[] = {
	    "",
	    "10",
	    "m",
	    "10x",
	    "10mm",
	    "-10m",
	    "+10m",
	    "10 m",
	    " 10m",
	    "99999999999999999999d",
	    "2024-05-01",
	    "2024-05-01T12:00:00",
	    "2024-05-01T12:00Z",
	    "2024-13-01T00:00:00Z",
	    "2023-02-29T00:00:00Z",
	    "2024-05-01T24:00:00Z",
	    "2024-05-01T12:00:00+2:00",
	    "2024-05-01T12:00:00.Z",
	    "2024-05-01T12:00:00Zjunk",
	    "yesterday",
	    "\x1b]0;x\a",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct lnk_err err = {0};
		time_t t = 0;
		if (when_parse(bad[i], NOW, &t, &err) != -EINVAL)
			fail_msg("'%s' was taken as %lld", bad[i],
				 (long long)t);
		assert_non_null(strstr(err.msg, "is not a time"));
		assert_null(strchr(err.msg, '\x1b'));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rfc3339),
	    cmocka_unit_test(test_spans),
	    cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
