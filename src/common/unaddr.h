/* A unix socket's address for a path of any length.
 *
 * sun_path holds 107 bytes and a home can be deeper (lnk's sockets live
 * in ~/.lnk): then the folder is opened and the socket named through
 * /proc/self/fd, so a deep home never makes a socket unreachable. Linux
 * only past the limit; elsewhere the path must fit. */
#pragma once

#include <sys/socket.h>
#include <sys/un.h>

/* The address of path into sa and len. *dirfd is -1 or the folder's
 * descriptor, for the caller to close after bind or connect. -errno:
 * -ENAMETOOLONG when it cannot be named, or the folder's open error. */
int unaddr_make(const char *path, struct sockaddr_un *sa, socklen_t *len,
		int *dirfd);
