/* The sandbox database, ~/.lnk/sandbox/lnk.db (docs/design.md, "Storage").
 *
 * SQLite in WAL mode with a busy timeout, so many wires (one per running
 * sandbox) write while `lnk sandbox log` reads. A wire never writes on its
 * hot path: it collects calls in a struct db_batch and a writer thread
 * commits each batch in ONE transaction per tick (db_writer_*).
 *
 * What is stored of a call is only: time (UTC), sandbox, verb, target
 * host:port, outcome, reason, bytes each way. Never a path, a header or a
 * body (invariant 7): the API has no place to put one.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "common/err.h"

struct db;
struct sqlite3;

/* How every writing connection to lnk.db is set up (db.c and registry.c).
 *
 * WAL with synchronous=NORMAL: a commit writes the WAL without an fsync;
 * the WAL is synced only when it is checkpointed. That is crash-safe for
 * the application (a killed lnk or wire loses nothing it committed, and
 * the database is never corrupt), but a power loss or an OS crash may lose
 * the last commits: acceptable for a call log and a registry of sandboxes
 * that a reboot ends anyway.
 *
 * Connections are opened with SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, so the WAL
 * is not folded back into the database (with fsyncs) whenever the last
 * connection closes. It is still bounded: the commit that takes the WAL
 * past DB_WAL_PAGES checkpoints it with TRUNCATE (db_setup's WAL hook),
 * which empties the file. SQLite's own automatic checkpoint
 * (wal_autocheckpoint) is not enough here: it copies the WAL into the
 * database, but the WAL starts over only at the next write of the same
 * connection, and lnk's connections close after a write or two. The next
 * opener rebuilds the WAL's index from the file with no memory of that
 * checkpoint, finds every frame valid again, and copies them all again at
 * each commit: the WAL grew without end (8 MB after a thousand runs) and
 * every commit paid a whole checkpoint.
 *
 * Kept small (100 pages, about 400 kB): the first connection to open the
 * file when no other has it open (every `lnk sandbox run` on a machine
 * with no sandbox running) rebuilds the WAL's index by reading and
 * checksumming every frame since the last checkpoint, about 0.7 ms of CPU
 * per MB, twice per run. A checkpoint every few dozen runs costs less. */
#define DB_WAL_PAGES 100
#define DB_PRAGMAS                   \
	"PRAGMA journal_mode=WAL;"   \
	"PRAGMA synchronous=NORMAL;" \
	"PRAGMA journal_size_limit=4194304;"

/* Sets up a new writing connection h: DB_PRAGMAS, the WAL's bound (see
 * above), then sql (the caller's CREATE TABLE IF NOT EXISTS). Two processes that open a new lnk.db at the
 * same moment (sandboxes started together, their wires) both switch it to
 * WAL, and SQLite answers the loser SQLITE_BUSY at once, busy timeout or
 * not (a read lock upgraded to a write lock is never waited for): so a
 * busy answer is retried, every statement being idempotent, for up to
 * timeout_ms (also the busy timeout the connection is set to, which the
 * WAL hook puts back). Returns an SQLite result code; *msg (sqlite3_free)
 * says why. */
int db_setup(struct sqlite3 *h, const char *sql, int timeout_ms, char **msg);

/* After db_setup and the version's check: the tables and indexes of
 * schema (CREATE ... IF NOT EXISTS statements) made, unless every one
 * is in the file already; a busy answer retried as db_setup does. */
int db_setup_tables(struct sqlite3 *h, const char *schema, int timeout_ms,
		    char **msg);

/* The form of lnk.db's tables this lnk reads and writes, kept in SQLite's
 * user_version. A file from a newer lnk is refused rather than written
 * (its tables may mean something else, and a wire must never run with a
 * log it cannot write); one with no version yet gets this one. */
#define DB_SCHEMA_VERSION 1

