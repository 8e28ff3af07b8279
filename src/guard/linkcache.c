/* The links of the home's folders, kept between runs (linkcache.h).
 *
 * The file: a first line "lnk home-links 2", then one line a folder:
 * "DEV INO MTIME_S MTIME_NS CTIME_S CTIME_NS KIND<TAB>PATH[<TAB>ENTRY]...",
 * KIND 'l' (its links only) or 'd' (its links and subfolders), each ENTRY
 * 'l' or 'd' and a name. A path or name that holds a tab, a newline or a
 * backslash is never kept (its folder is listed again each run): no
 * escaping to get wrong. */
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

#define LINKCACHE_MAGIC "lnk home-links 2\n"
/* A bound on what is read and written: far above any home's (rule P looks
 * into 8192 folders at most, homelinks.c, a line of some 100 bytes each),
 * so a damaged file costs no more than that. */
#define LINKCACHE_MAX (4u << 20)

struct line {
	char *s;   /* the folder's line, as in the file, no '\n' */
	bool used; /* asked about or kept by this run */
};

struct linkcache {
	char *path;
	struct line *lines;
	size_t n, cap;
	/* open addressing on the path's hash: index + 1 of a line, 0 free;
	 * nslots a power of two, at least twice n */
	size_t *slots;
	size_t nslots;
	bool changed, asked;
};

static bool plain(const char *s)
{
	return !strpbrk(s, "\t\n\\");
}

/* The path of a line: after its first tab, up to the next or the end. */
static const char *path_of(const char *line, size_t *len)
{
	const char *t = strchr(line, '\t');
	*len = 0;
	if (!t)
		return NULL;
	const char *e = strchr(t + 1, '\t');
	*len = e ? (size_t)(e - t - 1) : strlen(t + 1);
	return t + 1;
}

/* FNV-1a: the paths are the user's own names, not chosen to collide with
 * each other by anyone but a program that may write a folder, which can
 * make at most the bounded number of folders looked into. */
static uint64_t hash_of(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ull;
	}
	return h;
}

/* The slot that holds dir's line, or the free slot where it would go. */
static size_t *slot_of(const struct linkcache *lc, const char *dir, size_t dl)
{
	size_t mask = lc->nslots - 1;
	for (size_t i = hash_of(dir, dl) & mask;; i = (i + 1) & mask) {
		size_t *s = &lc->slots[i];
		size_t pl;
		const char *p;
		if (!*s)
			return s;
		p = path_of(lc->lines[*s - 1].s, &pl);
		if (pl == dl && memcmp(p, dir, dl) == 0)
			return s;
	}
}

static void rehash(struct linkcache *lc)
{
	free(lc->slots);
	lc->nslots = 16;
	while (lc->nslots < 2 * (lc->n + 1))
		lc->nslots *= 2;
	lc->slots = xcalloc(lc->nslots, sizeof(*lc->slots));
	for (size_t i = 0; i < lc->n; i++) {
		size_t pl;
		const char *p = path_of(lc->lines[i].s, &pl);
		*slot_of(lc, p, pl) = i + 1;
	}
}

/* Adds a line (taken); false, and the line freed, when its path is held
 * already (a damaged file: the first line stands). */
static bool add_line(struct linkcache *lc, char *s)
{
	size_t pl;
	const char *p = path_of(s, &pl);
	if (!p || *slot_of(lc, p, pl)) {
		free(s);
		return false;
	}
	if (lc->n == lc->cap) {
		lc->cap = lc->cap ? 2 * lc->cap : 64;
		lc->lines = xrealloc(lc->lines, lc->cap * sizeof(*lc->lines));
	}
	lc->lines[lc->n++] = (struct line){.s = s};
	if (2 * (lc->n + 1) > lc->nslots)
		rehash(lc);
	else
		*slot_of(lc, p, pl) = lc->n;
	return true;
}

/* The line kept for dir (any stat), or NULL. */
static struct line *line_of(const struct linkcache *lc, const char *dir)
{
	size_t *s = slot_of(lc, dir, strlen(dir));
	return *s ? &lc->lines[*s - 1] : NULL;
}

/* The key of a folder's line: its stat and kind, up to the tab before its
 * path. */
static char *key_of(const struct stat *st, char kind)
{
	return xasprintf("%" PRIu64 " %" PRIu64 " %lld %ld %lld %ld %c",
			 (uint64_t)st->st_dev, (uint64_t)st->st_ino,
			 (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec,
			 (long long)st->st_ctim.tv_sec, st->st_ctim.tv_nsec,
			 kind);
}

struct linkcache *linkcache_open(const char *path)
{
	struct linkcache *lc = xcalloc(1, sizeof(*lc));
	rehash(lc);
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
			add_line(lc, xstrdup(s));
			s = nl + 1;
		}
	}
	free(text);
	close(fd);
	return lc;
}

