/* The user's account read from the files (src/launch/account.c): only when
 * nsswitch.conf lets the files answer first, and then the first line for
 * the id, as NSS would; every other case is left to NSS. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <pwd.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/util.h"
#include "launch/account.h"

static char dir[] = "/tmp/lnk-account-XXXXXX";

static void put(const char *name, const char *text)
{
	char p[256];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	(void)state;
	assert_non_null(mkdtemp(dir));
	put("passwd", "root:x:0:0:root:/root:/bin/bash\n"
		      "# a comment:x:1000:\n"
		      "ann:x:1000:1000:Ann:/home/ann:/bin/zsh\n"
		      "ann2:x:1000:1000:second:/home/ann2:/bin/sh\n"
		      "bob:x:10001:100::/home/bob:\n");
	put("group", "root:x:0:\nstaff:x:50:ann,bob\n");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	const char *n[] = {"passwd", "group", "nsswitch.conf"};
	for (size_t i = 0; i < 3; i++) {
		char p[256];
		snprintf(p, sizeof(p), "%s/%s", dir, n[i]);
		unlink(p);
	}
	rmdir(dir);
	return 0;
}

static int from_files(const char *db, unsigned id, char **line)
{
	return account_from_files(dir, db, id, line);
}

/* The files first: the first line for the id, as NSS's files would. */
static void test_files_first(void **state)
{
	(void)state;
	char *line = NULL;
	put("nsswitch.conf", "# comment\npasswd:         files systemd\n"
			     "group:\tfiles\n");
	assert_int_equal(from_files("passwd", 1000, &line), 0);
	assert_string_equal(line, "ann:x:1000:1000:Ann:/home/ann:/bin/zsh");
	free(line);
	assert_int_equal(from_files("group", 50, &line), 0);
	assert_string_equal(line, "staff:x:50:ann,bob");
	free(line);
	/* an id of which 1000 is a prefix, and one not there */
	assert_int_equal(from_files("passwd", 100, &line), -ENOENT);
	assert_null(line);
	assert_int_equal(from_files("passwd", 10001, &line), 0);
	free(line);
	assert_int_equal(from_files("group", 1000, &line), -ENOENT);
}

/* Another service first, an action after files, compat, no line: NSS. */
static void test_nss_decides(void **state)
{
	(void)state;
	char *line = NULL;
	const char *others[] = {
	    "passwd: sss files\n", "passwd: files [SUCCESS=continue] ldap\n",
	    "passwd: compat\n",	   "passwd: filesx\n",
	    "group: files\n", /* no passwd line */
	    "#passwd: files\n",
	};
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		put("nsswitch.conf", others[i]);
		assert_int_equal(from_files("passwd", 1000, &line), -ENOENT);
		assert_null(line);
	}
	/* '+' and '-' lines are NIS's: NSS reads them, not us */
	put("nsswitch.conf", "passwd: files\n");
	put("passwd", "+@netgroup\nann:x:1000:1000::/home/ann:/bin/sh\n");
	assert_int_equal(from_files("passwd", 1000, &line), -ENOENT);
	/* without them, the files answer again */
	put("passwd", "ann:x:1000:1000::/home/ann:/bin/sh\n");
	assert_int_equal(from_files("passwd", 1000, &line), 0);
	free(line);
}

/* account_lookup: the fields, an empty shell dropped. */
static void test_lookup(void **state)
{
	(void)state;
	struct account a;
	put("nsswitch.conf", "passwd: files\ngroup: files\n");
	put("passwd", "bob:x:10001:100::/home/bob:\n"
		      "ann:x:1000:1000:Ann:/home/ann:/bin/zsh\n");
	put("group", "staff:x:50:\n");
	account_lookup(dir, 1000, 50, &a);
	assert_string_equal(a.user, "ann");
	assert_string_equal(a.shell, "/bin/zsh");
	assert_string_equal(a.group, "staff");
	account_free(&a);
	account_lookup(dir, 10001, 50, &a);
	assert_string_equal(a.user, "bob");
	assert_null(a.shell);
	account_free(&a);
}

/* The same answer as NSS for this process's own ids, on this machine. */
static void test_same_as_nss(void **state)
{
	(void)state;
	struct account a;
	account_lookup("/etc", getuid(), getgid(), &a);
	struct passwd *pw = getpwuid(getuid());
	if (pw) {
		assert_non_null(a.user);
		assert_string_equal(a.user, pw->pw_name);
	}
	account_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_files_first),
	    cmocka_unit_test(test_nss_decides),
	    cmocka_unit_test(test_lookup),
	    cmocka_unit_test(test_same_as_nss),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
