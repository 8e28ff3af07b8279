/* The call log and the registry in SQLite (db.h).
 *
 * Over 1000 lines: the only file that speaks SQL: the schema, the log's
 * writers and readers stay beside each other so that no column is written
 * one way and read another.
 */
#include "store/db.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/compat.h"
#include "common/util.h"
#include "store/paths.h"

struct db {
	sqlite3 *h;
	char *path;
	int last_code; /* SQLite's code for the last failure (sql_err) */
};

static const char schema[] =
    "CREATE TABLE IF NOT EXISTS wires("
    " id INTEGER PRIMARY KEY,"
    " sandbox TEXT NOT NULL,"
    " pid INTEGER NOT NULL,"
    " started TEXT NOT NULL,"
    " updated INTEGER NOT NULL," /* unix seconds of the last counters */
    " ended TEXT,"
    " up INTEGER NOT NULL DEFAULT 0,"
    " down INTEGER NOT NULL DEFAULT 0);"
    "CREATE TABLE IF NOT EXISTS calls("
    " id INTEGER PRIMARY KEY,"
    " wire INTEGER NOT NULL,"
    " seq INTEGER NOT NULL,"
    " time TEXT NOT NULL,"
    " sandbox TEXT NOT NULL,"
    " verb TEXT NOT NULL,"
    " target TEXT NOT NULL,"
    " outcome TEXT NOT NULL,"
    " reason TEXT NOT NULL DEFAULT '',"
    " up INTEGER NOT NULL DEFAULT 0,"
    " down INTEGER NOT NULL DEFAULT 0);"
    "CREATE UNIQUE INDEX IF NOT EXISTS calls_wire_seq ON calls(wire, seq);"
    /* a model call's answer (verb model): never a prompt or a key */
    "CREATE TABLE IF NOT EXISTS model_usage("
    " wire INTEGER NOT NULL,"
    " seq INTEGER NOT NULL,"
    " provider TEXT NOT NULL,"
    " status INTEGER NOT NULL DEFAULT 0,"
    " tokens_in INTEGER," /* NULL: the answer did not say */
    " tokens_out INTEGER,"
    " PRIMARY KEY(wire, seq));"
    "CREATE INDEX IF NOT EXISTS calls_sandbox ON calls(sandbox, id);"
    /* a wire's lookups sent upstream (a table of its own: an older lnk
     * reads and writes the others as they were) */
    "CREATE TABLE IF NOT EXISTS wire_lookups("
    " wire INTEGER PRIMARY KEY,"
    " lookups INTEGER NOT NULL DEFAULT 0);"
    /* what a run left in its write folders (changes/changes.h): lnk's
     * own report, its text already escaped; bounded by db_changes_put */
    "CREATE TABLE IF NOT EXISTS changes("
    " id INTEGER PRIMARY KEY,"
    " sandbox TEXT NOT NULL,"
    " ended INTEGER NOT NULL," /* unix milliseconds */
    " text TEXT NOT NULL,"
    " json TEXT NOT NULL);";

const char *db_damage_hint(int code)
{
	switch (code & 0xff) {
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
		return "; the file is damaged or not lnk's: move it away and "
		       "lnk starts a new one (the calls logged in it stay in "
		       "the moved file)";
	case SQLITE_FULL:
		return "; the disk is full: make room";
	case SQLITE_READONLY:
		return "; its folder is read-only: lnk needs to write there";
	}
	return "";
}

static int sql_err(struct db *db, struct lnk_err *err, const char *what)
{
	db->last_code = sqlite3_extended_errcode(db->h);
	return err_set(err, -EIO, "database '%s': %s: %s%s", db->path, what,
		       sqlite3_errmsg(db->h),
		       db_damage_hint(sqlite3_extended_errcode(db->h)));
}

