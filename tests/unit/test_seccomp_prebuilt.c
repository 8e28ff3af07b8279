/* The filters lnk-init loads (compiled at build time by seccomp-gen into
 * seccomp_prebuilt.c) are the very filters libseccomp compiles from
 * seccomp_policy.c at test time, instruction for instruction, for both
 * dot_guard values: a policy edit, a libseccomp upgrade or a stale generated
 * file fails here instead of shipping a filter nobody read. What each filter
 * does is proved by test_seccomp_policy.c and tests/e2e/test_init.py. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/util.h"
#include "init/seccomp_policy.h"

static void same(enum seccomp_notify dot_guard)
{
	struct sock_filter *want;
	const struct sock_filter *got;
	size_t nwant, ngot;
	struct lnk_err err = {0};

	if (seccomp_policy_export(dot_guard, &want, &nwant, &err) < 0)
		fail_msg("export: %s", err.msg);
	seccomp_policy_prebuilt(dot_guard, &got, &ngot);
	assert_int_equal(ngot, nwant);
	for (size_t i = 0; i < nwant; i++) {
		if (memcmp(&got[i], &want[i], sizeof(want[i])) != 0)
			fail_msg("instruction %zu differs: built-in {0x%x, %u, "
				 "%u, 0x%x}, libseccomp {0x%x, %u, %u, 0x%x}",
				 i, got[i].code, got[i].jt, got[i].jf, got[i].k,
				 want[i].code, want[i].jt, want[i].jf,
				 want[i].k);
	}
	free(want);
}

/* Every mode lnk-init may load: each bit alone and together. */
static void every_mode_is_libseccomps(void **state)
{
	(void)state;
	for (int m = 0; m < SN_MODES; m++)
		if (!((m & SN_ALL) && (m & SN_CONNECT)))
			same((enum seccomp_notify)m);
}

/* They differ (each bit adds notify rules), so a mix-up of the arrays
 * cannot pass the comparisons above by accident; SN_ALL with SN_CONNECT
 * is SN_ALL. */
static void modes_differ(void **state)
{
	(void)state;
	const struct sock_filter *p[SN_MODES];
	size_t n[SN_MODES];
	for (int m = 0; m < SN_MODES; m++)
		seccomp_policy_prebuilt((enum seccomp_notify)m, &p[m], &n[m]);
	assert_true(n[SN_ALL] > n[SN_NONE]);
	assert_true(n[SN_CONNECT] > n[SN_NONE]);
	assert_true(n[SN_EXEC] > n[SN_NONE]);
	assert_true(n[SN_ALL | SN_EXEC] > n[SN_ALL]);
	assert_true(n[SN_CONNECT | SN_EXEC] > n[SN_CONNECT]);
	assert_ptr_equal(p[SN_ALL | SN_CONNECT], p[SN_ALL]);
	assert_ptr_equal(p[SN_ALL | SN_CONNECT | SN_EXEC], p[SN_ALL | SN_EXEC]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_mode_is_libseccomps),
	    cmocka_unit_test(modes_differ),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
