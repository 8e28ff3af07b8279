/* One sandboxed task, as the worker sees it: its status, its memory
 * (read once), its descriptors and its controlling terminal. */
#include "guard/supervisor.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

struct task guard_task_new(const struct seccomp_notif *req, struct worker *w)
{
	return (struct task){.tid = (pid_t)req->pid,
			     .id = req->id,
			     .procfd = -1,
			     .ctx = {.rootfd = -1, .procfd = -1},
			     .base = {-1, -1},
			     .base_acc = {O_PATH, O_PATH},
			     .pidfd = -1,
			     .sfd = -1,
			     .ctty = GUARD_CTTY_UNKNOWN,
			     .w = w};
}

void guard_task_close(struct task *t)
{
	if (t->procfd >= 0)
		close(t->procfd);
	if (t->ctx.rootfd >= 0)
		close(t->ctx.rootfd);
	for (int i = 0; i < 2; i++)
		if (t->base[i] >= 0)
			close(t->base[i]);
	if (t->sfd >= 0)
		close(t->sfd);
	if (t->pidfd >= 0)
		close(t->pidfd);
	if (t->ctty >= 0)
		close(t->ctty);
}

int guard_task_status(struct task *t)
{
	char buf[4096];
	ssize_t n;
	bool um = false, tg = false, ce = false;

	if (t->status_read)
		return 0;
	int fd = openat(t->procfd, "status", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	/* strstr + strtoull: sscanf on every line showed in profiles */
	const char *p;
	char *end;
	if ((p = strstr(buf, "\nUmask:\t"))) {
		t->umask = (mode_t)(strtoul(p + 8, &end, 8) & 0777);
		um = end != p + 8;
	}
	if ((p = strstr(buf, "\nTgid:\t"))) {
		t->tgid = (pid_t)strtol(p + 7, &end, 10);
		tg = end != p + 7 && t->tgid > 0;
	}
	if ((p = strstr(buf, "\nCapEff:\t"))) {
		t->capeff = strtoull(p + 9, &end, 16);
		ce = end != p + 9;
	}
	if (!um || !tg || !ce)
		return -EIO; /* fail closed: a kernel without Umask: */
	t->status_read = true;
	return 0;
}

/* Reads a NUL-terminated string at addr from the task, page by page (a
 * string that ends just before an unmapped page is valid). */
int guard_read_str(pid_t tid, uint64_t addr, char *buf, size_t cap)
{
	size_t got = 0;
	long page = sysconf(_SC_PAGESIZE);

	if (!addr)
		return -EFAULT;
	while (got < cap) {
		uint64_t a = addr + got;
		size_t chunk = (size_t)page - (size_t)(a % (uint64_t)page);
		if (chunk > cap - got)
			chunk = cap - got;
		struct iovec l = {buf + got, chunk};
		struct iovec r = {(void *)(uintptr_t)a, chunk};
		ssize_t n = process_vm_readv(tid, &l, 1, &r, 1, 0);
		if (n <= 0)
			return n < 0 && errno != EFAULT ? -EPERM : -EFAULT;
		char *z = memchr(buf + got, '\0', (size_t)n);
		if (z)
			return 0;
		got += (size_t)n;
	}
	return -ENAMETOOLONG;
}

int guard_read_mem(pid_t tid, uint64_t addr, void *buf, size_t len)
{
	struct iovec l = {buf, len};
	struct iovec r = {(void *)(uintptr_t)addr, len};
	ssize_t n = process_vm_readv(tid, &l, 1, &r, 1, 0);

	if (n < 0)
		return errno == EFAULT ? -EFAULT : -EPERM;
	return (size_t)n == len ? 0 : -EFAULT;
}

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

/* The task's own descriptor fd, as the very open file it holds
 * (pidfd_getfd): its access mode is then the one it was opened with, and
 * what we act on is what we looked at (opening /proc/TID/fd/N by name
 * could meet another file dup2'ed there meanwhile). A thread with a
 * descriptor table of its own (unshare(CLONE_FILES)) is asked by its tid;
 * before Linux 6.9 (no PIDFD_THREAD), by its thread group. */
int guard_task_getfd(struct task *t, int fd)
{
	if (t->pidfd < 0) {
		t->pidfd = (int)syscall(SYS_pidfd_open, t->tid, PIDFD_THREAD);
		if (t->pidfd < 0 && errno == EINVAL &&
		    guard_task_status(t) == 0)
			t->pidfd = (int)syscall(SYS_pidfd_open, t->tgid, 0);
		if (t->pidfd < 0)
			return -EPERM;
		/* pidfd_open takes a number, which a task killed since
		 * prep's check could have passed on to another process: the
		 * notification still pending means the task still lives, so
		 * the pidfd is its own. */
		uint64_t id = t->id;
		if (ioctl(t->w->n->listener, SECCOMP_IOCTL_NOTIF_ID_VALID,
			  &id) < 0)
			return -ENOENT;
	}
	int r = (int)syscall(SYS_pidfd_getfd, t->pidfd, fd, 0);
	if (r < 0)
		return errno == EBADF ? -EBADF : -EPERM;
	return r;
}

/* The task's controlling terminal, O_PATH, found among its open
 * descriptors (the worker's job: it needs ptrace rights over the task);
 * GUARD_CTTY_NONE when it has none or holds none open. */
int guard_find_ctty(struct task *t)
{
	char buf[1024];
	unsigned long nr;
	int fd = openat(t->procfd, "stat", O_RDONLY | O_CLOEXEC);
	ssize_t len;

	if (fd < 0)
		return GUARD_CTTY_NONE;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return GUARD_CTTY_NONE;
	buf[len] = '\0';
	if (guard_stat_tty_nr(buf, &nr) < 0 || nr == 0)
		return GUARD_CTTY_NONE;
	dev_t want = guard_tty_dev(nr);
	int dfd = openat(t->procfd, "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return GUARD_CTTY_NONE;
	DIR *d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return GUARD_CTTY_NONE;
	}
	int found = GUARD_CTTY_NONE;
	struct dirent *e;
	while (found < 0 && (e = readdir(d))) {
		struct stat st;
		if (e->d_name[0] == '.' ||
		    fstatat(dfd, e->d_name, &st, 0) < 0 ||
		    !S_ISCHR(st.st_mode) || st.st_rdev != want)
			continue;
		int o = openat(dfd, e->d_name, O_PATH | O_CLOEXEC);
		if (o < 0)
			continue;
		if (fstat(o, &st) == 0 && S_ISCHR(st.st_mode) &&
		    st.st_rdev == want)
			found = o;
		else
			close(o);
	}
	closedir(d);
	return found;
}
