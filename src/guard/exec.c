/* Naming the programs [commands] refuses.
 *
 * With [commands], Landlock's EXECUTE rights decide which files run; the
 * kernel then answers EACCES and a shell says "Permission denied", which
 * names neither lnk nor the flag that would allow the program. So the
 * filter also notifies execve and execveat, and here the guard looks at
 * the file, and when no allowed entry covers it, says so once per file on
 * stderr and in the call log. Then it lets the kernel run the call
 * (SECCOMP_USER_NOTIF_FLAG_CONTINUE): the decision stays Landlock's, so a
 * path swapped after this look changes only what is said, never what
 * runs (the one place the guard continues a call: nothing is decided
 * here). A look that cannot be completed says nothing.
 *
 * The file is found like every path of the guard (where.c: inside the
 * task's root, links followed by hand), and compared by identity (device
 * and inode) with the allowed files and, walking up to the task's root,
 * the allowed folders, as Landlock matches its rules. Not looked at:
 * fexecve (AT_EMPTY_PATH), a file without an execute bit (the kernel
 * refuses it anyway), the interpreter a script names.
 */
#include "guard/supervisor.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/esc.h"

/* Folders walked up from the file before the walk gives up (unknown). */
#define EXEC_UP_MAX 256
/* Programs named per run: a program that makes and runs a million files
 * must not flood the terminal, the log or the guard's memory. */
#define EXEC_NAMED_MAX 64

static bool listed(const struct guard_plan *p, const struct stat *st, bool dir)
{
	for (size_t i = 0; i < p->nexec; i++)
		if (p->exec_ids[i].dir == dir &&
		    p->exec_ids[i].dev == st->st_dev &&
		    p->exec_ids[i].ino == st->st_ino)
			return true;
	return false;
}

/* 1 when the file fd (in folder parent) may run, 0 when nothing allowed
 * covers it, -1 when it cannot be told. */
static int covered(const struct guard_plan *p, const struct task *t, int fd,
		   int parent)
{
	struct stat st, root;

	if (fstat(fd, &st) < 0 || fstat(t->ctx.rootfd, &root) < 0)
		return -1;
	if (listed(p, &st, false))
		return 1;
	int d = fcntl(parent, F_DUPFD_CLOEXEC, 0);
	for (int up = 0; d >= 0 && up < EXEC_UP_MAX; up++) {
		struct stat ds;
		if (fstat(d, &ds) < 0)
			break;
		if (listed(p, &ds, true)) {
			close(d);
			return 1;
		}
		if (ds.st_dev == root.st_dev && ds.st_ino == root.st_ino) {
			close(d);
			return 0;
		}
		int nd = openat(d, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		close(d);
		d = nd;
	}
	if (d >= 0)
		close(d);
	return -1;
}

/* Says it once per file: on stderr (unless quiet) and to on_exec. */
static void name_it(struct guard *n, const struct stat *st, int fd,
		    const char *asked)
{
	char self[64], path[PATH_MAX];
	_cleanup_free_ char *key =
	    xasprintf("\texec\t%llu:%llu", (unsigned long long)st->st_dev,
		      (unsigned long long)st->st_ino);

	pthread_mutex_lock(&n->mu);
	bool full = n->exec_named >= EXEC_NAMED_MAX;
	pthread_mutex_unlock(&n->mu);
	if (full || !guard_count_refusal(n, key))
		return;
	pthread_mutex_lock(&n->mu);
	unsigned long named = ++n->exec_named;
	pthread_mutex_unlock(&n->mu);
	/* Where the sandbox sees it: the same path as on the host for
	 * every granted or system folder. */
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	ssize_t len = readlink(self, path, sizeof(path) - 1);
	if (len <= 0)
		snprintf(path, sizeof(path), "%s", asked);
	else
		path[len] = '\0';
	if (!n->plan.quiet) {
		/* The suggestion is pasted into a shell: one word. */
		_cleanup_free_ char *e = esc_dup(path);
		_cleanup_free_ char *w = esc_word_dup(path);
		_cleanup_free_ char *msg =
		    xasprintf("lnk: refused to run %s: [commands] does not "
			      "allow it; --command %s allows it\n",
			      e, w);
		term_write(STDERR_FILENO, msg);
	}
	if (n->plan.on_exec)
		n->plan.on_exec(n->plan.on_exec_ctx, path);
	if (named == EXEC_NAMED_MAX && !n->plan.quiet)
		term_write(STDERR_FILENO,
			   "lnk: [commands] may refuse more programs; only "
			   "the first 64 are named\n");
}

bool guard_is_exec(long nr)
{
	return nr == __NR_execve || nr == __NR_execveat;
}

void guard_exec_note(struct guard *n, struct worker *w,
		     const struct seccomp_notif *req)
{
	bool at = req->data.nr == __NR_execveat;
	char *path = w->jb->p1;
	struct task t = guard_task_new(req, w);
	struct where wh = {.parent = -1, .magic = -1};
	char dir[32];
	int fd = -1;

	if (at && (req->data.args[4] & AT_EMPTY_PATH))
		return;
	snprintf(dir, sizeof(dir), "/proc/%d", t.tid);
	t.procfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (t.procfd < 0)
		goto out;
	if (guard_read_str(t.tid, req->data.args[at ? 1 : 0], path, PATH_MAX) <
		0 ||
	    !guard_id_valid(n, req->id) || path[0] == '\0')
		goto out;
	t.ctx.rootfd =
	    openat(t.procfd, "root", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (t.ctx.rootfd < 0)
		goto out;
	t.base[0] = guard_base_prepare(
	    &t, at ? (int)req->data.args[0] : AT_FDCWD, path, &t.base_acc[0]);
	if (t.base[0] < -1 || guard_locate(&t, t.base[0], path, &wh) < 0 ||
	    wh.magic >= 0)
		goto out;
	fd = guard_open_old_followed(&t, &wh);
	if (fd < 0)
		goto out; /* missing: ENOENT, nothing to name */
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || !(st.st_mode & 0111))
		goto out;
	if (covered(&n->plan, &t, fd, wh.parent) == 0)
		name_it(n, &st, fd, path);
out:
	if (fd >= 0)
		close(fd);
	guard_where_close(&wh);
	guard_task_close(&t);
}
