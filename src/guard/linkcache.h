/* The links found in the folders of the home that the guard looks into
 * (rule P, one folder below the home's dot folders and the configuration
 * folders), kept between runs in lnk's own settings
 * (~/.lnk/sandbox/home-links, which no sandbox can see or write).
 *
 * Why: a real home has dozens of such folders; listing each on every
 * start cost about 1 ms (four system calls a folder). A folder's listing
 * is kept with its identity and times (device, inode, mtime and ctime in
 * nanoseconds): any entry made, removed or renamed in it changes its
 * mtime and ctime, and ctime cannot be set back, so a folder whose stat
 * still matches has the same links (a link's target cannot change in
 * place; it is replaced, which changes the folder). Only the names are
 * kept: what each link leads to is followed again on every run, against
 * that run's write folders.
 *
 * A cache that cannot be read, or that says anything unexpected, is
 * empty: every folder is listed again. One that cannot be written costs
 * only the listings of the next run. */
#pragma once

#include <stdbool.h>
#include <sys/stat.h>

#include "common/util.h"

struct linkcache;

/* Reads the cache at path (NULL: none is kept; every call below then
 * answers "not known" and keeps nothing). Never fails. */
struct linkcache *linkcache_open(const char *path);
/* The names of the links in folder dir, whose stat is st, when the cache
 * holds that very folder as it is now: true, and names appended to out. */
bool linkcache_get(struct linkcache *lc, const char *dir, const struct stat *st,
		   struct strv *out);
/* Keeps dir's links (names) as listed with stat st, once dir has settled:
 * a folder changed in the last 2 seconds (the coarsest file system clock)
 * is listed again at the next run. */
void linkcache_put(struct linkcache *lc, const char *dir, const struct stat *st,
		   const struct strv *names);
/* Writes the cache when it changed (temp file and rename: a reader sees
 * the old one or the new one), and frees it. NULL is allowed. */
void linkcache_close(struct linkcache *lc);
