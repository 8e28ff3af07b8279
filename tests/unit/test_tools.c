/* Tools (src/tools): the call the broker decodes from a hostile client,
 * which calls of a tool run at once, the hint and log target that never
 * carry more of the argv than the leading words, and tools.toml. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/buf.h"
#include "tools/allow.h"
#include "tools/call.h"
#include "tools/page.h"
#include "tools/proto.h"
#include "tools/reach.h"
#include "tools/store.h"

static void msg(struct buf *b, uint32_t version, uint32_t n)
{
	buf_append(b, TOOLS_MAGIC, 4);
	buf_append(b, &version, 4); /* the tests run little-endian */
	buf_append(b, &n, 4);
}

static void test_decode_good(void **state)
{
	(void)state;
	struct buf b = {0};
	struct tools_call c;
	struct lnk_err e = {0};

	msg(&b, TOOLS_VERSION, 4);
	buf_append(&b, "gh\0/w\0pr\0\0", 10);
	assert_int_equal(tools_call_decode(b.p, b.len, &c, &e), 0);
	assert_string_equal(c.tool, "gh");
	assert_string_equal(c.cwd, "/w");
	assert_int_equal(c.args.n, 2);
	assert_string_equal(c.args.v[0], "pr");
	assert_string_equal(c.args.v[1], "");
	tools_call_free(&c);
	buf_free(&b);
}

static void bad(const char *body, size_t len, uint32_t v, uint32_t n,
		const char *want)
{
	struct buf b = {0};
	struct tools_call c;
	struct lnk_err e = {0};

	msg(&b, v, n);
	buf_append(&b, body, len);
	assert_true(tools_call_decode(b.p, b.len, &c, &e) < 0);
	if (!strstr(e.msg, want))
		fail_msg("'%s' lacks '%s'", e.msg, want);
	buf_free(&b);
}

static void test_decode_bad(void **state)
{
	(void)state;
	struct tools_call c;
	struct lnk_err e = {0};

	assert_true(tools_call_decode("LNK", 3, &c, &e) < 0);
	assert_true(tools_call_decode("XXXXaaaabbbb", 12, &c, &e) < 0);
	bad("gh\0/\0", 5, 2, 2, "version");
	bad("gh\0", 3, TOOLS_VERSION, 1, "no tool");
	bad("gh\0/\0x", 6, TOOLS_VERSION, 3, "cut short");
	bad("gh\0/\0", 5, TOOLS_VERSION, 3, "cut short");
	bad("gh\0/\0x", 6, TOOLS_VERSION, 2, "after");
	bad("", 0, TOOLS_VERSION, TOOLS_MAX_ARGS + 1, "more than");
	bad("", 0, TOOLS_VERSION, UINT32_MAX, "more than");
}

static void test_signals(void **state)
{
	(void)state;
	assert_true(tools_signal_ok(2));   /* INT */
	assert_false(tools_signal_ok(9));  /* KILL */
	assert_false(tools_signal_ok(19)); /* STOP */
	assert_false(tools_signal_ok(0));
	assert_false(tools_signal_ok(200));
}

static struct strv args(const char *const *v)
{
	struct strv s = {0};
	for (; *v; v++)
		strv_push(&s, *v);
	return s;
}

static void test_allowed(void **state)
{
	(void)state;
	struct tool_grant g = {.name = "gh"};
	size_t m;

	strv_push(&g.allow, "pr");
	strv_push(&g.allow, "issue list");
	struct strv a1 = args((const char *[]){"pr", "view", "1", NULL});
	struct strv a2 = args((const char *[]){"issue", "list", NULL});
	struct strv a3 = args((const char *[]){"issue", "close", NULL});
	struct strv a4 = args((const char *[]){"prx", NULL});
	struct strv a5 = args((const char *[]){"issue", NULL});
	struct strv a0 = {0};
	assert_true(tools_allowed(&g, &a1, &m));
	assert_int_equal(m, 1);
	assert_true(tools_allowed(&g, &a2, &m));
	assert_int_equal(m, 2);
	assert_false(tools_allowed(&g, &a3, &m));
	assert_false(tools_allowed(&g, &a4, &m));
	assert_false(tools_allowed(&g, &a5, &m));
	assert_false(tools_allowed(&g, &a0, &m));
	g.any = true;
	assert_true(tools_allowed(&g, &a3, &m));
	assert_int_equal(m, 0);

	char *t = tools_log_target("gh", &a1, 1);
	assert_string_equal(t, "gh pr");
	free(t);
	strv_free(&a1);
	strv_free(&a2);
	strv_free(&a3);
	strv_free(&a4);
	strv_free(&a5);
	strv_free(&g.allow);
}

static void test_hint(void **state)
{
	(void)state;
	struct {
		const char *v[4];
		const char *want;
	} rows[] = {
	    {{"issue", "list", "--token=SECRET", NULL}, "issue list"},
	    {{"issue", "--x", NULL}, "issue"},
	    {{"--x", NULL}, "*"},
	    {{NULL}, "*"},
	    {{"a'b", NULL}, "*"},
	    {{"api", "/user?x=$(id)", NULL}, "api"},
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct strv a = args(rows[i].v);
		char *h = tools_hint_call(&a);
		assert_string_equal(h, rows[i].want);
		free(h);
		strv_free(&a);
	}
}

