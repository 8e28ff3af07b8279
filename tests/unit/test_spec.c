/* Spec text -> policy -> canonical text: errors with file:line:col and
 * hints, and round trips (emit -> parse -> emit is identical and the
 * policies equal) over a table of cases and random combinations. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/buf.h"
#include "policy/policy.h"
#include "spec/spec.h"
#include "spec/trust.h"

static int load(const char *text, struct policy *p, struct lnk_err *err)
{
	policy_init(p);
	return policy_load_spec_text(p, text, strlen(text), "app.toml",
				     "/nowhere", err);
}

struct err_row {
	const char *text;
	const char *msg; /* the whole message */
};

static void errors_say_where(void **state)
{
	(void)state;
	const struct err_row rows[] = {
	    {"[files]\nwirte = [\"x\"]\n",
	     "app.toml:2:1: unknown key 'wirte' in [files]; did you mean "
	     "'write'?"},
	    {"\n\n[files]\nwrite = 3\n",
	     "app.toml:4:9: [files] write must be an array of strings, not an "
	     "integer"},
	    {"[files]\nwrite = \"~/x\"\n",
	     "app.toml:2:9: [files] write must be an array of strings, not a "
	     "string: put it in [ ]"},
	    {"[files]\nwrite = [\"a\", 1]\n",
	     "app.toml:2:15: [files] write must be an array of strings, not an "
	     "array holding an integer"},
	    {"[fils]\n", "app.toml:1:1: unknown section [fils]; did you mean "
			 "[files]?"},
	    {"[zzzzzzzzzz]\n", NULL},
	    {"nmae = \"x\"\n",
	     "app.toml:1:1: unknown key 'nmae'; did you mean 'name'?"},
	    {"verison = 1\n",
	     "app.toml:1:1: unknown key 'verison'; did you mean 'version'?"},
	    {"version = 2\n",
	     "app.toml:1:11: version 2 is not known to this lnk: version 1 is "
	     "the only one; a newer lnk may read it"},
	    {"version = \"1\"\n",
	     "app.toml:1:11: version must be an integer, not a string"},
	    {"name = 3\n",
	     "app.toml:1:8: name must be a string, not an integer"},
	    {"name = \"a b\"\n",
	     "app.toml:1:8: name: 'a b' is not a sandbox name: use only "
	     "letters, digits, '.', '_' and '-'"},
	    {"files = 1\n",
	     "app.toml:1:9: [files] must be a table, not an integer"},
	    {"[[files]]\n",
	     "app.toml:1:1: [files] must be a table, not an array (write "
	     "[files], not [[files]])"},
	    {"[localhost]\nports = [\"80\"]\n",
	     "app.toml:2:10: [localhost] ports must be an array of integers, "
	     "not an array holding a string"},
	    {"[localhost]\nports = [80, 70000]\n",
	     "app.toml:2:14: [localhost] ports: 70000 is not a port: give a "
	     "number from 1 to 65535"},
	    {"[internet]\nhosts = [\"b\\u00fccher.de\"]\n", NULL},
	    {"[internet]\nhosts = [\"a\\u0000b\"]\n", NULL},
	    {"[commands]\nalow = []\n",
	     "app.toml:2:1: unknown key 'alow' in [commands]; did you mean "
	     "'allow'?"},
	    {"[lan]\nhosts = [\"127.0.0.1\"]\n", NULL},
	    {"[browser]\nopen = [\"file:///etc/passwd\"]\n", NULL},
	    {"[files]\nwrite = [\"x\"]\n[files.sub]\n", NULL},
	    {"[files]\nwrite = [\"x\"\n", NULL}, /* TOML syntax */
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct policy p;
		struct lnk_err err = {0};
		int r = load(rows[i].text, &p, &err);
		if (r != -EINVAL)
			fail_msg("row %zu accepted", i);
		if (rows[i].msg && strcmp(err.msg, rows[i].msg) != 0)
			fail_msg("row %zu:\n got '%s'\nwant '%s'", i, err.msg,
				 rows[i].msg);
		/* Every refusal says where: app.toml:LINE:COL. */
		unsigned l, c;
		if (sscanf(err.msg, "app.toml:%u:%u:", &l, &c) != 2)
			fail_msg("row %zu: no position in '%s'", i, err.msg);
		policy_free(&p);
	}
}

