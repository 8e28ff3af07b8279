/* The links found in the folders of the home that the guard looks into
 * (rule P, guard/homelinks.h: the home's dot folders, the configuration
 * and data folders' entries, and the folders one below each), kept between
 * runs in lnk's own settings (~/.lnk/sandbox/home-links, which no sandbox
 * can see or write).
 *
 * Why: a real home has hundreds of such folders; listing each on every
 * start cost about 1 ms a hundred (four system calls a folder). A folder's
 * listing is kept with its identity and times (device, inode, mtime and
 * ctime in nanoseconds): any entry made, removed or renamed in it changes
 * its mtime and ctime, and ctime cannot be set back, so a folder whose
 * stat still matches has the same links and subfolders (a link's target
 * cannot change in place; it is replaced, which changes the folder). Only
 * the names are kept: what each link leads to is followed again on every
 * run, against that run's write folders; each subfolder is stat'ed again
 * and answers for itself.
 *
 * A cache that cannot be read, or that says anything unexpected, is
 * empty: every folder is listed again. One that cannot be written costs
 * only the listings of the next run. Lookups are by a hash of the path:
 * a home of thousands of folders costs one probe each, not a scan. */
#pragma once

#include <stdbool.h>
#include <sys/stat.h>

#include "common/util.h"

struct linkcache;

/* Reads the cache at path (NULL: none is kept; every call below then
 * answers "not known" and keeps nothing). Never fails. */
struct linkcache *linkcache_open(const char *path);
/* The names of the links in folder dir, whose stat is st, when the cache
 * holds that very folder as it is now: true, and the names appended to
 * links. With dirs (not NULL), only a listing that kept the subfolders
 * answers, and their names are appended to dirs. */
bool linkcache_get(struct linkcache *lc, const char *dir, const struct stat *st,
		   struct strv *links, struct strv *dirs);
/* Keeps dir's links (and subfolders, when dirs is not NULL) as listed with
 * stat st, once dir has settled: a folder changed in the last 2 seconds
 * (the coarsest file system clock) is listed again at the next run. */
void linkcache_put(struct linkcache *lc, const char *dir, const struct stat *st,
		   const struct strv *links, const struct strv *dirs);
/* Writes the cache when it changed (temp file and rename: a reader sees
 * the old one or the new one), and frees it. A run that asked about any
 * folder drops the folders it did not ask about (removed, or no longer
 * looked into), so the file does not grow with every folder a home ever
 * had. NULL is allowed. */
void linkcache_close(struct linkcache *lc);
