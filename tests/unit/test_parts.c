/* The parts of one run (src/launch/parts.h): a part that reads bytes the
 * program controls is confined; every file the table names exists; the
 * security map names every file of such a part. Run from the source root
 * (meson's workdir). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "launch/parts.h"

static void readers_are_confined(void **state)
{
	size_t n;
	const struct part *p = parts_table(&n);

	(void)state;
	assert_true(n > 0);
	for (size_t i = 0; i < n; i++)
		if (p[i].reads_program && p[i].confine == PART_UNCONFINED)
			fail_msg("%s reads the program's bytes and is not "
				 "confined",
				 p[i].name);
}

static void the_broker_reader_is_a_confined_row(void **state)
{
	size_t n;
	const struct part *p = parts_table(&n);
	bool found = false;

	(void)state;
	for (size_t i = 0; i < n; i++)
		if (strstr(p[i].name, "broker's reader")) {
			found = true;
			assert_true(p[i].reads_program);
			assert_int_equal(p[i].confine, PART_KIT);
		}
	assert_true(found);
}

static void files_exist(void **state)
{
	size_t n;
	const struct part *p = parts_table(&n);

	(void)state;
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < 8 && p[i].files[k]; k++)
			if (access(p[i].files[k], R_OK) != 0)
				fail_msg("%s names %s, which does not exist",
					 p[i].name, p[i].files[k]);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char *s = calloc(1, 1 << 20);
	size_t got = fread(s, 1, (1 << 20) - 1, f);
	fclose(f);
	s[got] = '\0';
	return s;
}

static void the_map_names_every_reader(void **state)
{
	size_t n;
	const struct part *p = parts_table(&n);
	char *map = slurp("docs/security-map.md");

	(void)state;
	assert_non_null(map);
	for (size_t i = 0; i < n; i++) {
		if (!p[i].reads_program)
			continue;
		for (size_t k = 0; k < 8 && p[i].files[k]; k++) {
			char quoted[256];
			snprintf(quoted, sizeof(quoted), "`%s`", p[i].files[k]);
			if (!strstr(map, quoted))
				fail_msg("docs/security-map.md does not name "
					 "%s (%s reads the program's bytes)",
					 p[i].files[k], p[i].name);
		}
	}
	free(map);
}

int main(void)
{
	const struct CMUnitTest t[] = {
	    cmocka_unit_test(readers_are_confined),
	    cmocka_unit_test(the_broker_reader_is_a_confined_row),
	    cmocka_unit_test(files_exist),
	    cmocka_unit_test(the_map_names_every_reader),
	};
	return cmocka_run_group_tests(t, NULL, NULL);
}
