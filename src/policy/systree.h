/* The system's own trees, which no write grant may hold: what lies there,
 * the system's programs run or trust as root (configuration, programs,
 * libraries, the boot; dpkg's maintainer scripts in /var/lib/dpkg, cron's
 * tables in /var/spool/cron, apt's packages in /var/cache/apt). Known by
 * spelling AND by identity: a link or a bind mount that shows one at
 * another path is the same tree (docs/design.md, invariant 2). */
#pragma once

#include <stdbool.h>

/* The tree real (an absolute, real path) is or lies in, by its spelling
 * only (for deciding whether a root-owned link is the system's), or NULL. */
const char *systree_spelled(const char *real);

struct fs_facts;

/* The tree real is or lies in, by spelling or by identity (the mounts and
 * the trees' real paths f knows, asked once a run; NULL: spelling only),
 * or NULL. *other is set when only identity
 * tells: the path shows the tree through a bind mount. */
const char *systree_holding(const char *real, struct fs_facts *f, bool *other);

/* The tree a mount strictly below real (an absolute, real path) shows, or
 * a folder of, or one that holds it (a bind of /etc, or of / itself, in a
 * chroot's folder), by identity; *point names that mount (f's), or NULL.
 * bubblewrap binds a write folder with its mounts: the program writes
 * there. */
const char *systree_below(const char *real, struct fs_facts *f,
			  const char **point);

/* Whether real (an absolute, real path) shows the folder tree (an
 * absolute path: /proc, /dev) by identity: it is a bind of tree or of a
 * folder in it, or a mount strictly below it shows tree, a folder in it,
 * or a folder that holds it (a chroot's folder with /proc mounted in
 * it). *point names the mount below real (f's), or NULL when real itself
 * shows it. False when f has no mounts. */
bool systree_shows(const char *real, struct fs_facts *f, const char *tree,
		   const char **point);
