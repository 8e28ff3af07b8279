/* TOML parser: messages, positions, limits and the API. The grammar itself
 * is proved by the toml-test cases (tests/toml/run_toml_test.py). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "common/buf.h"
#include "common/util.h"
#include "toml/toml.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

static struct toml_value *parse_ok(const char *text)
{
	struct toml_value *root = NULL;
	struct lnk_err err = {0};
	int r = toml_parse(text, strlen(text), "t.toml", &root, &err);
	if (r != 0)
		fail_msg("unexpected error: %s", err.msg);
	assert_non_null(root);
	assert_int_equal(root->type, TOML_TABLE);
	return root;
}

/* Parses text that must fail with code; returns the message. */
static const char *parse_bad(const char *text, size_t len, int code,
			     struct lnk_err *err)
{
	struct toml_value *root = (struct toml_value *)&root; /* not NULL */
	memset(err, 0, sizeof(*err));
	int r = toml_parse(text, len, "app.toml", &root, err);
	assert_int_equal(r, code);
	assert_int_equal(err->code, code);
	assert_null(root);
	return err->msg;
}

static const char *bad(const char *text, struct lnk_err *err)
{
	return parse_bad(text, strlen(text), -EINVAL, err);
}

static void test_error_names_line_col_and_expectation(void **state)
{
	(void)state;
	struct lnk_err err;

	assert_string_equal(bad("[a]\nread = 1\nwrite x = 2\n", &err),
			    "app.toml:3:7: expected '=' after key 'write', "
			    "found 'x'");
	assert_string_equal(bad("a = 1\nb = \n", &err),
			    "app.toml:2:5: expected a value after '=' for "
			    "key 'b'");
	assert_string_equal(bad("a = [1, 2\n", &err),
			    "app.toml:2:1: expected ',' or ']' after an array "
			    "element (the array starts at 1:5), found the end "
			    "of the file");
	assert_string_equal(bad("a = 1 2\n", &err),
			    "app.toml:1:7: expected a newline or a comment "
			    "after a key/value pair, found '2'");
	assert_string_equal(bad("[t]\nx = 1\n[t]\n", &err),
			    "app.toml:3:2: table [t] is defined twice (first "
			    "at 1:1)");
	assert_string_equal(bad("x = 1\nx = 2\n", &err),
			    "app.toml:2:1: key 'x' is defined twice (first at "
			    "1:1)");
	assert_string_equal(bad("t = {a = 1}\nt.b = 2\n", &err),
			    "app.toml:2:1: cannot add keys to inline table 't' "
			    "(defined at 1:1): inline tables are complete as "
			    "written");
	assert_string_equal(bad("s = \"a\\qb\"\n", &err),
			    "app.toml:1:7: invalid escape sequence: expected "
			    "one of \\b \\t \\n \\f \\r \\\" \\\\ \\uXXXX "
			    "\\UXXXXXXXX after '\\', found 'q'");
	assert_string_equal(bad("n = 9223372036854775808\n", &err),
			    "app.toml:1:5: integer does not fit in 64 bits "
			    "(-9223372036854775808 to 9223372036854775807)");
	assert_string_equal(bad("d = 2023-02-29\n", &err),
			    "app.toml:1:5: invalid date or time: no such day "
			    "in that month");
}

static void test_error_column_counts_characters(void **state)
{
	(void)state;
	struct lnk_err err;

	/* é is two bytes but one column. */
	assert_string_equal(bad("\"ééé\" = x\n", &err),
			    "app.toml:1:9: expected a value (string, number, "
			    "boolean, date, array or inline table), found 'x'");
	/* Invalid UTF-8 is found with its position. */
	assert_string_equal(bad("a = 1\n# é\xff\n", &err),
			    "app.toml:2:4: invalid UTF-8 (byte 0xFF); TOML "
			    "files must be UTF-8");
	/* CRLF counts as one line break. */
	assert_string_equal(bad("a = 1\r\nb = 2\r\nc\r\n", &err),
			    "app.toml:3:2: expected '=' after key 'c', found "
			    "the end of the line");
	/* A BOM at the start is skipped and not counted. */
	assert_string_equal(bad("\xEF\xBB\xBFz\n", &err),
			    "app.toml:1:2: expected '=' after key 'z', found "
			    "the end of the line");
}

