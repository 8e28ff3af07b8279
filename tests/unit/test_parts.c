/* The parts of one run (src/launch/parts.h): a part that reads bytes the
 * program controls is confined; every file the table names exists; the
 * security map names every file of such a part; each row's steps agree
 * with when it says it starts, and what a run starts it also ends. Run
 * from the source root (meson's workdir). */
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

/* A row's steps match its start time: what lnk forks before bwrap has a
 * start step, what it forks as bwrap starts a spawned step, what starts
 * while bwrap makes the sandbox a hold step, and what another part
 * starts none (its parent's row starts it). */
static void steps_match_when(void **state)
{
	size_t n;
	const struct part *p = parts_table(&n);

	(void)state;
	for (size_t i = 0; i < n; i++) {
		switch (p[i].when) {
		case PART_BEFORE_BWRAP:
			if (!p[i].start)
				fail_msg("%s starts before bwrap but has no "
					 "start step",
					 p[i].name);
			break;
		case PART_AS_BWRAP:
			if (!p[i].spawned)
				fail_msg("%s starts as bwrap starts but has "
					 "no spawned step",
					 p[i].name);
			break;
		case PART_WITH_BWRAP:
			if (!p[i].hold)
				fail_msg("%s starts with bwrap but has no "
					 "hold step",
					 p[i].name);
			break;
		case PART_BY_PARENT:
			if (p[i].plan || p[i].start || p[i].spawned ||
			    p[i].hold)
				fail_msg("%s is started by its parent, yet "
					 "has steps of its own",
					 p[i].name);
			break;
		case PART_LNK:
		case PART_PLANNING:
		case PART_BWRAP:
			break;
		}
		if (!p[i].wanted)
			fail_msg("%s has no wanted predicate", p[i].name);
	}
}

/* What a run starts (a process, a thread, a thing made on the host) it
 * also ends: a row with a start or hold step, or a plan that makes
 * something, has a stop or end step. lnk and bwrap end by themselves. */
static void what_starts_ends(void **state)
{
	size_t n;
	const struct part *p = parts_table(&n);

	(void)state;
	for (size_t i = 0; i < n; i++)
		if ((p[i].start || p[i].spawned || p[i].hold) && !p[i].stop &&
		    !p[i].end)
			fail_msg("%s is started but never ended", p[i].name);
}

int main(void)
{
	const struct CMUnitTest t[] = {
	    cmocka_unit_test(readers_are_confined),
	    cmocka_unit_test(the_broker_reader_is_a_confined_row),
	    cmocka_unit_test(files_exist),
	    cmocka_unit_test(the_map_names_every_reader),
	    cmocka_unit_test(steps_match_when),
	    cmocka_unit_test(what_starts_ends),
	};
	return cmocka_run_group_tests(t, NULL, NULL);
}
