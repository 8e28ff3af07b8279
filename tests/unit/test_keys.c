/* The keys table and the check of one entry of every key type, as row
 * tables: what is accepted, its normal form, and what each refusal says. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/util.h"
#include "policy/keys.h"

struct row {
	enum key_id id;
	const char *in;
	const char *want; /* the normal form, or NULL when refused */
	const char *msg;  /* a part of the refusal's message */
};

static const struct row rows[] = {
    /* names, hosts, LAN grants and ports: the keys table calls the
     * grammar (test_grammar.c has every form); one row each shows it */
    {K_NAME, "app", "app", NULL},
    {K_NAME, ".x", NULL, "not a sandbox name"},
    {K_INTERNET_HOSTS, "*.Example.com", "*.example.com", NULL},
    {K_INTERNET_HOSTS, "1.0x7f", NULL, "ambiguous address literal"},
    {K_LAN_HOSTS, "NAS:22", "nas:22", NULL},
    {K_LAN_HOSTS, "100.100.100.200", NULL, "cloud metadata address"},
    {K_LOCALHOST_PORTS, "5432", "5432", NULL},
    {K_LOCALHOST_PORTS, "080", NULL, "not a port"},
    /* tools */
    {K_TOOLS_ALLOW, "gh", "gh", NULL},
    {K_TOOLS_ALLOW, "gh pr view", "gh pr view", NULL},
    {K_TOOLS_ALLOW, "  gh   pr  ", "gh pr", NULL},
    {K_TOOLS_ALLOW, "", NULL, "empty"},
    {K_TOOLS_ALLOW, "   ", NULL, "empty"},
    {K_TOOLS_ALLOW, "/usr/bin/gh", NULL, "not a path"},
    {K_TOOLS_ALLOW, "gh\tpr", NULL, "control character"},
    {K_TOOLS_ALLOW, "gh pr\n", NULL, "control character"},
    {K_TOOLS_ALLOW, "gh \x1b[2J", NULL, "control character"},
    {K_TOOLS_ALLOW, "git-lfs", "git-lfs", NULL},
    {K_TOOLS_ALLOW, "..", NULL, "not starting with"},
    {K_TOOLS_ALLOW, "-x", NULL, "not starting with"},
    {K_TOOLS_ALLOW, "g$h", NULL, "letters, digits"},
    /* a call is a whole-call pattern: options are words, '*' alone */
    {K_TOOLS_ALLOW, "gh --repo", "gh --repo", NULL},
    {K_TOOLS_ALLOW, "git  log   *", "git log *", NULL},
    {K_TOOLS_ALLOW, "gh * view", "gh * view", NULL},
    {K_TOOLS_ALLOW, "gh *", "gh *", NULL},
    {K_TOOLS_ALLOW, "gh pr*", NULL, "stands alone"},
    {K_TOOLS_ALLOW, "git log --format='%h'", NULL, "quote"},
    {K_TOOLS_ALLOW, "git log a\\b", NULL, "backslash"},
    {K_TOOLS_ALLOW, "git log \xe2\x80\xae", NULL, "invisible"},
    {K_TOOLS_ALLOW, "git log \xc2\x9b", NULL, "control character"},
    /* pages */
    {K_BROWSER_OPEN, "https://example.com/", "https://example.com/", NULL},
    {K_BROWSER_OPEN, "HTTPS://Example.COM/Path?Q=A",
     "https://example.com/Path?Q=A", NULL},
    {K_BROWSER_OPEN, "http://localhost:3000", "http://localhost:3000", NULL},
    {K_BROWSER_OPEN, "https://*.example.com/docs", "https://*.example.com/docs",
     NULL},
    {K_BROWSER_OPEN, "https://[::1]:8080/", "https://[::1]:8080/", NULL},
    {K_BROWSER_OPEN, "https://192.0.2.1/", "https://192.0.2.1/", NULL},
    {K_BROWSER_OPEN, "file:///etc/passwd", NULL, "http:// or https://"},
    {K_BROWSER_OPEN, "javascript:alert(1)", NULL, "http:// or https://"},
    {K_BROWSER_OPEN, "example.com", NULL, "http:// or https://"},
    {K_BROWSER_OPEN, "https://", NULL, "no host"},
    {K_BROWSER_OPEN, "https:///path", NULL, "no host"},
    {K_BROWSER_OPEN, "https://good.com@evil.com/", NULL, "'@'"},
    {K_BROWSER_OPEN, "https://a b.com/", NULL, "space or control"},
    {K_BROWSER_OPEN, "https://example.com/\n", NULL, "space or control"},
    {K_BROWSER_OPEN, "https://example.com:0/", NULL, "1 to 65535"},
    {K_BROWSER_OPEN, "https://ex_ample..com/", NULL, "valid host"},
    {K_BROWSER_OPEN,
     "https://b\xc3\xbc"
     "cher.de/",
     NULL, "xn--"},
    {K_BROWSER_OPEN, "https://[zz]/", NULL, "IPv6"},
    /* commands */
    {K_COMMANDS_ALLOW, "node", "node", NULL},
    {K_COMMANDS_ALLOW, "*", "*", NULL},
    {K_COMMANDS_ALLOW, "/usr/bin/git", "/usr/bin/git", NULL},
    {K_COMMANDS_ALLOW, "~/bin/tool", "~/bin/tool", NULL},
    {K_COMMANDS_ALLOW, "", NULL, "empty"},
    {K_COMMANDS_ALLOW, "bin/tool", NULL, "a folder ending in '/'"},
    {K_COMMANDS_ALLOW, "node_modules/", "node_modules/", NULL},
    {K_COMMANDS_ALLOW, "/opt/tools/", "/opt/tools/", NULL},
    {K_COMMANDS_ALLOW, "no*de", NULL, "stands alone"},
    {K_COMMANDS_ALLOW, "node\n", NULL, "control character"},
    {K_COMMANDS_ALLOW,
     "/usr/bin/t\xc2\x9b"
     "2K",
     NULL, "control character"},
    {K_COMMANDS_ALLOW, "/usr/bin/t\x9b", NULL, "control character"},
    {K_COMMANDS_ALLOW, "/usr/bin/\xe6\x97\xa5", "/usr/bin/\xe6\x97\xa5", NULL},
    {K_COMMANDS_ALLOW, "~bob/x", NULL, "only '~/'"},
    /* env */
    {K_COMMANDS_ENV, "FOO", "FOO", NULL},
    {K_COMMANDS_ENV, "_x9", "_x9", NULL},
    {K_COMMANDS_ENV, "9X", NULL, "starts with a letter"},
    {K_COMMANDS_ENV, "FOO=bar", NULL, "not NAME=value"},
    {K_COMMANDS_ENV, "A-B", NULL, "letters, digits"},
    {K_COMMANDS_ENV, "", NULL, "1 to 128"},
    /* paths: form only here */
    /* Sizes: one grammar (K, M, G, T are 1024s), one way to write each. */
    {K_LIMITS_MEMORY, "512M", "512M", NULL},
    {K_LIMITS_MEMORY, "2048m", "2G", NULL},
    {K_LIMITS_MEMORY, "1073741824", "1G", NULL},
    {K_LIMITS_MEMORY, "1000", "1000", NULL},
    {K_LIMITS_MEMORY, "0", NULL, "only lower"},
    {K_LIMITS_MEMORY, "0G", NULL, "only lower"},
    {K_LIMITS_MEMORY, "2 G", NULL, "not a size"},
    {K_LIMITS_MEMORY, "2GB", NULL, "not a size"},
    {K_LIMITS_MEMORY, "-1", NULL, "not a size"},
    {K_LIMITS_MEMORY, "99999999999999999999", NULL, "not a size"},
    {K_LIMITS_MEMORY, "16777216T", NULL, "not a size"},
    {K_LIMITS_MEMORY, "", NULL, "not a size"},
    {K_LIMITS_TMP_SIZE, "64k", "64K", NULL},
    {K_LIMITS_TMP_SIZE, "0", NULL, "only lower"},
    /* Counts: digits only. */
    {K_LIMITS_TASKS, "64", "64", NULL},
    {K_LIMITS_TASKS, "0064", "64", NULL},
    {K_LIMITS_TASKS, "0", NULL, "only lower"},
    {K_LIMITS_TASKS, "64k", NULL, "not a whole number"},
    {K_LIMITS_TASKS, "1000001", NULL, "up to 1000000"},
    {K_TRIP_CALLS, "0", "0", NULL},
    {K_TRIP_CALLS, "3", "3", NULL},
    {K_TRIP_CALLS, "-3", NULL, "not a whole number"},
    {K_TRIP_TARGETS, "5", "5", NULL},
    {K_TRIP_TARGETS, "five", NULL, "not a whole number"},
    {K_FILES_WRITE, ".", ".", NULL},
    {K_FILES_WRITE, "~", "~", NULL},
    {K_FILES_READ, "~/a b", "~/a b", NULL},
    {K_FILES_HIDE, "/x\"y", "/x\"y", NULL},
    {K_FILES_WRITE, "", NULL, "empty path"},
    {K_FILES_WRITE, "~bob", NULL, "only '~' and '~/'"},
    {K_FILES_WRITE_DOT_FILES, "~root/x", NULL, "only '~' and '~/'"},
};

