/* Device nodes of the sandbox's own (see devnodes.h). */
#include "launch/devnodes.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/util.h"

static const char *const names[] = {"null",    "zero", "full", "random",
				    "urandom", "tty",  NULL};

const char *const *devnodes_names(void)
{
	return names;
}

int devnodes_make(struct devnodes *d, struct lnk_err *err)
{
	*d = (struct devnodes){0};
	if (getuid() != 0)
		return 0;
	/* In /dev: the host's device file system, where nodes work (a
	 * tmpfs such as /run is mounted nodev). 0700: only root may open
	 * the copies outside. */
	char tmpl[] = "/dev/.lnk-XXXXXX";
	if (!mkdtemp(tmpl))
		return err_set(err, -errno,
			       "cannot make a folder for the sandbox's device "
			       "nodes in /dev: %s",
			       strerror(errno));
	d->dir = xstrdup(tmpl);
	for (const char *const *n = names; *n; n++) {
		_cleanup_free_ char *host = xasprintf("/dev/%s", *n);
		_cleanup_free_ char *copy = xasprintf("%s/%s", d->dir, *n);
		struct stat st;
		/* A host node that is not a character device is not copied
		 * as one: fail rather than guess. */
		int e = stat(host, &st) < 0    ? errno
			: !S_ISCHR(st.st_mode) ? ENODEV
					       : 0;
		if (e) {
			err_set(err, -e, "'%s' is not a device node: %s", host,
				strerror(e));
			devnodes_remove(d);
			return -e;
		}
		if (mknod(copy, S_IFCHR | 0600, st.st_rdev) < 0 ||
		    chmod(copy, st.st_mode & 07777) < 0) {
			e = errno;
			err_set(err, -e, "cannot make the device node '%s': %s",
				copy, strerror(e));
			devnodes_remove(d);
			return -e;
		}
	}
	return 0;
}

void devnodes_remove(struct devnodes *d)
{
	if (!d->dir)
		return;
	for (const char *const *n = names; *n; n++) {
		_cleanup_free_ char *copy = xasprintf("%s/%s", d->dir, *n);
		unlink(copy);
	}
	rmdir(d->dir);
	free(d->dir);
	d->dir = NULL;
}
