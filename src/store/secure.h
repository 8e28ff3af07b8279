/* lnk's own state belongs to its user.
 *
 * ~/.lnk holds the call log, the registry of running sandboxes (whose pids
 * `stop` signals), the accepted specs and the control sockets. Threat:
 * another account that can write ~/.lnk, or any folder above it, reads the
 * log, forges a registry row so that the victim's `stop` kills a process
 * of the attacker's choosing, marks a hostile spec as accepted, or answers
 * on a control socket. That happens when root runs lnk with someone else's
 * HOME (sudo -E), with HOME in a shared folder (a service, CI), or when
 * ~/.lnk is a link to a folder someone else controls.
 *
 * So before lnk uses ~/.lnk it proves: every folder from / down to the
 * home folder belongs to this user or to root and is writable by no one
 * else (a sticky folder such as /tmp is fine: others cannot move what is
 * ours in it); a link on the way belongs to this user or root (in a user
 * namespace that does not map root, also to the unmapped "nobody", which
 * is how root's folders look there: then lnk cannot tell); ~/.lnk is a
 * real folder (no link) of this user's, writable by no one else; and so is
 * every file and folder in the sandbox's own folders in it (sandbox/,
 * specs/: no links either) and every entry at its top (a link there, the
 * rest of Link's, must be this user's). Once that holds, only this user (and
 * root) can change any of it afterwards, so checking at start suffices.
 */
#pragma once

#include <stdbool.h>

#include "common/err.h"

/* The checks above. With create, a missing ~/.lnk is made (0700) first.
 * A ~/.lnk that others may read (not write) is made 0700 again. 0, or
 * -EPERM / -ELOOP / -ENOTDIR / -errno with a message naming the path, what
 * is wrong and what to do. */
int secure_settings(const char *home, bool create, struct lnk_err *err);

/* Whether the folder at path (a directory, no link) belongs to this user
 * and no one else can write it; 0 or -EPERM with a message. For the
 * control sockets' folder, checked again by each client. */
int secure_own_folder(const char *path, struct lnk_err *err);
