/* The supervisor (see spawn.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "launch/askterm.h"
#include "launch/hostview.h"
#include "launch/plan.h"
#include "launch/spawn.h"

/* What lnk forwards to the program (through the sandbox's pid 1,
 * lnk-init, which forwards them on: src/init/reaper.c), and SIGCHLD and
 * SIGWINCH, which it handles itself. */
static const int forwarded[] = {SIGINT,	 SIGTERM, SIGHUP,
				SIGQUIT, SIGUSR1, SIGUSR2};
static void forwarded_set(sigset_t *s)
{
	sigemptyset(s);
	for (size_t i = 0; i < ARRAY_SIZE(forwarded); i++)
		sigaddset(s, forwarded[i]);
}

static void handled_set(sigset_t *s)
{
	forwarded_set(s);
	sigaddset(s, SIGCHLD);
	sigaddset(s, SIGWINCH);
}

void spawn_block_signals(void)
{
	sigset_t s;
	handled_set(&s);
	sigprocmask(SIG_BLOCK, &s, NULL);
}

void spawn_cloexec_inherited(void)
{
	if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) == 0)
		return;
	/* Kernels before 5.11: walk /proc/self/fd. */
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return;
	int self = dirfd(d);
	struct dirent *de;
	while ((de = readdir(d))) {
		int fd = atoi(de->d_name);
		if (fd > 2 && fd != self)
			fcntl(fd, F_SETFD, FD_CLOEXEC);
	}
	closedir(d);
}

bool spawn_wants_pty(void)
{
	return isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
}

/* Config travels into the sandbox only in sealed memfds: once sealed,
 * nothing (not even lnk) can change what bwrap and init read, so there is
 * no window between planning and use (invariant 6). */