struct sqlite3;
/* Checks h's schema version (before its tables are created or used) and,
 * when writable, records DB_SCHEMA_VERSION in a file that has none. Also
 * the first read of the file, so a file that is not a database or is
 * damaged is refused here. 0, or -EPROTO (newer) / -EIO with a message
 * that names path and says what to do. */
int db_schema_check(struct sqlite3 *h, const char *path, bool writable,
		    struct lnk_err *err);
/* "; ..." what to do about a damaged or foreign file when SQLite's error
 * code says that is the trouble, else "". */
const char *db_damage_hint(int sqlite_code);

/* Opens (and creates, with its folder 0700) the database at path. With
 * readonly, a missing file is -ENOENT and nothing is created. */
int db_open(const char *path, bool readonly, struct db **out,
	    struct lnk_err *err);
/* The same, waiting at most wait_ms for another connection's lock
 * (db_open waits 10 s). */
int db_open_wait(const char *path, bool readonly, int wait_ms, struct db **out,
		 struct lnk_err *err);
void db_close(struct db *db);

enum db_outcome {
	DB_ALLOWED, /* connected; not ended yet */
	DB_ENDED,   /* allowed, then ended: bytes each way */
	DB_REFUSED, /* refused by the grants, with the reason */
	DB_FAILED,  /* allowed, but nothing answered, with the reason */
};
const char *db_outcome_name(enum db_outcome o);

#define DB_VERB_MAX 16
#define DB_TARGET_MAX 270
/* A reason is stored whole up to this many bytes with its NUL: the longest
 * lnk writes, with the command that fixes it, is a few hundred. Past it
 * (a reason may quote what a program chose) it is cut by db_reason_dup. */
#define DB_REASON_MAX 1024
#define DB_PROVIDER_MAX 40

/* What ends a reason db_reason_dup cut. */
#define DB_REASON_CUT_MARK "..."
/* reason as the log stores it (NULL: ""): whole when it fits in
 * DB_REASON_MAX bytes with its NUL, else cut before a character (never
 * inside a UTF-8 sequence: a reader decoding the row must not find half
 * of one) and ended with DB_REASON_CUT_MARK, the whole at most
 * DB_REASON_MAX - 1 bytes. A new string. */
char *db_reason_dup(const char *reason);

struct db_op {
	bool update; /* change the call seq (else insert it) */
	bool usage;  /* a model call's answer: provider, status, tokens */
	int64_t seq; /* the call's number within its wire */
	time_t when;
	char verb[DB_VERB_MAX];
	char target[DB_TARGET_MAX];
	enum db_outcome outcome;
	char *reason; /* db_reason_dup's, owned by the batch that holds the
		       * op; NULL for none */
	uint64_t up, down;
	/* with usage: the route's name, the answer's HTTP status (0: none),
	 * and the tokens it said it used (-1: it did not say) */
	char provider[DB_PROVIDER_MAX];
	int status;
	int64_t tokens_in, tokens_out;
};

struct db_batch {
	struct db_op *v;
	size_t n, cap;
	/* A wire's lookups sent upstream so far: written with its counters
	 * (db_writer_submit, db_flush) when not 0 */
	uint64_t lookups;
};
/* A new call (verb "connect", "http" or "tcp"; target "host:port").
 * Returns where it sits in b, for db_batch_update_at. */
size_t db_batch_call(struct db_batch *b, int64_t seq, time_t when,
		     const char *verb, const char *target, enum db_outcome o,
		     const char *reason, uint64_t up, uint64_t down);
/* The call seq ended, failed, ...: its outcome and bytes now. */
void db_batch_update(struct db_batch *b, int64_t seq, enum db_outcome o,
		     const char *reason, uint64_t up, uint64_t down);
/* The same, for the call db_batch_call put at `at`: while that call is
 * still in b (not yet written), it is written once with its end, one
 * row's work instead of two; else an update follows, as above. */
void db_batch_update_at(struct db_batch *b, size_t at, int64_t seq,
			enum db_outcome o, const char *reason, uint64_t up,
			uint64_t down);
