/* The command table of `lnk sandbox` (as git.c has one): one row, one
 * function, one source file per command. Each function gets argv from the
 * command's name on (argv[0] == "run") and returns the exit status. */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "wire/ctl.h"

/* What a command needs done before it starts. main() does it, once, in
 * this order, before the command's own code: a new command names its
 * needs in the table and cannot forget them. */
enum command_flags {
	/* Starts a sandbox: every descriptor lnk inherited is made
	 * close-on-exec first (spawn_cloexec_inherited). */
	CMD_SANDBOX = 1u << 0,
	/* Uses ~/.lnk: the home folder is found and ~/.lnk proved this
	 * user's alone (secure_settings) before the command reads it. */
	CMD_HOME = 1u << 1,
	/* Acts on this user's sandboxes, their settings or this machine:
	 * inside a sandbox, where none of them is, it says so and exits
	 * 125 rather than answer falsely ("no sandbox is running"). */
	CMD_OUTSIDE = 1u << 3,
	/* With CMD_HOME: a missing ~/.lnk is made first. */
	CMD_HOME_MAKE = 1u << 2,
};

/* What main's first steps found, for the command. */
struct cli_ctx {
	const char *home; /* with CMD_HOME; else NULL */
};

struct command {
	const char *name;
	int (*fn)(int argc, char **argv, const struct cli_ctx *cx);
	unsigned flags;	     /* enum command_flags */
	const char *summary; /* one line for `lnk sandbox --help`; NULL
			      * leaves the command out (it is for the
			      * shell's completion, not for a person) */
	/* The command's options for the shell completions
	 * (cmd_completion.c), space separated: "--flag", "--flag=META" (META
	 * DIR completes folders, FILE files, CMD programs, "@kind" what
	 * `lnk sandbox complete kind` prints; another is a word), "@kind"
	 * for its positional arguments, "+keys" for every grant flag of the
	 * keys table, "--" when a program follows. --help is implied. A test
	 * checks these against each command's --help. */
	const char *opts;
};

const struct command *commands_table(size_t *n);

int cmd_ready(int argc, char **argv, const struct cli_ctx *cx);
int cmd_run(int argc, char **argv, const struct cli_ctx *cx);
int cmd_spec(int argc, char **argv, const struct cli_ctx *cx);
int cmd_permissions(int argc, char **argv, const struct cli_ctx *cx);
int cmd_check(int argc, char **argv, const struct cli_ctx *cx);
int cmd_log(int argc, char **argv, const struct cli_ctx *cx);
int cmd_changes(int argc, char **argv, const struct cli_ctx *cx);
int cmd_traffic(int argc, char **argv, const struct cli_ctx *cx);
int cmd_stop(int argc, char **argv, const struct cli_ctx *cx);
int cmd_pause(int argc, char **argv, const struct cli_ctx *cx);
int cmd_resume(int argc, char **argv, const struct cli_ctx *cx);
int cmd_paused(int argc, char **argv, const struct cli_ctx *cx);
int cmd_enter(int argc, char **argv, const struct cli_ctx *cx);
int cmd_completion(int argc, char **argv, const struct cli_ctx *cx);
int cmd_complete(int argc, char **argv, const struct cli_ctx *cx);
int cmd_tool(int argc, char **argv, const struct cli_ctx *cx);
int cmd_asks(int argc, char **argv, const struct cli_ctx *cx);
int cmd_answer(int argc, char **argv, const struct cli_ctx *cx);

/* Shared by commands: is arg one of -h/--help. */
bool is_help(const char *arg);
/* Prints "lnk: unknown option 'X' for 'lnk sandbox CMD'; did you mean 'Y'?"
 * and returns 2. cands is NULL-terminated. */
int usage_unknown_option(const char *cmd, const char *arg,
			 const char *const *cands);

/* The arguments of a command whose only option is --json (ready, paused,
 * permissions, traffic). Returns -1 to go on, else the exit status (0 after
 * --help, 2 for anything else). */
int cli_json_only(const char *cmd, int argc, char **argv, void (*usage)(FILE *),
		  bool *json);

/* The arguments of a command that takes exactly one NAME (pause, resume;
 * "-- NAME" for a name that starts with '-'). Returns -1 to go on, else the
 * exit status. */
int cli_one_name(const char *cmd, int argc, char **argv, void (*usage)(FILE *),
		 const char **name);

/* Sends op to the wire of the sandbox name (pause, resume). Returns -1 with
 * rep filled, else the exit status after saying why (1: no such sandbox;
 * 125: its wire did not answer or refused us). */
/* When the sandbox name runs here without a wire (no network grant):
 * closes ("pause") or opens its tools and pages through the registry,
 * says so on stdout and returns true, so that pause and resume say what
 * they did rather than print a socket's error. */
bool cli_said_without_wire(const char *home, const char *name,
			   const char *nothing_to);
int cli_control(const char *home, const char *name, enum ctl_op op,
		struct ctl_reply *rep);

/* What the commands use: finds the sandbox name running in home's
 * registry (store/registry.h) and sends op to its wire. Errors, each with a
 * message: -ENOENT no sandbox of that name runs here; -EPERM the wire
 * refused us as not its owner; -EPROTO it found our request malformed;
 * -EIO it could not do it; else ctl_request's errors. */
int ctl_control(const char *home, const char *name, enum ctl_op op,
		int timeout_ms, struct ctl_reply *rep, struct lnk_err *err);
/* The same for an entry already found (stop goes through every one). */
struct registry_entry;
int ctl_control_entry(const char *home, const struct registry_entry *e,
		      enum ctl_op op, int timeout_ms, struct ctl_reply *rep,
		      struct lnk_err *err);
