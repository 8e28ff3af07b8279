/* The links of the home's folders, kept between runs (linkcache.h).
 *
 * The file: a first line "lnk home-links 1", then one line a folder:
 * "DEV INO MTIME_S MTIME_NS CTIME_S CTIME_NS<TAB>PATH[<TAB>NAME]...". A
 * path or name that holds a tab, a newline or a backslash is never kept
 * (its folder is listed again each run): no escaping to get wrong. */
#include "guard/linkcache.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"

#define LINKCACHE_MAGIC "lnk home-links 1\n"
/* A bound on what is read: far above any home's (512 folders at most
 * are looked into), so a damaged file costs no more than that. */
#define LINKCACHE_MAX (1u << 20)

struct linkcache {
	char *path;
	struct strv lines; /* each a folder's line, as in the file, no '\n' */
	bool changed;
};

static bool plain(const char *s)
{
	return !strpbrk(s, "\t\n\\");
}

/* The key of a folder's line: its stat and path, up to the path's end. */
static char *key_of(const char *dir, const struct stat *st)
{
	return xasprintf("%" PRIu64 " %" PRIu64 " %lld %ld %lld %ld\t%s",
			 (uint64_t)st->st_dev, (uint64_t)st->st_ino,
			 (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec,
			 (long long)st->st_ctim.tv_sec, st->st_ctim.tv_nsec,
			 dir);
}

/* The line kept for dir (any stat), or -1. */
static long line_of(const struct linkcache *lc, const char *dir)
{
	size_t dl = strlen(dir);
	for (size_t i = 0; i < lc->lines.n; i++) {
		const char *t = strchr(lc->lines.v[i], '\t');
		if (t && strncmp(t + 1, dir, dl) == 0 &&
		    (t[1 + dl] == '\0' || t[1 + dl] == '\t'))
			return (long)i;
	}
	return -1;
}

struct linkcache *linkcache_open(const char *path)
{
	struct linkcache *lc = xcalloc(1, sizeof(*lc));
	if (!path)
		return lc;
	lc->path = xstrdup(path);
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return lc;
	struct stat st;
	char *text = NULL;
	size_t len = 0;
	/* lnk's own file, or nothing: another user's (or a non-file) is
	 * not read */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_uid == getuid() &&
	    read_fd_all(fd, LINKCACHE_MAX, &text, &len) == 0 &&
	    strlen(text) == len && len >= strlen(LINKCACHE_MAGIC) &&
	    memcmp(text, LINKCACHE_MAGIC, strlen(LINKCACHE_MAGIC)) == 0) {
		char *s = text + strlen(LINKCACHE_MAGIC), *nl;
		while ((nl = strchr(s, '\n'))) {
			*nl = '\0';
			if (strchr(s, '\t'))
				strv_push(&lc->lines, s);
			s = nl + 1;
		}
	}
	free(text);
	close(fd);
	return lc;
}

bool linkcache_get(struct linkcache *lc, const char *dir, const struct stat *st,
		   struct strv *out)
{
	if (!lc || !lc->path || !plain(dir))
		return false;
	long i = line_of(lc, dir);
	if (i < 0)
		return false;
	_cleanup_free_ char *key = key_of(dir, st);
	const char *line = lc->lines.v[i];
	size_t kl = strlen(key);
	if (strncmp(line, key, kl) != 0 ||
	    (line[kl] != '\0' && line[kl] != '\t'))
		return false;
	struct strv names = {0};
	for (const char *s = line + kl; *s == '\t';) {
		const char *e = strchr(s + 1, '\t');
		size_t n = e ? (size_t)(e - s - 1) : strlen(s + 1);
		/* a name, never a path: no '/' and not empty; one that is
		 * not makes the whole line no answer */
		_cleanup_free_ char *name = xstrndup(s + 1, n);
		if (!n || strchr(name, '/') || strcmp(name, ".") == 0 ||
		    strcmp(name, "..") == 0) {
			strv_free(&names);
			return false;
		}
		strv_push(&names, name);
		if (!e)
			break;
		s = e;
	}
	strv_copy(out, &names);
	strv_free(&names);
	return true;
}

/* Whether a folder whose stat is st can be known again by it: only when
 * it last changed more than LINKCACHE_SETTLED seconds before now. Threat:
 * a file system that stamps times with the clock's coarse tick (ramfs;
 * ext4 and tmpfs before Linux 6.13, Debian 12's; a network share; FAT's
 * 2 s) gives a folder changed twice within one tick the same times. A
 * program that may write the folder keeps its times at the current tick,
 * waits for lnk to list it (inotify), then makes a link in that same
 * tick: the listing without the link would be kept under times that
 * still match, and every later run would miss the link. A folder that
 * settled before the listing cannot change again within its tick (git's
 * "racy clean" entries, the same way). */
#define LINKCACHE_SETTLED 2

static bool settled(const struct stat *st)
{
	struct timespec now;
	return clock_gettime(CLOCK_REALTIME, &now) == 0 &&
	       st->st_ctim.tv_sec + LINKCACHE_SETTLED < now.tv_sec &&
	       st->st_mtim.tv_sec + LINKCACHE_SETTLED < now.tv_sec;
}

void linkcache_put(struct linkcache *lc, const char *dir, const struct stat *st,
		   const struct strv *names)
{
	if (!lc || !lc->path || !plain(dir) || !settled(st))
		return;
	for (size_t i = 0; i < names->n; i++)
		if (!plain(names->v[i]))
			return;
	struct buf b = {0};
	_cleanup_free_ char *key = key_of(dir, st);
	buf_append(&b, key, strlen(key));
	for (size_t i = 0; i < names->n; i++) {
		buf_append(&b, "\t", 1);
		buf_append(&b, names->v[i], strlen(names->v[i]));
	}
	buf_append(&b, "", 1);
	long i = line_of(lc, dir);
	if (i >= 0 && strcmp(lc->lines.v[i], b.p) == 0) {
		buf_free(&b);
		return;
	}
	if (i >= 0) {
		free(lc->lines.v[i]);
		lc->lines.v[i] = xstrdup(b.p);
	} else {
		strv_push(&lc->lines, b.p);
	}
	buf_free(&b);
	lc->changed = true;
}

void linkcache_close(struct linkcache *lc)
{
	if (!lc)
		return;
	if (lc->changed && lc->path) {
		struct buf b = {0};
		buf_append(&b, LINKCACHE_MAGIC, strlen(LINKCACHE_MAGIC));
		for (size_t i = 0; i < lc->lines.n; i++) {
			buf_append(&b, lc->lines.v[i], strlen(lc->lines.v[i]));
			buf_append(&b, "\n", 1);
		}
		file_replace(lc->path, b.p, b.len);
		buf_free(&b);
	}
	strv_free(&lc->lines);
	free(lc->path);
	free(lc);
}
