/* A tool's view of the system (tools/view.h), tried for real: each test
 * forks a child that does what the broker's child does (a session of its
 * own, the tool's folder, tools_view_enter), and the tool's process
 * checks what it sees and exits with a code that names the first check
 * that failed. Runs as root and as a user (user namespaces needed). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/util.h"
#include "tools/view.h"

struct fx {
	char dir[64];
	char secret[96], file[96], shown[96], cwd[96];
	struct strv hidden;
};

static void put(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	char p[160];

	snprintf(f->dir, sizeof(f->dir), "/tmp/lnk-view-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->secret, sizeof(f->secret), "%s/secret", f->dir);
	snprintf(f->file, sizeof(f->file), "%s/key", f->dir);
	snprintf(f->shown, sizeof(f->shown), "%s/shown", f->dir);
	snprintf(f->cwd, sizeof(f->cwd), "%s/work", f->dir);
	if (mkdir(f->secret, 0755) < 0 || mkdir(f->cwd, 0755) < 0)
		return -1;
	snprintf(p, sizeof(p), "%s/k", f->secret);
	put(p, "SECRET");
	put(f->file, "KEY");
	put(f->shown, "SHOWN");
	strv_push(&f->hidden, f->secret);
	strv_push(&f->hidden, f->file);
	strv_pushf(&f->hidden, "%s/never-made", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		return -1;
	strv_free(&f->hidden);
	free(f);
	return 0;
}

/* What the broker's child does, then body(f) in the tool's process, whose
 * return is its exit status. Returns the wait status of the child; the
 * tools_view_enter failure, if any, in err (the child's exit 125). */
typedef int (*tool_fn)(const struct fx *f);

static int run(const struct fx *f, const char *cwd, const struct strv *hid,
	       tool_fn body, char *err, size_t cap)
{
	int ep[2];
	assert_int_equal(pipe(ep), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct lnk_err e = {0};
		close(ep[0]);
		setsid();
		if (chdir(cwd) < 0)
			_exit(124);
		if (tools_view_enter(hid, &e) < 0) {
			if (write(ep[1], e.msg, strlen(e.msg)) < 0) {
			}
			_exit(125);
		}
		close(ep[1]);
		_exit(body(f));
	}
	close(ep[1]);
	ssize_t n = read(ep[0], err, cap - 1);
	err[n > 0 ? n : 0] = '\0';
	close(ep[0]);
	int ws;
	assert_int_equal(waitpid(pid, &ws, 0), pid);
	return ws;
}

static int readable(const char *path)
{
	char b[16];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, b, sizeof(b));
	close(fd);
	return n > 0;
}

static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	int n = 0;
	if (!d)
		return 0; /* unreadable: nothing to see */
	for (struct dirent *de; (de = readdir(d));)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static int sees_only_the_allowed(const struct fx *f)
{
	char p[160], here[256];
	snprintf(p, sizeof(p), "%s/k", f->secret);
	if (readable(p))
		return 10;
	if (entries(f->secret) != 0)
		return 11;
	if (readable(f->file))
		return 12;
	if (!readable(f->shown))
		return 13;
	if (!getcwd(here, sizeof(here)) || strcmp(here, f->cwd))
		return 14;
	/* the hiding cannot be written through */
	snprintf(p, sizeof(p), "%s/new", f->secret);
	if (open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0600) >= 0)
		return 15;
	return 0;
}

static void test_hidden_paths_are_out_of_sight(void **state)
{
	struct fx *f = *state;
	char err[1024];
	int ws =
	    run(f, f->cwd, &f->hidden, sees_only_the_allowed, err, sizeof(err));
	assert_string_equal(err, "");
	assert_true(WIFEXITED(ws));
	assert_int_equal(WEXITSTATUS(ws), 0);
	/* and the host's view is as it was */
	char p[160];
	snprintf(p, sizeof(p), "%s/k", f->secret);
	assert_true(readable(p));
	assert_true(readable(f->file));
}

static uid_t want_uid;
static gid_t want_gid;

static int same_ids_and_only_its_processes(const struct fx *f)
{
	(void)f;
	if (getuid() != want_uid || geteuid() != want_uid ||
	    getgid() != want_gid || getegid() != want_gid)
		return 20;
	/* its /proc: pid 1 of the namespace and the tool */
	int pids = 0;
	DIR *d = opendir("/proc");
	if (!d)
		return 21;
	for (struct dirent *de; (de = readdir(d));)
		if (de->d_name[0] >= '1' && de->d_name[0] <= '9')
			pids++;
	closedir(d);
	if (pids != 2 || getppid() != 1)
		return 22;
	/* the processes around it cannot be read */
	if (readable("/proc/1/environ"))
		return 23;
	/* every signal back to its default, none blocked */
	struct sigaction sa;
	sigset_t mask;
	if (sigaction(SIGINT, NULL, &sa) < 0 || sa.sa_handler != SIG_DFL ||
	    sigaction(SIGTERM, NULL, &sa) < 0 || sa.sa_handler != SIG_DFL)
		return 24;
	if (sigprocmask(SIG_SETMASK, NULL, &mask) < 0 ||
	    sigismember(&mask, SIGINT))
		return 25;
	return 0;
}

