/* The system's trees no write grant may be or hold (policy/systree.h), by
 * spelling, as rows: each tree the system runs from or trusts, and the
 * folders beside them that stay grantable. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "policy/systree.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

struct row {
	const char *real;
	const char *tree; /* NULL: grantable */
};

static const struct row rows[] = {
    {"/", "/"},
    {"/var", "/var"},
    {"/etc/cron.d", "/etc"},
    {"/usr/local/bin", "/usr"},
    {"/var/lib/dpkg/info", "/var/lib"},
    {"/boot/efi/EFI", "/boot"},
    /* the EFI system partition where systemd mounts it: its loader and
     * kernels run as root at the next boot */
    {"/efi", "/efi"},
    {"/efi/EFI/systemd", "/efi"},
    /* stores and profiles whose programs every user's PATH holds */
    {"/nix/var/nix/profiles/default/bin", "/nix"},
    {"/snap/bin", "/snap"},
    {"/gnu/store", "/gnu"},
    /* beside them, grantable */
    {"/var/tmp", NULL},
    {"/var/log", NULL},
    {"/home/u/project", NULL},
    {"/efix", NULL},
    {"/snapshots", NULL},
};

static void trees(void **state)
{
	(void)state;
	for (size_t i = 0; i < N(rows); i++) {
		const char *got = systree_spelled(rows[i].real);
		if (!rows[i].tree ? got != NULL
				  : !got || strcmp(got, rows[i].tree) != 0)
			fail_msg("%s: got %s, want %s", rows[i].real,
				 got ? got : "(grantable)",
				 rows[i].tree ? rows[i].tree : "(grantable)");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(trees),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
