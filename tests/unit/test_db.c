/* The call log: batches in one transaction, updates of a call's end,
 * readers' filters, live counters, and two writers at once. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "common/buf.h"
#include "common/esc.h"
#include "common/util.h"
#include "store/db.h"
#include "store/registry.h"

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
	strv_pushf(&c->rows, "%s %lld %lld %lld", r->sandbox, (long long)r->up,
		   (long long)r->down, (long long)r->lookups);
}

/* Every database of this run lies under one folder, removed at the end:
 * a test run leaves nothing in /tmp. */
static char top[] = "/tmp/lnk-test-db-XXXXXX";

static int make_top(void **state)
{
	(void)state;
	return mkdtemp(top) ? 0 : -1;
}

static int remove_top(void **state)
{
	(void)state;
	_cleanup_free_ char *cmd = xasprintf("rm -rf '%s'", top);
	return system(cmd) == 0 ? 0 : -1;
}

static char *tmpdb(void)
{
	_cleanup_free_ char *tmpl = xasprintf("%s/XXXXXX", top);
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
	assert_string_equal(c.rows.v[0], "run-1 517 4821 0");
	strv_free(&c.rows);
	/* the lookups the wire sent upstream, with its counters */
	b.lookups = 7;
	assert_int_equal(db_flush(db, wid, &b, 517, 4821, false, &err), 0);
	assert_int_equal(db_traffic_read(db, 60, on_wire, &c, &err), 0);
	assert_string_equal(c.rows.v[0], "run-1 517 4821 7");
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
/* A call that ends while its insert still waits in the batch is written
 * once, with its end; one whose insert was written already gets its
 * update; an index that now holds another call's insert is not taken
 * for this call's. */
static void test_batch_end_in_place(void **state)
{
	(void)state;
	_cleanup_free_ char *path = tmpdb();
	struct db *db;
	struct lnk_err err = {0};
	assert_int_equal(db_open(path, false, &db, &err), 0);
	int64_t wid;
	assert_int_equal(db_wire_begin(db, "run-2", (long)getpid(), &wid, &err),
			 0);
	struct db_batch b = {0};
	size_t a1 = db_batch_call(&b, 1, 1700000000, "connect", "a.test:443",
				  DB_ALLOWED, "", 0, 0);
	size_t a2 = db_batch_call(&b, 2, 1700000001, "connect", "b.test:443",
				  DB_ALLOWED, "", 0, 0);
	db_batch_update_at(&b, a1, 1, DB_ENDED, "", 10, 20);
	assert_int_equal(b.n, 2); /* no update op: the insert carries it */
	assert_int_equal(db_flush(db, wid, &b, 10, 20, false, &err), 0);
	/* call 2's insert is written; a new call now sits at its index */
	size_t a3 = db_batch_call(&b, 3, 1700000002, "connect", "c.test:443",
				  DB_ALLOWED, "", 0, 0);
	assert_int_equal(a3, a2 - 1);
	db_batch_update_at(&b, a2 - 1, 2, DB_FAILED, "connect timed out", 0, 0);
	assert_int_equal(b.n, 2);
	assert_true(b.v[1].update);
	assert_int_equal(b.v[0].outcome, DB_ALLOWED); /* call 3's, untouched */
	assert_int_equal(db_flush(db, wid, &b, 10, 20, false, &err), 0);

	struct collect c = {0};
	struct db_log_query q = {.lines = 40};
	assert_int_equal(db_log_read(db, &q, on_call, &c, &err), 0);
	assert_int_equal(c.rows.n, 3);
	assert_string_equal(c.rows.v[0],
			    "run-2 connect a.test:443 ended  10 20");
	assert_string_equal(c.rows.v[1], "run-2 connect b.test:443 failed "
					 "connect timed out 0 0");
	assert_string_equal(c.rows.v[2],
			    "run-2 connect c.test:443 allowed  0 0");
	strv_free(&c.rows);
	db_batch_free(&b);
	db_close(db);
}

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

static off_t file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? st.st_size : -1;
}

/* Waits (bounded) for the writer's health to be down (or up); returns
 * whether it got there. */
