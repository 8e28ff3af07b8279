/* Device nodes of the sandbox's own, for a sandbox run as root.
 *
 * bwrap's --dev binds the host's /dev/null, /dev/zero, /dev/full,
 * /dev/random, /dev/urandom and /dev/tty into the sandbox. Their owner is
 * root, and as root the program is their owner: chmod or chown on one
 * changes the host's node (chmod 0600 /dev/null breaks every other user's
 * programs). bwrap can bind them read only only without devices (nodev),
 * which makes them unusable. So lnk, as root, makes a copy of each node
 * (the same device numbers and modes) in a private folder of /dev and binds
 * the copies over bwrap's: a chmod inside changes only the copy, which is
 * removed when the sandbox ends. As another user the program owns none of
 * them, and nothing is made.
 */
#pragma once

#include "common/err.h"

struct devnodes {
	char *dir; /* the private folder, or NULL: none made */
};

/* The names, in /dev, that bwrap's --dev binds from the host;
 * NULL-terminated. */
const char *const *devnodes_names(void);

/* As root: makes the folder and a copy of each node in it. Otherwise
 * (another user) makes nothing and returns 0. 0 or -errno with err set;
 * nothing is left behind on failure. */
int devnodes_make(struct devnodes *d, struct lnk_err *err);

/* Removes the copies and the folder. */
void devnodes_remove(struct devnodes *d);

/* As root: removes the folders a lnk killed with SIGKILL left in /dev
 * (".lnk-<pid>-XXXXXX" whose pid no longer runs). Reading /dev costs a
 * tenth of a millisecond: called as the sandbox ends, while the kernel
 * takes it down, not on the way to its start. */
void devnodes_sweep(void);
