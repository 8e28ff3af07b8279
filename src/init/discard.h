/* What the thrown-away home held at exit: the home inside is an empty
 * tmpfs unless a grant brings the real one, and whatever the program
 * writes there is gone with the sandbox. A program (npm's log, git's
 * config, a tool's cache) may not know; one line on the terminal says so.
 */
#pragma once

#include <stddef.h>

/* Counts the files (every entry that is not a folder) below home on its
 * own file system, at most limit; *more is set when the walk stopped at
 * the limit or at its depth bound. Folders the sandbox mounted there
 * (grants below the home) are other file systems and are not entered;
 * dot names at its top (a tool's cache, logs, settings: ~/.npm, ~/.cache)
 * are not counted. */
size_t discard_count(const char *home, size_t limit, int *more);

/* When stderr is a terminal and the program left files in home, says how
 * many on stderr. */
void discard_report(const char *home);
