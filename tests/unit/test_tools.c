/* Tools (src/tools): the call the broker decodes from a hostile client,
 * which calls of a tool run at once (whole calls, never leading words),
 * the refusal that offers exactly the call, the log's whole call, the
 * warnings of free arguments, tools.toml, and the pages granted. */
#include <setjmp.h>
#include <stdbool.h>
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
#include "policy/keys.h"
#include "policy/policy.h"
#include "proto/toolcall.h"
#include "proto/toolpass.h"
#include "tools/allow.h"
#include "tools/env.h"
#include "tools/page.h"
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

/* The reader's messages to the starter (toolpass.h): each kind in its
 * form is taken, and every other form refused, so a reader taken over
 * cannot reach a slot, a signal or a length the starter does not have. */
static void test_pass_decode(void **state)
{
	(void)state;
	struct toolpass_msg m;
	uint64_t count = 7;
	char buf[PASS_HEAD + 8];

	assert_int_equal(toolpass_decode("C\x1fLNKB", 6, &m), 0);
	assert_int_equal(m.kind, PASS_CALL);
	assert_int_equal(m.slot, 31);
	assert_int_equal(m.len, 4);
	assert_int_equal(toolpass_decode("S\x03\x02", 3, &m), 0);
	assert_int_equal(m.sig, 2);
	assert_int_equal(toolpass_decode("G\x05", 2, &m), 0);
	assert_int_equal(m.slot, 5);
	assert_int_equal(toolpass_decode("D\0refused", 9, &m), 0);
	assert_int_equal(m.len, 7);
	buf[0] = 'N';
	buf[1] = 0;
	memcpy(buf + PASS_HEAD, &count, 8);
	assert_int_equal(toolpass_decode(buf, sizeof(buf), &m), 0);
	assert_int_equal(m.count, 7);

	const struct {
		const char *m;
		size_t n;
	} refused[] = {
	    {"", 0},		/* no head */
	    {"C", 1},		/* no slot */
	    {"Z\0", 2},		/* an unknown kind */
	    {"X\0\0", 3},	/* the starter's kind, not the reader's */
	    {"C\x20LNKB", 6},	/* slot TOOLS_MAX_CALLS */
	    {"S\0\x09", 3},	/* SIGKILL: not a client's to pass on */
	    {"S\0\x02\x02", 4}, /* a signal and more */
	    {"S\0", 2},		/* no signal */
	    {"G\0x", 3},	/* bytes after */
	    {"G\xff", 2},	/* slot out of range */
	    {"D\x02why", 5},	/* a refusal under a slot (1 is a page's) */
	    {"N\0\1\0\0\0", 6}, /* a count cut short */
	};
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		if (toolpass_decode(refused[i].m, refused[i].n, &m) != -EBADMSG)
			fail_msg("row %zu taken", i);
	/* a page's refusal, for the log's verb */
	assert_int_equal(toolpass_decode("D\x01why", 5, &m), 0);
	assert_int_equal(m.slot, 1);
	char *big = calloc(1, PASS_HEAD + PASS_CALL_MAX + 1);
	big[0] = 'C';
	assert_int_equal(toolpass_decode(big, PASS_HEAD + PASS_CALL_MAX, &m),
			 0);
	assert_int_equal(
	    toolpass_decode(big, PASS_HEAD + PASS_CALL_MAX + 1, &m), -EBADMSG);
	big[0] = 'D';
	assert_int_equal(toolpass_decode(big, PASS_HEAD + PASS_TEXT_MAX, &m),
			 0);
	assert_int_equal(
	    toolpass_decode(big, PASS_HEAD + PASS_TEXT_MAX + 1, &m), -EBADMSG);
	free(big);
}

static struct strv args(const char *const *v)
{
	struct strv s = {0};
	for (; *v; v++)
		strv_push(&s, *v);
	return s;
}

/* One row: a pattern, a call, whether it runs at once. */
struct match_row {
	const char *pat;
	const char *v[8];
	bool ok;
};

