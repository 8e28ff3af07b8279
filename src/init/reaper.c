/* lnk-init as the sandbox's pid 1 (see reaper.h).
 *
 * Why: without bwrap's --as-pid-1, the sandbox's pid 1 is bubblewrap's own
 * reaper, which runs with no seccomp filter and no Landlock domain: a hole
 * in the dot-file supervisor that let the program write into its memory
 * would run code there unconfined (tests/e2e/test_inv5_processes.py,
 * test_pid1_memory_*). Landlock's ptrace and signal scoping keep the
 * program away from pid 1; this is the second layer: no unconfined
 * process exists inside the sandbox at all. lnk-init is pid 1, applies
 * NO_NEW_PRIVS, Landlock and seccomp to itself, and only
 * then forks the program, which inherits all three.
 *
 * What pid 1 does, and why it is safe next to a hostile program:
 *
 * - It holds nothing worth taking. Every descriptor above 2 is closed
 *   before the fork (the config memfd, the wire and guard sockets, any
 *   bwrap left) but the lifeline: the read end of a pipe only lnk writes
 *   to (one byte, its go-ahead, read before the program starts), whose
 *   hang-up tells pid 1 that lnk is gone, so that
 *   it kills everything and exits (docs/design.md, invariant 5; bwrap's
 *   --die-with-parent misses a lnk killed while bwrap makes the sandbox:
 *   docs/kernel-facts.md, die-with-parent-misses-setup). Its memory holds
 *   the init config, which is the program's
 *   own argv, environment and grants, and it frees that too.
 * - The program cannot trace it or read its memory. pid 1 is non-dumpable
 *   (PR_SET_DUMPABLE 0): ptrace, /proc/1/mem, /proc/1/environ,
 *   process_vm_readv and pidfd_getfd then need CAP_SYS_PTRACE, which
 *   nothing inside has. And the program runs in a Landlock domain nested
 *   in pid 1's (reaper_child_setup), and Landlock lets a process trace
 *   only its own domain or domains nested in it: pid 1's is neither. Our
 *   seccomp policy allows ptrace (debuggers are ordinary tools), so these
 *   two are what refuse it. Even a tracer would gain nothing: pid 1 is
 *   exactly as confined as the program (same filter, a Landlock domain
 *   that is a superset by one scope only, NO_NEW_PRIVS, no capability).
 * - The program cannot stop or kill it. The kernel drops SIGKILL and
 *   SIGSTOP sent to a pid namespace's init from inside, and every signal it
 *   has no handler for. From Landlock ABI 6 the nested domain also scopes
 *   signals, so kill(1, ...) fails with EPERM. On an older kernel a signal
 *   does arrive, but pid 1 acts only on signals sent from OUTSIDE the
 *   namespace (lnk's supervisor, whose pid is not visible inside: si_pid
 *   0), so the program cannot use it to signal anything.
 * - Reading /proc/1/status or /proc/1/cmdline (ps, pgrep, check's probe)
 *   still works: those files need no ptrace access.
 *
 * Processes, as the program would have them from a shell: a process group
 * of its own that is the foreground of its terminal (the pty, in pty mode),
 * so job control in bash works and ^C, ^Z and SIGWINCH from the pty reach
 * it and not pid 1. pid 1 then leaves the terminal's session (setsid), so
 * no terminal signal ever reaches pid 1, and the program's group is
 * orphaned: a ^Z on a program without job
 * control is discarded by the kernel instead of stopping it with nobody
 * left to continue it.
 *
 * Signals: lnk's supervisor sends the signals it gets to pid 1, which
 * forwards them. SIGINT and SIGQUIT go to the program's process group,
 * as a terminal sends them to the whole foreground job (lnk's non-pty
 * runs keep bwrap out of the user's terminal group, so lnk stands in for
 * the terminal). SIGTERM, SIGHUP, SIGUSR1 and SIGUSR2 go to the program
 * alone, as `kill PID` does: it decides what its children get, and what it
 * leaves behind is killed when it exits. SIGWINCH is not forwarded: lnk
 * sets the size on the pty and the kernel signals the foreground group.
 *
 * Exit: when the program exits, pid 1 exits at once with its status (128+N
 * for signal N; exec failures of the child keep their 126 and 127), and
 * the kernel kills everything else in the namespace (docs/design.md,
 * invariant 5: when the program exits, everything it started is gone).
 */
