/* The pins' check (pins.h): by statx, so a mount's root is told from a
 * folder that only has the pinned identity. */
#include "init/pins.h"

#include <fcntl.h>
#include <stdint.h>
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

bool pin_holds(const struct init_pin *p)
{
	struct statx sx;
	if (syscall(SYS_statx, AT_FDCWD, p->path,
		    AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT,
		    STATX_TYPE | STATX_INO, &sx) != 0)
		return false;
	/* a kernel that cannot say which paths are mount roots (before
	 * 5.8) cannot show the pin holds: refused */
	if (!(sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) ||
	    !(sx.stx_attributes & STATX_ATTR_MOUNT_ROOT))
		return false;
	return (uint64_t)makedev(sx.stx_dev_major, sx.stx_dev_minor) ==
		   p->dev &&
	       (uint64_t)sx.stx_ino == p->ino;
}
