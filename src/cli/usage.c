/* Messages shared by the commands. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "common/util.h"

bool is_help(const char *arg)
{
	return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

int usage_unknown_option(const char *cmd, const char *arg,
			 const char *const *cands)
{
	size_t n = 0;
	while (cands && cands[n])
		n++;
	/* Compare only the name of --flag=value. */
	char name[128];
	snprintf(name, sizeof(name), "%s", arg);
	char *eq = strchr(name, '=');
	if (eq)
		*eq = '\0';
	const char *best = closest_word(name, cands, n);
	if (best)
		fprintf(
		    stderr,
		    "lnk: unknown option '%s' for 'lnk sandbox %s'; did you mean '%s'?\n",
		    name, cmd, best);
	else
		fprintf(
		    stderr,
		    "lnk: unknown option '%s' for 'lnk sandbox %s'; see 'lnk sandbox %s --help'\n",
		    name, cmd, cmd);
	return LNK_EXIT_USAGE;
}