static void test_allowed(void **state)
{
	(void)state;
	static const struct match_row rows[] = {
	    /* a grant is the whole call: nothing after it */
	    {"status", {"status", NULL}, true},
	    {"status", {"status", "--short", NULL}, false},
	    {"log", {"log", NULL}, true},
	    /* the attacks a leading-words grant let through */
	    {"log",
	     {"log", "-1", "--format=x", "--output=/home/u/.bashrc", NULL},
	     false},
	    {"diff",
	     {"diff", "--no-index", "/home/u/.lnk/sandbox/a.key", "/dev/null",
	      NULL},
	     false},
	    {"pr list", {"pr", "list", NULL}, true},
	    {"pr list", {"pr", "list", "--repo", "x/y", NULL}, false},
	    {"pr list", {"pr", NULL}, false},
	    {"pr", {"prx", NULL}, false},
	    {"pr", {NULL}, false},
	    /* options are words like any other, matched whole */
	    {"log --oneline -5", {"log", "--oneline", "-5", NULL}, true},
	    {"log --oneline -5", {"log", "--oneline", "-50", NULL}, false},
	    {"log --oneline -5",
	     {"log", "--oneline", "-5", "--output=x", NULL},
	     false},
	    /* '*' in the middle: exactly one argument, any */
	    {"issue view * --web", {"issue", "view", "5", "--web", NULL}, true},
	    {"issue view * --web", {"issue", "view", "--web", NULL}, false},
	    {"issue view * --web",
	     {"issue", "view", "5", "6", "--web", NULL},
	     false},
	    {"issue view * --web",
	     {"issue", "view", "5", "--web", "x", NULL},
	     false},
	    {"* status", {"-C", "status", NULL}, true}, /* an option too */
	    {"* status", {"status", NULL}, false},
	    {"* status", {"x", "status", NULL}, true},
	    {"* *", {"x", NULL}, true},
	    {"* *", {NULL}, false},
	    /* '*' last: any number of further arguments, none too */
	    {"log *", {"log", NULL}, true},
	    {"log *", {"log", "--output=x", NULL}, true},
	    {"log *", {"log", "a", "b", "c", NULL}, true},
	    {"log *", {"logx", NULL}, false},
	    {"log *", {NULL}, false},
	    {"view * *", {"view", NULL}, false},
	    {"view * *", {"view", "1", NULL}, true},
	    {"view * *", {"view", "1", "2", "3", NULL}, true},
	    /* '*' alone: every call, none included */
	    {"*", {NULL}, true},
	    {"*", {"--anything", "at", "all", NULL}, true},
	    /* an argument that is '*' is matched by '*', not as a word */
	    {"a b", {"a", "*", NULL}, false},
	    {"a *", {"a", "", NULL}, true},
	    {"a", {"a", "", NULL}, false},
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct tool_grant g = {.name = "git"};
		struct strv a = args(rows[i].v);
		strv_push(&g.allow, rows[i].pat);
		if (tools_allowed(&g, &a) != rows[i].ok)
			fail_msg("row %zu: '%s'", i, rows[i].pat);
		strv_free(&a);
		strv_free(&g.allow);
	}
	/* a bare grant (no pattern, nothing stored) allows no call */
	struct tool_grant bare = {.name = "git"};
	struct strv none = {0};
	struct strv st = args((const char *[]){"status", NULL});
	assert_false(tools_allowed(&bare, &none));
	assert_false(tools_allowed(&bare, &st));
	/* several patterns: any one */
	strv_push(&bare.allow, "pr list");
	strv_push(&bare.allow, "status");
	assert_true(tools_allowed(&bare, &st));
	strv_free(&bare.allow);
	strv_free(&st);
}

/* The plan: a bare --tool adds no pattern, the patterns of --tool and of
 * tools.toml ("*" included) are the grant's. */
