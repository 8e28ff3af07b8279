/* lnk sandbox check: verdicts and the reading of the probe's (hostile)
 * output. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "check/check.h"

static void test_verdict_table(void **state)
{
	(void)state;
	const struct {
		enum check_expect e;
		enum check_outcome o;
		enum check_host h;
		bool ok;
		enum check_verdict v;
	} rows[] = {
	    {CHECK_DENY, CO_REACHED, CH_NONE, true, CV_LEAKED},
	    {CHECK_DENY, CO_REFUSED, CH_NONE, true, CV_BLOCKED},
	    {CHECK_DENY, CO_ERROR, CH_NONE, true, CV_BLOCKED},
	    {CHECK_DENY, CO_NONE, CH_NONE, true, CV_FAILED},
	    /* a write judged by the host: inside-only is blocked */
	    {CHECK_DENY, CO_REACHED, CH_ABSENT, true, CV_BLOCKED},
	    {CHECK_DENY, CO_REFUSED, CH_ABSENT, false, CV_LEAKED},
	    {CHECK_DENY, CO_REACHED, CH_UNCHANGED, false, CV_LEAKED},
	    {CHECK_ALLOW, CO_REACHED, CH_NONE, true, CV_ALLOWED},
	    {CHECK_ALLOW, CO_REFUSED, CH_NONE, true, CV_MISSED},
	    {CHECK_ALLOW, CO_ERROR, CH_NONE, true, CV_FAILED},
	    {CHECK_ALLOW, CO_NONE, CH_NONE, true, CV_FAILED},
	    {CHECK_GAP, CO_REACHED, CH_NONE, true, CV_OPEN},
	    {CHECK_GAP, CO_REFUSED, CH_NONE, true, CV_BLOCKED},
	    /* only a refusal proves it: a timeout may have gone out */
	    {CHECK_REFUSE, CO_REFUSED, CH_NONE, true, CV_BLOCKED},
	    {CHECK_REFUSE, CO_ERROR, CH_NONE, true, CV_FAILED},
	    {CHECK_REFUSE, CO_REACHED, CH_NONE, true, CV_LEAKED},
	    {CHECK_REFUSE, CO_NONE, CH_NONE, true, CV_FAILED},
	    /* a chmod judged by the host node's ctime */
	    {CHECK_DENY, CO_REACHED, CH_CTIME, true, CV_BLOCKED},
	    {CHECK_DENY, CO_REFUSED, CH_CTIME, false, CV_LEAKED},
	    /* a leftover that runs later: open when the end of a run names
	     * it, leaked when it does not */
	    {CHECK_GAP, CO_REACHED, CH_FLAGGED, true, CV_OPEN},
	    {CHECK_GAP, CO_REACHED, CH_FLAGGED, false, CV_LEAKED},
	    {CHECK_GAP, CO_REFUSED, CH_FLAGGED, false, CV_BLOCKED},
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		assert_int_equal(check_verdict_of(rows[i].e, rows[i].o,
						  rows[i].h, rows[i].ok),
				 rows[i].v);
}

static struct check_try mk(const char *id, enum check_expect e)
{
	struct check_try t = {.area = "files", .expect = e};
	snprintf(t.id, sizeof(t.id), "%s", id);
	t.what = strdup("x");
	t.probe = strdup("read\t/x");
	return t;
}

