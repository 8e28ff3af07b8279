/* File systems that fold names (which names are the same name).
 *
 * The dot-file guard refuses names by what the program spells; a file
 * system that takes ".ENVRC", ".envrc." (FAT drops trailing dots) or
 * ".vſcode" (Unicode case folding) for the name a host program later
 * opens would let the program create the protected file under another
 * spelling. What a folding file system stores cannot be known before the
 * create, so a write folder on one is not guarded at all: the grant is
 * refused (guard_plan_add) unless --write-dot-files lifts the guard.
 * Inside, the casefold attribute cannot be set (lnk-init's filter refuses
 * FS_IOC_SETFLAGS), so a folder cannot start folding after this check.
 */
#include "guard/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "common/util.h"

#ifndef FS_CASEFOLD_FL
#define FS_CASEFOLD_FL 0x40000000
#endif

/* statfs f_type of file systems that match names without regard to case
 * (or drop trailing dots) by design or by their usual mount options. */
static const struct {
	unsigned long type;
	const char *name;
} folding[] = {
    {0x4D44UL, "vfat"},	      /* and msdos: case, trailing dots */
    {0x2011BAB0UL, "exfat"},  /* case, trailing dots */
    {0x5346544EUL, "ntfs"},   /* Windows' names */
    {0x7366746EUL, "ntfs3"},  /* with its nocase option */
    {0x4244UL, "hfs"},	      /* macOS' case-insensitive default */
    {0x482BUL, "hfsplus"},    /* likewise */
    {0xFF534D42UL, "cifs"},   /* the server decides: Windows folds */
    {0xFE534D42UL, "smb2"},   /* likewise */
    {0x786F4256UL, "vboxsf"}, /* a Windows or macOS host's folder */
};

const char *guard_fs_folding(unsigned long f_type)
{
	for (size_t i = 0; i < ARRAY_SIZE(folding); i++)
		if (folding[i].type == f_type)
			return folding[i].name;
	return NULL;
}

int guard_dir_folds(const char *dir, const char **why)
{
	struct statfs sf;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int r = 0;

	if (fd < 0)
		return -errno;
	if (fstatfs(fd, &sf) < 0) {
		r = -errno;
	} else if ((*why = guard_fs_folding((unsigned long)sf.f_type))) {
		r = 1;
	} else {
		/* ext4 and f2fs casefold, tmpfs casefold: per folder */
		int fl = 0;
		if (ioctl(fd, FS_IOC_GETFLAGS, &fl) == 0 &&
		    (fl & FS_CASEFOLD_FL)) {
			*why = "casefold";
			r = 1;
		}
	}
	close(fd);
	return r;
}
