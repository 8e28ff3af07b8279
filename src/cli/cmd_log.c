/* lnk sandbox log: not built yet. */
#include <stdio.h>

#include "cli/commands.h"
#include "common/util.h"

int cmd_log(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fputs("lnk: 'lnk sandbox log' is not built yet\n", stderr);
	return LNK_EXIT_FAIL;
}
