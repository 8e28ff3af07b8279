/* A tool's view of the system: the host as the user sees it, less lnk's
 * settings and the sandbox's hidden folders.
 *
 * A tool runs outside the sandbox, as the user, with the user's
 * credentials, and its arguments come from the program. Threat: a call
 * such as `git diff --no-index ~/.lnk/sandbox/NAME.key /dev/null` reads
 * what the sandbox hides (keys, the call log, the questions and their
 * answers, a --hide folder). So every tool runs in namespaces of its own
 * where those folders are an empty, read-only, unreadable tmpfs, and
 * everything else (the home, /tmp, the network, uid and gid) is as it is.
 *
 * The processes of one call (docs/design.md):
 *   waiter    the broker's child: it made the mount and PID namespaces,
 *             hid the folders, and waits, outside the new PID namespace
 *   pid 1     of the new PID namespace: mounts a fresh /proc, waits
 *   the tool  returns from tools_view_enter and execs
 * Waiter and pid 1 ignore the signals a caller passes to the tool's
 * process group (INT TERM HUP QUIT USR1 USR2 WINCH CONT), so those reach
 * the tool alone; each exits with the tool's status (128+N for signal N).
 * Each asks the kernel for SIGKILL when its parent ends, so a broker
 * killed outright takes them all; when pid 1 ends, the kernel ends every
 * process left in its namespace (what a tool left running in the
 * background ends with it). */
#pragma once

#include <sys/types.h>

#include "common/err.h"
#include "common/util.h"

/* Call in the tool's forked child (single-threaded), after setsid(),
 * after fchdir() to the tool's folder and after closing every descriptor
 * but 0, 1 and 2 (close_from(3)), before execve. The waiter and pid 1
 * live as long as the tool and keep what the process held then: a copy of
 * another call's connection would keep that call's client waiting.
 *
 * hidden: absolute paths to close: ~/.lnk, ~/Link/Agents,
 * ~/Link/History, each --hide folder (and the real paths they link to).
 * A link on the way is followed: what the path names now is hidden (the
 * guard keeps the program from renaming or swapping any folder on the
 * way). One that does not exist, or that the user cannot reach, is left
 * as it is (the tool cannot reach it either).
 *
 * The working folder: the caller's fchdir happens before this call, so
 * the new mount namespace's copy holds it. This function checks, last,
 * that the working folder is the very folder (mount and inode) its path
 * names in the tool's view: a folder of another mount namespace, or one
 * beneath a hidden folder, is refused (-EXDEV), as `..` from there would
 * walk the unhidden view.
 *
 * Returns 0 only in the tool's process, which must then exec. In the
 * process that called it, it returns only on failure: -errno with err's
 * message (say it on the tool's stderr, exit 125); on success that
 * process becomes the waiter and exits with the tool's status. Signals
 * are left ignored in the waiter; in the tool every signal is back to
 * its default and none blocked. */
int tools_view_enter(const struct strv *hidden, struct lnk_err *err);

/* The hidden folders held by what they are, from the broker's start: a
 * tool runs outside the sandbox, where no guard keeps the folders above a
 * hidden one in place, so a tool that renames one (mv sub sub2) would move
 * the hidden folder out from under a path. */
struct tools_pin {
	int fd; /* O_PATH */
	dev_t dev;
	ino_t ino;
};
struct tools_pins {
	struct tools_pin *v;
	size_t n;
};
/* Each hidden path that exists now. 0 or -ENOMEM. */
int tools_pins_make(const struct strv *hidden, struct tools_pins *out);
void tools_pins_free(struct tools_pins *p);
/* Where each pinned folder is now, one path per pin in order (read back
 * from its descriptor; "" for one whose folder is gone). */
void tools_pins_now(const struct tools_pins *p, struct strv *paths);
/* The write folders, where a tool follows no link: the program may have
 * made any link there, to a folder or file of the user's. */
struct tools_nofollow {
	const struct strv *folders; /* each bound anew, nosymfollow */
	/* those that hold the home (--write ~): the same, but the home's own
	 * top dot entries, which the program cannot make (the guard's), are
	 * followed again: a folder, and a link to a file (a dotfile
	 * manager's ~/.gitconfig); a link to a folder stays unfollowed */
	const struct strv *around;
	const char *home; /* real path */
	/* --write-dot-files of the home: its dot entries are the program's
	 * too, and none is followed again */
	bool home_dots_too;
};

/* tools_view_enter, hiding also each pinned folder at its path now
 * (checked to be that very folder, else the call is refused), then each
 * path of hidden as spelled; then the write folders of nf (NULL for
 * none) bound anew where the kernel follows no link, so that no link the
 * program made there leads the tool to a file of the user's, and the
 * working folder entered again on that copy. */
int tools_view_enter_pinned(const struct strv *hidden,
			    const struct tools_pins *pins,
			    const struct strv *now,
			    const struct tools_nofollow *nf,
			    struct lnk_err *err);
