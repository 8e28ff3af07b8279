/* The init config (proto/initcfg.h): encode/decode round trip, and hostile
 * bytes refused: every truncation, oversized lengths, garbage, trailing
 * bytes, NULs inside strings, bad descriptors and relative paths. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/buf.h"
#include "common/util.h"
#include "proto/initcfg.h"

static void sample(struct init_config *c)
{
	memset(c, 0, sizeof(*c));
	strv_push(&c->ll_read, "/usr/share/doc");
	strv_push(&c->ll_read, "/home/u/notes");
	strv_push(&c->ll_write, "/home/u/project");
	strv_push(&c->ll_exec, "/usr/bin/dash");
	strv_push(&c->ll_exec,
		  "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2");
	c->exec_any = false;
	c->dot_guard = true;
	c->landlock_optional = true;
	c->guard_fd = 5;
	c->wire_fd = 6;
	c->lifeline_fd = 10;
	c->cgroup_on_guard = true;
	c->nproc = 4096;
	c->nlisteners = 3;
	c->listeners = xcalloc(3, sizeof(*c->listeners));
	c->listeners[0] = (struct init_listener){INIT_L_HTTP, 3128};
	c->listeners[1] = (struct init_listener){INIT_L_SOCKS, 1080};
	c->listeners[2] = (struct init_listener){INIT_L_PORT, 65535};
	c->cwd = xstrdup("/home/u/project");
	strv_push(&c->argv, "/usr/bin/dash");
	strv_push(&c->argv, "-c");
	strv_push(&c->argv, "echo 'a b' \"--\" --config-fd 3");
	strv_push(&c->argv, ""); /* an empty argument survives */
	strv_push(&c->env, "PATH=/usr/bin:/bin");
	strv_push(&c->env, "EMPTY=");
}

static void assert_strv_eq(const struct strv *a, const struct strv *b)
{
	assert_int_equal(a->n, b->n);
	for (size_t i = 0; i < a->n; i++)
		assert_string_equal(a->v[i], b->v[i]);
}

static void encode_sample(struct buf *b)
{
	struct init_config c;
	sample(&c);
	assert_int_equal(initcfg_encode(&c, b), 0);
	initcfg_free(&c);
}

static void roundtrip(void **state)
{
	struct init_config c, d;
	struct buf b = {0};
	struct lnk_err err = {0};

	(void)state;
	sample(&c);
	assert_int_equal(initcfg_encode(&c, &b), 0);
	assert_int_equal(initcfg_decode(b.p, b.len, &d, &err), 0);
	assert_strv_eq(&c.ll_read, &d.ll_read);
	assert_strv_eq(&c.ll_write, &d.ll_write);
	assert_strv_eq(&c.ll_exec, &d.ll_exec);
	assert_strv_eq(&c.argv, &d.argv);
	assert_strv_eq(&c.env, &d.env);
	assert_string_equal(c.cwd, d.cwd);
	assert_int_equal(d.exec_any, false);
	assert_int_equal(d.dot_guard, true);
	assert_int_equal(d.connect_guard, false);
	assert_int_equal(d.landlock_optional, true);
	assert_int_equal(d.guard_fd, 5);
	assert_int_equal(d.wire_fd, 6);
	assert_int_equal(d.lifeline_fd, 10);
	assert_int_equal(d.cgroup_on_guard, true);
	assert_int_equal(d.resolver, false);
	assert_int_equal(d.nproc, 4096);
	assert_int_equal(d.nlisteners, 3);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(d.listeners[i].kind, c.listeners[i].kind);
		assert_int_equal(d.listeners[i].port, c.listeners[i].port);
	}
	initcfg_free(&c);
	initcfg_free(&d);
	buf_free(&b);
}

/* A zeroed config (what a caller gets from `= { 0 }`) requires Landlock. */
static void zeroed_fails_closed(void **state)
{
	struct init_config c = {0}, d;
	struct buf b = {0};
	struct lnk_err err = {0};

	(void)state;
	c.guard_fd = c.wire_fd = c.lifeline_fd = -1;
	c.cwd = xstrdup("/");
	strv_push(&c.argv, "/bin/true");
	assert_int_equal(initcfg_encode(&c, &b), 0);
	assert_int_equal(initcfg_decode(b.p, b.len, &d, &err), 0);
	assert_false(d.landlock_optional);
	assert_false(d.exec_any);
	assert_false(d.dot_guard);
	assert_false(d.cgroup_on_guard);
	assert_int_equal(d.env.n, 0);
	initcfg_free(&c);
	initcfg_free(&d);
	buf_free(&b);
}