static void sections_left_out_stay_closed(void **state)
{
	(void)state;
	struct policy p;
	struct lnk_err err = {0};
	assert_int_equal(load("", &p, &err), 0);
	for (int i = 0; i < K__COUNT; i++)
		assert_false(policy_has(&p, (enum key_id)i));
	policy_free(&p);
	/* An empty list is set: written, and opening nothing. */
	assert_int_equal(load("[commands]\nallow = []\n", &p, &err), 0);
	assert_true(policy_has(&p, K_COMMANDS_ALLOW));
	assert_int_equal(policy_list(&p, K_COMMANDS_ALLOW)->n, 0);
	char *t = spec_emit(&p);
	assert_string_equal(t, "version = 1\n\n[commands]\nallow = []\n");
	free(t);
	policy_free(&p);
}

static void product_example(void **state)
{
	(void)state;
	const char *text =
	    "name = \"app\"\nversion = 1\n\n[files]\n"
	    "write = [\"~/code/app\"]\n\n[internet]\n"
	    "hosts = [\"registry.npmjs.org\", \"api.openai.com\"]"
	    "\n\n[commands]\nallow = [\"sh\", \"node\", "
	    "\"npm\"]\n";
	struct policy p;
	struct lnk_err err = {0};
	assert_int_equal(load(text, &p, &err), 0);
	char *t = spec_emit(&p);
	/* A typical spec, already canonical: printed as written. */
	assert_string_equal(t, text);
	free(t);
	assert_string_equal(p.k[K_NAME].str, "app");
	assert_int_equal(p.k[K_FILES_WRITE].pos.line, 5);
	assert_int_equal(p.k[K_FILES_WRITE].item_pos[0].col, 10);
	policy_free(&p);
}

/* Formatting, order and repetition do not change the canonical text. */
static void canonical_whatever_the_layout(void **state)
{
	(void)state;
	const char *a = "[commands]\nenv = ['B']\nallow = [\"x\"]\n"
			"[files]\nread = ['/r']\nwrite = [ '/w' , '/w' ]\n"
			"[localhost]\nports = [0x50, 443]\n";
	const char *b = "files.write = [\"/w\"]\nfiles.read = [\"/r\"]\n"
			"localhost = { ports = [80, 443] }\n"
			"commands.allow = [\"x\"]\ncommands.env = [\"B\"]\n";
	struct policy pa, pb;
	struct lnk_err err = {0};
	assert_int_equal(load(a, &pa, &err), 0);
	assert_int_equal(load(b, &pb, &err), 0);
	char *ta = spec_emit(&pa), *tb = spec_emit(&pb);
	assert_string_equal(ta, tb);
	assert_string_equal(ta, "version = 1\n\n[files]\nwrite = [\"/w\"]\n"
				"read = [\"/r\"]\n\n[localhost]\n"
				"ports = [80, 443]\n\n[commands]\n"
				"allow = [\"x\"]\nenv = [\"B\"]\n");
	assert_true(policy_equal(&pa, &pb));
	free(ta);
	free(tb);
	policy_free(&pa);
	policy_free(&pb);
}

static void round_trip(const struct policy *p)
{
	char *t1 = spec_emit(p);
	struct policy q;
	struct lnk_err err = {0};
	policy_init(&q);
	if (policy_load_spec_text(&q, t1, strlen(t1), "emitted.toml", "/",
				  &err) != 0)
		fail_msg("emitted text does not parse: %s\n%s", err.msg, t1);
	char *t2 = spec_emit(&q);
	if (strcmp(t1, t2) != 0)
		fail_msg("emit differs after a round trip:\n%s\n---\n%s", t1,
			 t2);
	/* The version is set by the text, not by a flag-made policy. */
	q.k[K_VERSION] = (struct key_value){0};
	struct policy pc;
	policy_copy(&pc, p);
	policy_clear_key(&pc.k[K_VERSION]);
	if (!policy_equal(&pc, &q))
		fail_msg("policies differ after a round trip:\n%s", t1);
	policy_free(&pc);
	policy_free(&q);
	free(t1);
	free(t2);
}

