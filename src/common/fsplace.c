#include "common/fsplace.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/util.h"

/* mountinfo of a process with thousands of mounts stays far below this. */
#define MOUNTINFO_MAX (16u << 20)

struct mount_row {
	unsigned major, minor;
	const char *root;  /* the folder of its file system it shows */
	const char *point; /* where it is mounted */
};

/* mountinfo escapes space, tab, newline and backslash as \ooo: undone in
 * place. */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 |
				      (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

/* The next field of a line split on spaces, in place. */
static char *field(char **cur)
{
	char *s = *cur, *e;

	if (!s || !*s)
		return NULL;
	e = strchr(s, ' ');
	if (e) {
		*e = '\0';
		*cur = e + 1;
	} else {
		*cur = s + strlen(s);
	}
	return s;
}

int mounts_read(struct mount_table *t)
{
	char *text = NULL;
	size_t len = 0;
	int r;

	*t = (struct mount_table){0};
	if ((r = read_file("/proc/self/mountinfo", MOUNTINFO_MAX, &text,
			   &len)) < 0)
		return r;
	mounts_parse(t, text);
	return 0;
}

void mounts_parse(struct mount_table *t, char *text)
{
	size_t cap = 0;

	*t = (struct mount_table){.text = text};
	for (char *cur = t->text, *line; (line = line_next(&cur));) {
		/* id parent major:minor root point ... */
		char *p = line, *maj, *end;
		unsigned long a, b;
		if (!field(&p) || !field(&p) || !(maj = field(&p)))
			continue;
		a = strtoul(maj, &end, 10);
		if (end == maj || *end != ':')
			continue;
		maj = end + 1;
		b = strtoul(maj, &end, 10);
		if (end == maj || *end || a > UINT_MAX || b > UINT_MAX)
			continue;
		char *root = field(&p), *point = field(&p);
		if (!root || !point || root[0] != '/' || point[0] != '/')
			continue;
		unescape(root);
		unescape(point);
		if (t->n == cap) {
			cap = cap ? cap * 2 : 64;
			t->rows = xrealloc(t->rows, cap * sizeof(*t->rows));
		}
		t->rows[t->n++] = (struct mount_row){.major = (unsigned)a,
						     .minor = (unsigned)b,
						     .root = root,
						     .point = point};
	}
}

void mounts_free(struct mount_table *t)
{
	free(t->text);
	free(t->rows);
	*t = (struct mount_table){0};
}

int mounts_place(const struct mount_table *t, const char *real,
		 struct fs_place *out)
{
	const struct mount_row *best = NULL;

	*out = (struct fs_place){0};
	/* A later row mounted at the same point, or deeper, covers earlier
	 * ones (mountinfo lists mounts in the order they were made). */
	for (unsigned i = 0; i < t->n; i++)
		if (path_within(real, t->rows[i].point) &&
		    (!best || strlen(t->rows[i].point) >= strlen(best->point)))
			best = &t->rows[i];
	if (!best)
		return -ENOENT;
	const char *rest =
	    real + (strcmp(best->point, "/") == 0 ? 0 : strlen(best->point));
	out->major = best->major;
	out->minor = best->minor;
	if (strcmp(best->root, "/") == 0)
		out->path = xstrdup(rest[0] ? rest : "/");
	else
		out->path = xasprintf("%s%s", best->root, rest);
	return 0;
}

void fs_place_free(struct fs_place *p)
{
	free(p->path);
	p->path = NULL;
}

bool fs_place_within(const struct fs_place *p, const struct fs_place *dir)
{
	return p->path && dir->path && p->major == dir->major &&
	       p->minor == dir->minor && path_within(p->path, dir->path);
}

int mounts_below(const struct mount_table *t, const char *grant, unsigned *i,
		 struct fs_place *shown, const char **point)
{
	for (; *i < t->n; (*i)++) {
		const struct mount_row *r = &t->rows[*i];
		if (!path_within(r->point, grant) ||
		    strcmp(r->point, grant) == 0)
			continue;
		/* one mounted later at its point or above it hides it */
		bool covered = false;
		for (unsigned j = *i + 1; j < t->n && !covered; j++)
			covered = path_within(r->point, t->rows[j].point);
		if (covered)
			continue;
		*shown = (struct fs_place){.major = r->major,
					   .minor = r->minor,
					   .path = xstrdup(r->root)};
		*point = r->point;
		(*i)++;
		return 1;
	}
	return 0;
}

void mounts_seen_at(const struct mount_table *t, const char *grant,
		    const char *target, struct strv *out)
{
	struct fs_place tp;
	struct stat ts;

	if (stat(target, &ts) < 0 || mounts_place(t, target, &tp) < 0)
		return;
	for (unsigned i = 0; i < t->n; i++) {
		const struct mount_row *r = &t->rows[i];
		if (r->major != tp.major || r->minor != tp.minor ||
		    !path_within(tp.path, r->root))
			continue;
		const char *rest =
		    tp.path + (strcmp(r->root, "/") == 0 ? 0 : strlen(r->root));
		_cleanup_free_ char *alt =
		    strcmp(r->point, "/") == 0
			? xstrdup(rest[0] ? rest : "/")
			: xasprintf("%s%s", r->point, rest);
		struct stat as;
		if (!path_within(alt, grant) || strcmp(alt, target) == 0 ||
		    strv_contains(out, alt) || stat(alt, &as) < 0 ||
		    as.st_dev != ts.st_dev || as.st_ino != ts.st_ino)
			continue;
		strv_push(out, alt);
	}
	/* A mount of a folder inside target (~/.lnk/sandbox bound below a
	 * grant): its mount point shows part of target, and is hidden with
	 * it. Known by the file system and the folder the mount shows. */
	for (unsigned i = 0; i < t->n; i++) {
		const struct mount_row *r = &t->rows[i];
		if (r->major != tp.major || r->minor != tp.minor ||
		    strcmp(r->root, tp.path) == 0 ||
		    !path_within(r->root, tp.path) ||
		    !path_within(r->point, grant) ||
		    strv_contains(out, r->point))
			continue;
		strv_push(out, r->point);
	}
	fs_place_free(&tp);
}
