/* A unix socket's address for a path of any length (unaddr.h). */
#include "common/unaddr.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util.h"

int unaddr_make(const char *path, struct sockaddr_un *sa, socklen_t *len,
		int *dirfd)
{
	size_t n = strlen(path);

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	*dirfd = -1;
	if (n < sizeof(sa->sun_path)) {
		memcpy(sa->sun_path, path, n + 1);
	} else {
#ifndef __linux__
		return -ENAMETOOLONG;
#else
		const char *slash = strrchr(path, '/');
		if (!slash || slash == path)
			return -ENAMETOOLONG;
		_cleanup_free_ char *dir =
		    xstrndup(path, (size_t)(slash - path));
		int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		int w = snprintf(sa->sun_path, sizeof(sa->sun_path),
				 "/proc/self/fd/%d/%s", fd, slash + 1);
		if (w < 0 || (size_t)w >= sizeof(sa->sun_path)) {
			close(fd);
			return -ENAMETOOLONG;
		}
		*dirfd = fd;
#endif
	}
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
			   strlen(sa->sun_path) + 1);
	return 0;
}
