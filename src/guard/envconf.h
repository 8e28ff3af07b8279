/* The configuration the user's environment names: the one table of
 * variables whose value is a folder or file the user's own programs read
 * for configuration, startup or code search, or a program they run.
 *
 * Threat: the user keeps XDG_CONFIG_HOME (or ZDOTDIR, BASH_ENV,
 * GIT_CONFIG_GLOBAL, PYTHONSTARTUP ...) inside a folder a sandbox may
 * write: the program creates git's global config, autostart/ or
 * systemd/user/ there, and the user's next login, shell or git runs it.
 * Each is protected like its home default when it lies in a write
 * folder. */
#pragma once

#include <stddef.h>

#include "common/util.h"

enum env_kind {
	ENV_WHOLE,	/* a file or folder: read only, never created */
	ENV_LIST,	/* ':'-separated folders, each ENV_WHOLE */
	ENV_PARTS,	/* a folder: the names of parts only */
	ENV_PARTS_LIST, /* ':'-separated folders, each ENV_PARTS */
	ENV_COMMAND,	/* a shell command: each word that is a path */
	ENV_GITCONFIG,	/* a git config file: ENV_WHOLE, and read for rule C */
	ENV_LOADER,	/* the loader's lists: paths split at ':', ';', a
			* space or a tab (glibc splits LD_PRELOAD at spaces
			* and colons, LD_LIBRARY_PATH at colons and
			* semicolons), each ENV_WHOLE */
};

struct env_conf {
	const char *name; /* the variable */
	enum env_kind kind;
	const char *const *parts; /* ENV_PARTS: NULL-terminated */
	const char *why;	  /* static text: what reads or runs it */
};

const struct env_conf *env_confs(size_t *n);
/* The table's entry for the variable name, or NULL. */
const struct env_conf *env_conf_find(const char *name);

/* An entry of a loader's list as the loader may read it: $LIB, ${LIB},
 * $PLATFORM and ${PLATFORM} expanded to each value they take on the
 * machines lnk runs on ("/w/$LIB/x.so" is /w/lib/x86_64-linux-gnu/x.so
 * on Debian), appended to out; an entry without them as it is. */
void env_loader_paths(const char *entry, struct strv *out);