bool linkcache_get(struct linkcache *lc, const char *dir, const struct stat *st,
		   struct strv *links, struct strv *dirs)
{
	if (!lc || !lc->path || !plain(dir))
		return false;
	lc->asked = true;
	struct line *l = line_of(lc, dir);
	if (!l)
		return false;
	l->used = true;
	/* the key with a kind of 'd' answers a question without dirs too */
	_cleanup_free_ char *key = key_of(st, 'd');
	size_t kl = strlen(key);
	if (strncmp(l->s, key, kl - 1) != 0)
		return false;
	char kind = l->s[kl - 1];
	if ((kind != 'd' && (dirs || kind != 'l')) || l->s[kl] != '\t')
		return false;
	size_t pl;
	const char *s = path_of(l->s, &pl) + pl;
	struct strv ln = {0}, dn = {0};
	while (*s == '\t') {
		const char *e = strchr(s + 1, '\t');
		size_t n = e ? (size_t)(e - s - 1) : strlen(s + 1);
		/* a kind and a name, never a path: no '/', not empty; one
		 * that is not makes the whole line no answer */
		_cleanup_free_ char *name = xstrndup(s + 1, n);
		if (n < 2 || (name[0] != 'l' && name[0] != 'd') ||
		    strchr(name, '/') || strcmp(name + 1, ".") == 0 ||
		    strcmp(name + 1, "..") == 0) {
			strv_free(&ln);
			strv_free(&dn);
			return false;
		}
		strv_push(name[0] == 'l' ? &ln : &dn, name + 1);
		if (!e)
			break;
		s = e;
	}
	strv_copy(links, &ln);
	if (dirs)
		strv_copy(dirs, &dn);
	strv_free(&ln);
	strv_free(&dn);
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

static bool all_plain(const struct strv *v)
{
	for (size_t i = 0; v && i < v->n; i++)
		if (!plain(v->v[i]))
			return false;
	return true;
}

static void append_names(struct buf *b, const struct strv *v, char kind)
{
	for (size_t i = 0; v && i < v->n; i++) {
		char head[2] = {'\t', kind};
		buf_append(b, head, 2);
		buf_append(b, v->v[i], strlen(v->v[i]));
	}
}

void linkcache_put(struct linkcache *lc, const char *dir, const struct stat *st,
		   const struct strv *links, const struct strv *dirs)
{
	if (!lc || !lc->path || !plain(dir) || !settled(st) ||
	    !all_plain(links) || !all_plain(dirs))
		return;
	lc->asked = true;
	struct buf b = {0};
	_cleanup_free_ char *key = key_of(st, dirs ? 'd' : 'l');
	buf_append(&b, key, strlen(key));
	buf_append(&b, "\t", 1);
	buf_append(&b, dir, strlen(dir));
	append_names(&b, links, 'l');
	append_names(&b, dirs, 'd');
	buf_append(&b, "", 1);
	struct line *l = line_of(lc, dir);
	if (l) {
		l->used = true;
		if (strcmp(l->s, b.p) != 0) {
			free(l->s);
			l->s = xstrdup(b.p);
			lc->changed = true;
		}
	} else if (add_line(lc, xstrdup(b.p))) {
		lc->lines[lc->n - 1].used = true;
		lc->changed = true;
	}
	buf_free(&b);
}

void linkcache_close(struct linkcache *lc)
{
	if (!lc)
		return;
	for (size_t i = 0; lc->asked && i < lc->n; i++)
		if (!lc->lines[i].used)
			lc->changed = true;
	if (lc->changed && lc->path) {
		struct buf b = {0};
		buf_append(&b, LINKCACHE_MAGIC, strlen(LINKCACHE_MAGIC));
		for (size_t i = 0; i < lc->n; i++) {
			const char *s = lc->lines[i].s;
			size_t n = strlen(s);
			/* what the next run could not read is not written:
			 * the folders past the bound are listed again */
			if ((lc->asked && !lc->lines[i].used) ||
			    b.len + n + 1 >= LINKCACHE_MAX)
				continue;
			buf_append(&b, s, n);
			buf_append(&b, "\n", 1);
		}
		file_replace(lc->path, b.p, b.len);
		buf_free(&b);
	}
	for (size_t i = 0; i < lc->n; i++)
		free(lc->lines[i].s);
	free(lc->lines);
	free(lc->slots);
	free(lc->path);
	free(lc);
}
