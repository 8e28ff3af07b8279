/* Where a lockfile or a requirements file fetches its packages from
 * (src/changes/sources.c): the registry's tarballs and plain pins say
 * nothing, any other source is named; cut and odd input never reads past
 * its end (each case is given without a terminating NUL of its own). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "changes/flags.h"

/* sources_reason on a copy of s of exactly its length (no NUL after it:
 * ASan, if on, sees a read past the end). */
static char *reason(const char *name, const char *s)
{
	size_t n = strlen(s);
	char *copy = malloc(n ? n : 1);
	memcpy(copy, s, n);
	char *r = sources_reason(name, copy, n);
	free(copy);
	return r;
}

static void named(const char *name, const char *s, const char *word)
{
	char *r = reason(name, s);
	assert_non_null(r);
	assert_non_null(strstr(r, word));
	free(r);
}

static void silent(const char *name, const char *s)
{
	char *r = reason(name, s);
	assert_null(r);
}

static void which_files(void **state)
{
	(void)state;
	assert_true(sources_file("package-lock.json"));
	assert_true(sources_file("npm-shrinkwrap.json"));
	assert_true(sources_file("yarn.lock"));
	assert_true(sources_file("requirements.txt"));
	assert_true(sources_file("requirements-dev.txt"));
	assert_true(sources_file("constraints.txt"));
	assert_false(sources_file("requirements.in"));
	assert_false(sources_file("package.json"));
	assert_false(sources_file(".txt"));
}

static void npm_lockfiles(void **state)
{
	(void)state;
	silent("package-lock.json",
	       "{\"packages\":{\"node_modules/a\":{\"resolved\": "
	       "\"https://registry.npmjs.org/a/-/a-1.tgz\"}}}");
	named("package-lock.json",
	      "{\"resolved\":\"https://registry.npmjs.org/a.tgz\","
	      "\"resolved\":\"git+ssh://evil.example/x.git\"}",
	      "evil.example");
	named("package-lock.json", "{\"resolved\":\"file:../x.tgz\"}", "file:");
	named("npm-shrinkwrap.json", "{\"resolv\\u0065d\":\"x\"}", "escape");
	/* a registry's name as a prefix of another host */
	named("package-lock.json",
	      "{\"resolved\":\"https://registry.npmjs.org.evil.example/a\"}",
	      "evil");
	/* cut anywhere: never past the end */
	silent("package-lock.json", "{\"resolved\"");
	silent("package-lock.json", "{\"resolved\":");
	named("package-lock.json", "{\"resolved\":\"https://e", "https://e");
	silent("package-lock.json", "");
}

static void yarn_lockfiles(void **state)
{
	(void)state;
	silent("yarn.lock", "a@^1:\n  version \"1.0.0\"\n  resolved "
			    "\"https://registry.yarnpkg.com/a/-/a-1.0.0.tgz#x\""
			    "\n");
	named("yarn.lock", "a@^1:\n  resolved \"https://evil.example/a.tgz\"\n",
	      "evil.example");
	named("yarn.lock", "a@^1:\n\tresolved https://evil.example/b", "evil");
	/* yarn 2 and later */
	silent("yarn.lock", "\"lodash@npm:^4\":\n  resolution: "
			    "\"lodash@npm:4.17.21\"\n  checksum: abc\n");
	silent("yarn.lock", "  resolution: \"@scope/a@npm:1.0.0\"\n");
	silent("yarn.lock", "  resolution: \"app@workspace:.\"\n");
	silent("yarn.lock",
	       "  resolution: \"resolve@patch:resolve@npm%3A1.22.1#"
	       "~builtin<compat/resolve>::version=1.22.1\"\n");
	named("yarn.lock", "  resolution: \"gen@exec:./gen.js\"\n", "exec:");
	named("yarn.lock", "  resolution: \"x@https://evil.example/x.tgz\"",
	      "evil");
	named("yarn.lock", "  resolution: \"x@patch:x@npm%3A1#./p.patch\"",
	      "p.patch");
	named("yarn.lock", "  resolution: \"x@npm:1.0.0#evil\"", "evil");
	named("yarn.lock", "  resolution: \"noat\"", "noat");
	silent("yarn.lock", "  resolved");
	named("yarn.lock", "  resolved \"", "resolves");
}

static void requirements(void **state)
{
	(void)state;
	silent("requirements.txt", "requests==2.31\n# https://x @ y\n\n");
	named("requirements.txt", "--index-url https://evil.example/simple\n",
	      "index");
	named("requirements.txt", "  -i https://evil.example/simple", "-i");
	named("requirements.txt", "--extra-index-url=https://e.example/",
	      "e.ex");
	named("requirements.txt", "--trusted-host evil.example\n", "evil");
	named("requirements.txt", "-f ./wheels\n", "links");
	named("requirements.txt", "git+https://evil.example/p.git#egg=p",
	      "git+");
	named("requirements.txt", "-e git+https://evil.example/p.git", "git+");
	named("constraints.txt", "pkg @ https://evil.example/p.whl\n", "evil");
	silent("requirements.txt", "-");
	silent("requirements.txt", "-e");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(which_files),
	    cmocka_unit_test(npm_lockfiles),
	    cmocka_unit_test(yarn_lockfiles),
	    cmocka_unit_test(requirements),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
