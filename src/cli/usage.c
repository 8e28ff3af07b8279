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
		warnx_(
		    "unknown option '%s' for 'lnk sandbox %s'; did you mean '%s'?",
		    name, cmd, best);
	else
		warnx_(
		    "unknown option '%s' for 'lnk sandbox %s'; see 'lnk sandbox %s --help'",
		    name, cmd, cmd);
	return LNK_EXIT_USAGE;
}

int cli_json_only(const char *cmd, int argc, char **argv, void (*usage)(FILE *),
		  bool *json)
{
	static const char *const opts[] = {"--json", "--help", NULL};
	for (int i = 1; i < argc; i++) {
		if (is_help(argv[i])) {
			usage(stdout);
			return 0;
		}
		if (strcmp(argv[i], "--json") == 0) {
			*json = true;
			continue;
		}
		if (argv[i][0] == '-')
			return usage_unknown_option(cmd, argv[i], opts);
		warnx_("'lnk sandbox %s' takes no arguments, not '%s'; "
		       "see 'lnk sandbox %s --help'",
		       cmd, argv[i], cmd);
		return LNK_EXIT_USAGE;
	}
	return -1;
}

int cli_one_name(const char *cmd, int argc, char **argv, void (*usage)(FILE *),
		 const char **name)
{
	static const char *const opts[] = {"--help", NULL};
	*name = NULL;
	for (int i = 1; i < argc; i++) {
		if (is_help(argv[i])) {
			usage(stdout);
			return 0;
		}
		if (strcmp(argv[i], "--") == 0 && i + 1 < argc && !*name) {
			*name = argv[++i];
			continue;
		}
		if (argv[i][0] == '-')
			return usage_unknown_option(cmd, argv[i], opts);
		if (*name) {
			warnx_("'lnk sandbox %s' takes one NAME, not "
			       "'%s' too",
			       cmd, argv[i]);
			return LNK_EXIT_USAGE;
		}
		*name = argv[i];
	}
	if (!*name) {
		usage(stderr);
		return LNK_EXIT_USAGE;
	}
	return -1;
}
