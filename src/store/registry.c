/* The registry of running sandboxes and the closed/stopped state (see
 * registry.h), in tables of their own in ~/.lnk/sandbox/lnk.db. */
#include "store/registry.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/compat.h"
#include "common/util.h"
#include "net/grammar.h"
#include "store/db.h"
#include "store/paths.h"

struct registry {
	sqlite3 *db;
	char *path;
};

/* Own tables, own names: the call log's tables belong to store/db.c; the
 * two share only the file. */
static const char schema[] =
    "CREATE TABLE IF NOT EXISTS ctl_sandboxes ("
    " name TEXT PRIMARY KEY NOT NULL,"
    " uid INTEGER NOT NULL,"
    " sup_pid INTEGER NOT NULL DEFAULT 0, sup_start INTEGER NOT NULL DEFAULT 0,"
    " box_pid INTEGER NOT NULL DEFAULT 0, box_start INTEGER NOT NULL DEFAULT 0,"
    " wire_pid INTEGER NOT NULL DEFAULT 0,"
    " wire_start INTEGER NOT NULL DEFAULT 0,"
    " socket TEXT NOT NULL DEFAULT '',"
    " started_ms INTEGER NOT NULL DEFAULT 0,"
    " closed INTEGER NOT NULL DEFAULT 0,"
    " cause TEXT NOT NULL DEFAULT '',"
    " rule TEXT NOT NULL DEFAULT '',"
    " detail TEXT NOT NULL DEFAULT '',"
    " closed_ms INTEGER NOT NULL DEFAULT 0);"
    "CREATE TABLE IF NOT EXISTS ctl_stop ("
    " id INTEGER PRIMARY KEY CHECK (id = 1),"
    " since_ms INTEGER NOT NULL);";

bool registry_name_valid(const char *name)
{
	return sandbox_name_valid(name);
}

int64_t registry_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The start of /proc/PID/FILE, NUL-terminated: 0, or -ESRCH when the
 * process is gone. */
static int read_proc(pid_t pid, const char *file, char *buf, size_t cap)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -ESRCH;
	ssize_t n = read(fd, buf, cap - 1);
	close(fd);
	if (n <= 0)
		return -ESRCH;
	buf[n] = '\0';
	return 0;
}

/* Reads the state letter and start time of pid from /proc/PID/stat. The
 * command name (field 2) can hold spaces and ')': parse after the LAST
 * ')'. */
static int proc_stat(pid_t pid, char *st, uint64_t *start)
{
	char buf[1024];
	if (read_proc(pid, "stat", buf, sizeof(buf)) < 0)
		return -ESRCH;
	char *p = strrchr(buf, ')');
	if (!p)
		return -EIO;
	p++;
	/* Fields after ')': 3 (state) ... 22 (starttime). */
	char *save = NULL, *tok = strtok_r(p, " ", &save);
	for (int field = 3; tok; field++, tok = strtok_r(NULL, " ", &save)) {
		if (field == 3)
			*st = tok[0];
		if (field == 22) {
			char *end;
			errno = 0;
			unsigned long long v = strtoull(tok, &end, 10);
			if (errno || *end)
				return -EIO;
			*start = v;
			return 0;
		}
	}
	return -EIO;
}

int registry_proc_self(pid_t pid, struct registry_proc *p)
{
	char st;
	uint64_t start;
	if (pid <= 0)
		return -ESRCH;
	int r = proc_stat(pid, &st, &start);
	if (r < 0)
		return r;
	p->pid = pid;
	p->start = start;
	return 0;
}

bool registry_proc_alive(const struct registry_proc *p)
{
	char st;
	uint64_t start;
	if (p->pid <= 0)
		return false;
	if (proc_stat(p->pid, &st, &start) < 0)
		return false;
	/* A zombie has ended; a different start time is a recycled pid. */
	return st != 'Z' && st != 'X' && start == p->start;
}

int registry_proc_pidfd(const struct registry_proc *p)
{
	if (p->pid <= 0)
		return -ESRCH;
	int fd = proc_open(p->pid);
	if (fd < 0)
		return fd;
	/* The handle pins the process it names; checking the start time
	 * AFTER opening it proves that process is the registered one, not a
	 * newcomer with its pid. */
	if (!registry_proc_alive(p)) {
		close(fd);
		return -ESRCH;
	}
	return fd;
}

