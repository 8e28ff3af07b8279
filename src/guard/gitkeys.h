/* The keys of git's configuration whose value is a program or a path: the
 * one table rule C of docs/runs-outside.md is made from.
 *
 * Threat: a config the user's git reads (global, XDG, system, what they
 * include, or the repository a write folder lies in) names a program or a
 * folder inside a write folder: init.templateDir (a hook planted in the
 * template runs at the next `git clone`), core.pager, core.editor,
 * core.sshCommand, credential.helper, a filter or merge driver... The
 * program rewrites the file, and git runs it outside, as the user. */
#pragma once

#include <stddef.h>

enum git_value {
	GIT_PATH,    /* a file or folder (relative: from the working tree) */
	GIT_COMMAND, /* a shell command: each word that is a path */
	GIT_BANG,    /* a command only when it starts with '!' (alias) */
	GIT_INCLUDE, /* a config file git reads too (from the including
		       * file's folder) */
};

struct git_key {
	const char *section; /* lower case; any subsection matches */
	const char *key;     /* lower case; NULL: every key of the section */
	enum git_value kind;
	const char *name; /* as git-config(1) writes it, for people */
	const char *why;  /* static text: what git does with it */
};

const struct git_key *git_keys(size_t *n);

/* The row for section.key (both lower case), or NULL. */
const struct git_key *git_key_find(const char *section, const char *key);
