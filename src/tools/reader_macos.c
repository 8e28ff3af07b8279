#include "tools/reader.h"

#include <errno.h>

/* The reader confines itself with Linux's Landlock and seccomp
 * (confine/kit.h); macOS's sandbox (launch/macos.c) starts no tools
 * broker, so there is nothing here to start. */
int tools_reader_start(int listen_fd, int pass_fd, pid_t *pid,
		       struct lnk_err *err)
{
	(void)listen_fd;
	(void)pass_fd;
	*pid = -1;
	return err_set(err, -ENOSYS,
		       "the tools broker's reader needs Linux's Landlock and "
		       "seccomp");
}