/* Values that need escaping, long lists, and every key. */
static const char *const pool[K__COUNT][6] = {
    [K_NAME] = {"app", "a.b-c_d", "x"},
    [K_FILES_WRITE] = {"/home/u/code/app", "/tmp/a \"quoted\" dir",
		       "/back\\slash", "/new\nline", "/caf\xc3\xa9",
		       "/tab\there"},
    [K_FILES_READ] = {"/usr/share/doc", "/r",
		      "/\x7f"
		      "del",
		      "/e\x1b[0m"},
    [K_FILES_HIDE] = {"/h/one", "/h/two", "/h'single'"},
    [K_FILES_WRITE_DOT_FILES] = {"/home/u/code/app", "/w"},
    [K_FILES_CHANGES] = {"off", "full", "summary"},
    [K_INTERNET_HOSTS] = {"*", "registry.npmjs.org", "*.example.com",
			  "192.0.2.1", "2001:db8::1", "xn--bcher-kva.example"},
    [K_LAN_HOSTS] = {"nas:22", "192.168.1.0/24", "[fe80::1]:22", "fd00::/8",
		     "printer.local", "10.0.0.0/8:8080"},
    [K_LOCALHOST_PORTS] = {"1", "80", "5432", "65535", "8080"},
    [K_TOOLS_ALLOW] = {"gh", "gh pr view", "git push", "kubectl get pods"},
    [K_BROWSER_OPEN] = {"https://example.com/", "http://localhost:3000/x?a=b",
			"https://*.example.org/docs#frag"},
    [K_COMMANDS_ALLOW] = {"*", "node", "/usr/bin/git", "sh", "python3"},
    [K_COMMANDS_ENV] = {"FOO", "_BAR", "LANG", "x1"},
    [K_LIMITS_MEMORY] = {"512M", "2G", "1048577", "3k", "1T"},
    [K_LIMITS_TASKS] = {"1", "64", "4096"},
    [K_LIMITS_TMP_SIZE] = {"64M", "1G"},
    [K_TRIP_CALLS] = {"0", "3", "30"},
    [K_TRIP_TARGETS] = {"0", "1", "20"},
};

/* Keys with one value (name, sizes, counts) are set with a value or not
 * at all: "set and empty" is a list's state. */
static bool one_value(int id)
{
	return !key_is_list(key_def((enum key_id)id)->type);
}

static size_t pool_n(int id)
{
	size_t n = 0;
	while (n < 6 && pool[id][n])
		n++;
	return n;
}

static void table_round_trips(void **state)
{
	(void)state;
	/* Every key alone, with each of its values, then all of them. */
	for (int id = 0; id < K__COUNT; id++) {
		if (id == K_VERSION)
			continue;
		struct policy all;
		policy_init(&all);
		for (size_t v = 0; v < pool_n(id); v++) {
			struct policy p;
			policy_init(&p);
			struct lnk_err err = {0};
			if (policy_add_flag(&p, (enum key_id)id, pool[id][v],
					    &err) != 0)
				fail_msg("pool value '%s': %s", pool[id][v],
					 err.msg);
			assert_int_equal(policy_add_flag(&all, (enum key_id)id,
							 pool[id][v], &err),
					 0);
			round_trip(&p);
			policy_free(&p);
		}
		/* Set and empty. */
		struct policy e;
		policy_init(&e);
		e.k[id].set = true;
		if (!one_value(id))
			round_trip(&e);
		policy_free(&e);
		round_trip(&all);
		policy_free(&all);
	}
}

/* A small deterministic generator: the same cases on every run. */
static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)rng;
}

static void random_round_trips(void **state)
{
	(void)state;
	for (int round = 0; round < 3000; round++) {
		struct policy p;
		policy_init(&p);
		for (int id = 0; id < K__COUNT; id++) {
			if (id == K_VERSION || next() % 3 == 0)
				continue;
			size_t n = pool_n(id);
			size_t take = next() % (n + 1);
			if (take == 0 && !one_value(id))
				p.k[id].set = true; /* set, empty */
			for (size_t j = 0; j < take; j++) {
				struct lnk_err err = {0};
				assert_int_equal(
				    policy_add_flag(&p, (enum key_id)id,
						    pool[id][next() % n], &err),
				    0);
			}
		}
		round_trip(&p);
		policy_free(&p);
	}
}

