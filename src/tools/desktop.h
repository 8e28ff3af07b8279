/* Asking on this computer's screen: the desktop process, a child of the
 * tools broker, shows each question as a desktop notification with Allow
 * and Deny actions (org.freedesktop.Notifications on the session D-Bus,
 * through libdbus-1), or, where the notification server has no actions,
 * with a dialog tool (zenity, else kdialog). An action, or the dialog's
 * button, answers the question: the answer goes to the broker on this
 * process's own socket (answer.h), never through a file; the first answer
 * counts, whichever channel gives it.
 *
 * Threat: the program inside chooses the question's text (its tool's
 * arguments, its page's URL). The text reaches this process escaped
 * (question.h: bounded lines, no controls, valid UTF-8, each argument on
 * a numbered line of its own) and is escaped again here for the
 * notification body, which servers read as markup (< > &). Nothing else
 * the program sends reaches this process, and the program never reaches
 * the session bus (its socket is not inside, its address is not in the
 * program's environment), so it cannot press Allow itself.
 *
 * The broker talks to it over a SOCK_SEQPACKET socket pair:
 *   desktop -> broker, once: 'H' and the channel ('n' notifications,
 *       'd' a dialog tool, '-' none: the process then exits); then
 *       "y ID\n" or "n ID\n" for each answer given on the screen
 *   broker -> desktop: 'A' ID(6) question: show it;
 *       'W' ID(6): take it back (answered elsewhere, expired, withdrawn)
 * The socket's end is the sandbox's end: every question still shown is
 * taken back. The process ends when its session bus goes away. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "common/err.h"

struct desktop_in {
	const char *bus;     /* the session bus's address */
	const char *dialog;  /* zenity or kdialog, absolute, or NULL */
	char *const *env;    /* the tools' environment, for the dialog */
	const char *sandbox; /* its name, in the question's title */
	unsigned wait_s;     /* a question's wait: the notification's */
};

enum desktop_channel {
	DESKTOP_NONE,
	DESKTOP_NOTIFY, /* notifications with actions */
	DESKTOP_DIALOG, /* a dialog tool */
};

/* Whether lnk's environment has a desktop session: a display (DISPLAY or
 * WAYLAND_DISPLAY) and a session bus (DBUS_SESSION_BUS_ADDRESS, else a
 * socket of this user's at $XDG_RUNTIME_DIR/bus). The bus's address,
 * allocated, or NULL. */
char *desktop_session_bus(char *const *env);

/* Forks the desktop process and waits (a few seconds at most) for the
 * channel it found. With one, *fd is the broker's end of its socket and
 * *pid the process; with DESKTOP_NONE nothing is left running. Call it
 * before the caller starts any thread. */
enum desktop_channel desktop_start(const struct desktop_in *in, int *fd,
				   pid_t *pid);

/* Shows a question (question_text's lines) / takes it back. 0, or -EPIPE when
 * the process is gone (its bus went away): the question keeps waiting on
 * the other channels, and fd is the caller's to close. */
int desktop_ask(int fd, const char *id, const char *question);
int desktop_withdraw(int fd, const char *id);
