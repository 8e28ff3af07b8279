/* The one list of names that run outside the sandbox (lnk-sandbox(1),
 * FILES THAT RUN OUTSIDE): most are dot files, some are not
 * (mise.toml, lefthook.yml). At the top of every --write folder these
 * names are read only and cannot be created, because what is written there
 * runs as the user, outside the sandbox, the next time they run git, cd into
 * the folder (direnv) or open it in an editor. The list is one class of
 * several: src/guard/protect.c adds the rest (docs/runs-outside.md). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct dot_file {
	const char *name;
	const char *why; /* what runs it outside the sandbox */
};

const struct dot_file *dot_files(size_t *n);
bool is_dot_file(const char *name);
