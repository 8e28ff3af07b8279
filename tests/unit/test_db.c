/* The call log: batches in one transaction, updates of a call's end,
 * readers' filters, live counters, and two writers at once. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "common/util.h"
#include "store/db.h"

struct collect {
	struct strv rows;
};

static void on_call(const struct db_call_row *r, void *ud)
{
	struct collect *c = ud;
	strv_pushf(&c->rows, "%s %s %s %s %s %lld %lld", r->sandbox, r->verb,
		   r->target, r->outcome, r->reason, (long long)r->up,
		   (long long)r->down);
}

static void on_wire(const struct db_wire_row *r, void *ud)
{
	struct collect *c = ud;
	strv_pushf(&c->rows, "%s %lld %lld", r->sandbox, (long long)r->up,
		   (long long)r->down);
}

static char *tmpdb(void)
{
	char tmpl[] = "/tmp/lnk-test-db-XXXXXX";
	assert_non_null(mkdtemp(tmpl));
	return xasprintf("%s/sub/lnk.db", tmpl);
}

static void test_batch(void **state)
{
	(void)state;
	_cleanup_free_ char *path = tmpdb();
	struct db *db;
	struct lnk_err err = {0};
	assert_int_equal(db_open(path, false, &db, &err), 0);
	struct stat st;
	char *dir = xstrdup(path);
	*strrchr(dir, '/') = '\0';
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	free(dir);

	int64_t wid;
	assert_int_equal(db_wire_begin(db, "run-1", (long)getpid(), &wid, &err),
			 0);
	struct db_batch b = {0};
	db_batch_call(&b, 1, 1700000000, "connect", "example.com:443",
		      DB_ALLOWED, "", 0, 0);
	db_batch_call(&b, 2, 1700000001, "http", "evil.test:80", DB_REFUSED,
		      "host not in the sandbox's grants", 0, 0);
	db_batch_update(&b, 1, DB_ENDED, "", 517, 4821);
	db_batch_call(&b, 3, 1700000002, "tcp", "localhost:5432", DB_FAILED,
		      "connection refused", 0, 0);
	assert_int_equal(db_flush(db, wid, &b, 517, 4821, false, &err), 0);
	assert_int_equal(b.n, 0);

	struct collect c = {0};
	struct db_log_query q = {.lines = 40};
	assert_int_equal(db_log_read(db, &q, on_call, &c, &err), 0);
	assert_int_equal(c.rows.n, 3);
	assert_string_equal(c.rows.v[0],
			    "run-1 connect example.com:443 ended  517 4821");
	assert_string_equal(c.rows.v[1],
			    "run-1 http evil.test:80 refused "
			    "host not in the sandbox's grants 0 0");
	strv_free(&c.rows);

	q.refused = true;
	assert_int_equal(db_log_read(db, &q, on_call, &c, &err), 0);
	assert_int_equal(c.rows.n, 1);
	strv_free(&c.rows);

	q = (struct db_log_query){.lines = 1};
	assert_int_equal(db_log_read(db, &q, on_call, &c, &err), 0);
	assert_int_equal(c.rows.n, 1);
	assert_non_null(strstr(c.rows.v[0], "localhost:5432 failed"));
	strv_free(&c.rows);

	q = (struct db_log_query){.lines = 40, .sandbox = "other"};
	assert_int_equal(db_log_read(db, &q, on_call, &c, &err), 0);
	assert_int_equal(c.rows.n, 0);

	assert_int_equal(db_traffic_read(db, 60, on_wire, &c, &err), 0);
	assert_int_equal(c.rows.n, 1);
	assert_string_equal(c.rows.v[0], "run-1 517 4821");
	strv_free(&c.rows);
	/* ended wires are not running */
	assert_int_equal(db_flush(db, wid, &b, 600, 5000, true, &err), 0);
	assert_int_equal(db_traffic_read(db, 60, on_wire, &c, &err), 0);
	assert_int_equal(c.rows.n, 0);
	db_batch_free(&b); /* flushed batches keep their buffer for reuse */
	db_close(db);

	/* readonly open of a missing file creates nothing */
	char *missing = xasprintf("%s.missing", path);
	assert_int_equal(db_open(missing, true, &db, &err), -ENOENT);
	assert_int_not_equal(access(missing, F_OK), 0);
	free(missing);
}

/* Many wires at once: two processes, each with a writer thread, each
 * committing many batches; every call arrives. */
static void test_concurrent_writers(void **state)
{
	(void)state;
	_cleanup_free_ char *path = tmpdb();
	struct db *db;
	struct lnk_err err = {0};
	assert_int_equal(db_open(path, false, &db, &err), 0);
	pid_t kids[3];
	for (int k = 0; k < 3; k++) {
		kids[k] = fork();
		if (kids[k] == 0) {
			struct db_writer *w;
			char name[16];
			snprintf(name, sizeof(name), "w%d", k);
			if (db_writer_start(path, name, (long)getpid(), 5, &w,
					    &err) < 0)
				_exit(1);
			struct db_batch b = {0};
			for (int i = 1; i <= 500; i++) {
				db_batch_call(&b, i, time(NULL), "tcp",
					      "x.test:1", DB_ALLOWED, "", 0, 0);
				db_batch_update(&b, i, DB_ENDED, "", 1, 2);
				if (i % 50 == 0) {
					db_writer_submit(w, &b, (uint64_t)i,
							 (uint64_t)i * 2);
					usleep(2000);
				}
			}
			db_writer_stop(w);
			db_batch_free(&b);
			_exit(0);
		}
	}
	for (int k = 0; k < 3; k++) {
		int st;
		assert_int_equal(waitpid(kids[k], &st, 0), kids[k]);
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	struct collect c = {0};
	struct db_log_query q = {.lines = 100000};
	assert_int_equal(db_log_read(db, &q, on_call, &c, &err), 0);
	assert_int_equal(c.rows.n, 1500);
	for (size_t i = 0; i < c.rows.n; i++)
		assert_non_null(strstr(c.rows.v[i], " ended  1 2"));
	strv_free(&c.rows);
	db_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_batch),
	    cmocka_unit_test(test_concurrent_writers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