static void test_messages_never_carry_control_characters(void **state)
{
	(void)state;
	struct lnk_err err;

	/* A key holding ESC: the message must quote it escaped, or a
	 * hostile spec could drive the user's terminal. */
	const char *m = bad("\"\\u001b[2J\" = 1\n\"\\u001b[2J\" = 2\n", &err);
	assert_null(strchr(m, '\x1b'));
	assert_non_null(strstr(m, "\\u001B[2J"));
	/* Nor C1 controls or bidi overrides (text shown reordered). */
	m = bad("\"\\u202Eevil\" = 1\n\"\\u202Eevil\" = 2\n", &err);
	assert_null(strstr(m, "\xE2\x80\xAE"));
	assert_non_null(strstr(m, "\\u202Eevil"));
	m = bad("a = \xC2\x9B\n", &err);
	assert_null(strstr(m, "\xC2\x9B"));
	assert_non_null(strstr(m, "found U+009B"));
	m = bad("a = \x01\n", &err);
	assert_null(strchr(m, '\x01'));
	assert_non_null(strstr(m, "U+0001"));
}

static void test_positions(void **state)
{
	(void)state;
	struct toml_value *root = parse_ok("# top\n"
					   "name = \"x\"\n"
					   "\n"
					   "[net]\n"
					   "  hosts = [ \"a\",\n"
					   "            \"b\" ]\n"
					   "  a.b.c = 7\n"
					   "[[run]]\n"
					   "cmd = 'ls'\n");

	const struct toml_kv *kv = toml_find(root, "name");
	assert_non_null(kv);
	assert_int_equal(kv->pos.line, 2);
	assert_int_equal(kv->pos.col, 1);
	assert_int_equal(kv->val->pos.line, 2);
	assert_int_equal(kv->val->pos.col, 8);

	const struct toml_kv *net = toml_find(root, "net");
	assert_non_null(net);
	assert_int_equal(net->val->pos.line, 4); /* the header */
	assert_int_equal(net->val->pos.col, 1);
	assert_int_equal(net->pos.line, 4); /* the key inside it */
	assert_int_equal(net->pos.col, 2);

	kv = toml_find(net->val, "hosts");
	assert_int_equal(kv->pos.line, 5);
	assert_int_equal(kv->pos.col, 3);
	assert_int_equal(kv->val->type, TOML_ARRAY);
	assert_int_equal(kv->val->u.arr.n, 2);
	assert_int_equal(kv->val->u.arr.items[1]->pos.line, 6);
	assert_int_equal(kv->val->u.arr.items[1]->pos.col, 13);

	/* Dotted keys: each part where it was written. */
	const struct toml_kv *a = toml_find(net->val, "a");
	assert_int_equal(a->pos.col, 3);
	const struct toml_kv *b = toml_find(a->val, "b");
	assert_int_equal(b->pos.col, 5);
	const struct toml_kv *c = toml_find(b->val, "c");
	assert_int_equal(c->pos.line, 7);
	assert_int_equal(c->pos.col, 7);
	assert_int_equal(c->val->pos.col, 11);
	assert_int_equal(c->val->u.i, 7);

	const struct toml_kv *run = toml_find(root, "run");
	assert_int_equal(run->val->type, TOML_ARRAY);
	assert_int_equal(run->val->u.arr.n, 1);
	assert_int_equal(run->val->u.arr.items[0]->pos.line, 8);
	kv = toml_find(run->val->u.arr.items[0], "cmd");
	assert_string_equal(kv->val->u.str.s, "ls");
	assert_int_equal(kv->val->pos.col, 7);
	toml_free(root);
}