/* A model call's answer (verb "model"): kept beside the call seq. */
void db_batch_usage(struct db_batch *b, int64_t seq, const char *provider,
		    int status, int64_t tokens_in, int64_t tokens_out);
void db_batch_free(struct db_batch *b);

/* Registers a running wire; *wire_id names it in later calls. */
int db_wire_begin(struct db *db, const char *sandbox, long pid,
		  int64_t *wire_id, struct lnk_err *err);
/* One transaction: every op of b, then the wire's live counters (and its
 * end, with ended). Empties b on success. 0 or -errno. */
int db_flush(struct db *db, int64_t wire_id, struct db_batch *b, uint64_t up,
	     uint64_t down, bool ended, struct lnk_err *err);

/* The writer thread: owns its own connection, commits what it is given
 * every interval_ms, and never lets the wire's loop wait on SQLite. */
struct db_writer;
int db_writer_start(const char *path, const char *sandbox, long pid,
		    unsigned interval_ms, struct db_writer **out,
		    struct lnk_err *err);
/* The same in two steps, for a caller that must open the database before
 * it confines itself and start the thread after (threads inherit the
 * confinement): _open opens and registers, _run starts the thread. */
int db_writer_open(const char *path, const char *sandbox, long pid,
		   unsigned interval_ms, struct db_writer **out,
		   struct lnk_err *err);
int db_writer_run(struct db_writer *w, struct lnk_err *err);
/* Moves b's ops to the writer (b is left empty) with the counters now. */
void db_writer_submit(struct db_writer *w, struct db_batch *b, uint64_t up,
		      uint64_t down);
/* Whether the log is being written: 0 when the last commit worked and
 * fewer than DB_BACKLOG_MAX entries wait, else -errno with why (the
 * database's own words, such as "database or disk is full"). A failed
 * commit keeps its entries and is tried again each interval; *backlog is
 * how many wait. */
#define DB_WHY_MAX 192
/* The room a writer keeps for the log in <log>-reserve: given back when
 * the disk fills, so the calls already carried are still written. */
#define DB_RESERVE_BYTES (1 << 20)
#define DB_BACKLOG_MAX 65536
int db_writer_health(struct db_writer *w, size_t *backlog, char *why,
		     size_t cap);
/* Commits what is left (trying a little longer when the log cannot be
 * written), marks the wire ended, joins the thread. Entries that still
 * cannot be written are printed on stderr instead, never dropped
 * silently. */
void db_writer_stop(struct db_writer *w);

/* Calls made outside any wire, such as the dot files the guard refused to
 * create (verb "file", target "FOLDER/NAME": the --write folder and one
 * name at its top), or an entry kept read only in which it named a
 * refused change ("FOLDER/ENTRY", ".git" or ".venv/bin": never what was
 * written inside it). They are stored beside the wires'
 * calls, for the sandbox named sandbox, with no wire (wire 0). Every op of
 * b in one transaction; b is emptied on success. 0 or -errno. */
int db_record(struct db *db, const char *sandbox, struct db_batch *b,
	      struct lnk_err *err);

/* One call outside any wire, written now in a transaction of its own
 * (wire 0, as db_record): for a channel that must not carry a call whose
 * row is not written first (the tools broker). *row names it for
 * db_record_end. target and reason are cut to the log's sizes. 0 or -errno
 * (a lock held past the connection's busy wait, a full disk). */
int db_record_call(struct db *db, const char *sandbox, const char *verb,
		   const char *target, enum db_outcome o, const char *reason,
		   int64_t *row, struct lnk_err *err);
/* How the call of db_record_call ended. 0 or -errno. */
int db_record_end(struct db *db, int64_t row, enum db_outcome o,
		  const char *reason, struct lnk_err *err);

/* A queue for db_record, written by a thread of its own, so that whoever
 * adds to it (the guard's workers, while the program waits) never waits
 * on SQLite: db_queue_add only takes a mutex the thread holds while
 * moving ops, never while writing. The database is opened on the first
 * op (a sandbox that refuses nothing never opens it), ops are committed
 * interval_ms after the first of a batch, and db_queue_stop commits what
 * is left. A failure is said once on stderr ("lnk: call log: ..."). */
