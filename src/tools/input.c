/* Which tools read commands on their input (input.h). */
#include "tools/input.h"

#include <string.h>

/* Tools whose input is commands whatever their arguments: database
 * shells, debuggers, editors, line tools with a shell escape, shells
 * (`sh -s`, or `sh -c 'cat | sh'`), REPLs. */
static const char *const ALWAYS[] = {
    "sqlite3", "sqlite",   "duckdb", "psql", "mysql",  "mariadb", "sqlplus",
    "gdb",     "lldb",	   "ed",     "ex",   "vi",     "vim",	  "nvim",
    "view",    "vimdiff",  "emacs",  "nano", "dc",     "gnuplot", "ftp",
    "sftp",    "lftp",	   "tclsh",  "wish", "expect", "octave",  "mongosh",
    "mongo",   "jshell",   "guile",  "sbcl", "clisp",  "racket",  "ocaml",
    "scala",   "groovysh", "sh",     "bash", "rbash",  "dash",	  "zsh",
    "ksh",     "mksh",	   "fish",   "tcsh", "csh",    "busybox", "irb",
    "ghci",    "iex",	   "erl",    "R",    "julia",
};

/* Interpreters that read their program from the input when given no
 * script (no argument, or only "-"); with one, the input is the
 * script's data (python3 -m json.tool reads JSON). A name, a version,
 * perhaps a '-' and more: python3.11, Debian's perl5.36-x86_64-linux-gnu. */
static const char *const SCRIPTED[] = {"python", "node", "nodejs", "perl",
				       "ruby",	 "php",	 "lua"};

static bool versioned(const char *base, const char *name)
{
	size_t n = strlen(name);
	if (strncmp(base, name, n) != 0)
		return false;
	size_t v = strspn(base + n, "0123456789.");
	return !base[n + v] || (v && base[n + v] == '-');
}

bool tools_reads_commands(const char *tool, const struct strv *args)
{
	const char *base = tool ? strrchr(tool, '/') : NULL;
	base = base ? base + 1 : tool;
	if (!base)
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(ALWAYS); i++)
		if (versioned(base, ALWAYS[i]))
			return true;
	for (size_t i = 0; i < ARRAY_SIZE(SCRIPTED); i++)
		if (versioned(base, SCRIPTED[i]))
			return args->n == 0 ||
			       (args->n == 1 && strcmp(args->v[0], "-") == 0);
	return false;
}