static void test_same_ids_own_proc_default_signals(void **state)
{
	struct fx *f = *state;
	char err[1024];
	want_uid = getuid();
	want_gid = getgid();
	int ws = run(f, f->cwd, &f->hidden, same_ids_and_only_its_processes,
		     err, sizeof(err));
	assert_string_equal(err, "");
	assert_true(WIFEXITED(ws));
	assert_int_equal(WEXITSTATUS(ws), 0);
}

/* A tool that makes a user and mount namespace of its own (anyone may)
 * holds every capability there: the mounts it inherits are locked, so
 * unmounting what hides fails. As root, the tool is root of its user
 * namespace, and cannot unmount them either. */
static int cannot_unmount_what_hides(const struct fx *f)
{
	char p[160];
	snprintf(p, sizeof(p), "%s/k", f->secret);
	if (umount2(f->secret, MNT_DETACH) == 0 ||
	    umount2("/proc", MNT_DETACH) == 0)
		return 30;
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
		return 31;
	if (umount2(f->secret, MNT_DETACH) == 0 || umount2(f->secret, 0) == 0)
		return 32;
	if (umount2("/proc", MNT_DETACH) == 0)
		return 33;
	if (readable(p))
		return 34;
	return 0;
}

static void test_nested_namespace_cannot_unmount(void **state)
{
	struct fx *f = *state;
	char err[1024];
	int ws = run(f, f->cwd, &f->hidden, cannot_unmount_what_hides, err,
		     sizeof(err));
	assert_string_equal(err, "");
	assert_true(WIFEXITED(ws));
	assert_int_equal(WEXITSTATUS(ws), 0);
}

static int ends_by_sigterm(const struct fx *f)
{
	(void)f;
	kill(getpid(), SIGTERM);
	return 99;
}

static int exits_seven(const struct fx *f)
{
	(void)f;
	return 7;
}

static void test_tool_status_passes_through(void **state)
{
	struct fx *f = *state;
	char err[1024];
	int ws = run(f, f->cwd, &f->hidden, exits_seven, err, sizeof(err));
	assert_true(WIFEXITED(ws));
	assert_int_equal(WEXITSTATUS(ws), 7);
	ws = run(f, f->cwd, &f->hidden, ends_by_sigterm, err, sizeof(err));
	assert_true(WIFEXITED(ws));
	assert_int_equal(WEXITSTATUS(ws), 128 + SIGTERM);
}

/* A signal to the whole process group (the broker passing Ctrl-C) ends
 * the tool, not the processes that wait for it. */
static void test_group_signal_reaches_the_tool(void **state)
{
	struct fx *f = *state;
	int ready[2];
	assert_int_equal(pipe(ready), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct lnk_err e = {0};
		close(ready[0]);
		setsid();
		if (chdir(f->cwd) < 0 || tools_view_enter(&f->hidden, &e) < 0)
			_exit(125);
		if (write(ready[1], "r", 1) != 1)
			_exit(124);
		pause();
		_exit(0);
	}
	close(ready[1]);
	char c;
	assert_int_equal(read(ready[0], &c, 1), 1);
	close(ready[0]);
	assert_int_equal(kill(-pid, SIGINT), 0);
	int ws;
	assert_int_equal(waitpid(pid, &ws, 0), pid);
	assert_true(WIFEXITED(ws));
	assert_int_equal(WEXITSTATUS(ws), 128 + SIGINT);
}

static int never(const struct fx *f)
{
	(void)f;
	return 98;
}

/* A folder beneath a hidden one is not the folder its path names in the
 * view: refused, never entered. */
static void test_folder_beneath_a_hidden_one_is_refused(void **state)
{
	struct fx *f = *state;
	char err[1024];
	int ws = run(f, f->secret, &f->hidden, never, err, sizeof(err));
	assert_true(WIFEXITED(ws));
	assert_int_equal(WEXITSTATUS(ws), 125);
	assert_non_null(strstr(err, "the tool's folder"));
	assert_non_null(strstr(err, f->secret));
}

/* A working folder held from another mount namespace (where nothing is
 * hidden) is refused: `..` from there would walk that namespace's tree.
 * The folder comes from a process in a mount namespace of its own,
 * through /proc/PID/cwd. */
