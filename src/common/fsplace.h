/* Where a path lies in its file system, by what the mounts show, not by how
 * the path is spelled.
 *
 * Threat: the same folder can be reached at two paths: a bind mount (a
 * /home bound from /data/home, a container's bind), a btrfs volume mounted
 * beside its parent. A rule that compares spellings ("is this path under
 * /var/lib?") is passed by the second path. mountinfo names, for each
 * mount, its device and the folder of its file system it shows (its root):
 * a real path's place is that device and the mount's root joined with the
 * rest of the path, the same whichever mount shows it. */
#pragma once

#include <stdbool.h>

#include "common/util.h"

struct fs_place {
	unsigned major, minor; /* the file system's device, as mountinfo says */
	char *path;	       /* from the file system's root */
};

/* The mounts of this process (/proc/self/mountinfo), read once. */
struct mount_table {
	char *text; /* the file, split in place */
	struct mount_row *rows;
	unsigned n;
};

/* 0, or -errno (-ENOENT where there is no mountinfo: not Linux). */
int mounts_read(struct mount_table *t);
void mounts_free(struct mount_table *t);
/* The same from mountinfo's text (malloc'd; the table takes it): rows
 * that are not of its form are skipped. */
void mounts_parse(struct mount_table *t, char *text);

/* The place of real (an absolute, real path): the last-mounted mount whose
 * mount point holds it. 0, or -ENOENT when no mount does. out->path is
 * malloc'd. */
int mounts_place(const struct mount_table *t, const char *real,
		 struct fs_place *out);
void fs_place_free(struct fs_place *p);

/* p is dir or inside it: same file system, path within. */
bool fs_place_within(const struct fs_place *p, const struct fs_place *dir);

/* The next mount strictly below grant (a real path) that no later mount
 * covers, from the cursor *i (0 at first): 1 with *shown its place (what
 * folder of which file system it shows; shown->path malloc'd) and *point
 * where it is mounted (the table's), 0 when there is none left. A grant
 * holds what each shows: bubblewrap binds a folder with its mounts. */
int mounts_below(const struct mount_table *t, const char *grant, unsigned *i,
		 struct fs_place *shown, const char **point);

/* Each other path inside grant (a real path) at which the mounts show
 * target (a real path): a bind mount of it, or of a folder that holds it,
 * at or below grant, checked by identity (device and inode) before it is
 * appended to out; and the mount point of each mount of a folder inside
 * target at or below grant (it shows part of target). */
void mounts_seen_at(const struct mount_table *t, const char *grant,
		    const char *target, struct strv *out);
