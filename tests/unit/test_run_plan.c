/* Golden tests of a run's value (src/launch/parts.h): a policy and the
 * host's two facts in, the parts the run has, in the order every pass
 * walks them, out. A change here is a change of what runs beside a
 * sandbox: read each line. */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/buf.h"
#include "launch/parts.h"

struct fixture {
	struct policy p;
};

static void grant(struct policy *p, enum key_id id, const char *v)
{
	p->k[id].set = true;
	strv_push(&p->k[id].list, v);
}

/* The parts of w, one a line, against want. */
static void check(const struct run_want *w, const char *want)
{
	struct strv got = {0};
	struct buf b = {0};

	parts_wanted(w, &got);
	for (size_t i = 0; i < got.n; i++) {
		buf_puts(&b, got.v[i]);
		buf_putc(&b, '\n');
	}
	char *s = buf_steal(&b);
	if (strcmp(s, want) != 0)
		fail_msg(
		    "the parts of the run differ.\n--- got\n%s--- want\n%s", s,
		    want);
	free(s);
	strv_free(&got);
}

static void want(struct run_want *w, const struct policy *p, bool named,
		 bool probe, bool no_one_to_ask, bool root,
		 enum limits_kind cgroup)
{
	struct run_facts f = {named, probe, no_one_to_ask, root, cgroup};
	run_want_make(w, p, &f);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	policy_init(&f->p);
	f->p.resolved = true;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	policy_free(&f->p);
	free(f);
	return 0;
}

/* No grant beyond the files: no wire, no broker, but the resolver that
 * refuses every name at once; as a user with a cgroup v2 folder of its
 * own, bwrap's process moves into one made first. */
static void bare_user_cgroup2(void **state)
{
	struct fixture *f = *state;
	struct run_want w;

	grant(&f->p, K_FILES_WRITE, "/home/u/proj");
	want(&w, &f->p, false, false, false, false, LIMITS_CGROUP2);
	check(&w, "the registry entry: while planning\n"
		  "lnk, the supervisor: lnk\n"
		  "the guard: with bwrap\n"
		  "the cgroup (v2): before bwrap\n"
		  "the resolver's sockets: with bwrap\n"
		  "bwrap: bwrap\n"
		  "lnk-init: by its parent\n"
		  "the program: by its parent\n"
		  "the resolver without network: by its parent\n");
}

/* A host grant: the keeper, forked as bwrap starts, and its wire. Without a
 * cgroup (RLIMIT_NPROC through lnk-init), no cgroup part. */
static void wire_user_rlimit(void **state)
{
	struct fixture *f = *state;
	struct run_want w;

	grant(&f->p, K_INTERNET_HOSTS, "example.org");
	want(&w, &f->p, false, false, false, false, LIMITS_RLIMIT);
	check(&w, "the registry entry: while planning\n"
		  "lnk, the supervisor: lnk\n"
		  "the keeper: as bwrap starts\n"
		  "the wire: by its parent\n"
		  "the guard: with bwrap\n"
		  "bwrap: bwrap\n"
		  "lnk-init: by its parent\n"
		  "the program: by its parent\n");
}

/* Each network grant alone wants the wire. */
static void every_network_grant_wants_the_wire(void **state)
{
	const enum key_id ids[] = {K_INTERNET_HOSTS, K_INTERNET_MODELS,
				   K_LAN_HOSTS, K_LOCALHOST_PORTS};
	(void)state;
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		struct policy p;
		struct run_want w;
		policy_init(&p);
		p.resolved = true;
		grant(&p, ids[i], "x");
		want(&w, &p, false, false, false, false, LIMITS_NONE);
		assert_true(w.wire);
		assert_false(w.tools);
		policy_free(&p);
	}
}

/* Everything at once, as root with the cgroup v1 hierarchies: the
 * device nodes of its own, the broker and its children, and a cgroup
 * made while bwrap makes the sandbox. */