int db_schema_check(struct sqlite3 *h, const char *path, bool writable,
		    struct lnk_err *err)
{
	sqlite3_stmt *st = NULL;
	int v = -1;
	if (sqlite3_prepare_v2(h, "PRAGMA user_version", -1, &st, NULL) ==
		SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (v < 0)
		return err_set(err, -EIO, "cannot read the database '%s': %s%s",
			       path, sqlite3_errmsg(h),
			       db_damage_hint(sqlite3_extended_errcode(h)));
	if (v > DB_SCHEMA_VERSION)
		return err_set(
		    err, -EPROTO,
		    "the database '%s' is from a newer lnk (its "
		    "schema is %d, this lnk knows %d): run that lnk, "
		    "or move the file away and this one starts a "
		    "new log",
		    path, v, DB_SCHEMA_VERSION);
	if (writable && v < DB_SCHEMA_VERSION) {
		char sql[64];
		snprintf(sql, sizeof(sql), "PRAGMA user_version=%d",
			 DB_SCHEMA_VERSION);
		if (sqlite3_exec(h, sql, NULL, NULL, NULL) != SQLITE_OK)
			return err_set(
			    err, -EIO, "cannot set up the database '%s': %s%s",
			    path, sqlite3_errmsg(h),
			    db_damage_hint(sqlite3_extended_errcode(h)));
	}
	return 0;
}

const char *db_outcome_name(enum db_outcome o)
{
	switch (o) {
	case DB_ALLOWED:
		return "allowed";
	case DB_ENDED:
		return "ended";
	case DB_REFUSED:
		return "refused";
	case DB_FAILED:
		return "failed";
	}
	return "unknown";
}

void db_format_time(time_t t, char out[32])
{
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* The WAL hook (db.h, DB_WAL_PAGES): runs after a commit, its locks
 * released. TRUNCATE copies the WAL into the database and empties the
 * file; it waits for no one (busy timeout 0 meanwhile): with a writer or
 * a reader in the way it does what a passive checkpoint does, and the
 * next commit tries again. arg is the connection's busy timeout in ms. */
static int wal_bound(void *arg, sqlite3 *h, const char *name, int pages)
{
	if (pages < DB_WAL_PAGES)
		return SQLITE_OK;
	sqlite3_busy_timeout(h, 0);
	(void)sqlite3_wal_checkpoint_v2(h, name, SQLITE_CHECKPOINT_TRUNCATE,
					NULL, NULL);
	sqlite3_busy_timeout(h, (int)(intptr_t)arg);
	return SQLITE_OK;
}

int db_setup(sqlite3 *h, const char *sql, int timeout_ms, char **msg)
{
	int waited = 0, rc;

	sqlite3_wal_hook(h, wal_bound, (void *)(intptr_t)timeout_ms);
	for (;;) {
		sqlite3_free(*msg);
		*msg = NULL;
		rc = sqlite3_exec(h, DB_PRAGMAS, NULL, NULL, msg);
		if (rc == SQLITE_OK)
			rc = sqlite3_exec(h, sql, NULL, NULL, msg);
		if ((rc & 0xff) != SQLITE_BUSY || waited >= timeout_ms)
			return rc;
		sqlite3_sleep(5);
		waited += 5;
	}
}

/* Every table and index the schema names (each "IF NOT EXISTS name") is
 * in h's file already: the file was made by this lnk or one as new. One
 * query asks, instead of parsing every CREATE statement again at each
 * open only to find its table there (about 40,000 instructions of an
 * open's 640,000, measured with callgrind). Any doubt (a name missing, a
 * failed query) answers false, and the statements run. */
static bool schema_present(sqlite3 *h, const char *tables)
{
	static const char key[] = "IF NOT EXISTS ";
	struct buf q = {0};
	int n = 0;
	buf_puts(&q, "SELECT count(*) FROM sqlite_master WHERE name IN (");
	for (const char *p = strstr(tables, key); p; p = strstr(p, key)) {
		p += strlen(key);
		size_t len = strspn(p, "abcdefghijklmnopqrstuvwxyz"
				       "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
		if (len == 0)
			continue;
		/* the names are lnk's own constants: plain identifiers */
		buf_printf(&q, "%s'%.*s'", n ? "," : "", (int)len, p);
		n++;
	}
	buf_puts(&q, ")");
	sqlite3_stmt *st = NULL;
	bool all =
	    n > 0 && sqlite3_prepare_v2(h, q.p, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == n;
	sqlite3_finalize(st);
	buf_free(&q);
	return all;
}

int db_setup_tables(sqlite3 *h, const char *tables, int timeout_ms, char **msg)
{
	int waited = 0, rc;

	for (;;) {
		sqlite3_free(*msg);
		*msg = NULL;
		if (schema_present(h, tables))
			return SQLITE_OK;
		rc = sqlite3_exec(h, tables, NULL, NULL, msg);
		if ((rc & 0xff) != SQLITE_BUSY || waited >= timeout_ms)
			return rc;
		sqlite3_sleep(5);
		waited += 5;
	}
}

/* db_setup with sql, or -EIO with a message naming the file (and what a
 * damaged one needs). */
static int setup_or_say(sqlite3 *h, const char *path, const char *sql,
			int wait_ms, struct lnk_err *err)
{
	char *msg = NULL;

	if ((sql ? db_setup_tables(h, sql, wait_ms, &msg)
		 : db_setup(h, "", wait_ms, &msg)) == SQLITE_OK)
		return 0;
	int r = err_set(err, -EIO, "database '%s': %s%s", path,
			msg ? msg : "cannot set it up",
			db_damage_hint(sqlite3_extended_errcode(h)));
	sqlite3_free(msg);
	return r;
}
int db_open(const char *path, bool readonly, struct db **out,
	    struct lnk_err *err)
{
	return db_open_wait(path, readonly, 10000, out, err);
}

int db_open_wait(const char *path, bool readonly, int wait_ms, struct db **out,
		 struct lnk_err *err)
{
	struct db *db = xcalloc(1, sizeof(*db));
	db->path = xstrdup(path);
	int r;
	if (!readonly) {
		_cleanup_free_ char *dir = xstrdup(path);
		char *slash = strrchr(dir, '/');
		if (slash && slash != dir) {
			*slash = '\0';
			r = paths_ensure_dir(dir, err);
			if (r < 0)
				goto fail;
		}
	} else if (access(path, F_OK) < 0) {
		r = err_set(err, -ENOENT, "no database at '%s' yet", path);
		goto fail;
	}
	int flags = (readonly ? SQLITE_OPEN_READONLY
			      : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) |
		    SQLITE_OPEN_NOMUTEX;
	if (sqlite3_open_v2(path, &db->h, flags, NULL) != SQLITE_OK) {
		r = err_set(err, -EIO, "cannot open database '%s': %s", path,
			    db->h ? sqlite3_errmsg(db->h) : "out of memory");
		goto fail;
	}
	/* Many wires and readers at once: wait for a lock instead of
	 * failing, and let readers run beside the writer (WAL). */
	sqlite3_busy_timeout(db->h, wait_ms);
	/* The last connection to close would checkpoint the WAL into the
	 * database, with an fsync of each, at the end of every wire (and of
	 * every `lnk sandbox log`): the slowest part of a sandbox's end. The
	 * WAL is checkpointed instead as it grows (db_tune). */
	sqlite3_db_config(db->h, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
	/* the pragmas alone first (retried while a new file is switched to
	 * WAL by another opener): the version is read before any table is
	 * made */
	if (!readonly &&
	    (r = setup_or_say(db->h, path, NULL, wait_ms, err)) < 0)
		goto fail;
	r = db_schema_check(db->h, path, !readonly, err);
	if (r < 0)
		goto fail;
	if (!readonly &&
	    (r = setup_or_say(db->h, path, schema, wait_ms, err)) < 0)
		goto fail;
	*out = db;
	return 0;
fail:
	db_close(db);
	return r;
}

void db_close(struct db *db)
{
	if (!db)
		return;
	sqlite3_close(db->h);
	free(db->path);
	free(db);
}

static void copy_str(char *dst, size_t cap, const char *s)
{
	snprintf(dst, cap, "%s", s ? s : "");
}

char *db_reason_dup(const char *reason)
{
	const size_t mark = sizeof(DB_REASON_CUT_MARK) - 1;
	size_t n = reason ? strlen(reason) : 0;

	if (n < DB_REASON_MAX)
		return xstrdup(reason ? reason : "");
	/* Room for the mark and the NUL; then back to the first byte of a
	 * character: a UTF-8 continuation byte is 10xxxxxx. */
	size_t keep = DB_REASON_MAX - 1 - mark;
	while (keep > 0 && ((unsigned char)reason[keep] & 0xc0) == 0x80)
		keep--;
	char *out = xmalloc(keep + mark + 1);
	memcpy(out, reason, keep);
	memcpy(out + keep, DB_REASON_CUT_MARK, mark + 1);
	return out;
}

/* An op's reason as it is bound and printed. */
static const char *reason_of(const struct db_op *op)
{
	return op->reason ? op->reason : "";
}

/* Empties b, freeing what its ops own (an op moved to another batch is
 * that batch's: moves copy the op and never call this on the source). */
static void batch_clear(struct db_batch *b)
{
	for (size_t i = 0; i < b->n; i++) {
		free(b->v[i].reason);
		b->v[i].reason = NULL;
	}
	b->n = 0;
}

static struct db_op *batch_push(struct db_batch *b)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 32;
		b->v = xrealloc(b->v, b->cap * sizeof(*b->v));
	}
	struct db_op *op = &b->v[b->n++];
	memset(op, 0, sizeof(*op));
	return op;
}

size_t db_batch_call(struct db_batch *b, int64_t seq, time_t when,
		     const char *verb, const char *target, enum db_outcome o,
		     const char *reason, uint64_t up, uint64_t down)
{
	struct db_op *op = batch_push(b);
	op->seq = seq;
	op->when = when;
	copy_str(op->verb, sizeof(op->verb), verb);
	copy_str(op->target, sizeof(op->target), target);
	op->outcome = o;
	op->reason = db_reason_dup(reason);
	op->up = up;
	op->down = down;
	return b->n - 1;
}

void db_batch_update_at(struct db_batch *b, size_t at, int64_t seq,
			enum db_outcome o, const char *reason, uint64_t up,
			uint64_t down)
{
	/* a call's number is its own within the wire: the insert found
	 * there is this call's, in this batch */
	struct db_op *op = at < b->n ? &b->v[at] : NULL;
	if (!op || op->update || op->usage || op->seq != seq) {
		db_batch_update(b, seq, o, reason, up, down);
		return;
	}
	free(op->reason);
	op->outcome = o;
	op->reason = db_reason_dup(reason);
	op->up = up;
	op->down = down;
}

void db_batch_update(struct db_batch *b, int64_t seq, enum db_outcome o,
		     const char *reason, uint64_t up, uint64_t down)
{
	struct db_op *op = batch_push(b);
	op->update = true;
	op->seq = seq;
	op->outcome = o;
	op->reason = db_reason_dup(reason);
	op->up = up;
	op->down = down;
}

void db_batch_usage(struct db_batch *b, int64_t seq, const char *provider,
		    int status, int64_t tokens_in, int64_t tokens_out)
{
	struct db_op *op = batch_push(b);
	op->usage = true;
	op->seq = seq;
	copy_str(op->provider, sizeof(op->provider), provider);
	op->status = status;
	op->tokens_in = tokens_in;
	op->tokens_out = tokens_out;
}

void db_batch_free(struct db_batch *b)
{
	batch_clear(b);
	free(b->v);
	memset(b, 0, sizeof(*b));
}

int db_wire_begin(struct db *db, const char *sandbox, long pid,
		  int64_t *wire_id, struct lnk_err *err)
{
	sqlite3_stmt *st = NULL;
	char now[32];
	time_t t = time(NULL);
	db_format_time(t, now);
	if (sqlite3_prepare_v2(db->h,
			       "INSERT INTO wires(sandbox, pid, started, "
			       "updated) VALUES(?, ?, ?, ?)",
			       -1, &st, NULL) != SQLITE_OK)
		return sql_err(db, err, "cannot register the wire");
	sqlite3_bind_text(st, 1, sandbox, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, pid);
	sqlite3_bind_text(st, 3, now, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, (int64_t)t);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return sql_err(db, err, "cannot register the wire");
	*wire_id = sqlite3_last_insert_rowid(db->h);
	return 0;
}

/* Ends the transaction a batch was written in: COMMIT after success (the
 * batch is then empty), ROLLBACK after any failure, so a half-written batch
 * never lands. Returns r, or the commit's error. */
static int tx_end(struct db *db, int r, struct db_batch *b, struct lnk_err *err)
{
	if (r == 0 &&
	    sqlite3_exec(db->h, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		r = sql_err(db, err, "cannot commit");
	if (r < 0)
		sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
	else
		batch_clear(b);
	return r;
}

int db_flush(struct db *db, int64_t wire_id, struct db_batch *b, uint64_t up,
	     uint64_t down, bool ended, struct lnk_err *err)
{
	sqlite3_stmt *ins = NULL, *upd = NULL, *wire = NULL, *use = NULL,
		     *look = NULL;
	int r = 0;
	char now[32];
	time_t t = time(NULL);
	db_format_time(t, now);

	if (sqlite3_exec(db->h, "BEGIN IMMEDIATE", NULL, NULL, NULL) !=
	    SQLITE_OK)
		return sql_err(db, err, "cannot begin a transaction");
	if (sqlite3_prepare_v2(
		db->h,
		"INSERT INTO calls(wire, seq, time, sandbox, verb, target, "
		"outcome, reason, up, down) SELECT ?1, ?2, ?3, sandbox, ?4, "
		"?5, ?6, ?7, ?8, ?9 FROM wires WHERE id = ?1",
		-1, &ins, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(
		db->h,
		"UPDATE calls SET outcome = ?3, reason = ?4, "
		"up = ?5, down = ?6 WHERE wire = ?1 AND seq = ?2",
		-1, &upd, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db->h,
			       "UPDATE wires SET up = ?2, down = ?3, "
			       "updated = ?4, ended = ?5 WHERE id = ?1",
			       -1, &wire, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db->h,
			       "INSERT OR REPLACE INTO model_usage(wire, seq, "
			       "provider, status, tokens_in, tokens_out) "
			       "VALUES(?1, ?2, ?3, ?4, ?5, ?6)",
			       -1, &use, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db->h,
			       "INSERT OR REPLACE INTO wire_lookups(wire, "
			       "lookups) VALUES(?1, ?2)",
			       -1, &look, NULL) != SQLITE_OK) {
		r = sql_err(db, err, "cannot prepare the log statements");
		goto out;
	}
	for (size_t i = 0; i < b->n; i++) {
		const struct db_op *op = &b->v[i];
		sqlite3_stmt *st = op->usage ? use : op->update ? upd : ins;
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, wire_id);
		sqlite3_bind_int64(st, 2, op->seq);
		if (op->usage) {
			sqlite3_bind_text(st, 3, op->provider, -1,
					  SQLITE_STATIC);
			sqlite3_bind_int(st, 4, op->status);
			if (op->tokens_in >= 0)
				sqlite3_bind_int64(st, 5, op->tokens_in);
			else
				sqlite3_bind_null(st, 5);
			if (op->tokens_out >= 0)
				sqlite3_bind_int64(st, 6, op->tokens_out);
			else
				sqlite3_bind_null(st, 6);
		} else if (op->update) {
			sqlite3_bind_text(st, 3, db_outcome_name(op->outcome),
					  -1, SQLITE_STATIC);
			sqlite3_bind_text(st, 4, reason_of(op), -1,
					  SQLITE_STATIC);
			sqlite3_bind_int64(st, 5, (int64_t)op->up);
			sqlite3_bind_int64(st, 6, (int64_t)op->down);
		} else {
			char when[32];
			db_format_time(op->when, when);
			sqlite3_bind_text(st, 3, when, -1, SQLITE_TRANSIENT);
			sqlite3_bind_text(st, 4, op->verb, -1, SQLITE_STATIC);
			sqlite3_bind_text(st, 5, op->target, -1, SQLITE_STATIC);
			sqlite3_bind_text(st, 6, db_outcome_name(op->outcome),
					  -1, SQLITE_STATIC);
			sqlite3_bind_text(st, 7, reason_of(op), -1,
					  SQLITE_STATIC);
			sqlite3_bind_int64(st, 8, (int64_t)op->up);
			sqlite3_bind_int64(st, 9, (int64_t)op->down);
		}
		if (sqlite3_step(st) != SQLITE_DONE) {
			r = sql_err(db, err, "cannot record a call");
			goto out;
		}
	}
	sqlite3_bind_int64(wire, 1, wire_id);
	sqlite3_bind_int64(wire, 2, (int64_t)up);
	sqlite3_bind_int64(wire, 3, (int64_t)down);
	sqlite3_bind_int64(wire, 4, (int64_t)t);
	if (ended)
		sqlite3_bind_text(wire, 5, now, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(wire, 5);
	if (sqlite3_step(wire) != SQLITE_DONE) {
		r = sql_err(db, err, "cannot update the wire's counters");
		goto out;
	}
	if (b->lookups) {
		sqlite3_bind_int64(look, 1, wire_id);
		sqlite3_bind_int64(look, 2, (int64_t)b->lookups);
		if (sqlite3_step(look) != SQLITE_DONE) {
			r = sql_err(db, err,
				    "cannot update the wire's lookups");
			goto out;
		}
	}
out:
	sqlite3_finalize(ins);
	sqlite3_finalize(upd);
	sqlite3_finalize(wire);
	sqlite3_finalize(use);
	sqlite3_finalize(look);
	return tx_end(db, r, b, err);
}

struct db_writer {
	struct db *db;
	int64_t wire_id;
	unsigned interval_ms;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct db_batch pending; /* under lock */
	uint64_t up, down;	 /* under lock */
	uint64_t lookups;	 /* under lock */
	bool stop;		 /* under lock */
	/* what the last commit said, under lock: the wire refuses calls
	 * while the log cannot be written */
	int last_error;
	char why[DB_WHY_MAX];
	size_t unwritten; /* ops the writer holds and could not commit */
	size_t dropped;	  /* refusals not kept (over DB_BACKLOG_MAX) */
	bool running;	  /* the thread was started */
	/* The log's reserve (DB_RESERVE_BYTES of its file system, held in
	 * <log>-reserve): freed when a commit finds the disk full, so the
	 * calls already carried are written after all, and made again when
	 * there is room. While it is spent, new calls are refused
	 * (db_writer_health). Only the writer thread touches these. */
	int reserve_fd;
	bool reserve_spent; /* under lock: health reads it */
};

/* Written nowhere but here: the calls of a wire that ends while its log
 * cannot be written go to lnk's stderr, so none is carried unrecorded. */
static void say_unwritten(const struct db_batch *b, size_t dropped,
			  const char *why)
{
	if (b->n)
		fprintf(stderr,
			"lnk: wire: %zu entries could not be written to the "
			"call log (%s); they follow here instead:\n",
			b->n, why);
	for (size_t i = 0; i < b->n; i++) {
		const struct db_op *op = &b->v[i];
		char when[32];
		db_format_time(op->when, when);
		const char *reason = reason_of(op);
		const char *sep = reason[0] ? " " : "";
		if (op->update)
			fprintf(stderr,
				"lnk: wire:   call %lld %s%s%s, up %llu down "
				"%llu\n",
				(long long)op->seq,
				db_outcome_name(op->outcome), sep, reason,
				(unsigned long long)op->up,
				(unsigned long long)op->down);
		else
			fprintf(stderr,
				"lnk: wire:   call %lld %s %s %s %s%s%s\n",
				(long long)op->seq, when, op->verb, op->target,
				db_outcome_name(op->outcome), sep, reason);
	}
	if (dropped)
		fprintf(stderr,
			"lnk: wire: %zu refused calls were not logged: the "
			"log could not be written and too many waited\n",
			dropped);
}

/* Whether the last failure was the file system's (full, or a write
 * that failed), which the reserve's room can help with, and not a lock. */
static bool disk_trouble(const struct db *db)
{
	int c = db->last_code & 0xff;
	return c == SQLITE_FULL || c == SQLITE_IOERR;
}

/* The reserve's room, taken (again). 0 or -errno. */
static int reserve_take(int fd)
{
	return file_reserve(fd, DB_RESERVE_BYTES);
}

static void *writer_main(void *arg)
{
	struct db_writer *w = arg;
	struct db_batch mine = {0};
	bool stop = false;
	while (!stop) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += (long)(w->interval_ms % 1000) * 1000000L;
		ts.tv_sec += w->interval_ms / 1000 + ts.tv_nsec / 1000000000L;
		ts.tv_nsec %= 1000000000L;
		pthread_mutex_lock(&w->lock);
		if (!w->stop)
			pthread_cond_timedwait(&w->cond, &w->lock, &ts);
		stop = w->stop;
		/* take everything queued so far: one transaction for it */
		for (size_t i = 0; i < w->pending.n; i++)
			*batch_push(&mine) = w->pending.v[i];
		w->pending.n = 0;
		uint64_t up = w->up, down = w->down;
		mine.lookups = w->lookups;
		pthread_mutex_unlock(&w->lock);
		struct lnk_err err = {0};
		/* On failure (a disk full, a lock held too long) keep the
		 * batch and try again next tick rather than lose calls; the
		 * wire reads the error and refuses new calls meanwhile. At
		 * the end, a few more tries for space to come back. */
		int r =
		    db_flush(w->db, w->wire_id, &mine, up, down, stop, &err);
		/* The disk is full: the reserve's room is given to the log
		 * now, so the calls already carried are written; the wire
		 * refuses new ones until the reserve is whole again. */
		bool spent = w->reserve_spent;
		if (r < 0 && disk_trouble(w->db) && w->reserve_fd >= 0 &&
		    !spent && ftruncate(w->reserve_fd, 0) == 0) {
			spent = true;
			r = db_flush(w->db, w->wire_id, &mine, up, down, stop,
				     &err);
		}
		if (r == 0 && spent && w->reserve_fd >= 0 &&
		    reserve_take(w->reserve_fd) == 0)
			spent = false; /* room again: calls go on */
		for (int i = 0; r < 0 && stop && i < 4; i++) {
			struct timespec pause = {0, 250 * 1000000L};
			nanosleep(&pause, NULL);
			r = db_flush(w->db, w->wire_id, &mine, up, down, stop,
				     &err);
		}
		pthread_mutex_lock(&w->lock);
		w->last_error = r;
		w->reserve_spent = spent;
		if (r < 0)
			snprintf(w->why, sizeof(w->why), "%s", err.msg);
		w->unwritten = mine.n;
		size_t dropped = w->dropped;
		pthread_mutex_unlock(&w->lock);
		if (stop && (r < 0 || dropped))
			say_unwritten(&mine, dropped, w->why);
	}
	db_batch_free(&mine);
	return NULL;
}

int db_writer_open(const char *path, const char *sandbox, long pid,
		   unsigned interval_ms, struct db_writer **out,
		   struct lnk_err *err)
{
	struct db_writer *w = xcalloc(1, sizeof(*w));
	int r = db_open(path, false, &w->db, err);
	if (r < 0) {
		free(w);
		return r;
	}
	r = db_wire_begin(w->db, sandbox, pid, &w->wire_id, err);
	if (r < 0) {
		db_close(w->db);
		free(w);
		return r;
	}
	w->interval_ms = interval_ms ? interval_ms : 250;
	/* One reserve for every wire of this log: a full disk spends it
	 * once, whichever wire finds it full first. */
	_cleanup_free_ char *rp = xasprintf("%s-reserve", path);
	w->reserve_fd =
	    open(rp, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	w->reserve_spent = w->reserve_fd < 0 || reserve_take(w->reserve_fd) < 0;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
	*out = w;
	return 0;
}

int db_writer_run(struct db_writer *w, struct lnk_err *err)
{
	/* The writer must not take the wire's signals. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int r = pthread_create(&w->thread, NULL, writer_main, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r != 0)
		return err_set(err, -r, "cannot start the log writer: %s",
			       strerror(r));
	w->running = true;
	return 0;
}

int db_writer_start(const char *path, const char *sandbox, long pid,
		    unsigned interval_ms, struct db_writer **out,
		    struct lnk_err *err)
{
	int r = db_writer_open(path, sandbox, pid, interval_ms, out, err);
	if (r < 0)
		return r;
	if ((r = db_writer_run(*out, err)) < 0) {
		db_writer_stop(*out);
		*out = NULL;
	}
	return r;
}

void db_writer_submit(struct db_writer *w, struct db_batch *b, uint64_t up,
		      uint64_t down)
{
	pthread_mutex_lock(&w->lock);
	for (size_t i = 0; i < b->n; i++) {
		/* While the log cannot be written no call goes out, but
		 * refusals go on coming: past the bound they are counted,
		 * not kept. Calls carried and their ends are always kept. */
		if (w->last_error < 0 && !b->v[i].update &&
		    b->v[i].outcome == DB_REFUSED &&
		    w->pending.n + w->unwritten >= DB_BACKLOG_MAX) {
			w->dropped++;
			free(b->v[i].reason);
			continue;
		}
		*batch_push(&w->pending) = b->v[i];
	}
	b->n = 0;
	w->up = up;
	w->down = down;
	w->lookups = b->lookups;
	pthread_mutex_unlock(&w->lock);
}

int db_writer_health(struct db_writer *w, size_t *backlog, char *why,
		     size_t cap)
{
	pthread_mutex_lock(&w->lock);
	int r = w->last_error;
	*backlog = w->unwritten + w->pending.n;
	if (r < 0)
		snprintf(why, cap, "%s", w->why);
	if (r == 0 && w->reserve_spent) {
		snprintf(why, cap,
			 "the disk is full: the call log's reserve is in use");
		r = -ENOSPC;
	}
	pthread_mutex_unlock(&w->lock);
	if (r >= 0 && *backlog >= DB_BACKLOG_MAX) {
		snprintf(why, cap, "%zu calls wait to be written", *backlog);
		return -ENOBUFS;
	}
	return r < 0 ? r : 0;
}

void db_writer_stop(struct db_writer *w)
{
	if (!w)
		return;
	if (w->running) {
		pthread_mutex_lock(&w->lock);
		w->stop = true;
		pthread_cond_signal(&w->cond);
		pthread_mutex_unlock(&w->lock);
		pthread_join(w->thread, NULL);
	} else {
		/* never started: what was given is committed here */
		struct lnk_err err = {0};
		w->pending.lookups = w->lookups;
		(void)db_flush(w->db, w->wire_id, &w->pending, w->up, w->down,
			       true, &err);
	}
	db_batch_free(&w->pending);
	db_close(w->db);
	if (w->reserve_fd >= 0)
		close(w->reserve_fd);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->cond);
	free(w);
}

int db_record(struct db *db, const char *sandbox, struct db_batch *b,
	      struct lnk_err *err)
{
	sqlite3_stmt *ins = NULL;
	int r = 0;

	if (sqlite3_exec(db->h, "BEGIN IMMEDIATE", NULL, NULL, NULL) !=
	    SQLITE_OK)
		return sql_err(db, err, "cannot begin a transaction");
	/* seq numbers the wire-less calls as a wire numbers its own, so
	 * (wire, seq) stays unique; IMMEDIATE makes MAX + 1 safe against
	 * another sandbox recording at the same time. */
	if (sqlite3_prepare_v2(
		db->h,
		"INSERT INTO calls(wire, seq, time, sandbox, verb, target, "
		"outcome, reason, up, down) VALUES(0, (SELECT IFNULL(MAX(seq), "
		"0) + 1 FROM calls WHERE wire = 0), ?1, ?2, ?3, ?4, ?5, ?6, 0, "
		"0)",
		-1, &ins, NULL) != SQLITE_OK) {
		r = sql_err(db, err, "cannot prepare the log statements");
		goto out;
	}
	for (size_t i = 0; i < b->n; i++) {
		const struct db_op *op = &b->v[i];
		char when[32];
		if (op->update)
			continue; /* nothing outside a wire is updated */
		db_format_time(op->when, when);
		sqlite3_reset(ins);
		sqlite3_bind_text(ins, 1, when, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(ins, 2, sandbox, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, 3, op->verb, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, 4, op->target, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, 5, db_outcome_name(op->outcome), -1,
				  SQLITE_STATIC);
		sqlite3_bind_text(ins, 6, reason_of(op), -1, SQLITE_STATIC);
		if (sqlite3_step(ins) != SQLITE_DONE) {
			r = sql_err(db, err, "cannot record a call");
			goto out;
		}
	}
out:
	sqlite3_finalize(ins);
	return tx_end(db, r, b, err);
}

int db_record_call(struct db *db, const char *sandbox, const char *verb,
		   const char *target, enum db_outcome o, const char *reason,
		   int64_t *row, struct lnk_err *err)
{
	struct db_batch b = {0};
	int r;

	db_batch_call(&b, 0, time(NULL), verb, target, o, reason, 0, 0);
	r = db_record(db, sandbox, &b, err);
	if (r == 0)
		*row = sqlite3_last_insert_rowid(db->h);
	db_batch_free(&b);
	return r;
}

int db_record_end(struct db *db, int64_t row, enum db_outcome o,
		  const char *reason, struct lnk_err *err)
{
	sqlite3_stmt *st = NULL;
	_cleanup_free_ char *why = db_reason_dup(reason);
	int r = 0;

	if (sqlite3_prepare_v2(db->h,
			       "UPDATE calls SET outcome = ?1, reason = ?2 "
			       "WHERE id = ?3 AND wire = 0",
			       -1, &st, NULL) != SQLITE_OK)
		return sql_err(db, err, "cannot prepare the log statements");
	sqlite3_bind_text(st, 1, db_outcome_name(o), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, why, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, row);
	if (sqlite3_step(st) != SQLITE_DONE)
		r = sql_err(db, err, "cannot record how a call ended");
	sqlite3_finalize(st);
	return r;
}

struct db_queue {
	char *path, *sandbox;
	unsigned interval_ms;
	struct db *db; /* the thread's own, opened on first use */
	bool failed;   /* said so on stderr already */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct db_batch pending; /* under lock */
	bool stop;		 /* under lock */
	bool running;		 /* the thread was started */
};

static void queue_fail(struct db_queue *q, const struct lnk_err *err)
{
	if (!q->failed)
		fprintf(stderr, "lnk: call log: %s\n", err->msg);
	q->failed = true;
}

/* Commits mine; on a busy database keeps it for the next round, unless
 * this is the last. */
static void queue_commit(struct db_queue *q, struct db_batch *mine, bool last)
{
	struct lnk_err err = {0};

	if (!q->db && db_open(q->path, false, &q->db, &err) < 0) {
		q->db = NULL;
		queue_fail(q, &err);
		batch_clear(mine); /* no log to write to: nothing to keep */
		return;
	}
	if (db_record(q->db, q->sandbox, mine, &err) < 0) {
		queue_fail(q, &err);
		if (last || mine->n >= DB_QUEUE_MAX)
			batch_clear(mine);
	}
}

static void add_ms(struct timespec *ts, unsigned ms)
{
	ts->tv_nsec += (long)(ms % 1000) * 1000000L;
	ts->tv_sec += ms / 1000 + ts->tv_nsec / 1000000000L;
	ts->tv_nsec %= 1000000000L;
}

static void *queue_main(void *arg)
{
	struct db_queue *q = arg;
	struct db_batch mine = {0};
	bool last = false;

	pthread_mutex_lock(&q->lock);
	while (!last) {
		while (!q->stop && q->pending.n == 0 && mine.n == 0)
			pthread_cond_wait(&q->cond, &q->lock);
		/* a batch: whatever else comes within interval_ms */
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		add_ms(&ts, q->interval_ms);
		while (!q->stop &&
		       pthread_cond_timedwait(&q->cond, &q->lock, &ts) == 0)
			;
		last = q->stop;
		for (size_t i = 0; i < q->pending.n; i++)
			*batch_push(&mine) = q->pending.v[i];
		q->pending.n = 0;
		pthread_mutex_unlock(&q->lock);
		if (mine.n)
			queue_commit(q, &mine, last);
		pthread_mutex_lock(&q->lock);
	}
	pthread_mutex_unlock(&q->lock);
	db_batch_free(&mine);
	return NULL;
}

int db_queue_start(const char *path, const char *sandbox, unsigned interval_ms,
		   struct db_queue **out, struct lnk_err *err)
{
	struct db_queue *q = xcalloc(1, sizeof(*q));
	q->path = xstrdup(path);
	q->sandbox = xstrdup(sandbox);
	q->interval_ms = interval_ms ? interval_ms : 250;
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->cond, NULL);
	/* The thread must not take the supervisor's signals. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int r = pthread_create(&q->thread, NULL, queue_main, q);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r != 0) {
		pthread_mutex_destroy(&q->lock);
		pthread_cond_destroy(&q->cond);
		free(q->path);
		free(q->sandbox);
		free(q);
		return err_set(err, -r, "cannot start the call log: %s",
			       strerror(r));
	}
	*out = q;
	return 0;
}

void db_queue_add(struct db_queue *q, const char *verb, const char *target,
		  enum db_outcome o, const char *reason)
{
	time_t now = time(NULL);

	pthread_mutex_lock(&q->lock);
	if (q->pending.n < DB_QUEUE_MAX) {
		db_batch_call(&q->pending, 0, now, verb, target, o, reason, 0,
			      0);
		if (q->pending.n == 1)
			pthread_cond_signal(&q->cond);
	}
	pthread_mutex_unlock(&q->lock);
}

void db_queue_stop_begin(struct db_queue *q)
{
	if (!q)
		return;
	pthread_mutex_lock(&q->lock);
	q->stop = true;
	pthread_cond_signal(&q->cond);
	pthread_mutex_unlock(&q->lock);
}

void db_queue_stop(struct db_queue *q)
{
	if (!q)
		return;
	db_queue_stop_begin(q);
	pthread_join(q->thread, NULL);
	db_close(q->db);
	db_batch_free(&q->pending);
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->cond);
	free(q->path);
	free(q->sandbox);
	free(q);
}

int db_log_read(struct db *db, const struct db_log_query *q,
		void (*cb)(const struct db_call_row *, void *), void *ud,
		struct lnk_err *err)
{
	sqlite3_stmt *st = NULL;
	/* the latest N, printed oldest first */
	const char *sql =
	    "SELECT c.id, c.time, c.sandbox, c.verb, c.target, c.outcome, "
	    "c.reason, c.up, c.down, u.provider IS NOT NULL, u.status, "
	    "u.tokens_in, u.tokens_out FROM (SELECT * FROM calls WHERE (?1 "
	    "IS NULL OR sandbox = ?1) AND (?2 = 0 OR outcome = 'refused') "
	    "AND (?4 IS NULL OR time >= ?4) AND id > ?5 "
	    "ORDER BY id DESC LIMIT ?3) AS c LEFT JOIN model_usage AS u ON "
	    "u.wire = c.wire AND u.seq = c.seq ORDER BY c.id";
	/* a log no wire of this version has opened has no model calls */
	const char *old =
	    "SELECT id, time, sandbox, verb, target, outcome, reason, up, "
	    "down, 0, 0, NULL, NULL FROM (SELECT * FROM calls WHERE (?1 IS "
	    "NULL OR sandbox = ?1) AND (?2 = 0 OR outcome = 'refused') AND "
	    "(?4 IS NULL OR time >= ?4) AND id > ?5 ORDER "
	    "BY id DESC LIMIT ?3) ORDER BY id";
	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK &&
	    sqlite3_prepare_v2(db->h, old, -1, &st, NULL) != SQLITE_OK)
		return sql_err(db, err, "cannot read the log");
	if (q->sandbox)
		sqlite3_bind_text(st, 1, q->sandbox, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 1);
	sqlite3_bind_int(st, 2, q->refused);
	sqlite3_bind_int64(st, 3, q->lines > 0 ? q->lines : -1);
	if (q->since)
		sqlite3_bind_text(st, 4, q->since, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 4);
	sqlite3_bind_int64(st, 5, q->after);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct db_call_row row = {
		    .id = sqlite3_column_int64(st, 0),
		    .time = (const char *)sqlite3_column_text(st, 1),
		    .sandbox = (const char *)sqlite3_column_text(st, 2),
		    .verb = (const char *)sqlite3_column_text(st, 3),
		    .target = (const char *)sqlite3_column_text(st, 4),
		    .outcome = (const char *)sqlite3_column_text(st, 5),
		    .reason = (const char *)sqlite3_column_text(st, 6),
		    .up = sqlite3_column_int64(st, 7),
		    .down = sqlite3_column_int64(st, 8),
		    .has_usage = sqlite3_column_int(st, 9) != 0,
		    .status = sqlite3_column_int(st, 10),
		    .tokens_in = sqlite3_column_type(st, 11) == SQLITE_NULL
				     ? -1
				     : sqlite3_column_int64(st, 11),
		    .tokens_out = sqlite3_column_type(st, 12) == SQLITE_NULL
				      ? -1
				      : sqlite3_column_int64(st, 12),
		};
		cb(&row, ud);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return sql_err(db, err, "cannot read the log");
	return 0;
}

static bool pid_alive(long pid)
{
	return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

int db_traffic_read(struct db *db, long stale_secs,
		    void (*cb)(const struct db_wire_row *, void *), void *ud,
		    struct lnk_err *err)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db->h,
			       "SELECT sandbox, pid, started, updated, up, "
			       "down, id, (SELECT lookups FROM wire_lookups "
			       "WHERE wire = wires.id) FROM wires WHERE ended "
			       "IS NULL AND updated >= ?1 ORDER BY id",
			       -1, &st, NULL) != SQLITE_OK)
		return sql_err(db, err, "cannot read the wires");
	sqlite3_bind_int64(st, 1, (int64_t)time(NULL) - stale_secs);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		char updated[32];
		db_format_time((time_t)sqlite3_column_int64(st, 3), updated);
		struct db_wire_row row = {
		    .sandbox = (const char *)sqlite3_column_text(st, 0),
		    .pid = (long)sqlite3_column_int64(st, 1),
		    .started = (const char *)sqlite3_column_text(st, 2),
		    .updated = updated,
		    .up = sqlite3_column_int64(st, 4),
		    .down = sqlite3_column_int64(st, 5),
		    .id = sqlite3_column_int64(st, 6),
		    .lookups = sqlite3_column_int64(st, 7),
		};
		/* a wire killed without a word leaves its row open */
		if (pid_alive(row.pid))
			cb(&row, ud);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return sql_err(db, err, "cannot read the wires");
	return 0;
}

int db_model_read(struct db *db, int64_t wire_id,
		  void (*cb)(const struct db_model_row *, void *), void *ud,
		  struct lnk_err *err)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(
		db->h,
		"SELECT provider, COUNT(*), SUM(tokens_in IS NULL OR "
		"tokens_out IS NULL), TOTAL(tokens_in), TOTAL(tokens_out) "
		"FROM model_usage WHERE wire = ?1 GROUP BY provider ORDER BY "
		"provider",
		-1, &st, NULL) != SQLITE_OK) {
		/* a database from before model routes: none to show */
		if (strstr(sqlite3_errmsg(db->h), "no such table"))
			return 0;
		return sql_err(db, err, "cannot read the model calls");
	}
	sqlite3_bind_int64(st, 1, wire_id);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct db_model_row row = {
		    .provider = (const char *)sqlite3_column_text(st, 0),
		    .calls = sqlite3_column_int64(st, 1),
		    .unknown = sqlite3_column_int64(st, 2),
		    .tokens_in = (int64_t)sqlite3_column_double(st, 3),
		    .tokens_out = (int64_t)sqlite3_column_double(st, 4),
		};
		cb(&row, ud);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return sql_err(db, err, "cannot read the model calls");
	return 0;
}