static void test_plan_patterns(void **state)
{
	(void)state;
	struct policy p;
	struct tools_plan plan;
	struct tools_store st = {0};
	struct lnk_err e = {0};
	struct strv none = {0};

	policy_init(&p);
	assert_int_equal(policy_add_flag(&p, K_TOOLS_ALLOW, "sh", &e), 0);
	assert_int_equal(policy_add_flag(&p, K_TOOLS_ALLOW, "true log  *", &e),
			 0);
	assert_int_equal(tools_plan_make(&p, NULL, "/bin:/usr/bin", &plan, &e),
			 0);
	const struct tool_grant *g = tools_plan_find(&plan, "sh");
	assert_non_null(g);
	assert_int_equal(g->allow.n, 0);
	assert_false(tools_allowed(g, &none));
	g = tools_plan_find(&plan, "true");
	assert_int_equal(g->allow.n, 1);
	assert_string_equal(g->allow.v[0], "log *");
	tools_plan_free(&plan);

	/* tools.toml's "*" keeps meaning every call */
	assert_int_equal(tools_store_add(&st, "sh", "*"), 0);
	assert_int_equal(tools_store_add(&st, "true", "status"), 0);
	assert_int_equal(tools_plan_make(&p, &st, "/bin:/usr/bin", &plan, &e),
			 0);
	g = tools_plan_find(&plan, "sh");
	struct strv any = args((const char *[]){"-c", "x", NULL});
	assert_true(tools_allowed(g, &any));
	assert_true(tools_allowed(g, &none));
	g = tools_plan_find(&plan, "true");
	struct strv stv = args((const char *[]){"status", NULL});
	struct strv stx = args((const char *[]){"status", "-x", NULL});
	assert_true(tools_allowed(g, &stv));
	assert_false(tools_allowed(g, &stx));

	/* the warnings: one per free pattern, only '*' for a tool with it */
	struct strv w = {0};
	tools_plan_warnings(&plan, &w);
	assert_int_equal(w.n, 2);
	assert_non_null(strstr(w.v[0], "tool sh, '*': the program may run "
				       "every call of sh"));
	assert_non_null(strstr(w.v[1], "tool true, 'log *': the program may "
				       "run true log with any further "
				       "arguments"));
	strv_free(&w);
	strv_free(&any);
	strv_free(&stv);
	strv_free(&stx);
	tools_plan_free(&plan);
	tools_store_free(&st);
	policy_free(&p);
}

static void test_warning(void **state)
{
	(void)state;
	char *w;

	assert_null(tools_pattern_warning("git", "log --oneline"));
	assert_null(tools_pattern_warning("git", "status"));
	w = tools_pattern_warning("git", "log *");
	assert_non_null(strstr(w, "git log with any further arguments"));
	assert_non_null(strstr(w, "as you"));
	assert_non_null(strstr(w, "--output"));
	assert_non_null(strstr(w, "--no-index"));
	assert_non_null(strstr(w, "-c, -C and --exec-path"));
	assert_null(strchr(w, '\n'));
	free(w);
	w = tools_pattern_warning("gh", "*");
	assert_non_null(strstr(w, "every call of gh"));
	assert_non_null(strstr(w, "every API call"));
	free(w);
	w = tools_pattern_warning("gh", "pr view * --web");
	assert_non_null(strstr(w, "any argument it likes where '*' stands"));
	free(w);
	w = tools_pattern_warning("kubectl", "get *");
	assert_non_null(strstr(w, "a file the tool writes or reads"));
	free(w);
}

/* What a refusal offers: exactly the call, or why it cannot be stored;
 * never a shorter prefix or '*'. */
