/* lnk sandbox run: not built yet. */
#include <stdio.h>

#include "cli/commands.h"
#include "common/util.h"

int cmd_run(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fputs("lnk: 'lnk sandbox run' is not built yet\n", stderr);
	return LNK_EXIT_FAIL;
}