static void test_names(void **state)
{
	(void)state;
	assert_true(tools_name_ok("gh"));
	assert_true(tools_name_ok("git-lfs"));
	assert_true(tools_name_ok("g++"));
	assert_false(tools_name_ok(""));
	assert_false(tools_name_ok(".."));
	assert_false(tools_name_ok("-x"));
	assert_false(tools_name_ok("a/b"));
	assert_false(tools_name_ok("a b"));
}

static void test_store_round_trip(void **state)
{
	(void)state;
	char dir[] = "/tmp/lnk-test-tools-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *path = xasprintf("%s/tools.toml", dir);
	struct tools_store s = {0}, t;
	struct lnk_err e = {0};
	char *n = NULL;

	assert_int_equal(tools_store_load(path, &t, &e), 0);
	assert_int_equal(t.n, 0);
	assert_int_equal(tools_call_normalize("pr   list", &n, &e), 0);
	assert_string_equal(n, "pr list");
	assert_int_equal(tools_store_add(&s, "gh", n), 0);
	assert_int_equal(tools_store_add(&s, "gh", n), -EEXIST);
	free(n);
	assert_int_equal(tools_store_add(&s, "g.h", "*"), 0);
	assert_int_equal(tools_store_save(path, &s, &e), 0);
	assert_int_equal(tools_store_load(path, &t, &e), 0);
	assert_int_equal(t.n, 2);
	assert_string_equal(tools_store_calls(&t, "gh")->v[0], "pr list");
	assert_string_equal(tools_store_calls(&t, "g.h")->v[0], "*");
	assert_int_equal(tools_store_remove(&t, "gh", "x"), -ENOENT);
	assert_int_equal(tools_store_remove(&t, "gh", "pr list"), 0);
	assert_null(tools_store_calls(&t, "gh"));
	tools_store_free(&t);
	tools_store_free(&s);

	assert_true(tools_call_normalize("a*", &n, &e) < 0);
	assert_true(tools_call_normalize("pr --x", &n, &e) < 0);
	assert_true(tools_call_normalize("", &n, &e) < 0);
	assert_true(tools_call_normalize("a\nb", &n, &e) < 0);

	FILE *f = fopen(path, "w");
	fputs("[\"gh\"]\nallow = [\"pr\"]\nother = 1\n", f);
	fclose(f);
	assert_true(tools_store_load(path, &t, &e) < 0);
	assert_non_null(strstr(e.msg, "tools.toml:1"));
	f = fopen(path, "w");
	fputs("[\"../x\"]\nallow = [\"pr\"]\n", f);
	fclose(f);
	assert_true(tools_store_load(path, &t, &e) < 0);
	unlink(path);
	rmdir(dir);
	free(path);
}

static void test_pages(void **state)
{
	(void)state;
	struct strv pats = {0};
	struct lnk_err e = {0};
	char *n, *o;

	strv_push(&pats, "https://*.example.org/docs");
	strv_push(&pats, "http://plain.test");
	struct {
		const char *url;
		int ok;	     /* page_check */
		int allowed; /* page_allowed */
		const char *origin;
	} rows[] = {
	    {"https://a.example.org/docs/x?q=1", 1, 1, "https://a.example.org"},
	    {"HTTPS://A.Example.ORG/docs", 1, 1, "https://a.example.org"},
	    {"https://example.org/docs", 1, 0, NULL},
	    {"https://a.example.org/doc", 1, 0, NULL},
	    {"https://a.example.org.evil.test/docs", 1, 0, NULL},
	    {"https://evil.test/#https://a.example.org/docs", 1, 0, NULL},
	    {"http://a.example.org/docs", 1, 0, NULL},
	    {"http://plain.test/anything", 1, 1, "http://plain.test"},
	    {"http://plain.test:8080/", 1, 0, NULL},
	    {"https://x@a.example.org/docs", 0, 0, NULL},
	    {"https://*.example.org/docs", 0, 0, NULL},
	    {"file:///etc/passwd", 0, 0, NULL},
	    {"javascript:alert(1)", 0, 0, NULL},
	    {" https://a.example.org/docs", 0, 0, NULL},
	    /* what a browser resolves before it asks: out of the prefix */
	    {"https://a.example.org/docs/../admin", 0, 0, NULL},
	    {"https://a.example.org/docs/.", 0, 0, NULL},
	    {"https://a.example.org/docs/%2E%2e/admin", 0, 0, NULL},
	    {"https://a.example.org/docs/.%2e?x", 0, 0, NULL},
	    {"https://a.example.org/docs\\..\\admin", 0, 0, NULL},
	    {"https://a.example.org/docs/a\\b", 0, 0, NULL},
	    {"https://a.example.org/docs/..%2Fadmin", 0, 0, NULL},
	    {"https://a.example.org/docs%2f..%2fadmin", 0, 0, NULL},
	    {"https://a.example.org/docs/%2e%2E%2f", 0, 0, NULL},
	    {"https://a.example.org/docs/a%5cb", 0, 0, NULL},
	    {"https://a.example.org/docs/a%2Fb%2e", 1, 1, NULL},
	    /* dots that are no segment, and a query's or fragment's */
	    {"https://a.example.org/docs/.../a..b/.x", 1, 1, NULL},
	    {"https://a.example.org/docs/a?p=../x#/../y", 1, 1, NULL},
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int r = page_check(rows[i].url, &n, &o, &e);
		if ((r == 0) != rows[i].ok)
			fail_msg("%s: check %d", rows[i].url, r);
		if (r < 0)
			continue;
		if (page_allowed(&pats, n) != (bool)rows[i].allowed)
			fail_msg("%s: allowed", rows[i].url);
		if (rows[i].origin)
			assert_string_equal(o, rows[i].origin);
		free(n);
		free(o);
	}
	assert_true(page_client_name("xdg-open"));
	assert_false(page_client_name("gh"));
	strv_free(&pats);
}

