/* The program's environment (src/launch/env.c, invariant 4): cleared, a
 * small documented set, names the user passes, the wire's variables. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/buf.h"
#include "launch/env.h"

static char *join(const struct strv *o)
{
	struct buf b = {0};
	for (size_t i = 0; i < o->n; i++) {
		buf_puts(&b, o->v[i]);
		buf_putc(&b, '\n');
	}
	return buf_steal(&b);
}

static char *const host[] = {
    "HOME=/home/u",
    "PATH=/home/u/bin:/usr/bin",
    "TERM=xterm-256color",
    "LANG=fr_FR.UTF-8",
    "SSH_AUTH_SOCK=/run/user/1000/ssh",
    "GITHUB_TOKEN=ghp_secret",
    "AWS_SECRET_ACCESS_KEY=aws_secret",
    "LD_PRELOAD=/tmp/evil.so",
    "TMPDIR=/run/user/1000",
    "NPM_CONFIG_REGISTRY=https://r.example",
    "EMPTY=",
    NULL,
};

/* Nothing passes that is not in the set: no token, no agent socket, no
 * LD_PRELOAD, no TMPDIR (the sandbox's /tmp is its own). */
static void minimal_set(void **state)
{
	(void)state;
	struct strv out = {0};
	struct env_in in = {.host_env = host,
			    .home = "/home/u",
			    .user = "u",
			    .shell = "/bin/bash"};
	env_build(&in, &out);
	char *got = join(&out);
	assert_string_equal(got, "PATH=" ENV_SANDBOX_PATH "\n"
				 "HOME=/home/u\n"
				 "USER=u\n"
				 "LOGNAME=u\n"
				 "SHELL=/bin/bash\n"
				 "TERM=xterm-256color\n"
				 "LANG=fr_FR.UTF-8\n");
	free(got);
	strv_free(&out);
}

/* LANG falls back to C.UTF-8; no TERM when lnk has none; LC_ALL passes. */
static void lang_fallback(void **state)
{
	(void)state;
	char *const none[] = {"FOO=1", NULL};
	char *const lcall[] = {"LC_ALL=de_DE.UTF-8", NULL};
	struct strv out = {0};
	struct env_in in = {.host_env = none, .home = "/h"};
	env_build(&in, &out);
	char *got = join(&out);
	assert_string_equal(got, "PATH=" ENV_SANDBOX_PATH "\nHOME=/h\n"
				 "LANG=C.UTF-8\n");
	free(got);
	strv_free(&out);

	in.host_env = lcall;
	env_build(&in, &out);
	got = join(&out);
	assert_non_null(strstr(got, "LC_ALL=de_DE.UTF-8\n"));
	assert_null(strstr(got, "LANG="));
	free(got);
	strv_free(&out);
}

/* --env NAME passes that name's value, and only when lnk has it; names
 * that are not names pass nothing; the wire's variables win. */
static void passed_and_extra(void **state)
{
	(void)state;
	struct strv pass = {0}, extra = {0}, out = {0};
	strv_push(&pass, "NPM_CONFIG_REGISTRY");
	strv_push(&pass, "NOT_SET_ANYWHERE");
	strv_push(&pass, "EMPTY");
	strv_push(&pass, "GITHUB_TOKEN=x");
	strv_push(&pass, "");
	strv_push(&pass, "HTTPS_PROXY");
	strv_push(&extra, "HTTPS_PROXY=http://127.0.0.1:3128");
	strv_push(&extra, "NO_PROXY=localhost");
	strv_push(&extra, "=bad");
	strv_push(&extra, "bad");
	char *const h2[] = {"NPM_CONFIG_REGISTRY=https://r.example",
			    "EMPTY=", "HTTPS_PROXY=http://corp-proxy:8080",
			    NULL};
	struct env_in in = {
	    .host_env = h2, .home = "/h", .pass = &pass, .extra = &extra};
	env_build(&in, &out);
	char *got = join(&out);
	assert_string_equal(got, "PATH=" ENV_SANDBOX_PATH "\nHOME=/h\n"
				 "LANG=C.UTF-8\n"
				 "NPM_CONFIG_REGISTRY=https://r.example\n"
				 "EMPTY=\n"
				 "HTTPS_PROXY=http://127.0.0.1:3128\n"
				 "NO_PROXY=localhost\n");
	free(got);
	strv_free(&out);
	strv_free(&pass);
	strv_free(&extra);
}

/* --env PATH replaces the fixed PATH (the user asked for it by name). */
static void pass_overrides_fixed(void **state)
{
	(void)state;
	struct strv pass = {0}, out = {0};
	strv_push(&pass, "PATH");
	struct env_in in = {.host_env = host, .home = "/h", .pass = &pass};
	env_build(&in, &out);
	assert_string_equal(out.v[0], "PATH=/home/u/bin:/usr/bin");
	for (size_t i = 1; i < out.n; i++)
		assert_true(strncmp(out.v[i], "PATH=", 5) != 0);
	strv_free(&out);
	strv_free(&pass);
}

static void lookup(void **state)
{
	(void)state;
	assert_string_equal(env_lookup(host, "TERM"), "xterm-256color");
	assert_null(env_lookup(host, "TER"));
	assert_string_equal(env_lookup(host, "EMPTY"), "");
	assert_null(env_lookup(NULL, "TERM"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(minimal_set),
	    cmocka_unit_test(lang_fallback),
	    cmocka_unit_test(passed_and_extra),
	    cmocka_unit_test(pass_overrides_fixed),
	    cmocka_unit_test(lookup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
