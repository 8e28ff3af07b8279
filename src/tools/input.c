/* Which tools read commands on their input (input.h). */
#include "tools/input.h"

#include <string.h>

#include "tools/folder.h"

/* Tools whose input is commands whatever their arguments: database
 * shells, debuggers, editors, line tools with a shell escape, shells
 * (`sh -s`, or `sh -c 'cat | sh'`), REPLs; and the screen tools that,
 * with no terminal, read their keys from stderr: pagers (util-linux
 * more's `!cmd`, pg, less, most), text browsers, file managers, top and
 * htop (which kill any process of the person's), mail readers, tig,
 * telnet (`!`), tmux and screen. */
static const char *const ALWAYS[] = {
    "sqlite3", "sqlite",   "duckdb", "psql",   "mysql",	 "mariadb", "sqlplus",
    "gdb",     "lldb",	   "ed",     "ex",     "vi",	 "vim",	    "nvim",
    "view",    "vimdiff",  "emacs",  "nano",   "dc",	 "gnuplot", "ftp",
    "sftp",    "lftp",	   "tclsh",  "wish",   "expect", "octave",  "mongosh",
    "mongo",   "jshell",   "guile",  "sbcl",   "clisp",	 "racket",  "ocaml",
    "scala",   "groovysh", "sh",     "bash",   "rbash",	 "dash",    "zsh",
    "ksh",     "mksh",	   "fish",   "tcsh",   "csh",	 "busybox", "irb",
    "ghci",    "iex",	   "erl",    "R",      "julia",	 "m4",	    "ipython",
    "jupyter", "bc",	   "more",   "pg",     "less",	 "most",    "w3m",
    "lynx",    "links",	   "elinks", "mc",     "ranger", "nnn",	    "vifm",
    "top",     "htop",	   "btop",   "atop",   "mutt",	 "neomutt", "mail",
    "mailx",   "s-nail",   "tig",    "telnet", "tmux",	 "screen",  "info",
    "pinfo",   "minicom",
};

/* Debian's other builds of one program: vim.basic, vim.tiny, emacs-nox,
 * octave-cli, gdb-multiarch, guile-3.0. */
static const char *const BUILDS[] = {"vim",  "vi",    "emacs", "octave",
				     "gdb",  "guile", "tclsh", "wish",
				     "sbcl", "nvim"};

/* Interpreters that read their program from the input unless the call
 * names one: a script file, or code in an option (-c, -e, -m...); then
 * the input is the script's data (python3 -m json.tool reads JSON). An
 * interactive option (-i, --interactive, php's -a) reads commands after
 * the script too. A name, a version, perhaps a '-' and more: python3.11,
 * Debian's perl5.36-x86_64-linux-gnu. */
static const struct scripted {
	const char *name;
	const char *code;  /* options whose value is the program: -c, -e */
	const char *value; /* options whose value is something else */
} SCRIPTED[] = {
    {"python", " -c -m ", " -W -X -Q "},
    {"pypy", " -c -m ", " -W -X -Q "},
    {"perl", " -e -E ", " -I -x "},
    {"ruby", " -e ", " -I -r -C "},
    {"node", " -e --eval -p --print ", " -r --require --import -C "},
    {"nodejs", " -e --eval -p --print ", " -r --require --import -C "},
    {"php", " -r ", " -c -d -z "},
    {"lua", " -e ", " -l "},
};

static bool in_words(const char *words, const char *a)
{
	size_t n = strlen(a);
	for (const char *w = words; (w = strstr(w, a)); w += n)
		if (w[-1] == ' ' && w[n] == ' ')
			return true;
	return false;
}

/* Whether args name the interpreter's program (see SCRIPTED): a script's
 * path, or an option whose value is code; an interactive option reads
 * commands after it all the same. */
static bool names_a_program(const struct scripted *sc, const struct strv *args)
{
	bool named = false;
	for (size_t i = 0; i < args->n; i++) {
		const char *a = args->v[i];
		if (strcmp(a, "-i") == 0 || strcmp(a, "--interactive") == 0 ||
		    strcmp(a, "-a") == 0)
			return false;
		if (in_words(sc->value, a)) {
			i++; /* its value is no program */
			continue;
		}
		if (in_words(sc->code, a) || (a[0] != '-' && a[0]))
			named = true;
	}
	return named;
}

bool tools_reads_commands(const char *tool, const struct strv *args)
{
	const char *base = tools_base_name(tool);
	if (!base)
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(ALWAYS); i++)
		if (tools_name_versioned(base, ALWAYS[i]))
			return true;
	for (size_t i = 0; i < ARRAY_SIZE(BUILDS); i++)
		if (tools_name_build(base, BUILDS[i]))
			return true;
	for (size_t i = 0; i < ARRAY_SIZE(SCRIPTED); i++)
		if (tools_name_versioned(base, SCRIPTED[i].name))
			return !names_a_program(&SCRIPTED[i], args);
	/* A program told to read its script or commands from its input
	 * (awk -f -, sed -f /dev/stdin): what it reads there is code. */
	for (size_t i = 0; i < args->n; i++)
		if (strcmp(args->v[i], "/dev/stdin") == 0 ||
		    strcmp(args->v[i], "/dev/fd/0") == 0 ||
		    strcmp(args->v[i], "/proc/self/fd/0") == 0 ||
		    (strcmp(args->v[i], "-") == 0 && i > 0 &&
		     strcmp(args->v[i - 1], "-f") == 0))
			return true;
	return false;
}
