/* lnk: the command table and dispatch. Nothing else lives here. */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "cli/commands.h"
#include "common/util.h"
#include "launch/spawn.h"
#include "store/paths.h"
#include "launch/grantcheck.h"
#include "store/secure.h"

static const struct command table[] = {
    {"ready", cmd_ready, CMD_OUTSIDE,
     "whether the sandbox can run here, and what it needs", "--json"},
    {"run", cmd_run, CMD_SANDBOX | CMD_HOME | CMD_HOME_MAKE,
     "run a program in the sandbox", "+keys --spec=FILE --yes --"},
    {"spec", cmd_spec, 0,
     "print a spec from flags, or a spec with paths absolute",
     "+keys --spec=FILE --seatbelt"},
    {"permissions", cmd_permissions, 0,
     "list each section of a spec and its flags", "--json"},
    {"check", cmd_check, CMD_SANDBOX | CMD_HOME | CMD_HOME_MAKE,
     "try from inside what the sandbox should not allow",
     "+keys --spec=FILE --yes --json"},
    {"log", cmd_log, CMD_HOME | CMD_HOME_MAKE,
     "every call on the proxies of the sandboxes",
     "--lines=N --sandbox=@sandboxes --refused --since=TIME "
     "--follow -f --json"},
    {"changes", cmd_changes, CMD_HOME | CMD_HOME_MAKE | CMD_OUTSIDE,
     "what the last runs left in their write folders that runs later",
     "@sandboxes --json"},
    {"traffic", cmd_traffic, CMD_HOME | CMD_HOME_MAKE | CMD_OUTSIDE,
     "bytes up and down of each running wire", "--json"},
    {"stop", cmd_stop, CMD_HOME | CMD_HOME_MAKE | CMD_OUTSIDE,
     "close every wire and stop every sandbox here", "--off"},
    {"pause", cmd_pause, CMD_HOME | CMD_HOME_MAKE | CMD_OUTSIDE,
     "close the wire of one sandbox", "@sandboxes"},
    {"resume", cmd_resume, CMD_HOME | CMD_HOME_MAKE | CMD_OUTSIDE,
     "open the wire of one sandbox again", "@sandboxes"},
    {"paused", cmd_paused, CMD_HOME | CMD_HOME_MAKE | CMD_OUTSIDE,
     "which wires are closed, and why", "--json"},
    {"tool", cmd_tool, CMD_HOME | CMD_HOME_MAKE | CMD_OUTSIDE,
     "the calls of tools outside that run at once: add, list, remove",
     "@tool --allow=CALL --json"},
    {"asks", cmd_asks, CMD_HOME | CMD_HOME_MAKE | CMD_OUTSIDE,
     "the questions sandboxes wait on", "--json"},
    {"answer", cmd_answer, CMD_HOME | CMD_HOME_MAKE | CMD_OUTSIDE,
     "answer a sandbox's question: ID yes|no", "@asks"},
    {"enter", cmd_enter, CMD_SANDBOX | CMD_HOME | CMD_OUTSIDE,
     "a session in a sandbox, for an SSH forced command",
     "+keys --spec=FILE --folder=DIR --check --"},
    /* For the shell, not in --help: the completion scripts, and the
     * values they ask lnk for (cmd_completion.c). */
    {"completion", cmd_completion, 0, NULL, NULL},
    {"complete", cmd_complete, CMD_HOME, NULL, NULL},
};

const struct command *commands_table(size_t *n)
{
	*n = ARRAY_SIZE(table);
	return table;
}

static void usage_top(FILE *f)
{
	fputs(
	    "usage: lnk sandbox <command> [options]\n"
	    "\n"
	    "Run any program so it changes only the folders you give it, reaches\n"
	    "only what you allow, and never reads lnk's settings.\n"
	    "\n"
	    "  lnk sandbox --help      the sandbox's commands\n"
	    "  lnk --version           lnk's version\n"
	    "\n"
	    "See lnk-sandbox(1).\n",
	    f);
}

static void usage_sandbox(FILE *f)
{
	fputs("usage: lnk sandbox <command> [options]\n\ncommands:\n", f);
	for (size_t i = 0; i < ARRAY_SIZE(table); i++)
		if (table[i].summary)
			fprintf(f, "  %-12s %s\n", table[i].name,
				table[i].summary);
	fputs(
	    "\n'lnk sandbox <command> --help' describes each. See lnk-sandbox(1).\n",
	    f);
}

/* The first steps the table asks for, then the command. */
static int run_command(const struct command *c, int argc, char **argv)
{
	bool help = false;
	for (int i = 1; i < argc && !help; i++)
		help = is_help(argv[i]);
	if ((c->flags & CMD_OUTSIDE) && !help && grantcheck_inside_sandbox()) {
		warnx_("this is inside a lnk sandbox, where neither this "
		       "user's sandboxes nor lnk's settings are: run 'lnk "
		       "sandbox %s' outside it",
		       c->name);
		return LNK_EXIT_FAIL;
	}
	if (c->flags & CMD_SANDBOX)
		spawn_cloexec_inherited();
	_cleanup_free_ char *home = NULL;
	struct cli_ctx cx = {0};
	if (c->flags & CMD_HOME) {
		struct lnk_err err = {0};
		if (paths_home(&home, &err) < 0 ||
		    secure_settings(home, c->flags & CMD_HOME_MAKE, &err) < 0) {
			warnx_("%s", err.msg);
			return LNK_EXIT_FAIL;
		}
		cx.home = home;
	}
	return c->fn(argc, argv, &cx);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage_top(stderr);
		return LNK_EXIT_USAGE;
	}
	if (is_help(argv[1])) {
		usage_top(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("lnk %s\n", LNK_VERSION);
		return 0;
	}
	if (strcmp(argv[1], "sandbox") != 0) {
		const char *cands[] = {"sandbox"};
		const char *best = closest_word(argv[1], cands, 1);
		warnx_("unknown command '%s'%s%s%s", argv[1],
		       best ? "; did you mean '" : "", best ? best : "",
		       best ? "'?" : "; see 'lnk --help'");
		return LNK_EXIT_USAGE;
	}
	if (argc < 3) {
		usage_sandbox(stderr);
		return LNK_EXIT_USAGE;
	}
	if (is_help(argv[2])) {
		usage_sandbox(stdout);
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(table); i++)
		if (strcmp(argv[2], table[i].name) == 0)
			return run_command(&table[i], argc - 2, argv + 2);

	/* Only the commands a person is shown are suggested. */
	const char *names[ARRAY_SIZE(table)];
	size_t n = 0;
	for (size_t i = 0; i < ARRAY_SIZE(table); i++)
		if (table[i].summary)
			names[n++] = table[i].name;
	const char *best = closest_word(argv[2], names, n);
	if (best)
		warnx_(
		    "unknown command 'sandbox %s'; did you mean 'sandbox %s'?",
		    argv[2], best);
	else
		warnx_("unknown command 'sandbox %s'; see 'lnk sandbox --help'",
		       argv[2]);
	return LNK_EXIT_USAGE;
}