/* The real and effective uid of pid (the "Uid:" line of its status). */
static int proc_uids(pid_t pid, uid_t *ruid, uid_t *euid)
{
	char buf[4096];
	if (read_proc(pid, "status", buf, sizeof(buf)) < 0)
		return -ESRCH;
	const char *u = strstr(buf, "\nUid:");
	unsigned r, e;
	if (!u || sscanf(u + 5, "%u %u", &r, &e) != 2)
		return -EIO;
	*ruid = (uid_t)r;
	*euid = (uid_t)e;
	return 0;
}

/* The parent pid (field 4 of /proc/PID/stat). */
static pid_t proc_ppid(pid_t pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	char *p = strrchr(buf, ')');
	char st;
	int ppid;
	if (!p || sscanf(p + 1, " %c %d", &st, &ppid) != 2)
		return -1;
	return (pid_t)ppid;
}

/* Whether pid runs this very lnk executable: the same file as ours, or,
 * after an upgrade replaced it while the sandbox ran, the deleted file
 * that had our executable's path. */
static bool proc_runs_lnk(pid_t pid)
{
	char path[64];
	struct stat mine, theirs;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if (stat("/proc/self/exe", &mine) < 0)
		return false;
	if (stat(path, &theirs) == 0 && theirs.st_dev == mine.st_dev &&
	    theirs.st_ino == mine.st_ino)
		return true;
	char me[PATH_MAX], them[PATH_MAX + 16];
	ssize_t a = readlink("/proc/self/exe", me, sizeof(me) - 1);
	ssize_t b = readlink(path, them, sizeof(them) - 1);
	if (a <= 0 || b <= 0)
		return false;
	me[a] = '\0';
	them[b] = '\0';
	static const char del[] = " (deleted)";
	size_t dl = sizeof(del) - 1;
	return (size_t)b == (size_t)a + dl &&
	       strncmp(them, me, (size_t)a) == 0 && strcmp(them + a, del) == 0;
}

int registry_proc_open(const struct registry_proc *p,
		       const struct registry_proc *parent, struct lnk_err *err)
{
	int fd = registry_proc_pidfd(p);
	if (fd < 0)
		return err_set(err, fd, "process %d no longer runs",
			       (int)p->pid);
	/* The pidfd pins the process; what /proc says about its pid from
	 * here on is about that process (its start time was checked after
	 * opening it). */
	uid_t ruid, euid;
	int r = proc_uids(p->pid, &ruid, &euid);
	if (r < 0) {
		close(fd);
		return err_set(err, -ESRCH, "process %d no longer runs",
			       (int)p->pid);
	}
	if (ruid != getuid() || euid != geteuid()) {
		close(fd);
		return err_set(err, -EPERM,
			       "process %d is not yours (uid %u): the registry "
			       "names a process no sandbox of yours runs as; "
			       "it was left alone",
			       (int)p->pid, (unsigned)ruid);
	}
	if (parent) {
		/* bwrap is the supervisor's own child, and the supervisor is
		 * proven first. */
		if (proc_ppid(p->pid) != parent->pid ||
		    !registry_proc_alive(parent) ||
		    !proc_runs_lnk(parent->pid)) {
			close(fd);
			return err_set(err, -EPERM,
				       "process %d is not the sandbox of the "
				       "lnk process %d: it was left alone",
				       (int)p->pid, (int)parent->pid);
		}
	} else if (!proc_runs_lnk(p->pid)) {
		close(fd);
		char path[64], exe[PATH_MAX], shown[160];
		snprintf(path, sizeof(path), "/proc/%d/exe", (int)p->pid);
		ssize_t n = readlink(path, exe, sizeof(exe) - 1);
		exe[n > 0 ? n : 0] = '\0';
		/* A file name is anyone's choice: no escape sequences. */
		ctl_printable(shown, sizeof(shown), n > 0 ? exe : "unknown");
		return err_set(err, -EPERM,
			       "process %d does not run lnk (it runs '%s'), so "
			       "it was left alone: the registry names it, but "
			       "only this lnk's own processes are signalled; a "
			       "sandbox of another lnk installation is stopped "
			       "by that one",
			       (int)p->pid, shown);
	}
	return fd;
}

static int db_err(struct registry *s, struct lnk_err *err, const char *what)
{
	int code = sqlite3_errcode(s->db);
	int e = (code == SQLITE_BUSY || code == SQLITE_LOCKED) ? -EBUSY : -EIO;
	return err_set(err, e, "%s '%s': %s%s", what, s->path,
		       sqlite3_errmsg(s->db),
		       db_damage_hint(sqlite3_extended_errcode(s->db)));
}