/* The trust digest covers the limits and tripwires: a spec whose limit
 * changed is asked about again; one written another way is not. */
static void digest_covers_limits(void **state)
{
	(void)state;
	static const char *const texts[] = {
	    "[limits]\ntasks = 64\n",
	    "[limits]\ntasks = 32\n",
	    "[limits]\nmemory = \"1G\"\n",
	    "[limits]\nmemory = \"2G\"\n",
	    "[limits]\ntmp_size = \"1G\"\n",
	    "[tripwires]\nrefused_calls = 3\n",
	    "[tripwires]\nrefused_calls = 4\n",
	    "[tripwires]\nrefused_targets = 3\n",
	    "",
	};
	char d[ARRAY_SIZE(texts)][7 + 2 * SHA256_LEN + 1];
	for (size_t i = 0; i < ARRAY_SIZE(texts); i++) {
		struct policy p;
		struct lnk_err err = {0};
		if (load(texts[i], &p, &err) != 0)
			fail_msg("'%s': %s", texts[i], err.msg);
		trust_digest(&p, d[i]);
		for (size_t j = 0; j < i; j++)
			if (strcmp(d[i], d[j]) == 0)
				fail_msg("'%s' and '%s' have one digest",
					 texts[i], texts[j]);
		policy_free(&p);
	}
	/* "1024M" is "1G": the same limit, the same digest. */
	struct policy p;
	struct lnk_err err = {0};
	char again[7 + 2 * SHA256_LEN + 1];
	assert_int_equal(load("[limits]\nmemory = 1073741824\n", &p, &err), 0);
	trust_digest(&p, again);
	assert_string_equal(again, d[2]);
	policy_free(&p);
}

/* Spec-only emit leaves out what flags replaced and what --hide added. */
static void spec_only_emit(void **state)
{
	(void)state;
	struct policy p, flags;
	struct lnk_err err = {0};
	assert_int_equal(load("name = \"n\"\n[files]\nwrite = [\"/a\"]\n"
			      "hide = [\"/h\"]\n[commands]\nallow = [\"sh\"]\n",
			      &p, &err),
			 0);
	policy_init(&flags);
	assert_int_equal(policy_add_flag(&flags, K_FILES_WRITE, "/b", &err), 0);
	assert_int_equal(policy_add_flag(&flags, K_FILES_HIDE, "/h2", &err), 0);
	assert_int_equal(policy_add_flag(&flags, K_INTERNET_HOSTS, "*", &err),
			 0);
	policy_merge_flags(&p, &flags);
	char *all = spec_emit(&p);
	assert_string_equal(all,
			    "name = \"n\"\nversion = 1\n\n[files]\n"
			    "write = [\"/b\"]\nhide = [\"/h\", \"/h2\"]\n\n"
			    "[internet]\nhosts = [\"*\"]\n\n[commands]\n"
			    "allow = [\"sh\"]\n");
	char *file =
	    spec_emit_flags(&p, SPEC_EMIT_SPEC_ONLY | SPEC_EMIT_GRANTS_ONLY);
	assert_string_equal(file, "[files]\nhide = [\"/h\"]\n\n[commands]\n"
				  "allow = [\"sh\"]\n");
	free(all);
	free(file);
	policy_free(&p);
	policy_free(&flags);
}

static void long_lists_one_a_line(void **state)
{
	(void)state;
	struct policy p;
	policy_init(&p);
	struct lnk_err err = {0};
	for (int i = 0; i < 5; i++) {
		char h[64];
		snprintf(h, sizeof(h), "host-number-%d.example.com", i);
		assert_int_equal(policy_add_flag(&p, K_INTERNET_HOSTS, h, &err),
				 0);
	}
	char *t = spec_emit(&p);
	assert_non_null(strstr(t,
			       "hosts = [\n    \"host-number-0.example.com\","
			       "\n"));
	assert_non_null(strstr(t, "    \"host-number-4.example.com\",\n]\n"));
	free(t);
	round_trip(&p);
	policy_free(&p);
}

