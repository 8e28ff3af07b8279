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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(sizes),
	    cmocka_unit_test(load),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
