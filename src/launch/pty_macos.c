/* The program's own pseudo-terminal on macOS (see pty_macos.h). */
#include "launch/pty_macos.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/util.h"

int mac_pty_open(struct mac_pty *pt, struct lnk_err *err)
{
	*pt = (struct mac_pty){.master = -1, .in = -1, .out = -1};
	for (int fd = 0; fd < 3; fd++)
		pt->tty[fd] = isatty(fd);
	if (!pt->tty[0] && !pt->tty[1] && !pt->tty[2])
		return 0;
	/* The terminal to relay with: keys from 0 when it is one, output
	 * to 1, else 2, else 0 (a terminal opened for reading and writing). */
	pt->in = pt->tty[0] ? 0 : -1;
	pt->out = pt->tty[1] ? 1 : pt->tty[2] ? 2 : 0;
	int term = pt->tty[0] ? 0 : pt->out;

	int m = posix_openpt(O_RDWR | O_NOCTTY);
	if (m < 0 || grantpt(m) < 0 || unlockpt(m) < 0) {
		int e = errno;
		if (m >= 0)
			close(m);
		return err_set(err, -e,
			       "cannot make a terminal for the program: %s; "
			       "lnk does not give it yours (a process that "
			       "left its session could read what you type "
			       "next): run it with its input and output "
			       "redirected",
			       strerror(e));
	}
	(void)fcntl(m, F_SETFD, FD_CLOEXEC);
	const char *name = ptsname(m);
	if (!name) {
		int e = errno ? errno : ENOTTY;
		close(m);
		return err_set(err, -e,
			       "cannot name the program's terminal: %s; run it "
			       "with its input and output redirected",
			       strerror(e));
	}
	pt->master = m;
	pt->slave = xstrdup(name);
	/* Its mode and size are the user's terminal's, as a terminal
	 * program expects to find them. */
	struct winsize ws;
	if (tcgetattr(term, &pt->mode) == 0) {
		pt->saved = true;
		int s = open(pt->slave, O_RDWR | O_NOCTTY | O_CLOEXEC);
		if (s >= 0) {
			(void)tcsetattr(s, TCSANOW, &pt->mode);
			close(s);
		}
	}
	if (ioctl(term, TIOCGWINSZ, &ws) == 0)
		(void)ioctl(m, TIOCSWINSZ, &ws);
	return 0;
}

int mac_pty_child(const struct mac_pty *pt)
{
	if (setsid() < 0)
		return -errno;
	if (pt->master < 0)
		return 0;
	int s = open(pt->slave, O_RDWR);
	if (s < 0)
		return -errno;
	/* The session's terminal: /dev/tty is the pty from here on. */
	if (ioctl(s, TIOCSCTTY, 0) < 0) {
		int e = errno;
		close(s);
		return -e;
	}
	for (int fd = 0; fd < 3; fd++)
		if (pt->tty[fd] && dup2(s, fd) < 0) {
			int e = errno;
			close(s);
			return -e;
		}
	if (s > 2)
		close(s);
	close(pt->master);
	return 0;
}

/* Writes all of n bytes, or gives up on an error (the reader is gone). */
static void put_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

/* The pty's output that is there now, to lnk's terminal; false at its
 * end (EOF, or EIO once no process holds the other end). */
static bool drain(const struct mac_pty *pt)
{
	char buf[4096];
	for (;;) {
		ssize_t r = read(pt->master, buf, sizeof(buf));
		if (r > 0) {
			put_all(pt->out, buf, (size_t)r);
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		return r < 0 && errno == EAGAIN;
	}
}

int mac_pty_relay(struct mac_pty *pt, pid_t child, int *wstatus)
{
	if (pt->master < 0) {
		while (waitpid(child, wstatus, 0) < 0)
			if (errno != EINTR)
				return -errno;
		return 0;
	}
	int term = pt->in >= 0 ? pt->in : pt->out;
	if (pt->saved) {
		struct termios raw = pt->mode;
		cfmakeraw(&raw);
		(void)tcsetattr(term, TCSANOW, &raw);
	}
	int fl = fcntl(pt->master, F_GETFL);
	(void)fcntl(pt->master, F_SETFL, fl | O_NONBLOCK);
	struct winsize last = {0};
	(void)ioctl(term, TIOCGWINSZ, &last);
	bool in_open = pt->in >= 0, done = false;
	int r = 0;
	while (!done) {
		struct pollfd p[2] = {
		    {.fd = pt->master, .events = POLLIN},
		    {.fd = in_open ? pt->in : -1, .events = POLLIN},
		};
		/* A short wait: the window's size and the child's end are
		 * looked at between reads (no signal handler to share). */
		int n = poll(p, 2, 100);
		if (n < 0 && errno != EINTR) {
			r = -errno;
			break;
		}
		if (n > 0 && (p[0].revents & (POLLIN | POLLHUP)))
			(void)drain(pt);
		if (n > 0 && (p[1].revents & (POLLIN | POLLHUP))) {
			char buf[1024];
			ssize_t k = read(pt->in, buf, sizeof(buf));
			if (k > 0)
				put_all(pt->master, buf, (size_t)k);
			else if (k == 0 || errno != EINTR)
				in_open = false;
		}
		struct winsize ws;
		if (ioctl(term, TIOCGWINSZ, &ws) == 0 &&
		    (ws.ws_row != last.ws_row || ws.ws_col != last.ws_col)) {
			(void)ioctl(pt->master, TIOCSWINSZ, &ws);
			last = ws;
		}
		pid_t w = waitpid(child, wstatus, WNOHANG);
		if (w == child) {
			(void)drain(pt);
			done = true;
		} else if (w < 0 && errno != EINTR) {
			r = -errno;
			break;
		}
	}
	if (pt->saved)
		(void)tcsetattr(term, TCSANOW, &pt->mode);
	return r;
}

void mac_pty_close(struct mac_pty *pt)
{
	if (pt->master >= 0)
		close(pt->master);
	free(pt->slave);
	*pt = (struct mac_pty){.master = -1, .in = -1, .out = -1};
}
