/* lnk sandbox pause: not built yet. */
#include <stdio.h>

#include "cli/commands.h"
#include "common/util.h"

int cmd_pause(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fputs("lnk: 'lnk sandbox pause' is not built yet\n", stderr);
	return LNK_EXIT_FAIL;
}
