/* The always-hidden folders (~/Link/Agents, ~/Link/History) found by what
 * they are, not only by where they are.
 *
 * Threat: a program with a write grant holding the home folder moves a
 * folder that holds a hidden one (mv ~/Link ~/Link.moved; mkdir -p
 * ~/Link/Agents) or swaps one for a link. Every later sandbox would then
 * hide the decoy at the old path and show the real agents' folder at its
 * new one, and the host's agents would write into a folder the program
 * made. So lnk records each hidden folder's identity (device, inode and
 * file system id, which outlives a renumbered device) in
 * ~/.lnk the first time it sees it, and refuses to start a sandbox when
 * the folder at that path is another one, a link, or gone. ~/.lnk itself
 * is checked by store/secure.h (a real folder, the user's alone).
 */
#pragma once

#include "common/err.h"

/* Checks each always-hidden folder under home against the record in
 * ~/.lnk, recording the ones seen for the first time. 0, or -ESTALE /
 * -ELOOP with a message naming the folder, what changed and what to do;
 * -errno when the record cannot be read or written. */
int hidden_check(const char *home, struct lnk_err *err);