int registry_open_at(const char *path, struct registry **out,
		     struct lnk_err *err)
{
	sqlite3 *db = NULL;
	int rc = sqlite3_open_v2(path, &db,
				 SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
				     SQLITE_OPEN_NOMUTEX,
				 NULL);
	if (rc != SQLITE_OK) {
		int r =
		    err_set(err, -EIO, "cannot open the database '%s': %s",
			    path, db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return r;
	}
	struct registry *s = xcalloc(1, sizeof(*s));
	s->db = db;
	s->path = xstrdup(path);
	/* Many wires and commands write at once: wait for the lock rather
	 * than fail, and let readers run beside the writer (WAL). */
	sqlite3_busy_timeout(db, 5000);
	/* No checkpoint (and its fsyncs) whenever the last connection closes,
	 * and no fsync per commit (synchronous=NORMAL): see DB_PRAGMAS in
	 * db.h for why that is safe and how the WAL stays bounded. A power
	 * loss may lose the last registrations; a reboot ends their
	 * sandboxes anyway. */
	sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
	char *msg = NULL;
	int rc2 = db_setup(db, "", 5000, &msg);
	sqlite3_free(msg);
	if (rc2 != SQLITE_OK) {
		int r = db_err(s, err, "cannot set up the database");
		registry_close(s);
		return r;
	}
	/* The version first: a newer lnk's tables are not to be touched. */
	int r = db_schema_check(db, path, true, err);
	if (r < 0) {
		registry_close(s);
		return r;
	}
	msg = NULL;
	rc2 = db_setup_tables(db, schema, 5000, &msg);
	sqlite3_free(msg);
	if (rc2 != SQLITE_OK) {
		r = db_err(s, err, "cannot set up the database");
		registry_close(s);
		return r;
	}
	*out = s;
	return 0;
}

int registry_open(const char *home, struct registry **out, struct lnk_err *err)
{
	_cleanup_free_ char *dir = paths_sandbox_dir(home);
	int r = paths_ensure_dir(dir, err);
	if (r < 0)
		return r;
	_cleanup_free_ char *path = paths_db(home);
	return registry_open_at(path, out, err);
}

void registry_close(struct registry *s)
{
	if (!s)
		return;
	sqlite3_close(s->db);
	free(s->path);
	free(s);
}

static int prep(struct registry *s, const char *sql, sqlite3_stmt **st,
		struct lnk_err *err)
{
	if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK)
		return db_err(s, err, "cannot read or write");
	return 0;
}

static int exec(struct registry *s, const char *sql, struct lnk_err *err)
{
	if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return db_err(s, err, "cannot read or write");
	return 0;
}

static const char cols[] =
    "name, uid, sup_pid, sup_start, box_pid, box_start, wire_pid, "
    "wire_start, socket, started_ms, closed, cause, rule, detail, closed_ms";

static void copy_text(char *dst, size_t cap, sqlite3_stmt *st, int col)
{
	const unsigned char *t = sqlite3_column_text(st, col);
	snprintf(dst, cap, "%s", t ? (const char *)t : "");
}

static void row_to_entry(sqlite3_stmt *st, struct registry_entry *e)
{
	memset(e, 0, sizeof(*e));
	copy_text(e->name, sizeof(e->name), st, 0);
	e->uid = (uid_t)sqlite3_column_int64(st, 1);
	e->supervisor.pid = (pid_t)sqlite3_column_int64(st, 2);
	e->supervisor.start = (uint64_t)sqlite3_column_int64(st, 3);
	e->sandbox.pid = (pid_t)sqlite3_column_int64(st, 4);
	e->sandbox.start = (uint64_t)sqlite3_column_int64(st, 5);
	e->wire.pid = (pid_t)sqlite3_column_int64(st, 6);
	e->wire.start = (uint64_t)sqlite3_column_int64(st, 7);
	copy_text(e->socket, sizeof(e->socket), st, 8);
	e->started_ms = sqlite3_column_int64(st, 9);
	e->closed = sqlite3_column_int(st, 10) != 0;
	const unsigned char *c = sqlite3_column_text(st, 11);
	e->cause = ctl_cause_from_name(c ? (const char *)c : "");
	const unsigned char *r = sqlite3_column_text(st, 12);
	e->rule = trip_rule_from_name(r ? (const char *)r : "");
	copy_text(e->detail, sizeof(e->detail), st, 13);
	e->closed_ms = sqlite3_column_int64(st, 14);
	if (!e->closed)
		e->cause = CTL_CAUSE_NONE;
}

