/* Whether a tool's file is the program's to change: a tool runs outside,
 * as the user (or root), so whatever decides the code it runs must be out
 * of every write folder's reach. Read at the sandbox's start, from the
 * host's files (hostile input: a program in a project folder). */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

#include "common/util.h"

enum tool_reach_kind {
	REACH_NONE,
	REACH_IN,	   /* what lies in folder */
	REACH_LINK,	   /* what has another name, name, in folder */
	REACH_LINK_UNSURE, /* what has names not all found: folder holds
			     * too many files, or one lnk cannot read */
	REACH_LIBPATH,	   /* what's RPATH or RUNPATH entry name is in
			     * folder */
	REACH_HERE,	   /* name, what's "#!" interpreter or an entry
			     * of its RPATH, RUNPATH or DT_NEEDED, is
			     * relative or empty: found from the folder the
			     * tool runs in, the program's */
};

struct tool_reach {
	enum tool_reach_kind kind;
	char what[PATH_MAX]; /* the tool, its interpreter or its loader */
	char name[PATH_MAX]; /* the other name, or the library path */
	const char *folder;  /* the write folder (an entry of write) */
};

/* The entry of write (the write folders) path lies in, or NULL: by
 * identity (device and inode), path itself and its folders up to /,
 * against each write folder's, so a folder bound at another path here (a
 * bind mount of the project elsewhere) is the same folder; and a path a
 * bind mount inside a write folder shows there (common/fsplace.h,
 * mounts_seen_at) is in that write folder. A path that does not exist yet
 * is in the folder of its nearest parent that does. */
const char *tools_write_folder_of(const struct strv *write, const char *path);

/* Whether the program could change what the tool real (its real path)
 * runs, with write its write folders: real itself, a script's "#!"
 * interpreter (with "#!/usr/bin/env NAME", NAME looked up on path as
 * tools_lookup does), an ELF file's loader (PT_INTERP), each lying in a write
 * folder or having a second name (a hard link) there that the program
 * may write through, or the folders an ELF file's loader searches first
 * (RPATH, RUNPATH, a DT_NEEDED path) lying in one. true with *r filled,
 * false when none. */
bool tool_reach(const struct strv *write, const char *path, const char *real,
		struct tool_reach *r);
