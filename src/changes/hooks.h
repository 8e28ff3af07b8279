/* The project scripts the repository's own hooks name, for the report.
 *
 * Threat: the user's pre-commit hook (.git/hooks/pre-commit, or a hook
 * manager's .husky/pre-commit) runs `./scripts/lint.sh`. The hook is kept
 * read only, but the script is the project's: the program may rewrite
 * it, and the user's next commit outside runs it as the user. Keeping
 * such scripts read only would refuse what builds and formatters write,
 * so the report names each one the run changed, with the hook that runs
 * it (flags.c's table names the hook managers' own files).
 *
 * The hooks are read once, after the run (the top's own .git/hooks and
 * .husky are kept read only, so they are the user's), bounded: HOOKS_MAX
 * files of HOOKS_READ_MAX bytes. A path is named when the hook's text
 * holds it whole: between a start, a space, a quote, a slash or a shell
 * operator and an end of the same kind. */
#pragma once

#include <stddef.h>

#define HOOKS_MAX 64
#define HOOKS_READ_MAX (256 * 1024)

struct hooks;

/* The hooks of the repository at the top of a write folder (topfd), or
 * NULL when it has none. */
struct hooks *hooks_read(int topfd);
/* The hook ("pre-commit", with its folder: ".git/hooks/pre-commit")
 * whose text names rel (len bytes, relative to the top), or NULL. */
const char *hooks_naming(const struct hooks *h, const char *rel, size_t len);
void hooks_free(struct hooks *h);