/* Every proper prefix of a valid config is refused, with a message. */
static void every_truncation_refused(void **state)
{
	struct buf b = {0};
	struct init_config d;

	(void)state;
	encode_sample(&b);
	for (size_t n = 0; n < b.len; n++) {
		struct lnk_err err = {0};
		char *copy = xmalloc(n ? n : 1);
		memcpy(copy, b.p, n);
		assert_int_equal(initcfg_decode(copy, n, &d, &err), -EINVAL);
		assert_true(err.msg[0] != '\0');
		/* nothing half-decoded is handed back */
		assert_null(d.argv.v);
		assert_null(d.cwd);
		free(copy);
	}
	buf_free(&b);
}

static void trailing_bytes_refused(void **state)
{
	struct buf b = {0};
	struct init_config d;
	struct lnk_err err = {0};

	(void)state;
	encode_sample(&b);
	buf_putc(&b, 'x');
	assert_int_equal(initcfg_decode(b.p, b.len, &d, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "unexpected bytes"));
	buf_free(&b);
}

static void put32(char *p, uint32_t v)
{
	p[0] = (char)(v & 0xff);
	p[1] = (char)((v >> 8) & 0xff);
	p[2] = (char)((v >> 16) & 0xff);
	p[3] = (char)(v >> 24);
}

/* Header fields at fixed offsets: magic 0, version 4, flags 8, guard 12,
 * wire 16, lifeline 20, nproc 24, ll_read count 28, first ll_read length
 * 32. */
static void bad_header_fields_refused(void **state)
{
	static const struct {
		size_t off;
		uint32_t v;
		const char *msg;
	} rows[] = {
	    {0, 0x4b4e4c58, "bad magic"},
	    {4, 1, "version 1"},
	    {8, 0x80, "unknown flags"},
	    {12, 1, "not a valid descriptor"},		/* stdout */
	    {12, 0xfffffffe, "not a valid descriptor"}, /* -2 */
	    {16, 100000, "not a valid descriptor"},
	    {16, 5, "are both 5"},
	    {20, 2, "lifeline_fd 2 is not a valid descriptor"}, /* stderr */
	    {20, 0x80000000, "lifeline_fd -2147483648 is not a valid"},
	    {20, 65536, "lifeline_fd 65536 is not a valid descriptor"},
	    {20, 5, "lifeline_fd 5 is also the wire or guard socket"},
	    {20, 6, "lifeline_fd 6 is also the wire or guard socket"},
	    {28, 0xffffffff, "claims"},
	    {28, 70000, "claims"},
	    {32, 0xfffffff0, "more than the limit"},
	    {32, 0x7ffffff, "more than the limit"},
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct buf b = {0};
		struct init_config d;
		struct lnk_err err = {0};
		encode_sample(&b);
		put32(b.p + rows[i].off, rows[i].v);
		assert_int_equal(initcfg_decode(b.p, b.len, &d, &err), -EINVAL);
		if (!strstr(err.msg, rows[i].msg))
			fail_msg("row %zu: '%s' lacks '%s'", i, err.msg,
				 rows[i].msg);
		buf_free(&b);
	}
}

static void check_refused(struct init_config *c, const char *want)
{
	struct buf b = {0};
	struct init_config d;
	struct lnk_err err = {0};

	assert_int_equal(initcfg_encode(c, &b), 0);
	assert_int_equal(initcfg_decode(b.p, b.len, &d, &err), -EINVAL);
	if (!strstr(err.msg, want))
		fail_msg("'%s' lacks '%s'", err.msg, want);
	buf_free(&b);
	initcfg_free(c);
}

static void semantic_refusals(void **state)
{
	struct init_config c;

	(void)state;
	sample(&c);
	strv_free(&c.argv);
	check_refused(&c, "empty argv");

	sample(&c);
	free(c.argv.v[0]);
	c.argv.v[0] = xstrdup("dash");
	check_refused(&c, "not an absolute path");

	sample(&c);
	free(c.cwd);
	c.cwd = xstrdup("project");
	check_refused(&c, "cwd 'project' is not absolute");

	sample(&c);
	strv_push(&c.ll_write, "relative/dir");
	check_refused(&c, "ll_write path 'relative/dir'");

	sample(&c);
	strv_push(&c.env, "NOEQUALS");
	check_refused(&c, "not KEY=VALUE");

	sample(&c);
	strv_push(&c.env, "=x");
	check_refused(&c, "not KEY=VALUE");

	sample(&c);
	c.listeners[1].port = 0;
	check_refused(&c, "port 0");

	sample(&c);
	c.listeners[2].kind = (enum init_listener_kind)9;
	check_refused(&c, "unknown kind 9");

	sample(&c);
	c.wire_fd = -1;
	check_refused(&c, "listeners but no wire_fd");

	sample(&c);
	c.guard_fd = -1;
	check_refused(&c, "dot_guard is set but there is no guard_fd");

	sample(&c);
	c.dot_guard = false;
	c.connect_guard = true;
	c.guard_fd = -1;
	check_refused(&c, "connect_guard is set but there is no guard_fd");

	sample(&c);
	c.lifeline_fd = c.wire_fd;
	check_refused(&c, "lifeline_fd 6 is also the wire or guard socket");

	sample(&c);
	c.dot_guard = false;
	c.guard_fd = -1;
	check_refused(&c, "cgroup_on_guard is set but there is no guard_fd");

	/* the resolver's sockets are the handoff's: one DNS listener alone */
	sample(&c);
	c.resolver = true;
	check_refused(&c, "a resolver, but not one DNS listener alone");
}

