/* The run's memo of real paths and mounts (src/policy/facts.c): each folder
 * read once, links followed as realpath follows them, failures kept; and a
 * resolved policy that asks its system trees once whatever the number of
 * write grants. */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "policy/facts.h"
#include "policy/policy.h"

static char root[256];

static void path(char *out, size_t n, const char *rel)
{
	snprintf(out, n, "%s/%s", root, rel);
}

static int setup(void **state)
{
	(void)state;
	char t[] = "/tmp/lnk-facts-XXXXXX";
	assert_non_null(mkdtemp(t));
	char *r = realpath(t, NULL);
	snprintf(root, sizeof(root), "%s", r);
	free(r);
	char p[PATH_MAX], q[PATH_MAX];
	path(p, sizeof(p), "home");
	assert_int_equal(mkdir(p, 0700), 0);
	path(p, sizeof(p), "home/.lnk");
	assert_int_equal(mkdir(p, 0700), 0);
	path(p, sizeof(p), "data");
	assert_int_equal(mkdir(p, 0700), 0);
	path(p, sizeof(p), "data/real");
	assert_int_equal(mkdir(p, 0700), 0);
	path(p, sizeof(p), "w1");
	assert_int_equal(mkdir(p, 0700), 0);
	path(p, sizeof(p), "w2");
	assert_int_equal(mkdir(p, 0700), 0);
	/* home/dots -> ../data/real, relative, and a chain: home/two ->
	 * dots */
	path(p, sizeof(p), "home/dots");
	assert_int_equal(symlink("../data/real", p), 0);
	path(p, sizeof(p), "home/two");
	assert_int_equal(symlink("dots", p), 0);
	/* a loop, a target with a trailing slash, an absolute target */
	path(p, sizeof(p), "home/loop1");
	assert_int_equal(symlink("loop2", p), 0);
	path(p, sizeof(p), "home/loop2");
	assert_int_equal(symlink("loop1", p), 0);
	path(p, sizeof(p), "home/up");
	assert_int_equal(symlink("../data/real/", p), 0);
	path(p, sizeof(p), "home/abs");
	assert_int_equal(symlink("/usr/bin", p), 0);
	path(q, sizeof(q), "home/file");
	FILE *f = fopen(q, "w");
	assert_non_null(f);
	fclose(f);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[400];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

/* The same answer as realpath(3), from the memo the second time: no
 * system call at all. */
static void second_ask_reuses(void **state)
{
	(void)state;
	struct fs_facts *f = facts_new();
	char p[PATH_MAX];
	path(p, sizeof(p), "home/.lnk");
	const char *a = facts_real(f, p);
	assert_non_null(a);
	assert_string_equal(a, p);
	size_t calls = facts_calls(f);
	assert_true(calls > 0);
	const char *b = facts_real(f, p);
	assert_ptr_equal(a, b);
	assert_int_equal(facts_calls(f), calls);
	/* its folder was asked on the way: free now */
	path(p, sizeof(p), "home");
	assert_string_equal(facts_real(f, p), p);
	assert_int_equal(facts_calls(f), calls);
	/* a sibling costs one more readlink, not the whole chain again */
	path(p, sizeof(p), "home/file");
	assert_string_equal(facts_real(f, p), p);
	assert_int_equal(facts_calls(f), calls + 1);
	facts_free(f);
}

/* A link, and a chain of links, is followed to where realpath goes; a
 * path through it too. */
static void link_followed(void **state)
{
	(void)state;
	struct fs_facts *f = facts_new();
	char p[PATH_MAX], want[PATH_MAX];
	path(want, sizeof(want), "data/real");
	path(p, sizeof(p), "home/dots");
	assert_string_equal(facts_real(f, p), want);
	path(p, sizeof(p), "home/two");
	assert_string_equal(facts_real(f, p), want);
	/* a name inside the link's target: ENOENT, as realpath says */
	path(p, sizeof(p), "home/two/missing");
	errno = 0;
	assert_null(facts_real(f, p));
	assert_int_equal(errno, ENOENT);
	/* asked again: the same failure, no call */
	size_t calls = facts_calls(f);
	errno = 0;
	assert_null(facts_real(f, p));
	assert_int_equal(errno, ENOENT);
	assert_int_equal(facts_calls(f), calls);
	facts_free(f);
}

/* Paths with "..", ".", a doubled slash or a trailing one, and a name
 * under a file: each as realpath(3) answers it. */
static void odd_spellings_as_realpath(void **state)
{
	(void)state;
	const char *rels[] = {
	    "home/../data/real", "home/./dots", "home//two",
	    "home/dots/",	 "home/file/x", "home/dots/../real",
	    "nosuch/x",		 "home/loop1",	"home/loop2/x",
	    "home/up",		 "home/up/..",	"home/abs",
	    "home/abs/sh",	 NULL};
	struct fs_facts *f = facts_new();
	for (size_t i = 0; rels[i]; i++) {
		char p[PATH_MAX];
		path(p, sizeof(p), rels[i]);
		errno = 0;
		char *want = realpath(p, NULL);
		int want_err = want ? 0 : errno;
		errno = 0;
		const char *got = facts_real(f, p);
		if (!want) {
			assert_null(got);
			assert_int_equal(errno, want_err);
		} else {
			assert_non_null(got);
			assert_string_equal(got, want);
		}
		free(want);
	}
	assert_string_equal(facts_real(f, "/"), "/");
	facts_free(f);
}

/* A link changed after the first question is not asked again: the run
 * plans with one answer (the rules compare the same real paths). */
static void one_answer_a_run(void **state)
{
	(void)state;
	struct fs_facts *f = facts_new();
	char p[PATH_MAX], want[PATH_MAX], w1[PATH_MAX];
	path(p, sizeof(p), "home/moving");
	path(want, sizeof(want), "data/real");
	assert_int_equal(symlink(want, p), 0);
	assert_string_equal(facts_real(f, p), want);
	unlink(p);
	path(w1, sizeof(w1), "w1");
	assert_int_equal(symlink(w1, p), 0);
	assert_string_equal(facts_real(f, p), want);
	facts_free(f);
	/* a new memo (a new run) sees the new link */
	f = facts_new();
	assert_string_equal(facts_real(f, p), w1);
	facts_free(f);
	unlink(p);
}

/* Two write grants: the system trees' real paths are asked for the
 * first, and the second reuses them (no more calls than the grant's own
 * folders need). */
static void second_grant_reuses_trees(void **state)
{
	(void)state;
	char home[PATH_MAX], w1[PATH_MAX], w2[PATH_MAX];
	path(home, sizeof(home), "home");
	path(w1, sizeof(w1), "w1");
	path(w2, sizeof(w2), "w2");
	size_t calls[2];
	for (int n = 1; n <= 2; n++) {
		struct policy p;
		struct lnk_err err = {0};
		policy_init(&p);
		assert_int_equal(policy_add_flag(&p, K_FILES_WRITE, w1, &err),
				 0);
		if (n == 2)
			assert_int_equal(
			    policy_add_flag(&p, K_FILES_WRITE, w2, &err), 0);
		assert_int_equal(policy_resolve(&p, root, home, &err), 0);
		assert_non_null(p.facts);
		calls[n - 1] = facts_calls(p.facts);
		/* the trees were asked: /usr is known now */
		size_t before = facts_calls(p.facts);
		assert_non_null(facts_real(p.facts, "/usr"));
		assert_int_equal(facts_calls(p.facts), before);
		policy_free(&p);
	}
	/* the second grant asks nothing the first did not: its own folder
	 * is resolved by realpath in resolve.c, not here */
	assert_int_equal(calls[1], calls[0]);
}

/* A system tree reached through a link is still refused as a write
 * grant: the memo follows the link. */
static void tree_through_link_refused(void **state)
{
	(void)state;
	if (access("/var/lib", F_OK) < 0)
		skip(); /* no /var/lib on this system */
	char home[PATH_MAX], l[PATH_MAX];
	path(home, sizeof(home), "home");
	path(l, sizeof(l), "varlib");
	assert_int_equal(symlink("/var/lib", l), 0);
	struct policy p;
	struct lnk_err err = {0};
	policy_init(&p);
	assert_int_equal(policy_add_flag(&p, K_FILES_WRITE, l, &err), 0);
	assert_int_equal(policy_resolve(&p, root, home, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "system folder"));
	policy_free(&p);
	unlink(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(second_ask_reuses),
	    cmocka_unit_test(link_followed),
	    cmocka_unit_test(odd_spellings_as_realpath),
	    cmocka_unit_test(one_answer_a_run),
	    cmocka_unit_test(second_grant_reuses_trees),
	    cmocka_unit_test(tree_through_link_refused),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
