/* The command table of `lnk sandbox` (as git.c has one): one row, one
 * function, one source file per command. Each function gets argv from the
 * command's name on (argv[0] == "run") and returns the exit status. */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "wire/ctl.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary; /* one line for `lnk sandbox --help` */
};

const struct command *commands_table(size_t *n);

int cmd_ready(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_spec(int argc, char **argv);
int cmd_permissions(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_log(int argc, char **argv);
int cmd_traffic(int argc, char **argv);
int cmd_stop(int argc, char **argv);
int cmd_pause(int argc, char **argv);
int cmd_resume(int argc, char **argv);
int cmd_paused(int argc, char **argv);
int cmd_enter(int argc, char **argv);

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

/* The home folder, or exit 125 saying why. */
char *cli_home(void);

/* Sends op to the wire of the sandbox name (pause, resume). Returns -1 with
 * rep filled, else the exit status after saying why (1: no such sandbox;
 * 125: its wire did not answer or refused us). */
int cli_control(const char *name, enum ctl_op op, struct ctl_reply *rep);

/* What the commands use: finds the sandbox name running in home's
 * registry (store/state.h) and sends op to its wire. Errors, each with a
 * message: -ENOENT no sandbox of that name runs here; -EPERM the wire
 * refused us as not its owner; -EPROTO it found our request malformed;
 * -EIO it could not do it; else ctl_request's errors. */
int ctl_control(const char *home, const char *name, enum ctl_op op,
		int timeout_ms, struct ctl_reply *rep, struct lnk_err *err);
/* The same for an entry already found (stop goes through every one). */
struct state_entry;
int ctl_control_entry(const char *home, const struct state_entry *e,
		      enum ctl_op op, int timeout_ms, struct ctl_reply *rep,
		      struct lnk_err *err);
