/* rule O's table (toolconf_table.c) as its reader (toolconf.c) sees it:
 * not for other modules. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

enum tc_format {
	TC_SSH,	  /* `Keyword value` or `Keyword=value`, Include followed */
	TC_EQ,	  /* `key = value`: INI, npmrc, TOML */
	TC_YAML,  /* `key: value`, `- value` */
	TC_SHELL, /* a shell's startup file: what it sources or runs */
	TC_JSON,  /* `"key": value` a line (VS Code's settings) */
};

enum tc_base {
	TC_BASE_NONE,	/* a relative value is from where the tool runs */
	TC_BASE_DIR,	/* from the file's folder (a kubeconfig's) */
	TC_BASE_PARENT, /* from its folder's parent (cargo: ~/.cargo/..) */
};

struct tool_conf {
	const char *tool;
	enum tc_format fmt;
	enum tc_base base;
	/* ssh: where a relative Include is taken from */
	const char *include_base;
	/* "~/x" under the home, "/x", "$VAR" the file a variable names,
	 * "$VAR:" a ':' list of them, "$VAR/x" below the folder it names */
	const char *const files[8];
	const char *why;
	/* Rows of a project's kept files ("./x" at each write folder's top,
	 * list L keeps the file): only these keys name what is kept, a path
	 * or a command; NULL both: every value, as a command. */
	const char *const *paths;
	const char *const *commands;
	bool project;
};

/* The table, n rows. */
const struct tool_conf *toolconf_table(size_t *n);

/* The reading of one file's text (changed in place) as row (modulo the
 * table's size) reads the file at path, reading no other file (no
 * include, no glob): for the fuzzer and the unit tests. */
struct toolconf_cb;
void toolconf_parse(unsigned row, char *text, const char *path,
		    const char *home, const struct toolconf_cb *cb);
