/* The always-hidden folders found by what they are (see hidden.h).
 *
 * The record: one line per folder, "DEV INO FSID PATH", PATH the rest of
 * the line (absolute, as paths_always_hidden names it). Only lnk writes it,
 * in ~/.lnk, which no sandbox can reach and no other user can change
 * (store/secure.h), so what it says is what lnk saw. */
#include "store/hidden.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#ifdef __linux__
#include <sys/statfs.h>
#else
#include <sys/statvfs.h>
#endif
#include <unistd.h>

#include "common/util.h"
#include "store/paths.h"

struct rec {
	unsigned long long dev, ino, fsid;
	char *path;
};

struct recs {
	struct rec *v;
	size_t n;
};

static void recs_free(struct recs *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->v[i].path);
	free(r->v);
}

static void recs_add(struct recs *r, unsigned long long dev,
		     unsigned long long ino, unsigned long long fsid,
		     const char *path)
{
	r->v = xrealloc(r->v, (r->n + 1) * sizeof(*r->v));
	r->v[r->n++] = (struct rec){dev, ino, fsid, xstrdup(path)};
}

/* The file system's own id (statfs f_fsid: from the superblock's UUID on
 * ext4 and btrfs), or 0. A device number can change from one boot to the
 * next (LVM and device-mapper numbers follow activation order); this does
 * not, so a folder is still known after a reboot. */
static unsigned long long fs_id(const char *path)
{
#ifdef __linux__
	struct statfs sf;
	if (statfs(path, &sf) < 0)
		return 0;
	unsigned long long a = (unsigned)sf.f_fsid.__val[0];
	unsigned long long b = (unsigned)sf.f_fsid.__val[1];
	return a << 32 | b;
#else
	/* macOS' file system id is its device number: what it has */
	struct statvfs sv;
	if (statvfs(path, &sv) < 0)
		return 0;
	return sv.f_fsid;
#endif
}

static const struct rec *recs_find(const struct recs *r, const char *path)
{
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->v[i].path, path) == 0)
			return &r->v[i];
	return NULL;
}

static int read_record(const char *file, struct recs *out, struct lnk_err *err)
{
	int fd = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		return err_set(err, -errno, "cannot read '%s': %s", file,
			       strerror(errno));
	}
	FILE *f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return err_set(err, -errno, "cannot read '%s': %s", file,
			       strerror(errno));
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	while ((len = getline(&line, &cap, f)) > 0) {
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		unsigned long long dev, ino, fsid;
		int at = 0;
		/* A line lnk did not write is ignored, never trusted. */
		if (sscanf(line, "%llu %llu %llu %n", &dev, &ino, &fsid, &at) ==
			3 &&
		    at > 0 && line[at] == '/')
			recs_add(out, dev, ino, fsid, line + at);
	}
	free(line);
	fclose(f);
	return 0;
}

static int write_record(const char *file, const struct recs *r,
			struct lnk_err *err)
{
	_cleanup_free_ char *tmp = xasprintf("%s.new", file);
	unlink(tmp);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		      0600);
	if (fd < 0)
		return err_set(err, -errno, "cannot write '%s': %s", tmp,
			       strerror(errno));
	FILE *f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(tmp);
		return err_set(err, -errno, "cannot write '%s': %s", tmp,
			       strerror(errno));
	}
	for (size_t i = 0; i < r->n; i++)
		fprintf(f, "%llu %llu %llu %s\n", r->v[i].dev, r->v[i].ino,
			r->v[i].fsid, r->v[i].path);
	if (fclose(f) != 0 || rename(tmp, file) < 0) {
		int e = errno;
		unlink(tmp);
		return err_set(err, -e, "cannot write '%s': %s", file,
			       strerror(e));
	}
	return 0;
}

static int changed(const char *path, const char *what, const struct rec *rec,
		   const char *home, const char *file, struct lnk_err *err)
{
	return err_set(
	    err, -ESTALE,
	    "'%s' %s: it is not the folder lnk hid there before (a program in "
	    "a sandbox that could write your home folder may have moved or "
	    "replaced it), so a sandbox would show the real one where it is "
	    "now; find it (find '%s' -xdev -inum %llu -type d), move it back, "
	    "and run lnk again; if you changed it yourself, delete its line in "
	    "'%s'",
	    path, what, home, rec->ino, file);
}

int hidden_check(const char *home, struct lnk_err *err)
{
	_cleanup_free_ char *dir = paths_sandbox_dir(home);
	int r = paths_ensure_dir(dir, err);
	if (r < 0)
		return r;
	_cleanup_free_ char *file = paths_hidden_record(home);
	_cleanup_free_ char *lnkdir = paths_lnk_dir(home);
	struct recs recs = {0};
	if ((r = read_record(file, &recs, err)) < 0)
		return r;
	struct strv hidden = {0};
	paths_always_hidden(home, &hidden);
	bool dirty = false;
	for (size_t i = 0; r == 0 && i < hidden.n; i++) {
		const char *p = hidden.v[i];
		if (strcmp(p, lnkdir) == 0)
			continue; /* store/secure.h's */
		const struct rec *rec = recs_find(&recs, p);
		struct stat l, st;
		if (lstat(p, &l) == 0 && S_ISLNK(l.st_mode)) {
			r = err_set(
			    err, -ELOOP,
			    "'%s' is a symbolic link, not the folder every "
			    "sandbox hides (a program in a sandbox that could "
			    "write your home folder may have swapped it): "
			    "remove the link, put the real folder back there, "
			    "and run lnk again",
			    p);
			break;
		}
		if (stat(p, &st) < 0) {
			if (errno != ENOENT)
				r = err_set(err, -errno, "cannot use '%s': %s",
					    p, strerror(errno));
			else if (rec)
				r = changed(p, "is gone", rec, home, file, err);
			continue;
		}
		if (!rec) {
			if (S_ISDIR(st.st_mode)) {
				recs_add(&recs, (unsigned long long)st.st_dev,
					 (unsigned long long)st.st_ino,
					 fs_id(p), p);
				dirty = true;
			}
			continue;
		}
		/* The same inode on the same file system: the same device
		 * number, or the same (non-zero) file system id. */
		unsigned long long fsid = fs_id(p);
		bool same_fs = (unsigned long long)st.st_dev == rec->dev ||
			       (fsid != 0 && fsid == rec->fsid);
		if (!S_ISDIR(st.st_mode) || !same_fs ||
		    (unsigned long long)st.st_ino != rec->ino)
			r = changed(p, "was replaced", rec, home, file, err);
	}
	strv_free(&hidden);
	if (r == 0 && dirty)
		r = write_record(file, &recs, err);
	recs_free(&recs);
	return r;
}
