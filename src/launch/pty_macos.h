/* The macOS launcher's pseudo-terminal: the program gets a terminal of
 * its own in a new session, never lnk's.
 *
 * Threat: the program, or a process it starts that leaves its session
 * (setsid, a daemon), holding the user's own terminal, reads what the user
 * types after the sandbox ended, or types into the user's shell (TIOCSTI).
 * With a pty of its own as its session's terminal, what it holds is the
 * pty: lnk relays the user's keys to it while the program runs and closes
 * it at the end, after which a process still holding it reads an error.
 *
 * Only POSIX calls (posix_openpt, TIOCSCTTY, termios, poll), so the unit
 * tests drive it on Linux (tests/unit/test_pty_macos.c); macos.c uses it.
 */
#pragma once

#include <stdbool.h>
#include <sys/types.h>
#include <termios.h>

#include "common/err.h"

struct mac_pty {
	int master;  /* -1: lnk has no terminal, none is made */
	char *slave; /* the pty's path, for the profile (/dev/ttysN) */
	bool tty[3]; /* which of lnk's 0, 1, 2 is a terminal */
	int in, out; /* lnk's terminal descriptors to relay with */
	bool saved;  /* lnk's terminal's mode saved, to restore */
	struct termios mode;
};

/* Makes the pty when any of lnk's descriptors 0, 1 and 2 is a terminal,
 * with that terminal's mode and size; else pt->master is -1 and the
 * program gets lnk's descriptors (pipes, files). 0, or -errno: lnk then
 * refuses to run rather than give the program the user's terminal. */
int mac_pty_open(struct mac_pty *pt, struct lnk_err *err);

/* In the child, before it runs the program: a new session, and (when
 * there is a pty) the pty as its terminal in place of each of 0, 1 and 2
 * that was lnk's terminal. 0 or -errno. */
int mac_pty_child(const struct mac_pty *pt);

/* In lnk, while the program runs: lnk's terminal in raw mode, its keys
 * to the pty and the pty's output to it, the window's size followed, until
 * the child exits (*wstatus from waitpid); then the pty's last output and
 * lnk's terminal's mode back. With no pty, only the wait. 0 or -errno. */
int mac_pty_relay(struct mac_pty *pt, pid_t child, int *wstatus);

/* Closes the pty (a process that still holds its other end reads an
 * error from then on) and frees pt. */
void mac_pty_close(struct mac_pty *pt);