struct db_queue;
/* Starts the thread (with every signal blocked). 0 or -errno. */
int db_queue_start(const char *path, const char *sandbox, unsigned interval_ms,
		   struct db_queue **out, struct lnk_err *err);
/* Queues one call (time now). At most DB_QUEUE_MAX wait at once; more are
 * dropped: the guard reports each name once, so only a flood gets there. */
#define DB_QUEUE_MAX 4096
void db_queue_add(struct db_queue *q, const char *verb, const char *target,
		  enum db_outcome o, const char *reason);
/* Commits what is queued, joins the thread, frees q. NULL is fine. */
void db_queue_stop(struct db_queue *q);
/* Tells the thread to commit what is queued and end, without waiting:
 * db_queue_stop then joins it. NULL is fine. */
void db_queue_stop_begin(struct db_queue *q);

/* What a run left in its write folders (changes/changes.h): its report,
 * text (lnk's own lines, already escaped) and JSON; only the newest keep
 * reports stay. */
int db_changes_put(struct db *db, const char *sandbox, int64_t ended_ms,
		   const char *text, const char *json, long keep,
		   struct lnk_err *err);
struct db_changes_row {
	const char *sandbox;
	int64_t ended_ms;
	const char *text, *json;
};
/* The last report of each sandbox (of sandbox alone when not NULL), the
 * newest limit of them (0: all kept), oldest first. */
int db_changes_read(struct db *db, const char *sandbox, long limit,
		    void (*cb)(const struct db_changes_row *, void *), void *ud,
		    struct lnk_err *err);

/* Readers. */
struct db_call_row {
	int64_t id;
	const char *time; /* "2024-05-01T12:00:00Z" */
	const char *sandbox, *verb, *target, *outcome, *reason; /* reason may
								  * be "" */
	int64_t up, down;
	/* a model call's answer: has_usage, then its HTTP status (0: none)
	 * and tokens (-1: not said) */
	bool has_usage;
	int status;
	int64_t tokens_in, tokens_out;
};
struct db_log_query {
	long lines;	     /* the latest N; 0: every one that matches */
	const char *sandbox; /* or NULL */
	bool refused;	     /* only refused calls */
	const char *since;   /* "2024-05-01T12:00:00Z": calls at or after
			      * it (the stored times sort as text), or NULL */
	int64_t after;	     /* only calls whose id is above it (a follower
			      * gives the last id it printed), or 0 */
};
/* Calls oldest first (the latest q->lines of them). Ids only grow: SQLite
 * gives a new row the largest id plus one inside the one write
 * transaction, and calls are never deleted, so a reader that asks for
 * ids above the last it saw misses none. */
int db_log_read(struct db *db, const struct db_log_query *q,
		void (*cb)(const struct db_call_row *, void *), void *ud,
		struct lnk_err *err);

struct db_wire_row {
	int64_t id;
	const char *sandbox;
	long pid;
	const char *started, *updated;
	int64_t up, down;
	int64_t lookups; /* names it sent upstream to be looked up */
};
/* Wires still running: not ended, their process alive and their counters
 * refreshed within the last stale_secs. */
int db_traffic_read(struct db *db, long stale_secs,
		    void (*cb)(const struct db_wire_row *, void *), void *ud,
		    struct lnk_err *err);

/* One wire's model calls by provider: calls, the tokens of the answers
 * that said, and how many did not say. */
struct db_model_row {
	const char *provider;
	int64_t calls, unknown;
	int64_t tokens_in, tokens_out;
};
int db_model_read(struct db *db, int64_t wire_id,
		  void (*cb)(const struct db_model_row *, void *), void *ud,
		  struct lnk_err *err);

/* "2024-05-01T12:00:00Z" (21 bytes with the NUL). */
void db_format_time(time_t t, char out[32]);
