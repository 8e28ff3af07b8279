/* The registry of running sandboxes and the stop (store/registry.h), on a real
 * SQLite file, with real and dead processes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/util.h"
#include "store/hidden.h"
#include "store/secure.h"
#include "store/paths.h"
#include "store/registry.h"

struct fixture {
	char home[64];
	struct registry *s;
};

static int setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof(*f));
	snprintf(f->home, sizeof(f->home), "/tmp/lnk-test-state-XXXXXX");
	if (!mkdtemp(f->home))
		return -1;
	struct lnk_err err = {0};
	if (registry_open(f->home, &f->s, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return -1;
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	registry_close(f->s);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->home);
	if (system(cmd) != 0)
		return -1;
	free(f);
	return 0;
}

/* A process that has exited and been reaped: its pid is free. */
static struct registry_proc dead_proc(void)
{
	int p[2];
	assert_int_equal(pipe(p), 0);
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		/* Wait to be read, so the parent can note our start time. */
		char c = 0;
		(void)!write(p[1], &c, 1);
		pause();
		_exit(0);
	}
	close(p[1]);
	char c;
	assert_int_equal(read(p[0], &c, 1), 1);
	close(p[0]);
	struct registry_proc sp;
	assert_int_equal(registry_proc_self(pid, &sp), 0);
	assert_true(registry_proc_alive(&sp));
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	assert_false(registry_proc_alive(&sp));
	return sp;
}

static void entry(struct registry_entry *e, const char *name,
		  struct registry_proc sup)
{
	memset(e, 0, sizeof(*e));
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->uid = getuid();
	e->supervisor = sup;
	assert_int_equal(registry_proc_self(getpid(), &e->wire), 0);
	snprintf(e->socket, sizeof(e->socket), "/x/%s.sock", name);
	e->started_ms = registry_now_ms();
}

static void files_are_private(void **state)
{
	struct fixture *f = *state;
	char p[128];
	struct stat st;
	snprintf(p, sizeof(p), "%s/.lnk", f->home);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	snprintf(p, sizeof(p), "%s/.lnk/sandbox/lnk.db", f->home);
	assert_int_equal(stat(p, &st), 0);
}

/* A sticky folder is shared by design (/tmp): never made 0700, while
 * one of lnk's own that someone loosened is. */
