/* PATH read the way the user's shell reads it.
 *
 * Threat: a profile writes PATH=~/go/bin:$PATH (quoted, so the ~ stays):
 * bash expands a leading ~ or ~user of each PATH entry when it looks a
 * command up (findcmd.c), so that folder is searched, while a reader that
 * takes only entries starting with '/' skips it as relative and leaves it
 * for a program to make and fill. A truly relative entry ("." or "bin", or
 * an empty one, which means ".") names whatever folder the user is in, so
 * any folder a program can write may become it: it is reported. */
#pragma once

#include "common/util.h"

/* e (starting with ~) with its leading ~ or ~user expanded, malloc'd, as
 * a shell, git and ssh read it; NULL when the user is unknown or the home
 * is not absolute. */
char *path_tilde(const char *e, const char *home);

/* Splits path_env (NULL: nothing) into its absolute entries, a leading ~
 * expanded to home and ~user to that user's home (an unknown user's entry
 * is skipped, as bash then searches nothing there), appended to abs; and
 * its relative entries, an empty one as "", appended to rel (may be NULL).
 * Duplicates are kept once. */
void path_entries(const char *path_env, const char *home, struct strv *abs,
		  struct strv *rel);

/* One line per relative entry of path_env (escaped, common/esc.h), saying
 * what it risks and what to do, appended to notes. */
void path_relative_notes(const char *path_env, const char *home,
			 struct strv *notes);