static void test_folder_of_another_mount_namespace_is_refused(void **state)
{
	struct fx *f = *state;
	int ready[2], hold[2];
	assert_int_equal(pipe(ready), 0);
	assert_int_equal(pipe(hold), 0);
	fflush(NULL);
	pid_t other = fork();
	assert_true(other >= 0);
	if (other == 0) {
		int fl = CLONE_NEWNS | (geteuid() ? CLONE_NEWUSER : 0);
		char c;
		close(ready[0]);
		close(hold[1]);
		if (unshare(fl) < 0 || chdir(f->cwd) < 0)
			_exit(1);
		if (write(ready[1], "r", 1) != 1 || read(hold[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	char c, link[64], err[1024] = "";
	assert_int_equal(read(ready[0], &c, 1), 1);
	snprintf(link, sizeof(link), "/proc/%d/cwd", (int)other);
	int ep[2];
	assert_int_equal(pipe(ep), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct lnk_err e = {0};
		close(hold[1]);
		setsid();
		int d = open(link, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (d < 0 || fchdir(d) < 0)
			_exit(124);
		if (tools_view_enter(&f->hidden, &e) < 0) {
			if (write(ep[1], e.msg, strlen(e.msg)) < 0) {
			}
			_exit(125);
		}
		_exit(0);
	}
	close(ep[1]);
	ssize_t n = read(ep[0], err, sizeof(err) - 1);
	err[n > 0 ? n : 0] = '\0';
	int ws;
	assert_int_equal(waitpid(pid, &ws, 0), pid);
	close(hold[1]);
	assert_int_equal(waitpid(other, NULL, 0), other);
	assert_true(WIFEXITED(ws));
	assert_int_equal(WEXITSTATUS(ws), 125);
	assert_non_null(strstr(err, "the tool's folder"));
	close(ready[0]);
	close(ready[1]);
	close(hold[0]);
	close(ep[0]);
}

/* A hidden path that is a link hides what it names (a home under a
 * linked /home); a relative one is refused. */
static int target_hidden(const struct fx *f)
{
	return readable(f->shown) ? 40 : 0;
}

static void test_link_in_a_hidden_path_hides_its_target(void **state)
{
	struct fx *f = *state;
	char err[1024], link[128];
	struct strv hid = {0};

	snprintf(link, sizeof(link), "%s/link", f->dir);
	assert_int_equal(symlink(f->shown, link), 0);
	strv_push(&hid, link);
	int ws = run(f, f->cwd, &hid, target_hidden, err, sizeof(err));
	assert_string_equal(err, "");
	assert_true(WIFEXITED(ws));
	assert_int_equal(WEXITSTATUS(ws), 0);
	strv_free(&hid);
	strv_push(&hid, "relative/path");
	ws = run(f, f->cwd, &hid, never, err, sizeof(err));
	assert_int_equal(WEXITSTATUS(ws), 125);
	assert_non_null(strstr(err, "must be absolute"));
	strv_free(&hid);
	unlink(link);
}

/* A broker killed outright (SIGKILL: no chance to end its tools) takes
 * the waiter, pid 1 and the tool with it. Each holds the pipe's write
 * end: its end of file says all are gone. */
static void test_killed_broker_ends_them_all(void **state)
{
	struct fx *f = *state;
	int p[2];
	assert_int_equal(pipe(p), 0);
	pid_t broker = fork();
	assert_true(broker >= 0);
	if (broker == 0) {
		pid_t child = fork();
		if (child == 0) {
			struct lnk_err e = {0};
			close(p[0]);
			setsid();
			(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (chdir(f->cwd) < 0 ||
			    tools_view_enter(&f->hidden, &e) < 0)
				_exit(125);
			if (write(p[1], "r", 1) != 1)
				_exit(124);
			/* a survivor says so, and ends */
			sleep(30);
			if (write(p[1], "s", 1) != 1)
				_exit(124);
			_exit(0);
		}
		close(p[0]);
		close(p[1]);
		for (;;)
			pause();
	}
	close(p[1]);
	char c;
	assert_int_equal(read(p[0], &c, 1), 1);
	assert_int_equal(kill(broker, SIGKILL), 0);
	assert_int_equal(waitpid(broker, NULL, 0), broker);
	/* end of file once every holder is gone; a surviving tool writes
	 * first */
	assert_int_equal(read(p[0], &c, 1), 0);
	close(p[0]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hidden_paths_are_out_of_sight),
	    cmocka_unit_test(test_same_ids_own_proc_default_signals),
	    cmocka_unit_test(test_nested_namespace_cannot_unmount),
	    cmocka_unit_test(test_tool_status_passes_through),
	    cmocka_unit_test(test_group_signal_reaches_the_tool),
	    cmocka_unit_test(test_folder_beneath_a_hidden_one_is_refused),
	    cmocka_unit_test(test_link_in_a_hidden_path_hides_its_target),
	    cmocka_unit_test(test_killed_broker_ends_them_all),
	    cmocka_unit_test(test_folder_of_another_mount_namespace_is_refused),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