static void sticky_folder_is_left_alone(void **state)
{
	struct fixture *f = *state;
	char p[128], q[160];
	struct stat st;
	struct lnk_err err = {0};
	snprintf(p, sizeof(p), "%s/shared", f->home);
	assert_int_equal(mkdir(p, 0700), 0);
	assert_int_equal(chmod(p, 01777), 0);
	assert_int_equal(paths_ensure_dir(p, &err), 0);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 01777);
	snprintf(q, sizeof(q), "%s/own", p);
	assert_int_equal(mkdir(q, 0755), 0);
	assert_int_equal(paths_ensure_dir(q, &err), 0);
	assert_int_equal(stat(q, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
}

static void register_find_list(void **state)
{
	struct fixture *f = *state;
	struct lnk_err err = {0};
	struct registry_proc me;
	assert_int_equal(registry_proc_self(getpid(), &me), 0);
	struct registry_entry e, got;
	entry(&e, "run-1", me);
	assert_int_equal(registry_register(f->s, &e, &err), 0);
	entry(&e, "alpha", me);
	assert_int_equal(registry_register(f->s, &e, &err), 0);

	assert_int_equal(registry_find(f->s, "run-1", &got, &err), 0);
	assert_string_equal(got.name, "run-1");
	assert_int_equal(got.supervisor.pid, getpid());
	assert_int_equal(got.supervisor.start, me.start);
	assert_string_equal(got.socket, "/x/run-1.sock");
	assert_false(got.closed);
	assert_int_equal(got.cause, CTL_CAUSE_NONE);

	/* A live name cannot be taken twice. */
	entry(&e, "run-1", me);
	assert_int_equal(registry_register(f->s, &e, &err), -EEXIST);
	assert_non_null(strstr(err.msg, "already running"));
	/* Invalid names are refused, and never found. */
	entry(&e, "../x", me);
	assert_int_equal(registry_register(f->s, &e, &err), -EINVAL);
	assert_int_equal(registry_find(f->s, "../x", &got, &err), -ENOENT);
	assert_int_equal(registry_find(f->s, "nope", &got, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "no sandbox named 'nope'"));

	struct registry_entry *v;
	size_t n;
	assert_int_equal(registry_list(f->s, &v, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[0].name, "alpha");
	assert_string_equal(v[1].name, "run-1");
	free(v);

	/* The sandbox's pid, once bwrap runs. */
	assert_int_equal(registry_set_sandbox(f->s, "run-1", getpid(), &err),
			 0);
	assert_int_equal(registry_find(f->s, "run-1", &got, &err), 0);
	assert_int_equal(got.sandbox.pid, getpid());
	assert_int_equal(registry_set_sandbox(f->s, "ghost", getpid(), &err),
			 -ENOENT);

	assert_int_equal(registry_unregister(f->s, "run-1", &err), 0);
	assert_int_equal(registry_find(f->s, "run-1", &got, &err), -ENOENT);
	assert_int_equal(registry_unregister(f->s, "run-1", &err), -ENOENT);
}

/* Closing the last connection does not checkpoint (no fsyncs at every
 * sandbox's end): the WAL stays, and what it holds is read back by the
 * next connection. */
static void no_checkpoint_on_close(void **state)
{
	struct fixture *f = *state;
	struct lnk_err err = {0};
	struct registry_proc me;
	assert_int_equal(registry_proc_self(getpid(), &me), 0);
	struct registry_entry e, got;
	entry(&e, "kept", me);
	assert_int_equal(registry_register(f->s, &e, &err), 0);
	registry_close(f->s);
	f->s = NULL;
	char p[128];
	struct stat st;
	snprintf(p, sizeof(p), "%s/.lnk/sandbox/lnk.db-wal", f->home);
	assert_int_equal(stat(p, &st), 0);
	assert_true(st.st_size > 0);
	assert_int_equal(registry_open(f->home, &f->s, &err), 0);
	assert_int_equal(registry_find(f->s, "kept", &got, &err), 0);
	assert_int_equal(got.supervisor.pid, getpid());
}

static void stale_entries_cleaned(void **state)
{
	struct fixture *f = *state;
	struct lnk_err err = {0};
	struct registry_proc me;
	assert_int_equal(registry_proc_self(getpid(), &me), 0);
	struct registry_entry e, got;

	entry(&e, "gone", dead_proc());
	assert_int_equal(registry_register(f->s, &e, &err), 0);
	/* A recycled pid: ours, with another start time. */
	struct registry_proc recycled = me;
	recycled.start = me.start + 1;
	entry(&e, "recycled", recycled);
	assert_int_equal(registry_register(f->s, &e, &err), 0);
	entry(&e, "live", me);
	assert_int_equal(registry_register(f->s, &e, &err), 0);

	/* Stale entries are never "running". */
	assert_int_equal(registry_find(f->s, "gone", &got, &err), -ENOENT);
	assert_int_equal(registry_find(f->s, "recycled", &got, &err), -ENOENT);

	size_t removed = 0;
	assert_int_equal(registry_clean_stale(f->s, &removed, &err), 0);
	assert_int_equal(removed, 2);
	struct registry_entry *v;
	size_t n;
	assert_int_equal(registry_list(f->s, &v, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].name, "live");
	free(v);

	/* A dead sandbox's name can be used again. */
	entry(&e, "gone2", dead_proc());
	assert_int_equal(registry_register(f->s, &e, &err), 0);
	entry(&e, "gone2", me);
	assert_int_equal(registry_register(f->s, &e, &err), 0);
	assert_int_equal(registry_find(f->s, "gone2", &got, &err), 0);
}

static void closed_state(void **state)
{
	struct fixture *f = *state;
	struct lnk_err err = {0};
	struct registry_proc me;
	assert_int_equal(registry_proc_self(getpid(), &me), 0);
	struct registry_entry e, got;
	entry(&e, "w", me);
	assert_int_equal(registry_register(f->s, &e, &err), 0);

	assert_int_equal(
	    registry_set_closed(f->s, "w", CTL_CAUSE_TRIP, TRIP_REFUSED_TARGETS,
				"h19.test:443\x1b[31m", 1234, &err),
	    0);
	assert_int_equal(registry_find(f->s, "w", &got, &err), 0);
	assert_true(got.closed);
	assert_int_equal(got.cause, CTL_CAUSE_TRIP);
	assert_int_equal(got.rule, TRIP_REFUSED_TARGETS);
	assert_int_equal(got.closed_ms, 1234);
	/* Stored printable: the table never prints an escape sequence. */
	assert_string_equal(got.detail, "h19.test:443\\x1b[31m");

	assert_int_equal(registry_set_closed(f->s, "w", CTL_CAUSE_HAND,
					     TRIP_NONE, "", 5, &err),
			 0);
	assert_int_equal(registry_find(f->s, "w", &got, &err), 0);
	assert_int_equal(got.cause, CTL_CAUSE_HAND);
	assert_int_equal(got.rule, TRIP_NONE);

	assert_int_equal(registry_set_open(f->s, "w", &err), 0);
	assert_int_equal(registry_find(f->s, "w", &got, &err), 0);
	assert_false(got.closed);
	assert_int_equal(got.cause, CTL_CAUSE_NONE);

	assert_int_equal(registry_set_closed(f->s, "w", CTL_CAUSE_NONE,
					     TRIP_NONE, "", 5, &err),
			 -EINVAL);
	assert_int_equal(registry_set_closed(f->s, "nobody", CTL_CAUSE_HAND,
					     TRIP_NONE, "", 5, &err),
			 -ENOENT);
}

static void stop_persists(void **state)
{
	struct fixture *f = *state;
	struct lnk_err err = {0};
	bool on = true;
	int64_t since = -1;
	assert_int_equal(registry_stop_get(f->s, &on, &since, &err), 0);
	assert_false(on);
	assert_int_equal(since, 0);

	assert_int_equal(registry_stop_set(f->s, true, 1000, &err), 0);
	/* A second stop keeps the first time. */
	assert_int_equal(registry_stop_set(f->s, true, 2000, &err), 0);

	/* Another connection (a wire starting later) sees it. */
	struct registry *s2;
	assert_int_equal(registry_open(f->home, &s2, &err), 0);
	assert_int_equal(registry_stop_get(s2, &on, &since, &err), 0);
	assert_true(on);
	assert_int_equal(since, 1000);
	/* Closing and reopening: it persists. */
	registry_close(s2);
	assert_int_equal(registry_open(f->home, &s2, &err), 0);
	assert_int_equal(registry_stop_get(s2, &on, NULL, &err), 0);
	assert_true(on);

	/* stop --off. */
	assert_int_equal(registry_stop_set(s2, false, 0, &err), 0);
	assert_int_equal(registry_stop_get(f->s, &on, &since, &err), 0);
	assert_false(on);
	registry_close(s2);
}

static void many_writers(void **state)
{
	struct fixture *f = *state;
	/* Processes registering and changing state at once: every write
	 * lands (WAL, busy timeout), none fails with "locked". */
	enum { N = 6, ROUNDS = 40 };
	pid_t kids[N];
	for (int k = 0; k < N; k++) {
		kids[k] = fork();
		if (kids[k] == 0) {
			struct registry *s;
			struct lnk_err err = {0};
			if (registry_open(f->home, &s, &err) < 0)
				_exit(2);
			struct registry_entry e;
			memset(&e, 0, sizeof(e));
			snprintf(e.name, sizeof(e.name), "kid-%d", k);
			e.uid = getuid();
			if (registry_proc_self(getpid(), &e.supervisor) < 0 ||
			    registry_register(s, &e, &err) < 0)
				_exit(3);
			for (int i = 0; i < ROUNDS; i++) {
				if (registry_set_closed(
					s, e.name, CTL_CAUSE_HAND, TRIP_NONE,
					"", i, &err) < 0 ||
				    registry_set_open(s, e.name, &err) < 0) {
					fprintf(stderr, "%s\n", err.msg);
					_exit(4);
				}
			}
			registry_close(s);
			_exit(0);
		}
	}
	for (int k = 0; k < N; k++) {
		int status;
		assert_int_equal(waitpid(kids[k], &status, 0), kids[k]);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	/* All exited: all stale now. */
	size_t removed = 0;
	struct lnk_err err = {0};
	assert_int_equal(registry_clean_stale(f->s, &removed, &err), 0);
	assert_int_equal(removed, N);
}

static void pidfd_checks_start_time(void **state)
{
	(void)state;
	struct registry_proc me;
	assert_int_equal(registry_proc_self(getpid(), &me), 0);
	int fd = registry_proc_pidfd(&me);
	assert_true(fd >= 0);
	close(fd);
	struct registry_proc other = me;
	other.start++;
	assert_int_equal(registry_proc_pidfd(&other), -ESRCH);
	struct registry_proc d = dead_proc();
	assert_true(registry_proc_pidfd(&d) < 0);
	struct registry_proc zero = {0};
	assert_int_equal(registry_proc_pidfd(&zero), -ESRCH);
	assert_false(registry_proc_alive(&zero));
}

/* A child that waits for a byte on fd, then exits; with prog, it runs
 * that program instead (another executable). */
static pid_t child(int fd, int wfd, const char *prog)
{
	pid_t p = fork();
	if (p == 0) {
		if (prog) {
			execl(prog, prog, "30", (char *)NULL);
			_exit(127);
		}
		char c;
		close(wfd);
		_exit(read(fd, &c, 1) < 0 ? 1 : 0);
	}
	return p;
}

static void open_proves_lnk_process(void **state)
{
	(void)state;
	struct lnk_err err = {0};
	struct registry_proc me, kid, other;
	assert_int_equal(registry_proc_self(getpid(), &me), 0);
	/* This very executable: ours. */
	int fd = registry_proc_open(&me, NULL, &err);
	assert_true(fd >= 0);
	close(fd);
	/* A fork (the wire is one): the same executable, ours. */
	int pipefd[2];
	assert_int_equal(pipe(pipefd), 0);
	pid_t k = child(pipefd[0], pipefd[1], NULL);
	assert_true(k > 0);
	assert_int_equal(registry_proc_self(k, &kid), 0);
	fd = registry_proc_open(&kid, NULL, &err);
	assert_true(fd >= 0);
	close(fd);
	/* As a sandbox: the child of a proven lnk process. */
	fd = registry_proc_open(&kid, &me, &err);
	assert_true(fd >= 0);
	close(fd);
	/* Another program (a forged row's sleep): never. */
	pid_t o = child(-1, -1, "/bin/sleep");
	assert_true(o > 0);
	for (int i = 0; i < 200; i++) {
		char exe[64], buf[256];
		snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)o);
		ssize_t n = readlink(exe, buf, sizeof(buf) - 1);
		if (n > 0 && (buf[n] = '\0', strstr(buf, "sleep")))
			break;
		usleep(10000);
	}
	assert_int_equal(registry_proc_self(o, &other), 0);
	assert_int_equal(registry_proc_open(&other, NULL, &err), -EPERM);
	assert_non_null(strstr(err.msg, "does not run lnk"));
	/* Nor as a sandbox of a process it is not the child of. */
	assert_int_equal(registry_proc_open(&other, &kid, &err), -EPERM);
	kill(o, SIGKILL);
	waitpid(o, NULL, 0);
	close(pipefd[1]);
	waitpid(k, NULL, 0);
	close(pipefd[0]);
	/* Gone: -ESRCH. */
	assert_int_equal(registry_proc_open(&kid, NULL, &err), -ESRCH);
}

static void settings_must_be_ours(void **state)
{
	(void)state;
	struct lnk_err err = {0};
	char top[64], home[128], lnk[160], file[200], link[200];
	snprintf(top, sizeof(top), "/tmp/lnk-test-secure-XXXXXX");
	assert_non_null(mkdtemp(top));
	snprintf(home, sizeof(home), "%s/home", top);
	snprintf(lnk, sizeof(lnk), "%s/.lnk", home);
	snprintf(file, sizeof(file), "%s/.lnk/f", home);
	snprintf(link, sizeof(link), "%s/.lnk/sandbox/l", home);
	assert_int_equal(mkdir(home, 0755), 0);
	/* Missing and not to be made: nothing to check. */
	assert_int_equal(secure_settings(home, false, &err), 0);
	assert_int_equal(access(lnk, F_OK), -1);
	assert_int_equal(secure_settings(home, true, &err), 0);
	struct stat st;
	assert_int_equal(lstat(lnk, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	/* A home anyone can change. */
	assert_int_equal(chmod(home, 0777), 0);
	assert_int_equal(secure_settings(home, true, &err), -EPERM);
	assert_non_null(strstr(err.msg, home));
	/* Sticky: others cannot move what is ours in it. */
	assert_int_equal(chmod(home, 01777), 0);
	assert_int_equal(secure_settings(home, true, &err), 0);
	assert_int_equal(chmod(home, 0755), 0);
	/* A file inside others can write, then a link inside. */
	FILE *fp = fopen(file, "w");
	assert_non_null(fp);
	fclose(fp);
	assert_int_equal(chmod(file, 0664), 0);
	assert_int_equal(secure_settings(home, true, &err), -EPERM);
	assert_non_null(strstr(err.msg, file));
	assert_int_equal(chmod(file, 0600), 0);
	/* A link in the sandbox's own folder: never. */
	char sb[180];
	snprintf(sb, sizeof(sb), "%s/.lnk/sandbox", home);
	assert_int_equal(mkdir(sb, 0700), 0);
	assert_int_equal(symlink("/tmp", link), 0);
	assert_int_equal(secure_settings(home, true, &err), -ELOOP);
	assert_non_null(strstr(err.msg, link));
	unlink(link);
	/* One of the rest of Link's, at the top, the user's: fine. */
	char top_link[180];
	snprintf(top_link, sizeof(top_link), "%s/.lnk/current", home);
	assert_int_equal(symlink("/tmp", top_link), 0);
	assert_int_equal(secure_settings(home, true, &err), 0);
	unlink(top_link);
	rmdir(sb);
	unlink(file);
	/* ~/.lnk itself a link. */
	assert_int_equal(rmdir(lnk), 0);
	assert_int_equal(symlink(top, lnk), 0);
	assert_int_equal(secure_settings(home, true, &err), -ELOOP);
	assert_non_null(strstr(err.msg, "symbolic link"));
	unlink(lnk);
	rmdir(home);
	rmdir(top);
}

static void hidden_folders_by_identity(void **state)
{
	(void)state;
	struct lnk_err err = {0};
	char home[64], link[128], agents[128], moved[128], hist[128];
	snprintf(home, sizeof(home), "/tmp/lnk-test-hidden-XXXXXX");
	assert_non_null(mkdtemp(home));
	snprintf(link, sizeof(link), "%s/Link", home);
	snprintf(agents, sizeof(agents), "%s/Link/Agents", home);
	snprintf(hist, sizeof(hist), "%s/Link/History", home);
	snprintf(moved, sizeof(moved), "%s/Link.moved", home);
	/* Nothing there yet: nothing to hide, nothing recorded. */
	assert_int_equal(hidden_check(home, &err), 0);
	assert_int_equal(mkdir(link, 0700), 0);
	assert_int_equal(mkdir(agents, 0700), 0);
	assert_int_equal(hidden_check(home, &err), 0); /* recorded */
	assert_int_equal(hidden_check(home, &err), 0); /* the same */
	/* Moved, and a decoy in its place. */
	assert_int_equal(rename(link, moved), 0);
	assert_int_equal(mkdir(link, 0700), 0);
	assert_int_equal(mkdir(agents, 0700), 0);
	assert_int_equal(hidden_check(home, &err), -ESTALE);
	assert_non_null(strstr(err.msg, agents));
	/* Gone. */
	assert_int_equal(rmdir(agents), 0);
	assert_int_equal(hidden_check(home, &err), -ESTALE);
	/* A link to the real one. */
	char real[160];
	snprintf(real, sizeof(real), "%s/Agents", moved);
	assert_int_equal(symlink(real, agents), 0);
	assert_int_equal(hidden_check(home, &err), -ELOOP);
	unlink(agents);
	assert_int_equal(rmdir(link), 0);
	/* Put back: fine again; a History made later is recorded too. */
	assert_int_equal(rename(moved, link), 0);
	assert_int_equal(hidden_check(home, &err), 0);
	assert_int_equal(mkdir(hist, 0700), 0);
	assert_int_equal(hidden_check(home, &err), 0);
	/* Replaced while the real one lives on elsewhere (an inode freed
	 * may be reused, but then nothing of the old folder is left). */
	char hmoved[160];
	snprintf(hmoved, sizeof(hmoved), "%s/History.moved", home);
	assert_int_equal(rename(hist, hmoved), 0);
	assert_int_equal(mkdir(hist, 0700), 0);
	assert_int_equal(hidden_check(home, &err), -ESTALE);
	/* A device renumbered at boot: the same inode on the same file
	 * system (its id) is still the same folder; another file system is
	 * not. */
	char rec[160];
	snprintf(rec, sizeof(rec), "%s/.lnk/sandbox/hidden-folders", home);
	assert_int_equal(rename(hmoved, hist), 0); /* over the empty decoy */
	assert_int_equal(hidden_check(home, &err), 0);
	FILE *fp = fopen(rec, "r");
	assert_non_null(fp);
	char lines[4][300];
	int nl = 0;
	while (nl < 4 && fgets(lines[nl], sizeof(lines[nl]), fp))
		nl++;
	fclose(fp);
	assert_true(nl >= 1);
	unsigned long long dev, ino, fsid;
	char path[200];
	assert_int_equal(
	    sscanf(lines[0], "%llu %llu %llu %199s", &dev, &ino, &fsid, path),
	    4);
	for (int pass = 0; pass < 2; pass++) {
		fp = fopen(rec, "w");
		assert_non_null(fp);
		fprintf(fp, "%llu %llu %llu %s\n", dev + 1, ino,
			pass ? fsid + 1 : fsid, path);
		for (int i = 1; i < nl; i++)
			fputs(lines[i], fp);
		fclose(fp);
		int want = pass || fsid == 0 ? -ESTALE : 0;
		assert_int_equal(hidden_check(home, &err), want);
	}
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", home);
	assert_int_equal(system(cmd), 0);
}

/* The supervisor registers every sandbox (no wire yet); its wire joins
 * that entry; a wire of another supervisor with that name is refused. */
static void wire_joins_supervisors_entry(void **state)
{
	struct fixture *f = *state;
	struct lnk_err err = {0};
	struct registry_proc me;
	assert_int_equal(registry_proc_self(getpid(), &me), 0);
	struct registry_entry sup;
	entry(&sup, "both", me);
	sup.wire = (struct registry_proc){0};
	sup.socket[0] = '\0';
	assert_int_equal(registry_register(f->s, &sup, &err), 0);
	struct registry_entry got;
	assert_int_equal(registry_find(f->s, "both", &got, &err), 0);
	assert_false(registry_entry_has_wire(&got));
	struct registry_entry w;
	entry(&w, "both", me);
	assert_int_equal(registry_register_wire(f->s, &w, &err), 0);
	assert_int_equal(registry_find(f->s, "both", &got, &err), 0);
	assert_true(registry_entry_has_wire(&got));
	assert_int_equal(got.wire.pid, getpid());
	assert_string_equal(got.socket, "/x/both.sock");
	/* Another supervisor's wire, same name, while this one lives. */
	struct registry_proc other = me;
	other.start++;
	entry(&w, "both", other);
	assert_int_equal(registry_register_wire(f->s, &w, &err), -EEXIST);
	/* A wire alone (its test harness) registers itself. */
	entry(&w, "alone", me);
	assert_int_equal(registry_register_wire(f->s, &w, &err), 0);
	assert_int_equal(registry_find(f->s, "alone", &got, &err), 0);
	/* A wire that ends leaves the entry to its live supervisor... */
	assert_int_equal(registry_unregister_wire(f->s, "both", &err), 0);
	assert_int_equal(registry_find(f->s, "both", &got, &err), 0);
	/* ...and removes one whose supervisor is gone. */
	struct registry_entry dead;
	entry(&dead, "orphan", dead_proc());
	assert_int_equal(registry_register(f->s, &dead, &err), 0);
	assert_int_equal(registry_unregister_wire(f->s, "orphan", &err), 0);
	size_t n = 0;
	struct registry_entry *v = NULL;
	assert_int_equal(registry_list(f->s, &v, &n, &err), 0);
	for (size_t i = 0; i < n; i++)
		assert_string_not_equal(v[i].name, "orphan");
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(files_are_private, setup, teardown),
	    cmocka_unit_test_setup_teardown(sticky_folder_is_left_alone, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(register_find_list, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(no_checkpoint_on_close, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(stale_entries_cleaned, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(closed_state, setup, teardown),
	    cmocka_unit_test_setup_teardown(stop_persists, setup, teardown),
	    cmocka_unit_test_setup_teardown(many_writers, setup, teardown),
	    cmocka_unit_test(pidfd_checks_start_time),
	    cmocka_unit_test(open_proves_lnk_process),
	    cmocka_unit_test(settings_must_be_ours),
	    cmocka_unit_test(hidden_folders_by_identity),
	    cmocka_unit_test_setup_teardown(wire_joins_supervisors_entry, setup,
					    teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