/* A sandbox lives while its supervisor does (the wire's, when no
 * supervisor was recorded). */
static bool entry_live(const struct registry_entry *e)
{
	if (e->supervisor.pid > 0)
		return registry_proc_alive(&e->supervisor);
	return registry_proc_alive(&e->wire);
}

bool registry_entry_has_wire(const struct registry_entry *e)
{
	return e->wire.pid > 0 || e->socket[0];
}

int registry_register(struct registry *s, const struct registry_entry *e,
		      struct lnk_err *err)
{
	int r = sandbox_name_check(e->name, strlen(e->name), err);
	if (r < 0)
		return r;
	/* IMMEDIATE: two sandboxes starting with one name cannot both see
	 * it free. */
	r = exec(s, "BEGIN IMMEDIATE", err);
	if (r < 0)
		return r;
	sqlite3_stmt *st = NULL;
	_cleanup_free_ char *q =
	    xasprintf("SELECT %s FROM ctl_sandboxes WHERE name = ?", cols);
	if ((r = prep(s, q, &st, err)) < 0)
		goto rollback;
	sqlite3_bind_text(st, 1, e->name, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		struct registry_entry old;
		row_to_entry(st, &old);
		if (entry_live(&old)) {
			sqlite3_finalize(st);
			r = err_set(
			    err, -EEXIST,
			    "a sandbox named '%s' is already running (pid %d); choose another --name",
			    e->name, (int)old.supervisor.pid);
			goto rollback;
		}
	}
	sqlite3_finalize(st);
	st = NULL;
	if ((r = prep(s,
		      "INSERT OR REPLACE INTO ctl_sandboxes (name, uid, "
		      "sup_pid, sup_start, box_pid, box_start, wire_pid, "
		      "wire_start, socket, started_ms, closed, cause, rule, "
		      "detail, closed_ms) "
		      "VALUES (?,?,?,?,?,?,?,?,?,?,0,'','','',0)",
		      &st, err)) < 0)
		goto rollback;
	sqlite3_bind_text(st, 1, e->name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, e->uid);
	sqlite3_bind_int64(st, 3, e->supervisor.pid);
	sqlite3_bind_int64(st, 4, (int64_t)e->supervisor.start);
	sqlite3_bind_int64(st, 5, e->sandbox.pid);
	sqlite3_bind_int64(st, 6, (int64_t)e->sandbox.start);
	sqlite3_bind_int64(st, 7, e->wire.pid);
	sqlite3_bind_int64(st, 8, (int64_t)e->wire.start);
	sqlite3_bind_text(st, 9, e->socket, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 10, e->started_ms);
	if (sqlite3_step(st) != SQLITE_DONE) {
		r = db_err(s, err, "cannot register in");
		sqlite3_finalize(st);
		goto rollback;
	}
	sqlite3_finalize(st);
	if ((r = exec(s, "COMMIT", err)) < 0)
		goto rollback;
	return 0;
rollback:
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return r;
}

int registry_register_wire(struct registry *s, const struct registry_entry *e,
			   struct lnk_err *err)
{
	int r = exec(s, "BEGIN IMMEDIATE", err);
	if (r < 0)
		return r;
	sqlite3_stmt *st = NULL;
	if ((r = prep(
		 s,
		 "UPDATE ctl_sandboxes SET wire_pid = ?2, wire_start = ?3, "
		 "socket = ?4 WHERE name = ?1 AND sup_pid = ?5 AND "
		 "sup_start = ?6",
		 &st, err)) < 0)
		goto rollback;
	sqlite3_bind_text(st, 1, e->name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, e->wire.pid);
	sqlite3_bind_int64(st, 3, (int64_t)e->wire.start);
	sqlite3_bind_text(st, 4, e->socket, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, e->supervisor.pid);
	sqlite3_bind_int64(st, 6, (int64_t)e->supervisor.start);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		r = db_err(s, err, "cannot register in");
		goto rollback;
	}
	bool joined = sqlite3_changes(s->db) > 0;
	if ((r = exec(s, "COMMIT", err)) < 0)
		goto rollback;
	/* No supervisor's entry (the wire alone, as in its test harness):
	 * the wire's own. */
	return joined ? 0 : registry_register(s, e, err);
