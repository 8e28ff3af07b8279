/* [commands] allow: which programs a sandbox may execute, resolved to the
 * exact files Landlock grants EXECUTE on (lnk-init's ll_exec).
 *
 * Runs OUTSIDE the sandbox, at plan time. The list is a guard against
 * launching the wrong program, not containment: `ld.so FILE`, memfd
 * execution and any allowed interpreter get past it (docs/kernel-facts.md,
 * landlock-exec-bypasses).
 */
#pragma once

#include <stdbool.h>

#include "common/err.h"
#include "common/util.h"

/* The kernel's own limit on interpreter nesting (BINPRM_MAX_RECURSION). */
#define COMMANDS_MAX_DEPTH 4

/* Resolves the program to run and, unless any, the execute allow-list.
 *
 * allow:    [commands] allow entries: names looked up on path_env, or paths
 *           (absolute, or relative to the current folder). Entries that
 *           are not found are skipped (nothing to execute).
 * any:      every program may run: only the program is resolved and
 *           exec_files is left untouched.
 * path_env: the sandbox's PATH (NULL: /usr/local/bin:/usr/bin:/bin).
 * program:  what the user asked to run (argv[0] after --).
 *
 * exec_files receives (appended, no duplicates, all realpaths) each allowed
 * file, its ELF interpreter (PT_INTERP) and, for a script, its shebang
 * chain: the interpreter and, for `#!/usr/bin/env X`, env and X on
 * path_env, to COMMANDS_MAX_DEPTH levels. A program that is a script not in
 * the list is allowed when its whole chain is, and is then added itself.
 *
 * *program_path receives the path to execute (absolute; symlinks kept, so
 * the program sees the name it was run by).
 *
 * Returns 0, or:
 *   -ENOENT "'foo' not found on PATH"                        (exit 127)
 *   -EACCES "'curl' is not allowed: add --command curl or [commands] allow"
 *   -EACCES "'./x.sh' is a script run by '/usr/bin/python3', which is not
 *            allowed: add --command python3 or [commands] allow"
 *   (the last two: exit 126)
 */
int commands_resolve(const struct strv *allow, bool any, const char *path_env,
		     const char *program, struct strv *exec_files,
		     char **program_path, struct lnk_err *err);

/* The allow list alone, without a program to run (a Seatbelt profile
 * printed to read): each entry's file and its chain, as commands_resolve
 * appends them, into exec_files, and each folder entry (a trailing slash)
 * into exec_folders, realpaths. Entries not found are skipped. 0, or
 * -ENOTDIR / -EISDIR for a folder entry written wrong. */
int commands_allowed(const struct strv *allow, const char *path_env,
		     struct strv *exec_files, struct strv *exec_folders,
		     struct lnk_err *err);