static void every_row(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];
		struct lnk_err err = {0};
		char *out = NULL;
		int ret = key_normalize(key_def(r->id), r->in, strlen(r->in),
					&out, &err);
		if (r->want) {
			if (ret != 0)
				fail_msg("row %zu '%s' refused: %s", i, r->in,
					 err.msg);
			assert_string_equal(out, r->want);
			/* The normal form is its own normal form. */
			char *again = NULL;
			assert_int_equal(key_normalize(key_def(r->id), out,
						       strlen(out), &again,
						       &err),
					 0);
			assert_string_equal(again, out);
			free(again);
		} else {
			if (ret != -EINVAL)
				fail_msg("row %zu '%s' accepted as '%s'", i,
					 r->in, out ? out : "?");
			assert_null(out);
			if (!strstr(err.msg, r->msg))
				fail_msg("row %zu '%s': message '%s' lacks "
					 "'%s'",
					 i, r->in, err.msg, r->msg);
			/* Messages are lowercase at the start, no period. */
			if (err.msg[strlen(err.msg) - 1] == '.')
				fail_msg("row %zu: message ends in '.': %s", i,
					 err.msg);
		}
		free(out);
	}
}

/* A TOML string can hold U+0000, which C would cut short: refused for
 * every key. */
static void nul_refused_everywhere(void **state)
{
	(void)state;
	for (int id = 0; id < K__COUNT; id++) {
		struct lnk_err err = {0};
		char *out = NULL;
		assert_int_equal(key_normalize(key_def((enum key_id)id),
					       "ab\0cd", 5, &out, &err),
				 -EINVAL);
		assert_null(out);
	}
}