static void test_refusal(void **state)
{
	(void)state;
	struct tool_grant g = {.name = "git"};
	static const struct {
		const char *v[6];
		const char *want; /* in the text */
	} rows[] = {
	    {{"log", "--output=/home/u/.bashrc", NULL},
	     "to let exactly this call through, run outside the sandbox: "
	     "lnk sandbox tool add git --allow 'log --output=/home/u/.bashrc'"},
	    {{"issue", "list", "--token=SECRET", NULL},
	     "--allow 'issue list --token=SECRET'"},
	    {{"--repo", "x/y", "issue", "close", "1", NULL},
	     "--allow '--repo x/y issue close 1'"},
	    {{"api", "/user?x=$(id)", NULL}, "--allow 'api /user?x=$(id)'"},
	    {{"a b", NULL}, "its argument 1 holds a space"},
	    {{"x", "a'b", NULL}, "its argument 2 holds a quote"},
	    {{"x", "a\\b", NULL},
	     "its argument 2 holds a quote or a backslash"},
	    {{"x", "*", NULL}, "its argument 2 is '*'"},
	    {{"x", "a*", NULL}, "its argument 2 holds '*'"},
	    {{"x", "", NULL}, "its argument 2 is empty"},
	    {{"x", "\x1b[2J", NULL}, "its argument 2 holds a control"},
	    {{"x",
	      "a\xe2\x80\xae"
	      "b",
	      NULL},
	     "its argument 2 holds a control"},
	    {{NULL}, "it has no arguments"},
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct strv a = args(rows[i].v);
		char *t = tools_refusal_text(&g, &a);
		if (!strstr(t, rows[i].want))
			fail_msg("row %zu: '%s' lacks '%s'", i, t,
				 rows[i].want);
		/* lnk's own words: nothing hidden reaches the program's
		 * terminal */
		for (const char *c = t; *c; c++)
			assert_false((unsigned char)*c < 0x20 || *c == 0x7f);
		assert_null(strstr(t, "\xe2\x80\xae"));
		if (strstr(rows[i].want, "argument") ||
		    strstr(rows[i].want, "no arguments")) {
			assert_null(strstr(t, "tool add"));
			assert_non_null(strstr(t, "Answer it when asked"));
			assert_non_null(strstr(t, "write a pattern"));
		}
		free(t);
		strv_free(&a);
	}
	/* past the bounds of a pattern: no paste */
	struct strv many = {0};
	for (int i = 0; i < KEY_TOOL_WORDS + 1; i++)
		strv_push(&many, "a");
	char *t = tools_refusal_text(&g, &many);
	assert_null(strstr(t, "tool add"));
	assert_non_null(strstr(t, "65 arguments"));
	free(t);
	strv_free(&many);
	char big[KEY_TOOL_CALL];
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	struct strv longer = args((const char *[]){big, NULL});
	t = tools_refusal_text(&g, &longer);
	assert_null(strstr(t, "tool add"));
	assert_non_null(strstr(t, "longer than a stored call"));
	/* and the call it names is cut, its length said */
	assert_non_null(strstr(t, "...(1023 bytes, #"));
	free(t);
	strv_free(&longer);
	/* what the paste says is what the grant then allows, exactly */
	struct strv c = args((const char *[]){"log", "-5", NULL});
	t = tools_refusal_text(&g, &c);
	char *q = strstr(t, "--allow '");
	assert_non_null(q);
	q += strlen("--allow '");
	q[strlen(q) - 1] = '\0';
	char *norm = NULL;
	struct lnk_err e = {0};
	assert_int_equal(tools_call_normalize(q, &norm, &e), 0);
	strv_push(&g.allow, norm);
	assert_true(tools_allowed(&g, &c));
	struct strv more = args((const char *[]){"log", "-5", "-p", NULL});
	assert_false(tools_allowed(&g, &more));
	free(norm);
	free(t);
	strv_free(&c);
	strv_free(&more);
	strv_free(&g.allow);
}

/* The log's whole call: each argument one shell word, escaped, folded
 * with its count. */
