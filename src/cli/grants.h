/* Grant flags of a command, through the keys table.
 *
 * run, check, enter and spec take the same grant flags: every key's flag
 * (`--write DIR` or `--write=DIR`), and, as the command allows, --spec FILE,
 * --yes and a program after them. Parsing stops at `--` (what follows is the
 * program, unchanged, even when it looks like our flags) or, for commands
 * that take a program, at the first argument that is not an option.
 *
 * Typical use (run):
 *
 *	struct grants g;
 *	struct lnk_err err = {0};
 *	int r = grants_parse("run", argc, argv,
 *			     GRANTS_SPEC | GRANTS_YES | GRANTS_PROGRAM, &g, &err);
 *	if (r < 0)
 *		return grants_fail(r, &err);           // prints, exit 2
 *	if (g.help) { usage(stdout); grants_help(stdout); ... return 0; }
 *	struct policy p;
 *	r = grants_build_policy(&g, cwd, home, &p, &err);
 *	if (r < 0)
 *		return grants_fail(r, &err);           // prints; 2 or 125
 *	if (trust_check(&p, home, g.yes, NULL, NULL, &err)) ...   // policy/trust.h
 *	program: argv[g.rest] .. argv[argc - 1]
 *	grants_free(&g); policy_free(&p);
 */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "common/err.h"
#include "policy/policy.h"

enum grants_allow {
	GRANTS_SPEC = 1u << 0,	  /* --spec FILE */
	GRANTS_YES = 1u << 1,	  /* --yes */
	GRANTS_PROGRAM = 1u << 2, /* a program follows (after -- or not) */
};

struct grants {
	struct policy flags; /* the key flags, checked for form, unresolved */
	char *spec;	     /* --spec FILE as given, or NULL */
	bool yes;	     /* --yes */
	bool help;	     /* -h or --help was given (parsing stopped) */
	bool dashdash;	     /* the program came after `--` */
	int rest; /* index in argv of the program's first argument, or argc */
};

/* Parses argv (argv[0] is the command's name, "run"). cmd names the command
 * in messages. Returns 0, or -EINVAL for a usage error (exit 2) with the
 * message in err: "unknown option '--wirte' for 'lnk sandbox run'; did you
 * mean '--write'?", "option '--write' needs a DIR", "'x' is not a port", an
 * unexpected argument. g is initialized here; free it with grants_free even
 * after an error. */
int grants_parse(const char *cmd, int argc, char **argv, unsigned allow,
		 struct grants *g, struct lnk_err *err);

/* One argument, for commands with options of their own (enter's --folder):
 * call it for argv[*i]; returns 1 and advances *i past what it took when the
 * argument was a grant flag (or --spec/--yes/--help as allowed), 0 when it is
 * not one of ours (*i unchanged), or -EINVAL with err set. g must have been
 * set up with grants_init. */
void grants_init(struct grants *g);
int grants_take(int argc, char **argv, int *i, unsigned allow, struct grants *g,
		struct lnk_err *err);

/* The flag names the command takes (for "did you mean" hints of commands
 * that parse options of their own): appended to out. */
void grants_flag_names(unsigned allow, struct strv *out);

/* The policy of these grants: loads the spec if any (errors with
 * file:line:col), applies the flags by each key's merge rule (a flag
 * replaces the file's key; --hide adds), and resolves paths against the
 * spec's folder or cwd. out is initialized here; free it with policy_free.
 * Returns 0; -EINVAL for anything wrong in what the person wrote (exit 2);
 * another -errno when the system failed (exit 125). */
int grants_build_policy(struct grants *g, const char *cwd, const char *home,
			struct policy *out, struct lnk_err *err);

/* Prints "lnk: <message>" and returns the exit status for a return value
 * of grants_parse or grants_build_policy: 2 for -EINVAL, 125 otherwise. */
int grants_fail(int r, const struct lnk_err *err);

/* The grant flags, from the table, for every command's --help. */
void grants_help(FILE *f);

void grants_free(struct grants *g);

/* Prints text wrapped before column 80; col is where the cursor is now,
 * and continuation lines are indented by indent. Ends with a newline. */
void grants_wrap(FILE *f, const char *text, int indent, int col);