rollback:
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return r;
}

/* Runs a one-row change; -ENOENT when no row named name. */
static int change(struct registry *s, const char *sql, const char *name,
		  void (*bind)(sqlite3_stmt *, const void *), const void *arg,
		  struct lnk_err *err)
{
	sqlite3_stmt *st;
	int r = prep(s, sql, &st, err);
	if (r < 0)
		return r;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	if (bind)
		bind(st, arg);
	if (sqlite3_step(st) != SQLITE_DONE) {
		r = db_err(s, err, "cannot write");
		sqlite3_finalize(st);
		return r;
	}
	sqlite3_finalize(st);
	if (sqlite3_changes(s->db) == 0)
		return err_set(err, -ENOENT,
			       "no sandbox named '%s' is registered", name);
	return 0;
}

static void bind_proc(sqlite3_stmt *st, const void *arg)
{
	const struct registry_proc *p = arg;
	sqlite3_bind_int64(st, 2, p->pid);
	sqlite3_bind_int64(st, 3, (int64_t)p->start);
}

int registry_set_sandbox(struct registry *s, const char *name, pid_t pid,
			 struct lnk_err *err)
{
	struct registry_proc p;
	if (registry_proc_self(pid, &p) < 0)
		return err_set(err, -ESRCH, "process %d does not run",
			       (int)pid);
	return change(s,
		      "UPDATE ctl_sandboxes SET box_pid = ?2, box_start = ?3 "
		      "WHERE name = ?1",
		      name, bind_proc, &p, err);
}

int registry_unregister(struct registry *s, const char *name,
			struct lnk_err *err)
{
	return change(s, "DELETE FROM ctl_sandboxes WHERE name = ?1", name,
		      NULL, NULL, err);
}

int registry_unregister_wire(struct registry *s, const char *name,
			     struct lnk_err *err)
{
	/* The wire is confined by now and cannot read /proc, so it cannot
	 * tell whether its supervisor still runs: an entry a supervisor
	 * made is left to that supervisor (or, when it was killed, to the
	 * next reader that finds it dead). The wire removes only an entry
	 * it made alone. */
	struct registry_entry e;
	struct lnk_err ignored = {0};
	if (registry_find(s, name, &e, &ignored) == 0 && e.supervisor.pid > 0)
		return 0;
	return registry_unregister(s, name, err);
}

struct closed_args {
	enum ctl_cause cause;
	enum trip_rule rule;
	const char *detail;
	int64_t at;
};

static void bind_closed(sqlite3_stmt *st, const void *arg)
{
	const struct closed_args *a = arg;
	char d[CTL_DETAIL_MAX];
	ctl_printable(d, sizeof(d), a->detail);
	sqlite3_bind_text(st, 2, ctl_cause_name(a->cause), -1, SQLITE_STATIC);
	sqlite3_bind_text(
	    st, 3, a->cause == CTL_CAUSE_TRIP ? trip_rule_name(a->rule) : "",
	    -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, d, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 5, a->at);
}

int registry_set_closed(struct registry *s, const char *name,
			enum ctl_cause cause, enum trip_rule rule,
			const char *detail, int64_t at_ms, struct lnk_err *err)
{
	if (cause == CTL_CAUSE_NONE)
		return err_set(err, -EINVAL, "a closed wire needs a cause");
	struct closed_args a = {cause, rule, detail, at_ms};
	return change(s,
		      "UPDATE ctl_sandboxes SET closed = 1, cause = ?2, "
		      "rule = ?3, detail = ?4, closed_ms = ?5 WHERE name = ?1",
		      name, bind_closed, &a, err);
}

int registry_set_open(struct registry *s, const char *name, struct lnk_err *err)
{
	return change(s,
		      "UPDATE ctl_sandboxes SET closed = 0, cause = '', "
		      "rule = '', detail = '', closed_ms = 0 WHERE name = ?1",
		      name, NULL, NULL, err);
}