/* Hostile bytes: mutated specs are refused or accepted, never crash (run
 * under the sanitizers by tests/run-all), and what is accepted round-trips
 * like any other spec. */
static void mutated_specs(void **state)
{
	(void)state;
	const char *seeds[] = {
	    "name = \"app\"\nversion = 1\n[files]\nwrite = [\"/a\", \"b\"]\n"
	    "[internet]\nhosts = [\"*.x.org\"]\n[lan]\nhosts = [\"nas:22\"]\n",
	    "[localhost]\nports = [1, 2]\n[tools]\nallow = [\"gh pr\"]\n"
	    "[browser]\nopen = [\"https://a.b/\"]\n[commands]\n"
	    "allow = [\"*\"]\nenv = [\"A\"]\n",
	};
	const char alphabet[] =
	    "[]{}=\"',.\\\n #*:/0123456789abcxyz\x00\xc3\xff";
	for (size_t s = 0; s < 2; s++) {
		size_t len = strlen(seeds[s]);
		for (int round = 0; round < 4000; round++) {
			char buf[512];
			memcpy(buf, seeds[s], len);
			size_t n = len;
			int edits = 1 + (int)(next() % 4);
			for (int e = 0; e < edits; e++) {
				size_t at = next() % n;
				char c =
				    alphabet[next() % (sizeof(alphabet) - 1)];
				switch (next() % 3) {
				case 0:
					buf[at] = c;
					break;
				case 1:
					if (n + 1 < sizeof(buf)) {
						memmove(buf + at + 1, buf + at,
							n - at);
						buf[at] = c;
						n++;
					}
					break;
				default:
					if (n > 1) {
						memmove(buf + at, buf + at + 1,
							n - at - 1);
						n--;
					}
				}
			}
			struct policy p;
			struct lnk_err err = {0};
			policy_init(&p);
			int r = policy_load_spec_text(&p, buf, n, "m.toml", "/",
						      &err);
			if (r != 0 && r != -EINVAL && r != -E2BIG)
				fail_msg("unexpected %d: %s", r, err.msg);
			if (r != 0)
				assert_true(err.msg[0] != '\0');
			else
				round_trip(&p);
			policy_free(&p);
		}
	}
}

/* A path that is not UTF-8: escaped in the TOML, exact in a comment (so
 * the trust digest tells two such paths apart), refused by spec. */
static void bytes_that_are_not_utf8(void **state)
{
	(void)state;
	struct policy a, b;
	struct lnk_err err = {0};
	policy_init(&a);
	policy_init(&b);
	assert_int_equal(policy_add_flag(&a, K_FILES_WRITE, "/x\x9b", &err), 0);
	assert_int_equal(policy_add_flag(&b, K_FILES_WRITE, "/x\x9c", &err), 0);
	char *ta = spec_emit(&a), *tb = spec_emit(&b);
	assert_string_equal(
	    ta, "version = 1\n\n[files]\n"
		"write = [\"/x\\uFFFD\"]\n"
		"# write entry 0 is not UTF-8, its bytes: 2f789b\n");
	assert_string_not_equal(ta, tb);
	assert_int_equal(spec_emit_check(&a, &err), -EILSEQ);
	assert_non_null(strstr(err.msg, "'/x\\x9b' (--write) is not UTF-8"));
	free(ta);
	free(tb);
	policy_free(&a);
	policy_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(errors_say_where),
	    cmocka_unit_test(sections_left_out_stay_closed),
	    cmocka_unit_test(product_example),
	    cmocka_unit_test(canonical_whatever_the_layout),
	    cmocka_unit_test(table_round_trips),
	    cmocka_unit_test(random_round_trips),
	    cmocka_unit_test(spec_only_emit),
	    cmocka_unit_test(digest_covers_limits),
	    cmocka_unit_test(long_lists_one_a_line),
	    cmocka_unit_test(mutated_specs),
	    cmocka_unit_test(bytes_that_are_not_utf8),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