static void test_judge_hostile_output(void **state)
{
	(void)state;
	struct check_list l = {0};
	l.t = calloc(4, sizeof(*l.t));
	l.t[l.n++] = mk("t0", CHECK_DENY);
	l.t[l.n++] = mk("t1", CHECK_DENY);
	l.t[l.n++] = mk("t2", CHECK_ALLOW);
	l.t[l.n++] = mk("t3", CHECK_DENY);
	const char out[] =
	    "t0\trefused\tENOENT\n"
	    "t0\treached\tlater lines cannot change the first answer\n"
	    "t1\treached\tsecret\n"
	    "t2\tbogus\tnot a result\n"
	    "garbage without tabs\n"
	    "t10\treached\tno such try\n"
	    "\t\t\n"
	    "t3\trefused"; /* no detail, no newline: ignored */
	check_judge(&l, out, sizeof(out) - 1);
	assert_int_equal(l.t[0].v, CV_BLOCKED);
	assert_string_equal(l.t[0].detail, "ENOENT");
	assert_int_equal(l.t[1].v, CV_LEAKED);
	assert_int_equal(l.t[2].v, CV_FAILED);
	assert_int_equal(l.t[3].v, CV_FAILED);
	assert_int_equal(check_count(&l, CV_LEAKED), 1);

	struct buf b = {0};
	struct strv w = {0};
	strv_push(&w, "warning: \"~\" readable\n");
	check_json(&l, &w, &b);
	assert_non_null(strstr(b.p, "\"leaked\":true"));
	/* Warnings are strings a folder name may reach: escaped as JSON. */
	assert_non_null(
	    strstr(b.p, "\"warnings\":[\"warning: \\\"~\\\" readable\\n\"]"));
	strv_free(&w);
	buf_free(&b);
	check_table(&l, "/home/u", &b);
	assert_non_null(strstr(b.p, "LEAKED"));
	buf_free(&b);
	check_list_free(&l);
}

/* A chmod to the mode a node has changes nothing but its ctime: the
 * host's node is the judge, whatever the probe says. */
static void test_judge_ctime(void **state)
{
	(void)state;
	char path[] = "/tmp/lnk-unit-ctime-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	for (int changed = 0; changed < 2; changed++) {
		struct check_list l = {0};
		l.t = calloc(1, sizeof(*l.t));
		l.t[l.n] = mk("t0", CHECK_DENY);
		l.t[l.n].host = CH_CTIME;
		l.t[l.n].host_path = strdup(path);
		l.t[l.n].host_ctime = st.st_ctim;
		l.n++;
		if (changed) {
			struct timespec ts = {0, 2000000};
			nanosleep(&ts, NULL);
			assert_int_equal(chmod(path, st.st_mode & 07777), 0);
		}
		const char out[] = "t0\trefused\tEPERM\n";
		check_judge(&l, out, sizeof(out) - 1);
		assert_int_equal(l.t[0].v, changed ? CV_LEAKED : CV_BLOCKED);
		check_list_free(&l);
	}
	unlink(path);
}

/* The limits line is lnk's own text but names folders: escaped in the
 * table, a string in the JSON. */
static void test_limits_line(void **state)
{
	(void)state;
	struct check_list l = {0};
	l.t = calloc(1, sizeof(*l.t));
	l.t[l.n++] = mk("t0", CHECK_DENY);
	l.limits_line = strdup("tasks 4096 under /x\x1b]0;t\x07");
	const char out[] = "t0\trefused\tEPERM\n";
	check_judge(&l, out, sizeof(out) - 1);
	struct buf b = {0};
	check_table(&l, "/home/u", &b);
	assert_non_null(strstr(b.p, "limits: tasks 4096 under /x"));
	assert_null(strchr(b.p, '\x1b'));
	buf_free(&b);
	struct strv none = {0};
	check_json(&l, &none, &b);
	assert_non_null(strstr(b.p, "\"limits\":\"tasks 4096"));
	assert_non_null(strstr(b.p, "\"warnings\":[]"));
	assert_null(strchr(b.p, '\x1b'));
	buf_free(&b);
	check_list_free(&l);
}

static void test_gaps_have_reasons(void **state)
{
	(void)state;
	size_t n;
	const struct check_gap *g = check_gaps(&n);
	assert_true(n >= 1);
	for (size_t i = 0; i < n; i++) {
		assert_true(strlen(g[i].name) > 0);
		assert_true(strlen(g[i].why) > 20);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_verdict_table),
	    cmocka_unit_test(test_judge_hostile_output),
	    cmocka_unit_test(test_judge_ctime),
	    cmocka_unit_test(test_limits_line),
	    cmocka_unit_test(test_gaps_have_reasons),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