#include "init/reaper.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "common/landlock_defs.h"
#include "confine/layers.h"
#include "common/util.h"
#include "init/discard.h"

static const int forwarded[] = {SIGINT, SIGQUIT, SIGTERM,
				SIGHUP, SIGUSR1, SIGUSR2};

static void forwarded_set(sigset_t *s)
{
	sigemptyset(s);
	for (size_t i = 0; i < ARRAY_SIZE(forwarded); i++)
		sigaddset(s, forwarded[i]);
}

void reaper_init(void)
{
	sigset_t s;

	forwarded_set(&s);
	sigaddset(&s, SIGCHLD);
	sigaddset(&s, SIGIO); /* the lifeline's (reaper_lifeline_arm) */
	sigprocmask(SIG_BLOCK, &s, NULL);
	/* Before the config is even read: nothing inside may trace pid 1 or
	 * read its memory (see the top). Cannot fail for these arguments. */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

static int close_from_to(unsigned lo, unsigned hi, struct lnk_err *err)
{
	struct rlimit rl;

	if (lo > hi)
		return 0;
	if (syscall(SYS_close_range, lo, hi, 0) == 0)
		return 0;
	if (errno != ENOSYS)
		return err_set(err, -errno,
			       "cannot close inherited descriptors: %s",
			       strerror(errno));
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return err_set(err, -errno, "cannot read the descriptor limit");
	for (rlim_t fd = lo; fd <= hi && fd < rl.rlim_cur && fd < (1u << 20);
	     fd++)
		close((int)fd);
	return 0;
}

static int by_number(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

int reaper_close_fds(const int *keep, size_t n, struct lnk_err *err)
{
	int k[REAPER_KEEP_MAX];
	unsigned from = 3U;
	int r;

	if (n > REAPER_KEEP_MAX)
		return err_set(err, -EINVAL, "too many descriptors to keep");
	for (size_t i = 0; i < n; i++)
		k[i] = keep[i] < 3 ? -1 : keep[i];
	qsort(k, n, sizeof(k[0]), by_number);
	for (size_t i = 1; i < n; i++)
		if (k[i] == k[i - 1])
			k[i - 1] = -1;
	for (size_t i = 0; i < n; i++) {
		if (k[i] < 0)
			continue;
		if ((unsigned)k[i] > from &&
		    (r = close_from_to(from, (unsigned)k[i] - 1, err)) < 0)
			return r;
		from = (unsigned)k[i] + 1;
	}
	if ((r = close_from_to(from, ~0U, err)) < 0)
		return r;
	/* pid 1 keeps them, close-on-exec; the program must not hold them
	 * (the pipe's read end would be harmless, but it is nothing of its
	 * own: invariant 4): run_program closes the lifeline, and pid 1 the
	 * guard's socket before the fork. */
	for (size_t i = 0; i < n; i++)
		if (k[i] >= 0 && fcntl(k[i], F_SETFD, FD_CLOEXEC) < 0)
			return err_set(err, -errno,
				       "the kept descriptor %d is not open: %s",
				       k[i], strerror(errno));
	return 0;
}

int reaper_lifeline_arm(int lifeline, struct lnk_err *err)
{
	int fl;

	if (lifeline < 0)
		return 0;
	/* The pipe signals pid 1 when its last writer closes: the reaper
	 * waits for it with the forwarded signals in one sigwaitinfo, and
	 * pid 1 holds no descriptor but the lifeline and, until the first
	 * lookup, the resolver's sockets, watched the same way (no signalfd, no
	 * epoll). SIGIO is blocked since reaper_init, so it is queued. */
	if (fcntl(lifeline, F_SETOWN, getpid()) < 0 ||
	    fcntl(lifeline, F_SETSIG, SIGIO) < 0 ||
	    (fl = fcntl(lifeline, F_GETFL)) < 0 ||
	    fcntl(lifeline, F_SETFL, fl | O_ASYNC) < 0)
		return err_set(err, -errno, "cannot watch the lifeline: %s",
			       strerror(errno));
	return 0;
}

int reaper_lifeline_wait(int lifeline)
{
	char go = 0;
	ssize_t n;

	if (lifeline < 0)
		return 0;
	/* Signals are blocked in pid 1 (reaper_init): no EINTR but a
	 * stop's, which the caller reads next. */
	while ((n = read(lifeline, &go, 1)) < 0 && errno == EINTR)
		;
	if (n != 1)
		return -EPIPE;
	return go == 'y' ? 0 : -EPERM;
}

bool reaper_lifeline_lost(int lifeline)
{
	struct pollfd pf = {.fd = lifeline, .events = POLLIN};
	struct stat st;

	if (lifeline < 0)
		return false;
	/* Anything but a pipe is not the lifeline lnk made: fail closed. */
	if (fstat(lifeline, &st) < 0 || !S_ISFIFO(st.st_mode))
		return true;
	while (poll(&pf, 1, 0) < 0)
		if (errno != EINTR)
			return true;
	/* lnk writes one byte only, its go-ahead (reaper_lifeline_wait),
	 * which may wait unread: any other event (POLLHUP, POLLERR,
	 * POLLNVAL) means lnk is gone. */
	return (pf.revents & ~POLLIN) != 0;
}

/* Sent by a process outside the sandbox's pid namespace (lnk's supervisor,
 * or the user's kill on the host): a sender inside shows its pid, the
 * kernel (a terminal's ^C) shows SI_KERNEL. */
static bool from_outside(const siginfo_t *si)
{
	return si->si_code <= 0 && si->si_pid == 0;
}

int reaper_stop_requested(void)
{
	const struct timespec now = {0};
	siginfo_t si;
	sigset_t s;
	int sig;

	forwarded_set(&s);
	while ((sig = sigtimedwait(&s, &si, &now)) > 0)
		if (from_outside(&si))
			return sig;
	return 0;
}

/* The program's domain, nested in pid 1's. It must handle something:
 * MAKE_BLOCK, which pid 1's domain already refuses everywhere (device nodes
 * are never made), so no file access changes. What matters is the nesting
 * itself (ptrace) and, from ABI 6, the signal scope. */
static int scope_away_from_init(int abi, struct lnk_err *err)
{
	int fd =
	    confine_landlock_ruleset(abi, LANDLOCK_ACCESS_FS_MAKE_BLOCK, true);
	if (fd < 0)
		return err_set(err, fd,
			       "cannot make the program's landlock domain: %s",
			       strerror(-fd));
	int r = confine_landlock_enter(fd);
	close(fd);
	if (r < 0)
		return err_set(err, r,
			       "cannot enter the program's landlock domain: %s",
			       strerror(-r));
	return 0;
}

int reaper_scope_child(int abi, struct lnk_err *err)
{
	return abi > 0 ? scope_away_from_init(abi, err) : 0;
}

int reaper_foreground_tty(void)
{
	pid_t fg;

	/* Inside the namespace a group led from outside (bwrap's, in pty
	 * mode) reads as 0, for the terminal's foreground and for ours
	 * alike: equal means the program would have been in the
	 * foreground, so its own group takes it over. With --new-session
	 * (no pty) there is no controlling terminal (ENOTTY) and nothing to
	 * take. */
	for (int fd = 0; fd <= 2; fd++)
		if (ioctl(fd, TIOCGPGRP, &fg) == 0)
			return fg == getpgrp() ? fd : -1;
	return -1;
}

int reaper_child_setup(int abi, int tty, struct lnk_err *err)
{
	int r;

	if (abi > 0 && (r = scope_away_from_init(abi, err)) < 0)
		return r;
	if (setpgid(0, 0) < 0)
		return err_set(err, -errno,
			       "cannot give the program a process group: %s",
			       strerror(errno));
	/* From the background, tcsetpgrp raises SIGTTOU unless it is
	 * blocked; init_exec unblocks every signal before execve. */
	if (tty >= 0) {
		sigset_t ttou;
		sigemptyset(&ttou);
		sigaddset(&ttou, SIGTTOU);
		sigprocmask(SIG_BLOCK, &ttou, NULL);
		if (tcsetpgrp(tty, getpid()) < 0)
			return err_set(err, -errno,
				       "cannot give the program its terminal: "
				       "%s",
				       strerror(errno));
		/* pid 1 leaves the terminal's session just after the fork
		 * (reaper_run), which orphans this group: only then may the
		 * program run. Before, a ^Z in that moment stopped it, with
		 * nobody left to continue it (a busy machine showed it:
		 * test_ctrl_z_without_job_control_does_not_hang). A pid 1
		 * that leads a session has left (sid 1); bounded, so a pid 1
		 * that cannot leave costs only the wait. */
		for (int i = 0; i < 2000 && getsid(1) != 1; i++) {
			const struct timespec t = {.tv_nsec = 50000};
			nanosleep(&t, NULL);
		}
	}
	return 0;
}

static void forward(pid_t program, int sig)
{
	if (sig == SIGINT || sig == SIGQUIT) {
		/* The program's job, wherever it is now; never pid 1's own
		 * group (the program may have joined it). */
		pid_t g = getpgid(program);
		if (g > 1 && g != getpgrp() && kill(-g, sig) == 0)
			return;
	}
	kill(program, sig);
}

/* lnk is gone: nobody is left to stop the program or to read its status,
 * so nothing in the sandbox may run on (invariant 5). kill(-1) from pid 1
 * reaches every other process in the namespace; pid 1's exit would too. */
__attribute__((noreturn)) static void lifeline_lost(void)
{
	kill(-1, SIGKILL);
	_exit(128 + SIGKILL);
}

static int status_of(int wstatus)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	if (WIFSIGNALED(wstatus))
		return 128 + WTERMSIG(wstatus);
	return LNK_EXIT_FAIL;
}

void reaper_run(pid_t program, int lifeline, const char *temp_home,
		void (*on_io)(void *ctx), void *ctx)
{
	sigset_t s;

	/* Both sides set the group, so neither a forwarded ^C nor the
	 * terminal hand-over depends on which runs first. */
	setpgid(program, program);
	/* Out of the terminal's session (see the top); with --new-session
	 * pid 1 already leads its own and this fails with EPERM: fine. */
	setsid();

	forwarded_set(&s);
	sigaddset(&s, SIGCHLD);
	sigaddset(&s, SIGIO);
	if (reaper_lifeline_lost(lifeline))
		lifeline_lost();
	if (on_io)
		on_io(ctx);
	for (;;) {
		siginfo_t si;
		int sig = sigwaitinfo(&s, &si);

		if (sig < 0)
			continue; /* EINTR: a stop and continue of pid 1 */
		if (sig == SIGIO) {
			/* The lifeline's (reaper_lifeline_arm). Anyone may
			 * send a SIGIO: only the pipe itself decides. */
			if (reaper_lifeline_lost(lifeline))
				lifeline_lost();
			if (on_io)
				on_io(ctx);
			continue;
		}
		if (sig != SIGCHLD) {
			if (from_outside(&si))
				forward(program, sig);
			continue;
		}
		/* One SIGCHLD may stand for many children: reap them all,
		 * the orphans reparented to pid 1 included. */
		int st;
		pid_t w;
		while ((w = waitpid(-1, &st, WNOHANG)) > 0)
			if (w == program) {
				if (temp_home) {
					/* What the program left in the
					 * thrown-away home, counted once
					 * nothing can change it. */
					kill(-1, SIGKILL);
					discard_report(temp_home);
				}
				_exit(status_of(st));
			}
		if (w < 0 && errno == ECHILD)
			_exit(
			    LNK_EXIT_FAIL); /* cannot be: the program is ours */
	}
}