static void all_root_cgroup1(void **state)
{
	struct fixture *f = *state;
	struct run_want w;

	grant(&f->p, K_INTERNET_HOSTS, "example.org");
	grant(&f->p, K_TOOLS_ALLOW, "git");
	want(&w, &f->p, false, false, false, true, LIMITS_CGROUP1);
	check(&w, "the registry entry: while planning\n"
		  "lnk, the supervisor: lnk\n"
		  "the keeper: as bwrap starts\n"
		  "the wire: by its parent\n"
		  "the tools broker's starter: before bwrap\n"
		  "the tools broker's reader: by its parent\n"
		  "the desktop process: by its parent\n"
		  "a tool: by its parent\n"
		  "the guard: with bwrap\n"
		  "the device nodes: while planning\n"
		  "the cgroup (v1): with bwrap\n"
		  "bwrap: bwrap\n"
		  "lnk-init: by its parent\n"
		  "the program: by its parent\n");
}

/* check's run with a page grant: the broker, but nobody to ask, so no
 * desktop process; as root without a cgroup, no cgroup part. */
static void check_pages_root_none(void **state)
{
	struct fixture *f = *state;
	struct run_want w;

	grant(&f->p, K_BROWSER_OPEN, "https://example.org/docs");
	want(&w, &f->p, false, true, false, true, LIMITS_NONE);
	check(&w, "the registry entry: while planning\n"
		  "lnk, the supervisor: lnk\n"
		  "the tools broker's starter: before bwrap\n"
		  "the tools broker's reader: by its parent\n"
		  "a tool: by its parent\n"
		  "the guard: with bwrap\n"
		  "the device nodes: while planning\n"
		  "bwrap: bwrap\n"
		  "lnk-init: by its parent\n"
		  "the program: by its parent\n");
}

/* enter's forced command: a tool grant, but nobody to ask, so no
 * desktop process. */
static void enter_nobody_asks(void **state)
{
	struct fixture *f = *state;
	struct run_want w;

	grant(&f->p, K_TOOLS_ALLOW, "git");
	want(&w, &f->p, false, false, true, false, LIMITS_CGROUP2);
	check(&w, "the registry entry: while planning\n"
		  "lnk, the supervisor: lnk\n"
		  "the tools broker's starter: before bwrap\n"
		  "the tools broker's reader: by its parent\n"
		  "a tool: by its parent\n"
		  "the guard: with bwrap\n"
		  "the cgroup (v2): before bwrap\n"
		  "the resolver's sockets: with bwrap\n"
		  "bwrap: bwrap\n"
		  "lnk-init: by its parent\n"
		  "the program: by its parent\n"
		  "the resolver without network: by its parent\n");
}

/* Only a spec's own name gives way when taken: not run-<pid>, not
 * --name, not a name without a spec. */
static void only_a_specs_name_moves(void **state)
{
	struct fixture *f = *state;
	struct run_want w;

	want(&w, &f->p, false, false, false, false, LIMITS_NONE);
	assert_false(w.name_moves); /* run-<pid> */
	want(&w, &f->p, true, false, false, false, LIMITS_NONE);
	assert_false(w.name_moves); /* a name, no spec */
	f->p.spec_path = "/home/u/proj/app.toml";
	want(&w, &f->p, true, false, false, false, LIMITS_NONE);
	assert_true(w.name_moves); /* the spec's own */
	f->p.k[K_NAME].from_flag = true;
	want(&w, &f->p, true, false, false, false, LIMITS_NONE);
	assert_false(w.name_moves); /* --name beside --spec */
	f->p.spec_path = NULL;
}

int main(void)
{
	const struct CMUnitTest t[] = {
	    cmocka_unit_test_setup_teardown(bare_user_cgroup2, setup, teardown),
	    cmocka_unit_test_setup_teardown(wire_user_rlimit, setup, teardown),
	    cmocka_unit_test(every_network_grant_wants_the_wire),
	    cmocka_unit_test_setup_teardown(all_root_cgroup1, setup, teardown),
	    cmocka_unit_test_setup_teardown(check_pages_root_none, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(enter_nobody_asks, setup, teardown),
	    cmocka_unit_test_setup_teardown(only_a_specs_name_moves, setup,
					    teardown),
	};
	return cmocka_run_group_tests(t, NULL, NULL);
}