static int sealed_memfd(const char *name, const void *data, size_t len,
			struct lnk_err *err)
{
	int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return err_set(err, -errno, "memfd_create: %s",
			       strerror(errno));
	int r = write_all(fd, data, len);
	if (r == 0 &&
	    fcntl(fd, F_ADD_SEALS,
		  F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0)
		r = -errno;
	if (r == 0 && lseek(fd, 0, SEEK_SET) < 0)
		r = -errno;
	if (r < 0) {
		close(fd);
		return err_set(err, r, "cannot seal the %s memfd: %s", name,
			       strerror(-r));
	}
	return fd;
}

static int opts_memfd(const struct strv *opts, struct lnk_err *err)
{
	struct buf b = {0};
	for (size_t i = 0; i < opts->n; i++)
		buf_append(&b, opts->v[i], strlen(opts->v[i]) + 1);
	int fd = sealed_memfd("lnk-bwrap-args", b.p ? b.p : "", b.len, err);
	buf_free(&b);
	return fd;
}

struct pty {
	int master, slave;
	struct termios orig;
	bool raw;
};

static int pty_open(struct pty *p, struct lnk_err *err)
{
	char name[128];
	p->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (p->master < 0)
		return err_set(err, -errno, "cannot open a pseudo-terminal: %s",
			       strerror(errno));
	if (grantpt(p->master) < 0 || unlockpt(p->master) < 0 ||
	    ptsname_r(p->master, name, sizeof(name)) != 0)
		return err_set(err, -errno,
			       "cannot set up a pseudo-terminal: %s",
			       strerror(errno));
	p->slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (p->slave < 0)
		return err_set(err, -errno, "cannot open '%s': %s", name,
			       strerror(errno));
	/* The program's terminal starts as the user's: same modes, size. */
	if (tcgetattr(STDIN_FILENO, &p->orig) == 0)
		tcsetattr(p->slave, TCSANOW, &p->orig);
	struct winsize ws;
	if (ioctl(STDIN_FILENO, TIOCGWINSZ, &ws) == 0)
		ioctl(p->master, TIOCSWINSZ, &ws);
	return 0;
}

static void pty_raw(struct pty *p)
{
	struct termios raw = p->orig;
	cfmakeraw(&raw);
	if (tcsetattr(STDIN_FILENO, TCSADRAIN, &raw) == 0)
		p->raw = true;
}

static void pty_restore(struct pty *p)
{
	if (p->raw)
		tcsetattr(STDIN_FILENO, TCSADRAIN, &p->orig);
	p->raw = false;
}

/* In the child, between fork and exec: only async-signal-safe calls. */
__attribute__((noreturn)) static void
child(const struct spawn_req *r, const struct pty *p, const int src[],
      int tmp[], size_t nsrc, char *const *argv, char *const *argv_fallback)
{
	sigset_t fwd;
	forwarded_set(&fwd);
	/* The forwarded signals stay blocked in bwrap and, through its
	 * clone and exec, in lnk-init: the sandbox's pid 1 from the clone
	 * on, and a pid 1 drops a signal it has no handler for. Blocked, one
	 * that lnk sends while bwrap is still making the sandbox waits for
	 * lnk-init, which stops before the program starts or forwards it
	 * (src/init/reaper.c). lnk-init gives the program an empty mask.
	 * With a pty, ^C and ^\ typed before the program takes the pty's
	 * foreground would signal bwrap: blocked, they never end it (so it
	 * never SIGKILLs the program instead). Without a pty, bwrap gets a
	 * process group of its own, so a ^C on the user's terminal reaches
	 * only lnk, which forwards it. */
	if (!r->pty)
		setpgid(0, 0);
	/* Into the sandbox's cgroups before bwrap runs, so that every
	 * process it makes is counted there ("0": the writer itself): when
	 * lnk made them before bwrap (cgroup v2, or no guard's socket to
	 * hand them to lnk-init on; launch/limits.h). */
	for (int i = 0; i < 2; i++)
		if (r->cgroup_procs[i] >= 0 &&
		    write(r->cgroup_procs[i], "0", 1) != 1) {
			static const char m[] =
			    "lnk: cannot move the sandbox into its cgroup\n";
			if (write(2, m, sizeof(m) - 1) < 0) {
			}
			_exit(LNK_EXIT_FAIL);
		}
	signal(SIGINT, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	sigprocmask(SIG_SETMASK, &fwd, NULL);

	if (r->pty) {
		/* The pty becomes the controlling terminal of a new session:
		 * the real terminal is no longer the program's, so TIOCSTI
		 * and job control reach only the pty. */
		if (setsid() < 0 || ioctl(p->slave, TIOCSCTTY, 0) < 0)
			_exit(LNK_EXIT_FAIL);
		if (dup2(p->slave, 0) < 0 || dup2(p->slave, 1) < 0)
			_exit(LNK_EXIT_FAIL);
		if (isatty(2) && dup2(p->slave, 2) < 0)
			_exit(LNK_EXIT_FAIL);
	}

	/* As root, bwrap starts from a view of the host of its own; when
	 * that cannot be made, it binds the device nodes' copies itself. */
	if (r->view && hostview_enter(r->view) < 0)
		argv = argv_fallback;

	/* Each descriptor into its slot: first above every slot (so no
	 * source is overwritten), then down. tmp was allocated before the
	 * fork: no malloc here. */
	int end = LAUNCH_FD_ARGS + (int)nsrc;
	for (size_t i = 0; i < nsrc; i++) {
		tmp[i] = -1;
		if (src[i] >= 0 &&
		    (tmp[i] = fcntl(src[i], F_DUPFD_CLOEXEC, end)) < 0)
			_exit(LNK_EXIT_FAIL);
	}
	for (size_t i = 0; i < nsrc; i++) {
		int slot = LAUNCH_FD_ARGS + (int)i;
		if (tmp[i] >= 0) {
			if (dup2(tmp[i], slot) < 0)
				_exit(LNK_EXIT_FAIL);
		} else {
			close(slot);
		}
	}
	/* Everything else closes here, whatever lnk inherited. */
	if (syscall(SYS_close_range, (unsigned)end, ~0U, 0) < 0)
		for (int fd = end; fd < 65536; fd++)
			close(fd);

	char *const envp[] = {NULL};
	execve(r->bwrap, argv, envp);
	static const char msg[] = "lnk: cannot run bubblewrap\n";
	if (write(2, msg, sizeof(msg) - 1) < 0) {
	}
	_exit(LNK_EXIT_FAIL);
}

static pid_t parent_of(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	_cleanup_free_ char *s = NULL;
	size_t len;
	if (read_file(path, 4096, &s, &len) < 0)
		return -1;
	/* "pid (comm) state ppid ...": comm may hold spaces and ')'. */
	char *e = strrchr(s, ')');
	int ppid;
	char state;
	if (!e || sscanf(e + 1, " %c %d", &state, &ppid) != 2)
		return -1;
	return ppid;
}

#define LOOP_IN_MAX 65536

struct loop {
	const struct spawn_req *r;
	struct pty *p;
	pid_t bwrap;
	pid_t reaper;  /* the sandbox's pid 1 (lnk-init), as bwrap reported */
	int reaper_fd; /* a pidfd on it, or -1 (kernels before 5.3) */
	int info;      /* read end of --info-fd, or -1 */
	char infobuf[512];
	size_t infolen;
	bool started;
	int held; /* a signal that came before bwrap reported its pid 1 */
	bool exited;
	int wstatus;
	/* stdin -> pty, not yet written: with a pty only (64 KiB a run
	 * touched and zeroed for nothing without one) */
	char *in;
	size_t inlen;
	bool stdin_open, master_open;
	/* end_on_hangup: the lifeline's write end (closing it ends the
	 * sandbox: lnk-init kills everything), and when the connection went
	 * away, the time to close it. */
	int *lifeline;
	bool hung_up, watch_out;
	struct timespec end_at;
	int ended_fd; /* spawn_req's ended_fd, until ended is called */
};

struct child_args {
	const struct spawn_req *r;
	const struct pty *p;
	const int *src;
	int *tmp;
	size_t nsrc;
	char *const *argv;
	char *const *argv_fallback;
	bool batch; /* lnk was SCHED_BATCH for the clone: undo it here */
};

static int child_main(void *arg)
{
	const struct child_args *a = arg;
	/* bwrap, lnk-init and the program get the policy lnk had. Cannot
	 * fail (a fair policy to another at the same nice value); if it
	 * did, no sandbox runs with a policy nobody asked for. */
	if (a->batch) {
		const struct sched_param sp = {0};
		if (sched_setscheduler(0, SCHED_OTHER, &sp) < 0) {
			static const char m[] =
			    "lnk: cannot restore the scheduling policy\n";
			if (write(2, m, sizeof(m) - 1) < 0) {
			}
			_exit(LNK_EXIT_FAIL);
		}
	}
	child(a->r, a->p, a->src, a->tmp, a->nsrc, a->argv, a->argv_fallback);
}

/* The child that becomes bwrap shares lnk's memory until its exec
 * (CLONE_VM | CLONE_VFORK, on a stack of its own, as posix_spawn does):
 * a fork copied lnk's page tables, and the exec then tore that copy down
 * again, page by page, before bwrap could start: 0.4 to 1.6 ms between
 * the fork and bwrap's exec (sched tracepoints, as the user). lnk waits
 * meanwhile; it has no other thread here (the registration and the
 * guard's threads start after), so nothing else runs in the memory the
 * child shares. The child writes only its own stack, tmp (scratch of the
 * caller's) and its own descriptors, signal actions and mask; it calls no
 * malloc. The pid, or -errno. */
static pid_t spawn_clone(struct child_args *ca)
{
	const size_t size = 256 * 1024;
	void *stack = mmap(NULL, size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		return -errno;
	/* The child's exec wakes lnk from the vfork, most often on the
	 * child's own CPU, where a woken SCHED_OTHER task may preempt the
	 * one running: lnk's next steps (its threads, the registration)
	 * then ran while bwrap waited mid-exec, up to 1.8 ms (sched
	 * tracepoints: from the clone to bwrap's exec, median 0.34 ms and
	 * 90th percentile 1.76 ms). A SCHED_BATCH task never preempts on
	 * wake-up (0.26 and 0.34 ms), so lnk is one for the clone alone;
	 * the child puts the policy back before anything else. Only from
	 * plain SCHED_OTHER: any other policy (or reset-on-fork) stays as
	 * it is. */
	const struct sched_param sp = {0};
	ca->batch = sched_getscheduler(0) == SCHED_OTHER &&
		    sched_setscheduler(0, SCHED_BATCH, &sp) == 0;
	pid_t pid = clone(child_main, (char *)stack + size,
			  CLONE_VM | CLONE_VFORK | SIGCHLD, ca);
	int e = errno;
	if (ca->batch)
		(void)sched_setscheduler(0, SCHED_OTHER, &sp);
	munmap(stack, size);
	return pid < 0 ? -e : pid;
}

static void forward(struct loop *l, int sig);

static int64_t ms_until(const struct timespec *t)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)(t->tv_sec - now.tv_sec) * 1000 +
	       (t->tv_nsec - now.tv_nsec) / 1000000;
}

/* The session's connection is gone (end_on_hangup): the program hears of
 * it as from a terminal (SIGHUP), and its sandbox ends after the grace
 * time even if it does not listen. sighup: the signal itself came, and was
 * forwarded already. */
static void hangup(struct loop *l, bool sighup)
{
	if (!l->r->end_on_hangup || l->hung_up)
		return;
	l->hung_up = true;
	l->watch_out = false;
	if (!sighup)
		forward(l, SIGHUP);
	clock_gettime(CLOCK_MONOTONIC, &l->end_at);
	l->end_at.tv_sec += SPAWN_HANGUP_GRACE_MS / 1000;
	l->end_at.tv_nsec += (SPAWN_HANGUP_GRACE_MS % 1000) * 1000000L;
	if (l->end_at.tv_nsec >= 1000000000L) {
		l->end_at.tv_sec++;
		l->end_at.tv_nsec -= 1000000000L;
	}
}

static void read_info(struct loop *l)
{
	ssize_t n = read(l->info, l->infobuf + l->infolen,
			 sizeof(l->infobuf) - 1 - l->infolen);
	if (n <= 0) {
		close(l->info);
		l->info = -1;
	} else {
		l->infolen += (size_t)n;
	}
	l->infobuf[l->infolen] = '\0';
	const char *k = strstr(l->infobuf, "\"child-pid\":");
	if (k && l->reaper <= 0) {
		long pid = strtol(k + strlen("\"child-pid\":"), NULL, 10);
		/* bwrap writes it once the namespaces exist: the sandbox
		 * started, even if the program is already gone. */
		l->started |= pid > 0;
		/* Signal it only if it is bwrap's own child. The pidfd is
		 * taken first: if the pid is still bwrap's child after, the
		 * pidfd names that process, and no reused pid is signalled
		 * once it is gone. */
		if (pid > 0) {
			int fd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
			if (parent_of((pid_t)pid) == l->bwrap) {
				l->reaper = (pid_t)pid;
				l->reaper_fd = fd;
			} else if (fd >= 0) {
				close(fd);
			}
		}
		if (l->reaper > 0 && l->held)
			forward(l, l->held);
	}
}

/* lnk-init, the sandbox's pid 1, forwards to the program (the signal waits
 * there, blocked, if the program has not started yet: src/init/reaper.c). */
static void forward(struct loop *l, int sig)
{
	if (l->reaper_fd >= 0) {
		syscall(SYS_pidfd_send_signal, l->reaper_fd, sig, NULL, 0);
		return;
	}
	/* Without a pidfd: the pid, reported by bwrap as its child. ESRCH
	 * in either case means pid 1 is gone and bwrap is about to exit
	 * with the program's own status, which must not be overridden. */
	if (l->reaper > 0) {
		kill(l->reaper, sig);
		return;
	}
	/* bwrap has not reported its pid 1 yet: hold the signal until it
	 * does (it reports right after its clone, or fails and exits).
	 * Killing bwrap now would race its start: killed between its clone
	 * and its go-ahead to the child, it leaves that child waiting
	 * forever (lnk-init never runs, so its lifeline cannot end it).
	 * lnk-init, given the signal, stops before the program starts
	 * (128+N). */
	if (!l->held)
		l->held = sig;
}

static void on_signal(struct loop *l, int sig)
{
	switch (sig) {
	case SIGCHLD:
		if (!l->exited) {
			pid_t w = waitpid(l->bwrap, &l->wstatus, WNOHANG);
			if (w == l->bwrap)
				l->exited = true;
		}
		break;
	case SIGWINCH:
		if (l->r->pty) {
			struct winsize ws;
			if (ioctl(STDIN_FILENO, TIOCGWINSZ, &ws) == 0)
				ioctl(l->p->master, TIOCSWINSZ, &ws);
		}
		break;
	default:
		if (!l->exited)
			forward(l, sig);
		if (sig == SIGHUP)
			hangup(l, true);
		break;
	}
}

/* Copies what the program wrote on its pty to lnk's stdout, or, while a
 * question is on the terminal, holds it (askterm.h). false at the end
 * (EIO: every process closed the pty). */
static bool relay_out(struct loop *l)
{
	char b[16384];
	bool hold = askterm_asking(l->r->ask);
	size_t room = hold ? askterm_hold_room(l->r->ask) : sizeof(b);
	if (room == 0)
		return true; /* held full: the pty waits, nothing is dropped */
	ssize_t n = read(l->p->master, b, room < sizeof(b) ? room : sizeof(b));
	if (n > 0 && hold) {
		askterm_hold(l->r->ask, b, (size_t)n);
		return true;
	}
	if (n > 0) {
		write_all(STDOUT_FILENO, b, (size_t)n);
		return true;
	}
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return true;
	return false;
}

static void relay_in(struct loop *l)
{
	if (askterm_asking(l->r->ask)) {
		/* A question is up: these keystrokes are lnk's, never the
		 * program's. */
		char k[256];
		ssize_t n = read(STDIN_FILENO, k, sizeof(k));
		if (n > 0)
			askterm_keys(l->r->ask, k, (size_t)n);
		else if (n == 0 || (errno != EINTR && errno != EAGAIN))
			l->stdin_open = false;
		return;
	}
	ssize_t n =
	    read(STDIN_FILENO, l->in + l->inlen, LOOP_IN_MAX - l->inlen);
	if (n > 0) {
		l->inlen += (size_t)n;
	} else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
		/* A terminal in raw mode ends only when it hangs up. */
		l->stdin_open = false;
		hangup(l, false);
	}
}