/* Control characters in a refused entry are escaped in the message, so a
 * hostile spec cannot write to the terminal through an error. */
static void message_escapes_controls(void **state)
{
	(void)state;
	struct lnk_err err = {0};
	char *out = NULL;
	const char *in = "x\x1b]0;owned\x07.com";
	assert_int_equal(key_normalize(key_def(K_INTERNET_HOSTS), in,
				       strlen(in), &out, &err),
			 -EINVAL);
	assert_null(strchr(err.msg, 0x1b));
	assert_null(strchr(err.msg, 0x07));
}

static void table_is_whole(void **state)
{
	(void)state;
	const struct key_def *t = keys_table();
	for (int i = 0; i < K__COUNT; i++) {
		assert_int_equal(t[i].id, i);
		assert_non_null(t[i].key);
		assert_non_null(t[i].help);
		/* Help text: lowercase start, no final period. */
		assert_false(t[i].help[0] >= 'A' && t[i].help[0] <= 'Z');
		assert_true(t[i].help[strlen(t[i].help) - 1] != '.');
		if (t[i].flag) {
			assert_ptr_equal(key_by_flag(t[i].flag), &t[i]);
			assert_non_null(t[i].metavar);
		}
		assert_ptr_equal(key_by_name(t[i].section, t[i].key), &t[i]);
		if (t[i].section) {
			bool found = false;
			for (const char *const *s = keys_sections(); *s; s++)
				found |= strcmp(*s, t[i].section) == 0;
			assert_true(found);
		}
	}
	/* Only --hide adds beside --spec. */
	for (int i = 0; i < K__COUNT; i++)
		assert_int_equal(t[i].merge,
				 i == K_FILES_HIDE ? MERGE_ADD : MERGE_REPLACE);
	assert_null(key_by_flag("--wirte"));
	assert_null(key_by_name("files", "hosts"));
	assert_null(key_by_name(NULL, "write"));
	assert_ptr_equal(key_by_name(NULL, "version"), &t[K_VERSION]);
	assert_null(key_def(K__COUNT));
	const char *want[] = {"files",	   "internet", "lan",	   "localhost",
			      "tools",	   "browser",  "commands", "limits",
			      "tripwires", NULL};
	const char *const *s = keys_sections();
	for (size_t i = 0; want[i]; i++)
		assert_string_equal(s[i], want[i]);
	assert_null(s[9]);
}

static void names_for_hints(void **state)
{
	(void)state;
	const char *n[32];
	size_t c = keys_names_in("files", n, 32);
	assert_int_equal(c, 5);
	assert_string_equal(n[0], "write");
	assert_string_equal(n[3], "write_dot_files");
	assert_string_equal(n[4], "changes");
	c = keys_names_in(NULL, n, 32);
	assert_int_equal(c, 2 + 9);
	assert_string_equal(closest_word("wirte", n, c) ? "x" : "x", "x");
	c = keys_names_in("commands", n, 32);
	assert_string_equal(closest_word("alow", n, c), "allow");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_row),
	    cmocka_unit_test(nul_refused_everywhere),
	    cmocka_unit_test(message_escapes_controls),
	    cmocka_unit_test(table_is_whole),
	    cmocka_unit_test(names_for_hints),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
