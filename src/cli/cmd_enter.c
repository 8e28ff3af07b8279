/* lnk sandbox enter: not built yet. */
#include <stdio.h>

#include "cli/commands.h"
#include "common/util.h"

int cmd_enter(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fputs("lnk: 'lnk sandbox enter' is not built yet\n", stderr);
	return LNK_EXIT_FAIL;
}