static void flush_in(struct loop *l)
{
	ssize_t n = write(l->p->master, l->in, l->inlen);
	if (n > 0) {
		memmove(l->in, l->in + n, l->inlen - (size_t)n);
		l->inlen -= (size_t)n;
	} else if (n < 0 && errno != EAGAIN && errno != EINTR) {
		l->inlen = 0;
	}
}

static int run_loop(struct loop *l, int sfd)
{
	while (!l->exited) {
		struct pollfd pf[7];
		int n = 0, i_sig = -1, i_info = -1, i_in = -1, i_m = -1;
		int i_out = -1, i_ask = -1, i_end = -1, timeout = -1;
		bool asking = askterm_asking(l->r->ask);
		pf[i_sig = n++] = (struct pollfd){.fd = sfd, .events = POLLIN};
		if (l->info >= 0)
			pf[i_info = n++] =
			    (struct pollfd){.fd = l->info, .events = POLLIN};
		if (l->r->pty && l->master_open) {
			/* While a question is up, the pty is read only while
			 * there is room to hold what it says. */
			short ev = !asking || askterm_hold_room(l->r->ask)
				       ? POLLIN
				       : 0;
			if (l->inlen)
				ev |= POLLOUT;
			if (ev)
				pf[i_m = n++] = (struct pollfd){
				    .fd = l->p->master, .events = ev};
			if (l->stdin_open && (asking || l->inlen < LOOP_IN_MAX))
				pf[i_in = n++] = (struct pollfd){
				    .fd = STDIN_FILENO, .events = POLLIN};
		}
		if (askterm_fd(l->r->ask) >= 0)
			pf[i_ask = n++] = (struct pollfd){
			    .fd = askterm_fd(l->r->ask), .events = POLLIN};
		if (asking)
			timeout = askterm_timeout_ms(l->r->ask);
		/* Without a pty, lnk's stdout is the connection: POLLERR (a
		 * pipe whose reader closed) or POLLHUP (a socket or terminal
		 * whose other end did) says it is gone. */
		if (l->watch_out)
			pf[i_out = n++] =
			    (struct pollfd){.fd = STDOUT_FILENO, .events = 0};
		if (l->ended_fd >= 0)
			pf[i_end = n++] = (struct pollfd){.fd = l->ended_fd,
							  .events = POLLIN};
		if (l->hung_up && *l->lifeline >= 0) {
			int64_t left = ms_until(&l->end_at);
			if (left <= 0) {
				close(*l->lifeline);
				*l->lifeline = -1;
				continue;
			}
			if (timeout < 0 || left < timeout)
				timeout = (int)left;
		}
		if (poll(pf, (nfds_t)n, timeout) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (pf[i_sig].revents & POLLIN) {
			struct signalfd_siginfo si;
			while (read(sfd, &si, sizeof(si)) == sizeof(si))
				on_signal(l, (int)si.ssi_signo);
		}
		if (i_info >= 0 && pf[i_info].revents)
			read_info(l);
		if (i_end >= 0 && pf[i_end].revents) {
			l->ended_fd = -1;
			l->r->ended(l->r->ended_ctx);
		}
		if (i_ask >= 0 && pf[i_ask].revents)
			askterm_readable(l->r->ask);
		askterm_tick(l->r->ask);
		if (i_m >= 0) {
			if (pf[i_m].revents & POLLOUT)
				flush_in(l);
			if ((pf[i_m].events & POLLIN) &&
			    (pf[i_m].revents & (POLLIN | POLLHUP | POLLERR)))
				l->master_open = relay_out(l);
		}
		if (i_in >= 0 && pf[i_in].revents)
			relay_in(l);
		if (i_out >= 0 && (pf[i_out].revents & (POLLERR | POLLHUP)))
			hangup(l, false);
		else if (i_out >= 0 && (pf[i_out].revents & POLLNVAL))
			l->watch_out = false; /* no stdout: nothing to watch */
		/* A SIGCHLD may merge with another: check anyway. */
		if (!l->exited &&
		    waitpid(l->bwrap, &l->wstatus, WNOHANG) == l->bwrap)
			l->exited = true;
	}
	/* A question still up ends with the sandbox, and what it held is
	 * shown; whatever the program wrote last is still in the pty. */
	askterm_finish(l->r->ask);
	if (l->r->pty && l->master_open)
		while (relay_out(l)) {
			struct pollfd pf = {.fd = l->p->master,
					    .events = POLLIN};
			if (poll(&pf, 1, 0) != 1)
				break;
		}
	if (l->info >= 0)
		read_info(l);
	return 0;
}

int spawn_run(const struct spawn_req *r, struct spawn_result *res,
	      struct lnk_err *err)
{
	_cleanup_close_ int args = -1, cfg = -1, pw = -1, gr = -1;
	_cleanup_close_ int info_r = -1, info_w = -1, sfd = -1;
	_cleanup_close_ int life_r = -1, life_w = -1;
	struct pty p = {.master = -1, .slave = -1};
	struct strv argv = {0}, argv_fallback = {0};
	_cleanup_free_ int *src = NULL;
	_cleanup_free_ int *tmp = NULL;
	size_t nsrc;
	int ret = 0;

	*res = (struct spawn_result){0};
	if ((args = opts_memfd(r->opts, err)) < 0)
		return args;
	if ((cfg = sealed_memfd("lnk-init-config", r->config, r->config_len,
				err)) < 0)
		return cfg;
	if (r->passwd && (pw = sealed_memfd("lnk-passwd", r->passwd,
					    strlen(r->passwd), err)) < 0)
		return pw;
	if (r->group && (gr = sealed_memfd("lnk-group", r->group,
					   strlen(r->group), err)) < 0)
		return gr;
	int ip[2];
	if (pipe2(ip, O_CLOEXEC) < 0)
		return err_set(err, -errno, "pipe: %s", strerror(errno));
	info_r = ip[0];
	info_w = ip[1];
	/* bwrap gets a read end of the info pipe too (LAUNCH_FD_INFO_PEER):
	 * if lnk is gone, its write would otherwise fail (SIGPIPE) and bwrap
	 * would die before its go-ahead to its child, which would then wait
	 * for it forever. lnk-init closes that copy in the sandbox. */
	/* The lifeline (invariant 5: when lnk dies, the sandbox dies). The
	 * read end goes to lnk-init, which ends the sandbox when it hangs up;
	 * the write end stays here only (O_CLOEXEC, and the child closes all
	 * but the slots), so only lnk's death, however it dies, hangs it up.
	 * bwrap's --die-with-parent alone misses a lnk SIGKILLed while bwrap
	 * is still making the sandbox: bwrap's child binds itself to bwrap
	 * with PR_SET_PDEATHSIG only just before it execs. */
	if (pipe2(ip, O_CLOEXEC) < 0)
		return err_set(err, -errno, "pipe: %s", strerror(errno));
	life_r = ip[0];
	life_w = ip[1];

	spawn_block_signals();
	sigset_t s;
	handled_set(&s);
	sfd = signalfd(-1, &s, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0)
		return err_set(err, -errno, "signalfd: %s", strerror(errno));
	signal(SIGPIPE, SIG_IGN);

	if (r->pty && (ret = pty_open(&p, err)) < 0)
		goto out;

	/* Slots, in enum launch_fd order from LAUNCH_FD_ARGS, then the
	 * copied /etc files from LAUNCH_FD_END. */
	const int fixed[] = {args,	 cfg,	      pw,     gr,    info_w,
			     r->wire_fd, r->guard_fd, life_r, info_r};
	_Static_assert(ARRAY_SIZE(fixed) == LAUNCH_FD_END - LAUNCH_FD_ARGS,
		       "one source per slot");
	nsrc = ARRAY_SIZE(fixed) + r->nfiles;
	src = xcalloc(nsrc, sizeof(int));
	tmp = xcalloc(nsrc, sizeof(int));
	memcpy(src, fixed, sizeof(fixed));
	for (size_t i = 0; i < r->nfiles; i++)
		src[ARRAY_SIZE(fixed) + i] = r->files[i];
	strv_push(&argv, "bwrap");
	strv_push(&argv, "--args");
	strv_pushf(&argv, "%d", LAUNCH_FD_ARGS);
	/* The same, with bwrap's own binds of the device nodes' copies, for
	 * when the child cannot make the view of the host they are in. */
	if (r->view) {
		strv_copy(&argv_fallback, &argv);
		strv_copy(&argv_fallback, &r->view->fallback);
		strv_copy(&argv_fallback, r->tail);
	}
	strv_copy(&argv, r->tail);

	fflush(NULL);
	struct child_args ca = {
	    .r = r,
	    .p = &p,
	    .src = src,
	    .tmp = tmp,
	    .nsrc = nsrc,
	    .argv = argv.v,
	    .argv_fallback = r->view ? argv_fallback.v : argv.v,
	};
	pid_t pid = spawn_clone(&ca);
	if (pid < 0) {
		ret = err_set(err, pid, "cannot start bubblewrap: %s",
			      strerror(-pid));
		goto out;
	}

	close(info_w);
	info_w = -1;
	/* bwrap holds its options, lnk-init's settings and the account
	 * files now; closed here, while bwrap makes the sandbox, not after
	 * it. */
	cleanup_closep(&args);
	cleanup_closep(&cfg);
	cleanup_closep(&pw);
	cleanup_closep(&gr);
	args = cfg = pw = gr = -1;
	/* lnk keeps only the write end, open until it returns (or dies). */
	close(life_r);
	life_r = -1;
	/* One byte on the lifeline, the only one lnk ever writes: 'y' lets
	 * lnk-init run the program, 'n' ends the sandbox first. Written
	 * while bwrap makes the sandbox, so what hold waits for (the
	 * registry entry) costs no time of the start. */
	char go = r->hold && r->hold(r->hold_ctx) != 0 ? 'n' : 'y';
	res->held = go == 'n';
	while (write(life_w, &go, 1) < 0 && errno == EINTR)
		;
	if (r->pty) {
		close(p.slave);
		p.slave = -1;
		fcntl(p.master, F_SETFL, fcntl(p.master, F_GETFL) | O_NONBLOCK);
		pty_raw(&p);
	}

	struct loop *l = xcalloc(1, sizeof(*l));
	l->r = r;
	l->p = &p;
	l->bwrap = pid;
	l->info = steal_fd(&info_r);
	l->reaper_fd = -1;
	l->stdin_open = true;
	l->master_open = r->pty;
	l->in = r->pty ? xmalloc(LOOP_IN_MAX) : NULL;
	l->lifeline = &life_w;
	l->watch_out = r->end_on_hangup && !r->pty;
	l->ended_fd = r->ended_fd && r->ended && !res->held
			  ? r->ended_fd(r->ended_ctx)
			  : -1;
	ret = run_loop(l, sfd);
	if (ret < 0) {
		/* The loop failed: do not leave a sandbox behind. */
		kill(pid, SIGKILL);
		while (waitpid(pid, &l->wstatus, 0) < 0 && errno == EINTR)
			;
		ret = err_set(err, ret, "the supervisor failed: %s",
			      strerror(-ret));
	}
	pty_restore(&p);
	if (l->info >= 0)
		close(l->info);
	if (l->reaper_fd >= 0)
		close(l->reaper_fd);

	res->started = l->started;
	if (WIFEXITED(l->wstatus))
		res->status = WEXITSTATUS(l->wstatus);
	else if (WIFSIGNALED(l->wstatus))
		res->status = 128 + WTERMSIG(l->wstatus);
	else
		res->status = LNK_EXIT_FAIL;
	free(l->in);
	free(l);
out:
	pty_restore(&p);
	if (p.master >= 0)
		close(p.master);
	if (p.slave >= 0)
		close(p.slave);
	strv_free(&argv);
	strv_free(&argv_fallback);
	return ret;
}