static void test_implicit_table_takes_header_position(void **state)
{
	(void)state;
	struct toml_value *root = parse_ok("[a.b]\nx = 1\n\n[a]\ny = 2\n");
	const struct toml_kv *a = toml_find(root, "a");
	assert_int_equal(a->val->pos.line, 4);
	assert_int_equal(a->val->pos.col, 1);
	/* Document order is kept. */
	assert_string_equal(a->val->u.tab.items[0].key, "b");
	assert_string_equal(a->val->u.tab.items[1].key, "y");
	toml_free(root);
}

static char *repeat(const char *head, const char *unit, size_t n,
		    const char *tail)
{
	struct buf b = {0};
	buf_puts(&b, head);
	for (size_t i = 0; i < n; i++)
		buf_puts(&b, unit);
	buf_puts(&b, tail);
	return buf_steal(&b);
}

static void test_deep_nesting_refused(void **state)
{
	(void)state;
	struct lnk_err err;
	/* 100000 open brackets: must be refused early, not overflow the
	 * stack. */
	_cleanup_free_ char *arrays = repeat("a = ", "[", 100000, "");
	const char *m = parse_bad(arrays, strlen(arrays), -E2BIG, &err);
	assert_non_null(strstr(m, "nest deeper than 128 levels"));
	assert_non_null(strstr(m, "app.toml:1:"));

	_cleanup_free_ char *tables = repeat("a = ", "{b = ", 100000, "");
	parse_bad(tables, strlen(tables), -E2BIG, &err);

	_cleanup_free_ char *header = repeat("[a", ".a", 100000, "]\n");
	parse_bad(header, strlen(header), -E2BIG, &err);

	_cleanup_free_ char *dotted = repeat("a", ".a", 100000, " = 1\n");
	parse_bad(dotted, strlen(dotted), -E2BIG, &err);

	/* Table depth adds up with the depth of values below it. */
	_cleanup_free_ char *deep_head = repeat("[a", ".a", 99, "]\n");
	_cleanup_free_ char *head2 = repeat(deep_head, "", 0, "x = ");
	_cleanup_free_ char *mixed = repeat(head2, "[", 40, "");
	m = parse_bad(mixed, strlen(mixed), -E2BIG, &err);
	assert_non_null(strstr(m, "app.toml:2:"));

	/* Just inside the limit is fine: the root is depth 0, the value of
	 * a (the outer array) depth 1, the innermost array depth 128. */
	_cleanup_free_ char *open = repeat("a = ", "[", 128, "");
	_cleanup_free_ char *ok = repeat(open, "]", 128, "\n");
	struct toml_value *root = parse_ok(ok);
	toml_free(root);
	_cleanup_free_ char *open2 = repeat("a = ", "[", 129, "");
	_cleanup_free_ char *over = repeat(open2, "]", 129, "\n");
	parse_bad(over, strlen(over), -E2BIG, &err);
}

static void test_size_limit(void **state)
{
	(void)state;
	struct lnk_err err;
	size_t n = (size_t)TOML_MAX_SIZE + 1;
	char *big = xmalloc(n);
	memset(big, '#', n);
	const char *m = parse_bad(big, n, -E2BIG, &err);
	assert_non_null(strstr(m, "app.toml: file is larger than"));
	free(big);
}

static void test_value_count_limit(void **state)
{
	(void)state;
	struct lnk_err err;
	_cleanup_free_ char *many =
	    repeat("a = [", "0,", TOML_MAX_VALUES, "]\n");
	const char *m = parse_bad(many, strlen(many), -E2BIG, &err);
	assert_non_null(strstr(m, "more than 1048576 values"));
	/* Root and array count too: this many elements still fit. */
	_cleanup_free_ char *fits =
	    repeat("a = [", "0,", TOML_MAX_VALUES - 2, "]\n");
	struct toml_value *root = parse_ok(fits);
	assert_int_equal(toml_find(root, "a")->val->u.arr.n,
			 TOML_MAX_VALUES - 2);
	toml_free(root);
}

