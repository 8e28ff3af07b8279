/* The pins' check (pins.h): by statx, so a mount's root is told from a
 * folder that only has the pinned identity. */
#include "init/pins.h"

#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>
/* struct statx: glibc's sys/stat.h has it (with STATX_TYPE), musl's
 * does not */
#ifndef STATX_TYPE
#include <linux/stat.h>
#endif
#ifndef STATX_ATTR_MOUNT_ROOT
#define STATX_ATTR_MOUNT_ROOT 0x00002000
#endif

/* Whether path is a mount point /proc/self/mountinfo lists (its fifth
 * field, octal escapes decoded): for a kernel whose statx cannot say
 * (before 5.8; lnk runs there without Landlock when the person accepts
 * it). Any doubt answers false. */
bool pin_mount_listed(const char *path)
{
	int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	char buf[8192], line[8192];
	size_t ll = 0;
	bool found = false, skip = false;
	ssize_t n;
	while (!found && (n = read(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n && !found; i++) {
			if (buf[i] != '\n') {
				if (ll + 1 < sizeof(line))
					line[ll++] = buf[i];
				else
					skip = true; /* too long: not ours */
				continue;
			}
			line[ll] = '\0';
			/* the fifth field: after four spaces */
			char *f = line;
			for (int k = 0; k < 4 && f; k++) {
				f = strchr(f, ' ');
				if (f)
					f++;
			}
			char *e = f ? strchr(f, ' ') : NULL;
			if (!skip && f && e) {
				char mp[8192];
				size_t m = 0;
				for (char *c = f;
				     c < e && m + 1 < sizeof(mp);) {
					if (c[0] == '\\' && e - c >= 4) {
						mp[m++] =
						    (char)((c[1] - '0') * 64 +
							   (c[2] - '0') * 8 +
							   (c[3] - '0'));
						c += 4;
					} else {
						mp[m++] = *c++;
					}
				}
				mp[m] = '\0';
				found = strcmp(mp, path) == 0;
			}
			ll = 0;
			skip = false;
		}
	}
	close(fd);
	return found;
}

bool pin_holds(const struct init_pin *p)
{
	struct statx sx;
	if (syscall(SYS_statx, AT_FDCWD, p->path,
		    AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT,
		    STATX_TYPE | STATX_INO, &sx) != 0)
		return false;
	bool root = (sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT)
			? (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT) != 0
			: pin_mount_listed(p->path);
	if (!root)
		return false;
	return (uint64_t)makedev(sx.stx_dev_major, sx.stx_dev_minor) ==
		   p->dev &&
	       (uint64_t)sx.stx_ino == p->ino;
}
