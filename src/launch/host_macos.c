/* What host.h gives the rest of lnk on macOS, where host.c (ready's probes
 * of Linux, the helpers bubblewrap runs) is not built. */
#include <stddef.h>

#include "launch/host.h"

char *host_find_helper(const char *name)
{
	/* No helper runs on macOS: lnk-probe (check) and lnk-tool (the
	 * tools) are refused there (macos.c, view_macos.c), so none is
	 * looked for, and the callers say it is missing. */
	(void)name;
	return NULL;
}
