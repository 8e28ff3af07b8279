#include "init/exec.h"

#include <errno.h>
#include <linux/close_range.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* close_range (Linux 5.9); on an older kernel, every descriptor up to the
 * soft limit, one by one. Nothing may stay open by accident: an inherited
 * descriptor is a way out of every other layer. */
static int close_above_stderr(struct lnk_err *err)
{
	struct rlimit rl;

	if (syscall(SYS_close_range, 3U, ~0U, 0) == 0)
		return 0;
	if (errno != ENOSYS)
		return err_set(err, -errno,
			       "cannot close inherited "
			       "descriptors: %s",
			       strerror(errno));
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return err_set(err, -errno, "cannot read the descriptor limit");
	for (rlim_t fd = 3; fd < rl.rlim_cur && fd < (1u << 20); fd++)
		close((int)fd);
	return 0;
}

/* Ignored signals and the blocked mask survive execve. lnk's supervisor
 * makes bwrap ignore SIGINT and SIGQUIT (so ^C on the pty does not kill
 * bwrap); the program must get the defaults back, or ^C would not stop it. */
static void reset_signals(void)
{
	sigset_t none;

	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL); /* EINVAL for 32, 33: fine */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

int init_exec(const struct init_config *c, enum init_exec_stage *stage,
	      struct lnk_err *err)
{
	int r;

	*stage = INIT_EXEC_FDS;
	if ((r = close_above_stderr(err)) < 0)
		return r;
	*stage = INIT_EXEC_CWD;
	if (chdir(c->cwd) < 0)
		return err_set(err, -errno,
			       "cannot change to the working folder '%s' in "
			       "the sandbox: %s",
			       c->cwd, strerror(errno));
	*stage = INIT_EXEC_EXECVE;
	reset_signals();
	execve(c->argv.v[0], c->argv.v, c->env.v ? c->env.v : (char *[]){NULL});
	r = -errno;
	return err_set(err, r, "cannot run '%s': %s", c->argv.v[0],
		       strerror(-r));
}