static void test_call_text(void **state)
{
	(void)state;
	struct strv a = args((const char *[]){"log", "--output=/x y", "it's",
					      "\x1b]52;c;", NULL});
	char *t = tools_call_text("git", &a, 1000);
	assert_string_equal(t, "git log '--output=/x y' 'it'\\''s' "
			       "'\\x1b]52;c;'");
	free(t);
	/* the log's target: the same words, not escaped, a quote without a
	 * backslash, so that the log's one escaping shows each once */
	t = tools_call_target("git", &a, 1000);
	assert_string_equal(t, "git log '--output=/x y' 'it'\"'\"'s' "
			       "'\x1b]52;c;'");
	free(t);
	/* folded: the first arguments that fit, then the rest counted */
	t = tools_call_text("git", &a, 45);
	/* the note is never cut, the words are: none fits beside it now */
	const char *fold = "git ... (+4 more arguments, 27 bytes, #";
	assert_memory_equal(t, fold, strlen(fold));
	assert_int_equal(strlen(t), strlen(fold) + 9);
	/* what was left out differs: so does the row */
	struct strv a2 = args((const char *[]){"log", "--output=/x z", "it's",
					       "\x1b]52;c;", NULL});
	char *t2 = tools_call_text("git", &a2, 45);
	assert_string_not_equal(t, t2);
	free(t2);
	strv_free(&a2);
	free(t);
	struct strv big = {0};
	for (int i = 0; i < 1000; i++)
		strv_push(&big, "argument");
	t = tools_call_text("gh", &big, 269);
	assert_true(strlen(t) <= 269);
	assert_non_null(strstr(t, "gh argument argument"));
	/* the first and the last arguments, the count of those between */
	const char *mid = strstr(t, " ... (+");
	assert_non_null(mid);
	size_t head = (size_t)(mid - t - 2) / 9;
	const char *after = strstr(mid, ") ...");
	assert_non_null(after);
	size_t tail = strlen(after + 5) / 9;
	assert_true(tail > 0);
	char want[80];
	snprintf(want, sizeof(want), " ... (+%zu more arguments, %zu bytes, #",
		 1000 - head - tail, (1000 - head - tail) * 8);
	assert_non_null(strstr(t, want));
	assert_non_null(strstr(t, ") ... argument"));
	free(t);
	/* a padded argument cannot push the ones after it out of the row */
	struct strv pad = {0};
	char *long_arg = xmalloc(5001);
	memset(long_arg, 'a', 5000);
	long_arg[5000] = '\0';
	strv_push(&pad, long_arg);
	strv_push(&pad, "--output=TAILMARK");
	t = tools_call_text("mytool", &pad, 269);
	assert_true(strlen(t) <= 269);
	assert_non_null(strstr(t, "(5000 bytes, #"));
	assert_non_null(strstr(t, "--output=TAILMARK"));
	free(t);
	free(long_arg);
	strv_free(&pad);
	/* max below the tool and the note: those still, never cut */
	t = tools_call_text("gh", &big, 5);
	const char *all = "gh ... (+1000 more arguments, 8000 bytes, #";
	assert_memory_equal(t, all, strlen(all));
	assert_int_equal(strlen(t), strlen(all) + 9);
	free(t);
	struct strv none = {0};
	t = tools_call_text("gh", &none, 10);
	assert_string_equal(t, "gh");
	free(t);
	strv_free(&big);
	strv_free(&a);
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

	/* patterns: options are words, '*' stands alone, no empty word,
	 * no control, quote or hidden character, bounded */
	static const struct {
		const char *in, *want, *msg;
	} pats[] = {
	    {"pr --x", "pr --x", NULL},
	    {" log  --oneline   *", "log --oneline *", NULL},
	    {"*", "*", NULL},
	    {"view * --web", "view * --web", NULL},
	    {"a*", NULL, "stands alone"},
	    {"log --format=*", NULL, "stands alone"},
	    {"", NULL, "empty"},
	    {"   ", NULL, "empty"},
	    {"a\nb", NULL, "control character"},
	    {"a\tb", NULL, "control character"},
	    {"a \xe2\x80\xae"
	     "b",
	     NULL, "control or invisible"},
	    {"a \xff", NULL, "not UTF-8"},
	    {"log --format='%h'", NULL, "quote"},
	    {"a \\b", NULL, "backslash"},
	};
	for (size_t i = 0; i < sizeof(pats) / sizeof(pats[0]); i++) {
		int r = tools_call_normalize(pats[i].in, &n, &e);
		if (pats[i].want) {
			assert_int_equal(r, 0);
			assert_string_equal(n, pats[i].want);
			free(n);
		} else if (r == 0 || !strstr(e.msg, pats[i].msg)) {
			fail_msg("'%s': %d '%s'", pats[i].in, r, e.msg);
		}
	}
	struct buf w = {0};
	for (int i = 0; i < KEY_TOOL_WORDS; i++)
		buf_puts(&w, "a ");
	buf_putc(&w, '\0');
	assert_int_equal(tools_call_normalize(w.p, &n, &e), 0);
	free(n);
	w.len--;
	buf_puts(&w, "a");
	buf_putc(&w, '\0');
	assert_true(tools_call_normalize(w.p, &n, &e) < 0);
	assert_non_null(strstr(e.msg, "more than 64 words"));
	buf_free(&w);
	char big[KEY_TOOL_CALL + 2];
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_true(tools_call_normalize(big, &n, &e) < 0);
	assert_non_null(strstr(e.msg, "too long"));
	/* --tool: the bound counts the tool's name too */
	char *whole = xasprintf("gh %.*s", KEY_TOOL_CALL - 3, big);
	assert_int_equal(
	    key_normalize(key_def(K_TOOLS_ALLOW), whole, strlen(whole), &n, &e),
	    0);
	free(n);
	free(whole);
	whole = xasprintf("gh %.*s", KEY_TOOL_CALL - 2, big);
	assert_true(key_normalize(key_def(K_TOOLS_ALLOW), whole, strlen(whole),
				  &n, &e) < 0);
	assert_non_null(strstr(e.msg, "too long"));
	free(whole);

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
	strv_push(&pats, "https://github.com/me");
	strv_push(&pats, "https://docs.test/guide/");
	strv_push(&pats, "https://q.test/search?q=lnk");
	strv_push(&pats, "https://f.test/a#top");
	strv_push(&pats, "https://h.test");
	strv_push(&pats, "https://root.test/");
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
	    /* encoded twice or more, for servers (and proxies before them)
	     * that decode the path again: '%25' is '%' */
	    {"https://a.example.org/docs/%252e%252E/admin", 0, 0, NULL},
	    {"https://a.example.org/docs/%25252e./admin", 0, 0, NULL},
	    {"https://a.example.org/docs%252f..%252Fadmin", 0, 0, NULL},
	    {"https://a.example.org/docs/a%255cb", 0, 0, NULL},
	    {"https://a.example.org/docs/..%253Badmin", 0, 0, NULL},
	    /* and encoded twice in the other ways: each byte of the escape
	     * escaped, or only some ('%' then %32%65 is %2e, %2 then %65
	     * too) */
	    {"https://a.example.org/docs/%25%32%65%25%32%65/admin", 0, 0, NULL},
	    {"https://a.example.org/docs/%%32%65%%32%65/admin", 0, 0, NULL},
	    {"https://a.example.org/docs/%2%65%2%65/admin", 0, 0, NULL},
	    {"https://a.example.org/docs/..%25%35%63admin", 0, 0, NULL},
	    {"https://a.example.org/docs/..%25%33%62/admin", 0, 0, NULL},
	    {"https://a.example.org/docs%25%32%66..%25%32%66admin", 0, 0, NULL},
	    {"https://a.example.org/docs/%2525%32", 1, 1, NULL},
	    {"https://a.example.org/docs/100%25", 1, 1, NULL},
	    {"https://a.example.org/docs/%2525", 1, 1, NULL},
	    /* dots that are no segment, and a query's or fragment's */
	    {"https://a.example.org/docs/.../a..b/.x", 1, 1, NULL},
	    {"https://a.example.org/docs/a?p=../x#/../y", 1, 1, NULL},
	    /* whole path segments: /me is /me and below, never /meevil */
	    {"https://github.com/me", 1, 1, NULL},
	    {"https://github.com/me/", 1, 1, NULL},
	    {"https://github.com/me/repo/issues", 1, 1, NULL},
	    {"https://github.com/meevil/login", 1, 0, NULL},
	    {"https://github.com/meevil", 1, 0, NULL},
	    {"https://github.com/me%2Fx", 1, 0, NULL},
	    {"https://github.com/me;x", 1, 0, NULL},
	    {"https://github.com/mE", 1, 0, NULL},
	    {"https://github.com/", 1, 0, NULL},
	    {"https://github.com", 1, 0, NULL},
	    /* a query or fragment never makes another path match */
	    {"https://github.com/me?next=/evil", 1, 1, NULL},
	    {"https://github.com/me#x", 1, 1, NULL},
	    {"https://github.com/?/me", 1, 0, NULL},
	    {"https://github.com/#/me", 1, 0, NULL},
	    {"https://github.com#/me", 1, 0, NULL},
	    {"https://github.com/x?https://github.com/me", 1, 0, NULL},
	    {"https://github.com/meevil?/me", 1, 0, NULL},
	    /* a grant ending in '/': below it only */
	    {"https://docs.test/guide/", 1, 1, NULL},
	    {"https://docs.test/guide/a", 1, 1, NULL},
	    {"https://docs.test/guide", 1, 0, NULL},
	    {"https://docs.test/guidex", 1, 0, NULL},
	    /* a grant with a query or fragment: that one URL */
	    {"https://q.test/search?q=lnk", 1, 1, NULL},
	    {"https://q.test/search?q=lnk&x=1", 1, 0, NULL},
	    {"https://q.test/search?q=lnkx", 1, 0, NULL},
	    {"https://q.test/search/x?q=lnk", 1, 0, NULL},
	    {"https://q.test/search", 1, 0, NULL},
	    {"https://q.test/search?q=lnk#x", 1, 0, NULL},
	    {"https://f.test/a#top", 1, 1, NULL},
	    {"https://f.test/a#topx", 1, 0, NULL},
	    {"https://f.test/a/b#top", 1, 0, NULL},
	    /* a host alone, or its "/": every path of it */
	    {"https://h.test", 1, 1, NULL},
	    {"https://h.test/any/thing?x#y", 1, 1, NULL},
	    {"https://root.test", 1, 1, NULL},
	    {"https://root.test/x", 1, 1, NULL},
	    {"https://h.test:444/", 1, 0, NULL},
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

static void put_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static bool env_has(const struct strv *env, const char *want)
{
	for (size_t i = 0; i < env->n; i++)
		if (strcmp(env->v[i], want) == 0)
			return true;
	return false;
}

/* The driver stand-ins come from the repository git finds upward from a
 * granted folder, in each form git finds one: a .git folder above the
 * grant, a worktree's gitdir file whose commondir holds the config, and
 * a bare repository. */
static void test_env_repository_drivers(void **state)
{
	(void)state;
	char dir[] = "/tmp/lnk-test-env-XXXXXX", p[512], q[512];
	assert_non_null(mkdtemp(dir));
	char *const env[] = {"HOME=/nonexistent", "GIT_CONFIG_NOSYSTEM=1",
			     NULL};
	/* a folder granted inside the user's repository */
	snprintf(p, sizeof(p), "%s/a/.git", dir);
	assert_int_equal(mkdir(dir, 0700) == 0 || errno == EEXIST, 1);
	snprintf(q, sizeof(q), "%s/a", dir);
	assert_int_equal(mkdir(q, 0700), 0);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/a/.git/config", dir);
	put_text(p, "[x][diff \"gpg\"]\n\ttextconv = gpg -d\n");
	snprintf(q, sizeof(q), "%s/a/src", dir);
	assert_int_equal(mkdir(q, 0700), 0);
	/* a worktree: b/.git names the worktree's folder, whose commondir
	 * names the folder with the config */
	snprintf(p, sizeof(p), "%s/common", dir);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/common/config", dir);
	put_text(p, "[filter \"crypt\"]\n\tclean = x\n");
	snprintf(p, sizeof(p), "%s/wt", dir);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/wt/commondir", dir);
	put_text(p, "../common\n");
	snprintf(p, sizeof(p), "%s/b", dir);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/b/.git", dir);
	put_text(p, "gitdir: ../wt\n");
	/* a bare repository granted itself */
	snprintf(p, sizeof(p), "%s/bare.git", dir);
	assert_int_equal(mkdir(p, 0700), 0);
	static const char *const parts[] = {"objects", "refs"};
	for (size_t i = 0; i < 2; i++) {
		snprintf(p, sizeof(p), "%s/bare.git/%s", dir, parts[i]);
		assert_int_equal(mkdir(p, 0700), 0);
	}
	snprintf(p, sizeof(p), "%s/bare.git/HEAD", dir);
	put_text(p, "ref: refs/heads/main\n");
	snprintf(p, sizeof(p), "%s/bare.git/config", dir);
	put_text(p, "[merge \"m\"]\n\tdriver = x %A\n");

	struct strv grants = {0}, writes = {0}, out = {0};
	snprintf(p, sizeof(p), "%s/a/src", dir);
	strv_push(&writes, p);
	strv_push(&grants, p);
	snprintf(p, sizeof(p), "%s/b", dir);
	strv_push(&grants, p);
	snprintf(p, sizeof(p), "%s/bare.git", dir);
	strv_push(&grants, p);
	assert_true(tools_env(env, &writes, &grants, &out));
	bool textconv = false, clean = false, merge = false;
	for (size_t i = 0; i < out.n; i++) {
		const char *v = strchr(out.v[i], '=');
		if (!v || strncmp(out.v[i], "GIT_CONFIG_KEY_", 15) != 0)
			continue;
		textconv |= strcmp(v + 1, "diff.gpg.textconv") == 0;
		clean |= strcmp(v + 1, "filter.crypt.clean") == 0;
		merge |= strcmp(v + 1, "merge.m.driver") == 0;
	}
	assert_true(textconv);
	assert_true(clean);
	assert_true(merge);
	assert_true(env_has(&out, "GIT_CONFIG_NOSYSTEM=1"));
	strv_free(&out);
	strv_free(&grants);
	strv_free(&writes);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_decode_good),
	    cmocka_unit_test(test_decode_bad),
	    cmocka_unit_test(test_signals),
	    cmocka_unit_test(test_pass_decode),
	    cmocka_unit_test(test_allowed),
	    cmocka_unit_test(test_plan_patterns),
	    cmocka_unit_test(test_warning),
	    cmocka_unit_test(test_refusal),
	    cmocka_unit_test(test_call_text),
	    cmocka_unit_test(test_names),
	    cmocka_unit_test(test_store_round_trip),
	    cmocka_unit_test(test_pages),
	    cmocka_unit_test(test_reach),
	    cmocka_unit_test(test_env_repository_drivers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