int db_changes_put(struct db *db, const char *sandbox, int64_t ended_ms,
		   const char *text, const char *json, long keep,
		   struct lnk_err *err)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(
		db->h,
		"INSERT INTO changes(sandbox, ended, text, json) "
		"VALUES(?1, ?2, ?3, ?4)",
		-1, &st, NULL) != SQLITE_OK)
		return sql_err(db, err, "cannot keep the report of changes");
	sqlite3_bind_text(st, 1, sandbox, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, ended_ms);
	sqlite3_bind_text(st, 3, text, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, json, -1, SQLITE_STATIC);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return sql_err(db, err, "cannot keep the report of changes");
	/* bounded: the newest keep reports */
	if (sqlite3_prepare_v2(db->h,
			       "DELETE FROM changes WHERE id <= (SELECT id "
			       "FROM changes ORDER BY id DESC LIMIT 1 OFFSET "
			       "?1)",
			       -1, &st, NULL) != SQLITE_OK)
		return sql_err(db, err, "cannot bound the reports of changes");
	sqlite3_bind_int64(st, 1, keep);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return sql_err(db, err, "cannot bound the reports of changes");
	return 0;
}

int db_changes_read(struct db *db, const char *sandbox, long limit,
		    void (*cb)(const struct db_changes_row *, void *), void *ud,
		    struct lnk_err *err)
{
	sqlite3_stmt *st = NULL;
	/* a database no lnk of this version wrote has no reports yet */
	if (sqlite3_prepare_v2(
		db->h,
		"SELECT sandbox, ended, text, json FROM (SELECT * FROM changes "
		"WHERE id IN (SELECT max(id) FROM changes WHERE ?1 IS NULL OR "
		"sandbox = ?1 GROUP BY sandbox) ORDER BY id DESC LIMIT ?2) "
		"ORDER BY id",
		-1, &st, NULL) != SQLITE_OK)
		return 0;
	if (sandbox)
		sqlite3_bind_text(st, 1, sandbox, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 1);
	sqlite3_bind_int64(st, 2, limit > 0 ? limit : -1);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct db_changes_row row = {
		    .sandbox = (const char *)sqlite3_column_text(st, 0),
		    .ended_ms = sqlite3_column_int64(st, 1),
		    .text = (const char *)sqlite3_column_text(st, 2),
		    .json = (const char *)sqlite3_column_text(st, 3),
		};
		cb(&row, ud);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return sql_err(db, err, "cannot read the reports of changes");
	return 0;
}
