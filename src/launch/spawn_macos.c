/* What spawn.h gives the rest of lnk on macOS, where spawn.c (bubblewrap's
 * supervisor: memfds, pidfds, signalfd) is not built: the two calls the
 * commands use before any sandbox starts. */
#include <fcntl.h>
#include <limits.h>
#include <unistd.h>

#include "launch/spawn.h"

void spawn_cloexec_inherited(void)
{
	/* No close_range and no /proc on macOS: every descriptor above 2 up
	 * to the limit, so none of what lnk inherited reaches a program. */
	long max = sysconf(_SC_OPEN_MAX);
	if (max < 0 || max > 65536)
		max = 65536;
	for (int fd = 3; fd < max; fd++)
		(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
}

bool spawn_wants_pty(void)
{
	/* macos.c makes a pty whenever any of 0, 1, 2 is a terminal
	 * (pty_macos.h); this is what the commands ask before. */
	return isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
}