static void test_many_keys_stay_fast_and_distinct(void **state)
{
	(void)state;
	struct buf b = {0};
	for (int i = 0; i < 50000; i++)
		buf_printf(&b, "k%d = %d\n", i, i);
	buf_puts(&b, "k777 = 0\n");
	struct lnk_err err;
	const char *m = parse_bad(b.p, b.len, -EINVAL, &err);
	assert_string_equal(m, "app.toml:50001:1: key 'k777' is defined twice "
			       "(first at 778:1)");
	b.len -= strlen("k777 = 0\n");
	struct toml_value *root = NULL;
	assert_int_equal(toml_parse(b.p, b.len, "t", &root, &err), 0);
	assert_int_equal(root->u.tab.n, 50000);
	assert_int_equal(toml_find(root, "k49999")->val->u.i, 49999);
	toml_free(root);
	buf_free(&b);
}

static void test_find(void **state)
{
	(void)state;
	struct toml_value *root =
	    parse_ok("a = 1\n\"a\\u0000b\" = 2\n[t]\nx = true\n");

	assert_int_equal(toml_find(root, "a")->val->u.i, 1);
	assert_null(toml_find(root, "b"));
	assert_null(toml_find(root, ""));
	assert_null(toml_find(NULL, "a"));
	assert_null(toml_find(root, NULL));
	/* Not a table. */
	assert_null(toml_find(toml_find(root, "a")->val, "a"));
	const struct toml_kv *t = toml_find(root, "t");
	assert_non_null(t);
	assert_true(toml_find(t->val, "x")->val->u.b);
	/* A key holding NUL keeps its length and is not "a". */
	const struct toml_kv *nul = &root->u.tab.items[1];
	assert_int_equal(nul->keylen, 3);
	assert_memory_equal(nul->key, "a\0b", 4);
	toml_free(root);
}

static void test_embedded_nul_keeps_length(void **state)
{
	(void)state;
	struct toml_value *root =
	    parse_ok("s = \"x\\u0000y\"\nm = \"\"\"\n\\U00000000\"\"\"\n"
		     "e = ''\n");
	const struct toml_value *s = toml_find(root, "s")->val;
	assert_int_equal(s->type, TOML_STRING);
	assert_int_equal(s->u.str.len, 3);
	assert_memory_equal(s->u.str.s, "x\0y", 4);
	assert_int_equal(toml_find(root, "m")->val->u.str.len, 1);
	const struct toml_value *e = toml_find(root, "e")->val;
	assert_int_equal(e->u.str.len, 0);
	assert_non_null(e->u.str.s);
	assert_string_equal(e->u.str.s, "");
	toml_free(root);
}

static void test_values(void **state)
{
	(void)state;
	struct toml_value *root =
	    parse_ok("min = -9223372036854775808\n"
		     "max = 9_223_372_036_854_775_807\n"
		     "hex = 0x7FFF_FFFF_FFFF_FFFF\n"
		     "oct = 0o755\n"
		     "bin = 0b1010\n"
		     "f = -1_000.5e-3\n"
		     "ninf = -inf\n"
		     "nan = nan\n"
		     "odt = 1979-05-27 07:32:00.5-07:00\n"
		     "ldt = 1979-05-27t07:32:00\n"
		     "ld = 2024-02-29\n"
		     "lt = 23:59:60\n"
		     "ml = \"\"\"\\\n   a \\\r\n   b\"\"\"\n"
		     "lit = '''\n'quoted' \\n'''\n");
	assert_true(toml_find(root, "min")->val->u.i == INT64_MIN);
	assert_true(toml_find(root, "max")->val->u.i == INT64_MAX);
	assert_true(toml_find(root, "hex")->val->u.i == INT64_MAX);
	assert_int_equal(toml_find(root, "oct")->val->u.i, 0755);
	assert_int_equal(toml_find(root, "bin")->val->u.i, 10);
	const struct toml_value *f = toml_find(root, "f")->val;
	assert_int_equal(f->type, TOML_FLOAT);
	assert_true(f->u.f == -1.0005);
	assert_true(isinf(toml_find(root, "ninf")->val->u.f));
	assert_true(toml_find(root, "ninf")->val->u.f < 0);
	assert_true(isnan(toml_find(root, "nan")->val->u.f));
	const struct toml_value *v = toml_find(root, "odt")->val;
	assert_int_equal(v->type, TOML_DATETIME);
	assert_string_equal(v->u.dt, "1979-05-27T07:32:00.5-07:00");
	v = toml_find(root, "ldt")->val;
	assert_int_equal(v->type, TOML_DATETIME_LOCAL);
	assert_string_equal(v->u.dt, "1979-05-27T07:32:00");
	assert_int_equal(toml_find(root, "ld")->val->type, TOML_DATE_LOCAL);
	assert_int_equal(toml_find(root, "lt")->val->type, TOML_TIME_LOCAL);
	assert_string_equal(toml_find(root, "ml")->val->u.str.s, "a b");
	assert_string_equal(toml_find(root, "lit")->val->u.str.s,
			    "'quoted' \\n");
	toml_free(root);
}