/* Without a network grant: one DNS listener and the resolver, kept. */
static void resolver_roundtrip(void **state)
{
	struct init_config c, d;
	struct buf b = {0};
	struct lnk_err err = {0};

	(void)state;
	sample(&c);
	c.nlisteners = 1;
	c.listeners[0] = (struct init_listener){INIT_L_DNS, 53};
	c.resolver = true;
	assert_int_equal(initcfg_encode(&c, &b), 0);
	assert_int_equal(initcfg_decode(b.p, b.len, &d, &err), 0);
	assert_true(d.resolver);
	assert_int_equal(d.nlisteners, 1);
	assert_int_equal(d.listeners[0].kind, INIT_L_DNS);
	initcfg_free(&c);
	initcfg_free(&d);
	buf_free(&b);
}

/* A NUL inside a string would cut a path short after it was checked. */
static void nul_in_string_refused(void **state)
{
	struct buf b = {0};
	struct init_config d;
	struct lnk_err err = {0};
	char *p;

	(void)state;
	encode_sample(&b);
	p = memmem(b.p, b.len, "/home/u/notes", 13);
	assert_non_null(p);
	p[5] = '\0';
	assert_int_equal(initcfg_decode(b.p, b.len, &d, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "NUL"));
	buf_free(&b);
}

static void oversized_refused(void **state)
{
	struct init_config d;
	struct lnk_err err = {0};
	char *big = xcalloc(1, INITCFG_MAX_BYTES + 1);

	(void)state;
	memcpy(big, INITCFG_MAGIC, 4);
	assert_int_equal(initcfg_decode(big, INITCFG_MAX_BYTES + 1, &d, &err),
			 -E2BIG);
	free(big);
}

/* Random garbage, and random flips of a valid config: never a crash (run
 * under the sanitizers by tests/run-all), and a flip is either refused or
 * still a config that passes every check. */
static void garbage_refused(void **state)
{
	struct buf b = {0};
	uint32_t seed = 12345;

	(void)state;
	encode_sample(&b);
	for (int round = 0; round < 20000; round++) {
		struct init_config d;
		struct lnk_err err = {0};
		char *copy = xmalloc(b.len);
		memcpy(copy, b.p, b.len);
		for (int k = 0; k < 1 + round % 4; k++) {
			seed = seed * 1103515245u + 12345u;
			copy[(seed >> 8) % b.len] = (char)(seed >> 24);
		}
		if (initcfg_decode(copy, b.len, &d, &err) == 0) {
			assert_true(d.argv.n > 0 && d.argv.v[0][0] == '/');
			assert_true(d.cwd[0] == '/');
			initcfg_free(&d);
		} else {
			assert_true(err.msg[0] != '\0');
		}
		free(copy);
	}
	for (int round = 0; round < 2000; round++) {
		struct init_config d;
		struct lnk_err err = {0};
		char junk[256];
		for (size_t i = 0; i < sizeof(junk); i++) {
			seed = seed * 1103515245u + 12345u;
			junk[i] = (char)(seed >> 24);
		}
		assert_int_equal(
		    initcfg_decode(junk, (size_t)round % 256, &d, &err),
		    -EINVAL);
	}
	buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(roundtrip),
	    cmocka_unit_test(zeroed_fails_closed),
	    cmocka_unit_test(every_truncation_refused),
	    cmocka_unit_test(trailing_bytes_refused),
	    cmocka_unit_test(bad_header_fields_refused),
	    cmocka_unit_test(semantic_refusals),
	    cmocka_unit_test(resolver_roundtrip),
	    cmocka_unit_test(nul_in_string_refused),
	    cmocka_unit_test(oversized_refused),
	    cmocka_unit_test(garbage_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