static int read_all(struct registry *s, struct registry_entry **out, size_t *n,
		    struct lnk_err *err)
{
	sqlite3_stmt *st;
	_cleanup_free_ char *q =
	    xasprintf("SELECT %s FROM ctl_sandboxes ORDER BY name", cols);
	int r = prep(s, q, &st, err);
	if (r < 0)
		return r;
	struct registry_entry *v = NULL;
	size_t len = 0, cap = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (len == cap) {
			cap = cap ? cap * 2 : 8;
			v = xrealloc(v, cap * sizeof(*v));
		}
		row_to_entry(st, &v[len++]);
	}
	if (rc != SQLITE_DONE) {
		r = db_err(s, err, "cannot read");
		sqlite3_finalize(st);
		free(v);
		return r;
	}
	sqlite3_finalize(st);
	*out = v;
	*n = len;
	return 0;
}

int registry_clean_stale(struct registry *s, size_t *removed,
			 struct lnk_err *err)
{
	struct registry_entry *v = NULL;
	size_t n = 0, gone = 0;
	int r = read_all(s, &v, &n, err);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		if (entry_live(&v[i]))
			continue;
		/* Delete only the row we judged: a new sandbox may have taken
		 * the name since. */
		sqlite3_stmt *st;
		if ((r = prep(s,
			      "DELETE FROM ctl_sandboxes WHERE name = ? AND "
			      "sup_pid = ? AND sup_start = ? AND wire_pid = ?",
			      &st, err)) < 0)
			break;
		sqlite3_bind_text(st, 1, v[i].name, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, v[i].supervisor.pid);
		sqlite3_bind_int64(st, 3, (int64_t)v[i].supervisor.start);
		sqlite3_bind_int64(st, 4, v[i].wire.pid);
		int rc = sqlite3_step(st);
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE) {
			r = db_err(s, err, "cannot clean");
			break;
		}
		gone += (size_t)sqlite3_changes(s->db);
	}
	free(v);
	if (removed)
		*removed = gone;
	return r < 0 ? r : 0;
}

int registry_list(struct registry *s, struct registry_entry **out, size_t *n,
		  struct lnk_err *err)
{
	int r = registry_clean_stale(s, NULL, err);
	if (r < 0)
		return r;
	struct registry_entry *v = NULL;
	size_t len = 0;
	if ((r = read_all(s, &v, &len, err)) < 0)
		return r;
	/* Drop any that died between the clean and the read. */
	size_t j = 0;
	for (size_t i = 0; i < len; i++)
		if (entry_live(&v[i]))
			v[j++] = v[i];
	*out = v;
	*n = j;
	return 0;
}

int registry_find(struct registry *s, const char *name,
		  struct registry_entry *out, struct lnk_err *err)
{
	if (!registry_name_valid(name))
		return err_set(err, -ENOENT,
			       "no sandbox named '%s' is running here", name);
	sqlite3_stmt *st;
	_cleanup_free_ char *q =
	    xasprintf("SELECT %s FROM ctl_sandboxes WHERE name = ?", cols);
	int r = prep(s, q, &st, err);
	if (r < 0)
		return r;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		row_to_entry(st, out);
	else if (rc != SQLITE_DONE)
		r = db_err(s, err, "cannot read");
	sqlite3_finalize(st);
	if (r < 0)
		return r;
	if (rc != SQLITE_ROW || !entry_live(out))
		return err_set(err, -ENOENT,
			       "no sandbox named '%s' is running here", name);
	return 0;
}

int registry_stop_set(struct registry *s, bool on, int64_t at_ms,
		      struct lnk_err *err)
{
	if (!on)
		return exec(s, "DELETE FROM ctl_stop", err);
	sqlite3_stmt *st;
	/* A second stop keeps the first one's time. */
	int r = prep(
	    s, "INSERT OR IGNORE INTO ctl_stop (id, since_ms) VALUES (1, ?)",
	    &st, err);
	if (r < 0)
		return r;
	sqlite3_bind_int64(st, 1, at_ms);
	if (sqlite3_step(st) != SQLITE_DONE)
		r = db_err(s, err, "cannot write");
	sqlite3_finalize(st);
	return r;
}

int registry_stop_get(struct registry *s, bool *on, int64_t *since_ms,
		      struct lnk_err *err)
{
	sqlite3_stmt *st;
	int r = prep(s, "SELECT since_ms FROM ctl_stop WHERE id = 1", &st, err);
	if (r < 0)
		return r;
	int rc = sqlite3_step(st);
	*on = rc == SQLITE_ROW;
	if (since_ms)
		*since_ms = *on ? sqlite3_column_int64(st, 0) : 0;
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		r = db_err(s, err, "cannot read");
	sqlite3_finalize(st);
	return r;
}