static void test_refusals(void **state)
{
	(void)state;
	struct lnk_err err;
	static const char *const cases[] = {
	    "a = 0x8000000000000000\n",
	    "a = -9223372036854775809\n",
	    "a = 1e999\n",
	    "a = \"\\uD800\"\n",
	    "a = \"\\U00110000\"\n",
	    "a = \"\xED\xA0\x80\"\n",	  /* UTF-8 surrogate */
	    "a = \"\xC0\xAF\"\n",	  /* overlong */
	    "a = \"\xF4\x90\x80\x80\"\n", /* past U+10FFFF */
	    "a = 1\rb = 2\n",		  /* lone CR */
	    "a = {b = 1,}\n",
	    "a = {\nb = 1}\n",
	    "a = [1]\n[[a]]\n",
	    "[[a]]\n[a]\n",
	    "[a]\nb.c = 1\n[a.b]\n",
	    "[a.b.c]\n[a]\nb.c.d = 1\n",
	    "a = 1\n\xEF\xBB\xBF",
	    "a = 2023-13-01\n",
	    "a = 24:00:00\n",
	    "a = \"\"\"x\"\"\"\"\"\"\n",
	    "a = 00\n",
	    "a = 1__0\n",
	    "# \x7f\n",
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *m = bad(cases[i], &err);
		assert_true(strncmp(m, "app.toml:", 9) == 0);
	}
	/* NUL inside the text is a control character, not the end. */
	parse_bad("a = 1\0b = 2\n", 12, -EINVAL, &err);
	/* Empty input and a NULL err are fine. */
	struct toml_value *root = NULL;
	assert_int_equal(toml_parse("", 0, "e", &root, NULL), 0);
	assert_int_equal(root->u.tab.n, 0);
	toml_free(root);
	assert_int_equal(toml_parse("=", 1, "e", &root, NULL), -EINVAL);
	assert_null(root);
	toml_free(NULL);
}

static void test_type_names(void **state)
{
	(void)state;
	assert_string_equal(toml_type_name(TOML_STRING), "string");
	assert_string_equal(toml_type_name(TOML_INTEGER), "integer");
	assert_string_equal(toml_type_name(TOML_FLOAT), "float");
	assert_string_equal(toml_type_name(TOML_BOOL), "boolean");
	assert_string_equal(toml_type_name(TOML_DATETIME), "datetime");
	assert_string_equal(toml_type_name(TOML_DATE_LOCAL), "datetime");
	assert_string_equal(toml_type_name(TOML_ARRAY), "array");
	assert_string_equal(toml_type_name(TOML_TABLE), "table");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_error_names_line_col_and_expectation),
	    cmocka_unit_test(test_error_column_counts_characters),
	    cmocka_unit_test(test_messages_never_carry_control_characters),
	    cmocka_unit_test(test_positions),
	    cmocka_unit_test(test_implicit_table_takes_header_position),
	    cmocka_unit_test(test_deep_nesting_refused),
	    cmocka_unit_test(test_size_limit),
	    cmocka_unit_test(test_value_count_limit),
	    cmocka_unit_test(test_many_keys_stay_fast_and_distinct),
	    cmocka_unit_test(test_find),
	    cmocka_unit_test(test_embedded_nul_keeps_length),
	    cmocka_unit_test(test_values),
	    cmocka_unit_test(test_refusals),
	    cmocka_unit_test(test_type_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
