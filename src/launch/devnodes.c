/* Device nodes of the sandbox's own (see devnodes.h). */
#include "launch/devnodes.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
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

static void remove_dir(const char *dir)
{
	for (const char *const *n = names; *n; n++) {
		_cleanup_free_ char *copy = xasprintf("%s/%s", dir, *n);
		unlink(copy);
	}
	rmdir(dir);
}

void devnodes_sweep(void)
{
	if (getuid() != 0)
		return;
	DIR *d = opendir("/dev");
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		char *end;
		if (strncmp(de->d_name, ".lnk-", 5) != 0)
			continue;
		long pid = strtol(de->d_name + 5, &end, 10);
		if (*end != '-' || pid <= 0 || pid > INT32_MAX)
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		_cleanup_free_ char *dir = xasprintf("/dev/%s", de->d_name);
		remove_dir(dir);
	}
	closedir(d);
}

int devnodes_make(struct devnodes *d, struct lnk_err *err)
{
	*d = (struct devnodes){0};
	if (getuid() != 0)
		return 0;
	/* In /dev: the host's device file system, where nodes work (a
	 * tmpfs such as /run is mounted nodev). 0700: only root may open
	 * the copies outside. */
	_cleanup_free_ char *tmpl =
	    xasprintf("/dev/.lnk-%d-XXXXXX", (int)getpid());
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
	remove_dir(d->dir);
	free(d->dir);
	d->dir = NULL;
}
