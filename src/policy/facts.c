#include "policy/facts.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util.h"

struct memo {
	char *path;
	char *real; /* NULL: it does not resolve (err) */
	int err;
	bool placed; /* place asked */
	bool has_place;
	struct fs_place place;
};

struct fs_facts {
	int mounts_state; /* 0 not read yet, 1 read, -1 none */
	struct mount_table mt;
	struct memo **m;
	size_t n, cap;
	size_t calls;
};

struct fs_facts *facts_new(void)
{
	return xcalloc(1, sizeof(struct fs_facts));
}

void facts_free(struct fs_facts *f)
{
	if (!f)
		return;
	if (f->mounts_state == 1)
		mounts_free(&f->mt);
	for (size_t i = 0; i < f->n; i++) {
		free(f->m[i]->path);
		free(f->m[i]->real);
		if (f->m[i]->has_place)
			fs_place_free(&f->m[i]->place);
		free(f->m[i]);
	}
	free(f->m);
	free(f);
}

const struct mount_table *facts_mounts(struct fs_facts *f)
{
	if (!f)
		return NULL;
	if (f->mounts_state == 0)
		f->mounts_state = mounts_read(&f->mt) == 0 ? 1 : -1;
	return f->mounts_state == 1 ? &f->mt : NULL;
}

/* Absolute, without empty, "." or ".." components and no trailing slash:
 * then its real form is its folder's real form and its last name. */
static bool plain(const char *p)
{
	if (p[0] != '/' || strlen(p) >= PATH_MAX)
		return false;
	for (const char *s = p; *s;) {
		const char *c = s + 1, *e = strchr(c, '/');
		size_t n = e ? (size_t)(e - c) : strlen(c);
		if (n == 0 || (n == 1 && c[0] == '.') ||
		    (n == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		s = c + n;
	}
	return true;
}

static struct memo *find(const struct fs_facts *f, const char *path)
{
	for (size_t i = 0; i < f->n; i++)
		if (strcmp(f->m[i]->path, path) == 0)
			return f->m[i];
	return NULL;
}

static struct memo *add(struct fs_facts *f, const char *path, char *real,
			int err)
{
	if (f->n == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 32;
		f->m = xrealloc(f->m, f->cap * sizeof(*f->m));
	}
	struct memo *m = xcalloc(1, sizeof(*m));
	m->path = xstrdup(path);
	m->real = real;
	m->err = real ? 0 : err;
	f->m[f->n++] = m;
	return m;
}

/* realpath(3), counted. */
static char *ask_realpath(struct fs_facts *f, const char *path, int *err)
{
	f->calls++;
	char *r = realpath(path, NULL);
	*err = r ? 0 : errno;
	return r;
}

/* Links followed through the memo before realpath(3) takes over (and
 * says ELOOP): the kernel's own bound. */
#define HOPS_MAX 40

/* The real form of path: its folder's (asked first, once), then one
 * readlink of its last name there. A link's target is looked up the same
 * way (so /bin -> usr/bin reads /usr once for every tree under it); a
 * target spelled with "." or "..", a chain longer than the kernel
 * follows, or a name that cannot be read for another reason than its
 * absence goes to realpath(3), which follows it as the kernel does and
 * says why it fails. The depth is bounded by PATH_MAX (plain) and
 * HOPS_MAX. */
static struct memo *lookup(struct fs_facts *f, const char *path, int hops)
{
	struct memo *m = find(f, path);
	if (m)
		return m;
	int err = 0;
	char *real = NULL;
	if (strcmp(path, "/") == 0) {
		real = xstrdup("/");
	} else if (!plain(path) || hops > HOPS_MAX) {
		real = ask_realpath(f, path, &err);
	} else {
		const char *slash = strrchr(path, '/');
		_cleanup_free_ char *dir =
		    slash == path ? xstrdup("/")
				  : xstrndup(path, (size_t)(slash - path));
		const struct memo *pm = lookup(f, dir, hops);
		if (!pm->real) {
			err = pm->err;
		} else {
			char *cand = xasprintf(
			    "%s/%s", strcmp(pm->real, "/") == 0 ? "" : pm->real,
			    slash + 1);
			char target[PATH_MAX];
			ssize_t r = -1;
			int e = ENAMETOOLONG;
			if (strlen(cand) < PATH_MAX) {
				f->calls++;
				r = readlink(cand, target, sizeof(target));
				e = r < 0 ? errno : 0;
			}
			if (r < 0 && e == EINVAL) {
				real = cand; /* there, and not a link */
				cand = NULL;
			} else if (r < 0 && (e == ENOENT || e == ENOTDIR ||
					     e == ENAMETOOLONG)) {
				err = e;
			} else if (r > 0 && (size_t)r < sizeof(target)) {
				/* a link: its target, from the link's folder */
				target[r] = '\0';
				_cleanup_free_ char *next =
				    target[0] == '/'
					? xstrdup(target)
					: xasprintf("%s/%s",
						    strcmp(pm->real, "/") == 0
							? ""
							: pm->real,
						    target);
				const struct memo *tm =
				    lookup(f, next, hops + 1);
				if (tm->real)
					real = xstrdup(tm->real);
				else
					err = tm->err;
			} else {
				real = ask_realpath(f, cand, &err);
			}
			free(cand);
		}
	}
	return add(f, path, real, err);
}

const char *facts_real(struct fs_facts *f, const char *path)
{
	const struct memo *m = lookup(f, path, 0);
	if (!m->real)
		errno = m->err;
	return m->real;
}

const struct fs_place *facts_place(struct fs_facts *f, const char *path)
{
	struct memo *m = lookup(f, path, 0);
	if (!m->placed) {
		const struct mount_table *mt = facts_mounts(f);
		m->placed = true;
		m->has_place =
		    m->real && mt && mounts_place(mt, m->real, &m->place) == 0;
	}
	return m->has_place ? &m->place : NULL;
}

size_t facts_calls(const struct fs_facts *f)
{
	return f->calls;
}