static bool wait_health(struct db_writer *w, bool down, size_t *backlog)
{
	char why[DB_WHY_MAX];
	for (int i = 0; i < 4000; i++) {
		int r = db_writer_health(w, backlog, why, sizeof(why));
		if (down ? r < 0 : (r == 0 && *backlog == 0))
			return true;
		usleep(1000);
	}
	return false;
}

static void one_call(struct db_writer *w, int64_t seq)
{
	struct db_batch b = {0};
	db_batch_call(&b, seq, time(NULL), "tcp", "x.test:1", DB_ALLOWED, "", 0,
		      0);
	db_batch_update(&b, seq, DB_ENDED, "", 1, 2);
	db_writer_submit(w, &b, 1, 2);
	db_batch_free(&b);
}

/* A log that cannot be written (here: a file size limit where the WAL
 * must grow, as a full disk does) is reported, its entries kept, and all
 * of them written once it can be written again. */
static void test_writer_log_down_and_back(void **state)
{
	(void)state;
	_cleanup_free_ char *path = tmpdb();
	_cleanup_free_ char *wal = xasprintf("%s-wal", path);
	struct lnk_err err = {0};
	pid_t kid = fork();
	if (kid == 0) {
		signal(SIGXFSZ, SIG_IGN); /* EFBIG instead of a kill */
		struct db_writer *w;
		size_t backlog;
		if (db_writer_start(path, "full", (long)getpid(), 5, &w, &err) <
		    0)
			_exit(1);
		one_call(w, 1);
		if (!wait_health(w, false, &backlog))
			_exit(2);
		off_t a = file_size(path), b = file_size(wal);
		struct rlimit rl;
		getrlimit(RLIMIT_FSIZE, &rl);
		struct rlimit tight = {(rlim_t)(a > b ? a : b), rl.rlim_max};
		if (setrlimit(RLIMIT_FSIZE, &tight) < 0)
			_exit(3);
		one_call(w, 2);
		if (!wait_health(w, true, &backlog) || backlog < 2)
			_exit(4);
		one_call(w, 3); /* kept while it is down */
		setrlimit(RLIMIT_FSIZE, &rl);
		if (!wait_health(w, false, &backlog))
			_exit(5);
		db_writer_stop(w);
		_exit(0);
	}
	int st;
	assert_int_equal(waitpid(kid, &st, 0), kid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	struct db *db;
	assert_int_equal(db_open(path, true, &db, &err), 0);
	struct collect c = {0};
	struct db_log_query q = {.lines = 100};
	assert_int_equal(db_log_read(db, &q, on_call, &c, &err), 0);
	assert_int_equal(c.rows.n, 3);
	for (size_t i = 0; i < c.rows.n; i++)
		assert_string_equal(c.rows.v[i],
				    "full tcp x.test:1 ended  1 2");
	strv_free(&c.rows);
	db_close(db);
}

/* No checkpoint when the last connection closes (it fsynced the WAL and
 * the database at the end of every wire), yet the WAL stays bounded: the
 * commit that takes it past DB_WAL_PAGES folds it into the database and
 * empties it. Each round is one wire: open, one batch, close, as `lnk
 * sandbox run` does. */
static void test_wal_checkpointed_not_on_close(void **state)
{
	(void)state;
	_cleanup_free_ char *path = tmpdb();
	_cleanup_free_ char *wal = xasprintf("%s-wal", path);
	struct lnk_err err = {0};
	char target[DB_TARGET_MAX];
	memset(target, 'a', sizeof(target) - 8);
	snprintf(target + sizeof(target) - 8, 8, ".t:443");
	off_t wal_max = 0;
	const int rounds = 100, calls = 200;
	for (int r = 0; r < rounds; r++) {
		struct db *db;
		int64_t wid;
		assert_int_equal(db_open(path, false, &db, &err), 0);
		assert_int_equal(db_wire_begin(db, "w", 1, &wid, &err), 0);
		struct db_batch b = {0};
		for (int i = 1; i <= calls; i++)
			db_batch_call(&b, i, time(NULL), "connect", target,
				      DB_REFUSED, "not granted", 0, 0);
		assert_int_equal(db_flush(db, wid, &b, 0, 0, true, &err), 0);
		db_batch_free(&b);
		db_close(db);
		/* closing the last connection left the WAL where it was */
		off_t ws = file_size(wal);
		assert_true(ws >= 0);
		if (ws > wal_max)
			wal_max = ws;
	}
	/* about 100 x 200 rows of 300 bytes: some 6 MB went through the
	 * WAL; without checkpoints it would hold them all */
	off_t dbs = file_size(path);
	print_message("wal at most %lld bytes, database %lld bytes\n",
		      (long long)wal_max, (long long)dbs);
	assert_true(wal_max < 5 * 1024 * 1024);
	assert_true(dbs > 4 * 1024 * 1024);
	struct db *db;
	assert_int_equal(db_open(path, true, &db, &err), 0);
	struct collect c = {0};
	struct db_log_query q = {.lines = 1000000};
	assert_int_equal(db_log_read(db, &q, on_call, &c, &err), 0);
	assert_int_equal(c.rows.n, (size_t)(rounds * calls));
	strv_free(&c.rows);
	db_close(db);
}

/* The registry's way: each connection opens, commits once and closes. A
 * checkpoint of SQLite's own lets the WAL start over only at the same
 * connection's next write, and the next opener, which rebuilds the WAL's
 * index from the file, no longer knows it was checkpointed: the WAL grew
 * by every commit, without end, and each open read it all. */
static void test_wal_bounded_one_commit_per_open(void **state)
{
	(void)state;
	_cleanup_free_ char *path = tmpdb();
	_cleanup_free_ char *wal = xasprintf("%s-wal", path);
	struct lnk_err err = {0};
	off_t wal_max = 0;
	const int rounds = 400;
	for (int r = 0; r < rounds; r++) {
		struct db *db;
		int64_t wid;
		assert_int_equal(db_open(path, false, &db, &err), 0);
		assert_int_equal(db_wire_begin(db, "w", 1, &wid, &err), 0);
		db_close(db);
		off_t ws = file_size(wal);
		if (ws > wal_max)
			wal_max = ws;
	}
	/* a frame is a 4 kB page and its 24-byte head; a commit here
	 * writes a few */
	print_message("wal at most %lld bytes after %d commits\n",
		      (long long)wal_max, rounds);
	assert_true(wal_max <= (DB_WAL_PAGES + 10) * (4096 + 24) + 32);
}

/* Calls outside any wire (the guard's refusals): queued without waiting on
 * SQLite, committed by the queue's thread, numbered apart from the wires'
 * own calls, read back like them. */
static void test_queue_without_wire(void **state)
{
	(void)state;
	_cleanup_free_ char *path = tmpdb();
	struct lnk_err err = {0};
	struct db *db;
	int64_t wid;
	/* a wire's call with seq 1 already: wire-less rows must not clash */
	assert_int_equal(db_open(path, false, &db, &err), 0);
	assert_int_equal(db_wire_begin(db, "other", 1, &wid, &err), 0);
	struct db_batch b = {0};
	db_batch_call(&b, 1, time(NULL), "tcp", "x.test:1", DB_REFUSED,
		      "not granted", 0, 0);
	assert_int_equal(db_flush(db, wid, &b, 0, 0, true, &err), 0);
	db_batch_free(&b);

	struct db_queue *q1, *q2;
	assert_int_equal(db_queue_start(path, "box", 5, &q1, &err), 0);
	assert_int_equal(db_queue_start(path, "box2", 1000, &q2, &err), 0);
	db_queue_add(q1, "file", "/w/.envrc", DB_REFUSED, "dot file");
	db_queue_add(q2, "file", "/v/.git", DB_REFUSED, "dot file");
	db_queue_add(q1, "file", "/w/.git", DB_REFUSED, "dot file");
	/* q1 commits on its own, q2 at its stop: waited for, not timed (a
	 * loaded machine may take a while to run q1's thread) */
	struct collect c = {0};
	struct db_log_query ql = {.lines = 100, .sandbox = "box"};
	for (int i = 0; i < 500; i++) {
		strv_free(&c.rows);
		assert_int_equal(db_log_read(db, &ql, on_call, &c, &err), 0);
		if (c.rows.n >= 2)
			break;
		usleep(10 * 1000);
	}
	assert_int_equal(c.rows.n, 2);
	strv_free(&c.rows);
	db_queue_stop(q1);
	db_queue_stop(q2);
	db_queue_stop(NULL);

	struct db_log_query q = {.lines = 100, .refused = true};
	assert_int_equal(db_log_read(db, &q, on_call, &c, &err), 0);
	assert_int_equal(c.rows.n, 4);
	assert_string_equal(c.rows.v[0], "other tcp x.test:1 refused "
					 "not granted 0 0");
	assert_string_equal(c.rows.v[1],
			    "box file /w/.envrc refused dot file 0 0");
	assert_string_equal(c.rows.v[2],
			    "box file /w/.git refused dot file 0 0");
	assert_string_equal(c.rows.v[3],
			    "box2 file /v/.git refused dot file 0 0");
	strv_free(&c.rows);
	db_close(db);

	/* a queue that refuses nothing never opens (or creates) the
	 * database; one whose database cannot be opened says so and ends */
	_cleanup_free_ char *none = xasprintf("%s.none", path);
	assert_int_equal(db_queue_start(none, "idle", 5, &q1, &err), 0);
	db_queue_stop(q1);
	assert_int_not_equal(access(none, F_OK), 0);
	assert_int_equal(
	    db_queue_start("/proc/self/nonexistent/lnk.db", "x", 5, &q1, &err),
	    0);
	db_queue_add(q1, "file", "/w/.envrc", DB_REFUSED, "dot file");
	db_queue_stop(q1);
}

/* Sandboxes started together open a new lnk.db at the same moment; the
 * switch to WAL upgrades a read lock, which SQLite never waits for (busy
 * timeout or not): db_setup waits for the other connection instead. */
static void test_setup_waits_for_a_new_file(void **state)
{
	(void)state;
	char dir[] = "/tmp/lnk-test-dbsetup-XXXXXX";
	assert_non_null(mkdtemp(dir));
	_cleanup_free_ char *path = xasprintf("%s/lnk.db", dir);
	int p[2];
	assert_int_equal(pipe(p), 0);
	/* Another process holds the write lock of the new file for 300 ms,
	 * as the first sandbox does while it switches it to WAL. (Its own
	 * process: SQLite's locks are per process, and no connection may
	 * cross a fork.) */
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		sqlite3 *a = NULL;
		if (sqlite3_open(path, &a) != SQLITE_OK ||
		    sqlite3_exec(a, "BEGIN IMMEDIATE", NULL, NULL, NULL) !=
			SQLITE_OK)
			_exit(1);
		(void)!write(p[1], "x", 1);
		usleep(300 * 1000);
		_exit(sqlite3_exec(a, "COMMIT", NULL, NULL, NULL) ? 1 : 0);
	}
	close(p[1]);
	char c;
	assert_int_equal(read(p[0], &c, 1), 1);
	close(p[0]);
	sqlite3 *b = NULL;
	assert_int_equal(sqlite3_open(path, &b), SQLITE_OK);
	sqlite3_busy_timeout(b, 5000);
	/* the premise: the busy timeout alone does not wait */
	assert_int_equal(sqlite3_exec(b, DB_PRAGMAS, NULL, NULL, NULL),
			 SQLITE_BUSY);
	char *msg = NULL;
	assert_int_equal(
	    db_setup(b, "CREATE TABLE IF NOT EXISTS t(x);", 5000, &msg),
	    SQLITE_OK);
	sqlite3_free(msg);
	int st = 0;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	/* and a lock held past the time given is still an error */
	sqlite3 *a = NULL;
	assert_int_equal(sqlite3_open(path, &a), SQLITE_OK);
	assert_int_equal(sqlite3_exec(a, "BEGIN IMMEDIATE", NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_busy_timeout(b, 0);
	msg = NULL;
	assert_int_equal(
	    db_setup(b, "CREATE TABLE IF NOT EXISTS u(x);", 50, &msg) & 0xff,
	    SQLITE_BUSY);
	sqlite3_free(msg);
	sqlite3_exec(a, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_close(a);
	sqlite3_close(b);
	_cleanup_free_ char *cmd = xasprintf("rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* A database from a newer lnk, or a file that is no database or is
 * damaged: every opener refuses it with a message that names the file and
 * says what to do, and writes nothing into it. */
static void test_newer_or_damaged_refused(void **state)
{
	(void)state;
	_cleanup_free_ char *path = tmpdb();
	struct db *db = NULL;
	struct lnk_err err = {0};
	assert_int_equal(db_open(path, false, &db, &err), 0);
	db_close(db);
	sqlite3 *h;
	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	int v = -1;
	sqlite3_stmt *st;
	assert_int_equal(
	    sqlite3_prepare_v2(h, "PRAGMA user_version", -1, &st, NULL),
	    SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	assert_int_equal(v, DB_SCHEMA_VERSION);
	assert_int_equal(
	    sqlite3_exec(h, "PRAGMA user_version=99", NULL, NULL, NULL),
	    SQLITE_OK);
	sqlite3_close(h);

	for (int ro = 0; ro < 2; ro++) {
		memset(&err, 0, sizeof(err));
		assert_int_equal(db_open(path, ro, &db, &err), -EPROTO);
		assert_non_null(strstr(err.msg, path));
		assert_non_null(strstr(err.msg, "newer lnk"));
		assert_non_null(strstr(err.msg, "move the file away"));
	}
	struct registry *s = NULL;
	memset(&err, 0, sizeof(err));
	assert_int_equal(registry_open_at(path, &s, &err), -EPROTO);
	assert_non_null(strstr(err.msg, path));

	/* Not a database at all. */
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	for (int i = 0; i < 4096; i++)
		fputc("not a database "[i % 15], f);
	fclose(f);
	_cleanup_free_ char *wal = xasprintf("%s-wal", path);
	_cleanup_free_ char *shm = xasprintf("%s-shm", path);
	unlink(wal);
	unlink(shm);
	for (int ro = 0; ro < 2; ro++) {
		memset(&err, 0, sizeof(err));
		assert_true(db_open(path, ro, &db, &err) < 0);
		assert_non_null(strstr(err.msg, path));
		assert_non_null(strstr(err.msg, "move it away"));
	}
	memset(&err, 0, sizeof(err));
	assert_true(registry_open_at(path, &s, &err) < 0);
	assert_non_null(strstr(err.msg, path));
	assert_non_null(strstr(err.msg, "move it away"));
}

/* An open makes only the tables that are missing: a file from an older
 * lnk (a table added since, an index dropped) gets them at its next open,
 * by either opener; a whole file is not written to. */
static void test_missing_tables_made_again(void **state)
{
	(void)state;
	_cleanup_free_ char *path = tmpdb();
	struct db *db = NULL;
	struct lnk_err err = {0};
	assert_int_equal(db_open(path, false, &db, &err), 0);
	db_close(db);
	struct registry *s = NULL;
	assert_int_equal(registry_open_at(path, &s, &err), 0);
	registry_close(s);

	static const char *const gone[] = {"DROP TABLE wire_lookups",
					   "DROP INDEX calls_sandbox",
					   "DROP TABLE ctl_stop"};
	for (size_t i = 0; i < 3; i++) {
		sqlite3 *h;
		assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
		assert_int_equal(sqlite3_exec(h, gone[i], NULL, NULL, NULL),
				 SQLITE_OK);
		sqlite3_close(h);
		if (i < 2) {
			assert_int_equal(db_open(path, false, &db, &err), 0);
			db_close(db);
		} else {
			assert_int_equal(registry_open_at(path, &s, &err), 0);
			registry_close(s);
		}
		assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
		sqlite3_stmt *st;
		assert_int_equal(
		    sqlite3_prepare_v2(h,
				       "SELECT count(*) FROM sqlite_master "
				       "WHERE name IN ('wire_lookups', "
				       "'calls_sandbox', 'ctl_stop')",
				       -1, &st, NULL),
		    SQLITE_OK);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_int_equal(sqlite3_column_int(st, 0), 3);
		sqlite3_finalize(st);
		sqlite3_close(h);
	}
}

/* A reason is stored whole up to its bound; past it, cut before a
 * character, never inside a UTF-8 sequence, and marked. */
static void test_reason_cut(void **state)
{
	(void)state;
	const size_t mark = strlen(DB_REASON_CUT_MARK);
	char *r = db_reason_dup(NULL);
	assert_string_equal(r, "");
	free(r);

	/* the longest that fits: whole, no mark */
	char fits[DB_REASON_MAX];
	memset(fits, 'a', sizeof(fits) - 1);
	fits[sizeof(fits) - 1] = '\0';
	r = db_reason_dup(fits);
	assert_string_equal(r, fits);
	free(r);

	/* one more: cut, marked, within the bound */
	char over[DB_REASON_MAX + 1];
	memset(over, 'a', sizeof(over) - 1);
	over[sizeof(over) - 1] = '\0';
	r = db_reason_dup(over);
	assert_int_equal(strlen(r), DB_REASON_MAX - 1);
	assert_string_equal(r + strlen(r) - mark, DB_REASON_CUT_MARK);
	assert_memory_equal(r, over, DB_REASON_MAX - 1 - mark);
	free(r);

	/* "é" (c3 a9) and "€" (e2 82 ac) across the cut, at every offset:
	 * what is kept is valid UTF-8 and a prefix of the whole */
	const char *chars[] = {"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x94\x92"};
	for (size_t c = 0; c < 3; c++) {
		for (size_t lead = 0; lead < 4; lead++) {
			struct buf b = {0};
			for (size_t i = 0; i < lead; i++)
				buf_putc(&b, 'x');
			while (b.len < 2 * DB_REASON_MAX)
				buf_puts(&b, chars[c]);
			buf_putc(&b, '\0');
			r = db_reason_dup(b.p);
			size_t n = strlen(r);
			assert_true(n <= DB_REASON_MAX - 1);
			assert_true(n > DB_REASON_MAX - 1 - mark - 4);
			assert_string_equal(r + n - mark, DB_REASON_CUT_MARK);
			assert_memory_equal(r, b.p, n - mark);
			assert_true(esc_utf8_valid(r, n));
			free(r);
			buf_free(&b);
		}
	}
}

/* A long reason comes back whole from the log, from every way in: a
 * wire's batch, a call outside a wire, and how such a call ended. */
static void test_reason_whole_in_the_log(void **state)
{
	(void)state;
	_cleanup_free_ char *path = tmpdb();
	struct db *db;
	struct lnk_err err = {0};
	assert_int_equal(db_open(path, false, &db, &err), 0);
	char why[600];
	for (size_t i = 0; i < sizeof(why) - 1; i++)
		why[i] = "abcdefghij klmnopq"[i % 18];
	why[sizeof(why) - 1] = '\0';

	int64_t wid, row;
	assert_int_equal(db_wire_begin(db, "w", (long)getpid(), &wid, &err), 0);
	struct db_batch b = {0};
	db_batch_call(&b, 1, 1700000000, "connect", "a.test:443", DB_REFUSED,
		      why, 0, 0);
	assert_int_equal(db_flush(db, wid, &b, 0, 0, false, &err), 0);
	assert_int_equal(db_record_call(db, "w", "tool", "gh pr list",
					DB_ALLOWED, "allowed", &row, &err),
			 0);
	assert_int_equal(db_record_end(db, row, DB_REFUSED, why, &err), 0);
	db_batch_free(&b);

	struct collect c = {0};
	struct db_log_query q = {.lines = 40};
	assert_int_equal(db_log_read(db, &q, on_call, &c, &err), 0);
	assert_int_equal(c.rows.n, 2);
	_cleanup_free_ char *one =
	    xasprintf("w connect a.test:443 refused %s 0 0", why);
	_cleanup_free_ char *two =
	    xasprintf("w tool gh pr list refused %s 0 0", why);
	assert_string_equal(c.rows.v[0], one);
	assert_string_equal(c.rows.v[1], two);
	strv_free(&c.rows);
	db_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_batch),
	    cmocka_unit_test(test_batch_end_in_place),
	    cmocka_unit_test(test_reason_cut),
	    cmocka_unit_test(test_reason_whole_in_the_log),
	    cmocka_unit_test(test_concurrent_writers),
	    cmocka_unit_test(test_writer_log_down_and_back),
	    cmocka_unit_test(test_wal_checkpointed_not_on_close),
	    cmocka_unit_test(test_wal_bounded_one_commit_per_open),
	    cmocka_unit_test(test_queue_without_wire),
	    cmocka_unit_test(test_setup_waits_for_a_new_file),
	    cmocka_unit_test(test_newer_or_damaged_refused),
	    cmocka_unit_test(test_missing_tables_made_again),
	};
	return cmocka_run_group_tests(tests, make_top, remove_top);
}
