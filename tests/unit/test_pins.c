/* lnk-init's pins (src/init/pins.c): a bound folder is the checked one
 * and is bound there.
 *
 * Threat: a program of another sandbox sent bwrap's mount of a grant
 * elsewhere (a relative link as the destination: the real home over the
 * empty one) and swapped the folder back, so that the path showed the
 * pinned folder, not mounted there; a check by identity alone passed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "init/pins.h"

static struct init_pin pin_of(const char *path)
{
	struct stat st;
	assert_int_equal(lstat(path, &st), 0);
	struct init_pin p = {.path = (char *)path,
			     .dev = (uint64_t)st.st_dev,
			     .ino = (uint64_t)st.st_ino};
	return p;
}

static void a_mount_root_with_its_identity_holds(void **state)
{
	(void)state;
	/* /proc is a mount's root on every machine this runs on */
	struct init_pin p = pin_of("/proc");
	assert_true(pin_holds(&p));
	p.ino++;
	assert_false(pin_holds(&p));
}

static void a_folder_with_the_identity_but_no_mount_fails(void **state)
{
	(void)state;
	char dir[] = "/tmp/lnk-pin-XXXXXX";
	assert_non_null(mkdtemp(dir));
	struct init_pin p = pin_of(dir);
	/* the pinned folder itself, but not where a mount landed */
	assert_false(pin_holds(&p));
	char link[64];
	snprintf(link, sizeof(link), "%s/l", dir);
	assert_int_equal(symlink("/proc", link), 0);
	struct init_pin l = pin_of("/proc");
	l.path = link; /* a link to a mount's root is not followed */
	assert_false(pin_holds(&l));
	unlink(link);
	rmdir(dir);
}

/* the fallback for kernels whose statx does not say (before 5.8) */
static void the_mount_table_names_mount_points(void **state)
{
	(void)state;
	assert_true(pin_mount_listed("/proc"));
	char dir[] = "/tmp/lnk-pin-XXXXXX";
	assert_non_null(mkdtemp(dir));
	assert_false(pin_mount_listed(dir));
	rmdir(dir);
	assert_false(pin_mount_listed("/proc/self"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(a_mount_root_with_its_identity_holds),
	    cmocka_unit_test(a_folder_with_the_identity_but_no_mount_fails),
	    cmocka_unit_test(the_mount_table_names_mount_points),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
