/* The policy as a Seatbelt profile (macOS): a pure function, golden-tested.
 *
 * The macOS twin of bwrap.c: from a resolved policy and a few facts of the
 * launch it writes the whole sandbox profile in SBPL, the language
 * sandbox_init(3) and sandbox-exec(1) read. Deny by default; every rule
 * says why in a comment; the same mount table bwrap.c builds becomes the
 * same rules here, in the same order, so a later (deeper) rule wins as a
 * later mount does (Seatbelt applies the last rule that matches).
 *
 * Paths enter the profile as string literals inside `literal` and
 * `subpath` filters, escaped by sbpl_quote, and as `regex` filters that
 * match them in any letter case (the Mac's disks fold case, Unicode's
 * too), written by sbpl_fold (sbfold.h) a byte at a time: a letter as
 * its foldings, any other byte as itself inside a bracket, and the bytes a
 * regex literal cannot hold as "any byte" (a deny widened, never an allow).
 * No path a user, a spec or the file system chose can end a string, start
 * a form or be read as a pattern. It touches nothing: no stat, no open, no
 * environment.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/err.h"
#include "common/sbpl.h"
#include "common/util.h"
#include "policy/policy.h"

struct seatbelt_in {
	const struct policy *pol; /* resolved (policy_resolve) */
	const char *home;	  /* the user's home, absolute, as spelled */
	/* Its real path (realpath(3)) when the launcher could resolve it, or
	 * NULL; the generator adds the Mac's own links itself (/var, /tmp and
	 * /etc are /private/...). Seatbelt matches the real path: a kept name
	 * given under the spelled one alone would stay writable. */
	const char *home_real;
	/* The sandbox's own folder, made by the launcher and removed after:
	 * its tmp/ is the program's TMPDIR and its home/ the empty HOME
	 * (the host's /tmp is shared by every program, so it stays closed).
	 * NULL: none (a profile printed to read). */
	const char *scratch;
	/* The program's terminal: the pty lnk made for it and made the
	 * terminal of the program's new session, or NULL (a profile printed
	 * to read: no ioctl reaches any terminal then). */
	const char *tty;
	/* [commands], as commands.h resolved them on this machine: files
	 * (realpaths) and folders (a trailing slash in the spec) that may run.
	 * Unused when the policy runs every program. */
	const struct strv *exec_files;
	const struct strv *exec_folders;
};

/* The keys macOS cannot enforce, refused (not ignored) so that a spec
 * never runs with less than it says: [limits] memory, tasks and tmp_size,
 * and the network grants ([internet] hosts and models, [lan]), which need
 * the wire, which does not run on macOS. 0, or -EOPNOTSUPP naming the key
 * and what to do. */
int seatbelt_refusals(const struct policy *p, struct lnk_err *err);

/* Writes the profile into *out (allocated, NUL-terminated). 0 or -errno:
 * -EOPNOTSUPP for a key macOS cannot enforce (seatbelt_refusals), -EINVAL
 * for a path that is not absolute and normalized (a bug) or that holds a
 * control character SBPL has no escape for. */
int seatbelt_build(const struct seatbelt_in *in, char **out,
		   struct lnk_err *err);