static void put(const char *path, const void *p, size_t n, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, p, n), (ssize_t)n);
	close(fd);
}

/* What a tool's file lets the program change (reach.c): hard links into
 * a write folder, relative interpreters, env's program; and ELF files cut
 * short or garbled are read without a crash. */
static void test_reach(void **state)
{
	(void)state;
	char dir[] = "/tmp/lnk-test-reach-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *w = xasprintf("%s/w", dir), *bin = xasprintf("%s/bin", dir);
	char *tool = xasprintf("%s/tool", bin), *name = NULL;
	struct strv writes = {0};
	struct tool_reach r;
	const char *sh = "#!/bin/sh\nexit 0\n";

	assert_int_equal(mkdir(w, 0755), 0);
	assert_int_equal(mkdir(bin, 0755), 0);
	strv_push(&writes, w);
	put(tool, sh, strlen(sh), 0755);
	assert_false(tool_reach(&writes, "/usr/bin:/bin", tool, &r));
	/* a second name beside it is no reach; one in the write folder is */
	name = xasprintf("%s/tool-1.0", bin);
	assert_int_equal(link(tool, name), 0);
	assert_false(tool_reach(&writes, "/usr/bin:/bin", tool, &r));
	free(name);
	name = xasprintf("%s/deep/er", w);
	char *deep = xasprintf("%s/deep", w);
	assert_int_equal(mkdir(deep, 0755), 0);
	free(deep);
	assert_int_equal(link(tool, name), 0);
	assert_true(tool_reach(&writes, "/usr/bin:/bin", tool, &r));
	assert_int_equal(r.kind, REACH_LINK);
	assert_string_equal(r.name, name);
	assert_string_equal(r.folder, w);
	unlink(name);
	/* a relative interpreter is found from the tool's folder */
	put(tool, "#!python3\n", 10, 0755);
	assert_true(tool_reach(&writes, "/usr/bin:/bin", tool, &r));
	assert_int_equal(r.kind, REACH_HERE);
	assert_string_equal(r.name, "python3");
	/* env's program, found on the path, lying in the write folder */
	char *envd = xasprintf("%s/envprog", w);
	put(envd, sh, strlen(sh), 0755);
	const char *viaenv = "#!/usr/bin/env -S VAR=1 envprog -x\n";
	put(tool, viaenv, strlen(viaenv), 0755);
	char *path = xasprintf("/nonexistent:%s", w);
	assert_true(tool_reach(&writes, path, tool, &r));
	assert_int_equal(r.kind, REACH_IN);
	assert_string_equal(r.what, envd);
	assert_false(tool_reach(&writes, "/usr/bin:/bin", tool, &r));
	/* this very program's ELF file, cut short and garbled: read with
	 * bounds, never a crash */
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	static unsigned char elf[65536];
	ssize_t n = read(fd, elf, sizeof(elf));
	close(fd);
	assert_true(n > 4096);
	assert_false(
	    tool_reach(&writes, "/usr/bin:/bin", "/proc/self/exe", &r));
	uint32_t seed = 12345;
	for (int i = 0; i < 400; i++) {
		size_t len = (size_t)(i * 37) % (size_t)n;
		unsigned char copy[4096];
		size_t k = len < sizeof(copy) ? len : sizeof(copy);
		memcpy(copy, elf, k);
		for (int j = 0; i % 2 && j < 8 && k; j++) {
			seed = seed * 1103515245u + 12345u;
			copy[(seed >> 8) % k] = (unsigned char)(seed >> 16);
		}
		put(tool, copy, k, 0755);
		(void)tool_reach(&writes, "/usr/bin:/bin", tool, &r);
	}
	free(path);
	free(envd);
	free(name);
	free(tool);
	free(bin);
	free(w);
	strv_free(&writes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_decode_good),
	    cmocka_unit_test(test_decode_bad),
	    cmocka_unit_test(test_signals),
	    cmocka_unit_test(test_allowed),
	    cmocka_unit_test(test_hint),
	    cmocka_unit_test(test_names),
	    cmocka_unit_test(test_store_round_trip),
	    cmocka_unit_test(test_pages),
	    cmocka_unit_test(test_reach),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
