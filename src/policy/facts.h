/* What planning one run asks the file system more than once, asked once:
 * the mounts (/proc/self/mountinfo) and the real form of a path.
 *
 * Resolving a policy, hiding its folders by identity, refusing the system
 * trees and planning the guard each want the real path of the home, of the
 * hidden folders and of the system trees, and the mount table: asked by
 * each, they cost a start about 70 readlink and a second read of
 * mountinfo. One struct fs_facts lives as long as the policy that made it
 * (policy.h, facts); never a global, so a second policy (a test, `check`'s
 * probe) asks again.
 *
 * A real path is what realpath(3) returns, found component by component
 * from the real form of its folder: each folder on the way is read (one
 * readlink) once a run, and a link anywhere is followed as realpath
 * follows it. What changes on disk during the planning is not seen again:
 * every answer is the one from the first question, as if each rule had
 * asked at the same moment. */
#pragma once

#include <stddef.h>

#include "common/fsplace.h"

struct fs_facts;

struct fs_facts *facts_new(void);
void facts_free(struct fs_facts *f);

/* The mounts, read at the first call; NULL where there is no mountinfo
 * (not Linux) or it cannot be read, every time. */
const struct mount_table *facts_mounts(struct fs_facts *f);

/* realpath(path) for an absolute path, asked once a run; NULL (errno set
 * at the first call) when it does not resolve, every time. The string
 * belongs to f. */
const char *facts_real(struct fs_facts *f, const char *path);

/* The place (common/fsplace.h) of path's real form in the mounts, asked
 * once a run; NULL when path does not resolve or no mount holds it. */
const struct fs_place *facts_place(struct fs_facts *f, const char *path);

/* How many system calls facts_real has made for f (readlink and
 * realpath), for the tests that each folder is read once. */
size_t facts_calls(const struct fs_facts *f);
