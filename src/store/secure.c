/* lnk's own state belongs to its user (see secure.h). */
#include "store/secure.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/util.h"
#include "store/paths.h"

/* Deep enough for ~/.lnk's own layout and anything a later version adds;
 * a deeper tree is not lnk's and is refused. */
#define WALK_DEPTH 8
#define WALK_ENTRIES 100000

static void who(uid_t uid, char *out, size_t cap)
{
	struct passwd *pw = getpwuid(uid);
	if (pw && pw->pw_name)
		snprintf(out, cap, "uid %u, %s", (unsigned)uid, pw->pw_name);
	else
		snprintf(out, cap, "uid %u", (unsigned)uid);
}

static int not_yours(const char *path, const struct stat *st, const char *what,
		     struct lnk_err *err)
{
	char owner[96], me[96];
	who(st->st_uid, owner, sizeof(owner));
	who(geteuid(), me, sizeof(me));
	return err_set(err, -EPERM,
		       "%s '%s' belongs to %s, not to you (%s): its owner "
		       "could read lnk's log and change what lnk trusts and "
		       "stops; run lnk with HOME set to your own home folder, "
		       "or give the folder to you (chown)",
		       what, path, owner, me);
}

static bool others_write(const struct stat *st)
{
	return (st->st_mode & (S_IWGRP | S_IWOTH)) != 0;
}

/* The uid the kernel shows for an owner this user namespace does not
 * map (65534 unless changed). In a namespace that does not map root (lnk
 * run inside another sandbox or `unshare -U`), root's folders show as it;
 * only folders above the home folder may be owned so. */
static uid_t overflow_uid(void)
{
	uid_t u = 65534;
	FILE *f = fopen("/proc/sys/kernel/overflowuid", "re");
	if (f) {
		unsigned v;
		if (fscanf(f, "%u", &v) == 1)
			u = (uid_t)v;
		fclose(f);
	}
	return u;
}

/* Whether this process runs in a user namespace other than the first one
 * (its uid_map is not the identity of all uids). */
static bool in_child_userns(void)
{
	FILE *f = fopen("/proc/self/uid_map", "re");
	if (!f)
		return false;
	unsigned long a, b, n;
	int k = fscanf(f, "%lu %lu %lu", &a, &b, &n);
	int more = fgetc(f);
	while (more == ' ' || more == '\n')
		more = fgetc(f);
	fclose(f);
	return !(k == 3 && a == 0 && b == 0 && n == 4294967295UL &&
		 more == EOF);
}

static bool root_like(uid_t uid)
{
	if (uid == 0)
		return true;
	return uid == overflow_uid() && in_child_userns();
}

/* A folder above ~/.lnk: this user's or root's, and writable by no one
 * else unless sticky (then others cannot rename or remove what is not
 * theirs in it, and the next folder down is checked to be ours or
 * root's). */
static int check_above(const char *path, struct lnk_err *err)
{
	struct stat st;
	if (lstat(path, &st) < 0)
		return err_set(err, -errno, "cannot use the folder '%s': %s",
			       path, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return err_set(err, -ENOTDIR, "'%s' is not a folder", path);
	if (st.st_uid != geteuid() && !root_like(st.st_uid))
		return not_yours(path, &st, "the folder", err);
	if (others_write(&st) && !(st.st_mode & S_ISVTX))
		return err_set(
		    err, -EPERM,
		    "the folder '%s' can be changed by other users (mode "
		    "%04o), so they could replace lnk's settings folder "
		    "below it: make it writable only by you (chmod go-w "
		    "'%s'), or run lnk with HOME set to a folder only you "
		    "can change",
		    path, (unsigned)(st.st_mode & 07777), path);
	return 0;
}

/* Every folder of the real path of home, from / down. */
static int check_chain(const char *real, struct lnk_err *err)
{
	_cleanup_free_ char *p = xstrdup(real);
	int r = check_above("/", err);
	for (char *s = p + 1; r == 0 && *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		r = check_above(p, err);
		*s = '/';
	}
	if (r == 0 && strcmp(p, "/") != 0)
		r = check_above(p, err);
	return r;
}

/* The home path as given: a link on the way that someone else owns could
 * be pointed elsewhere between this check and any later use. */
static int check_links(const char *given, struct lnk_err *err)
{
	_cleanup_free_ char *p = xstrdup(given);
	size_t n = strlen(p);
	for (size_t i = 1; i <= n; i++) {
		if (p[i] != '/' && p[i] != '\0')
			continue;
		char c = p[i];
		p[i] = '\0';
		struct stat st;
		if (lstat(p, &st) == 0 && S_ISLNK(st.st_mode) &&
		    st.st_uid != geteuid() && !root_like(st.st_uid)) {
			int r = not_yours(p, &st, "the link", err);
			return r;
		}
		p[i] = c;
	}
	return 0;
}

static int check_entry(const char *path, const struct stat *st,
		       struct lnk_err *err)
{
	if (S_ISLNK(st->st_mode))
		return err_set(
		    err, -ELOOP,
		    "'%s' is a symbolic link, and nothing in lnk's settings "
		    "folder may be one (it could point lnk's writes and reads "
		    "elsewhere): remove it (rm '%s')",
		    path, path);
	if (st->st_uid != geteuid())
		return not_yours(
		    path, st, S_ISDIR(st->st_mode) ? "the folder" : "the file",
		    err);
	if (others_write(st))
		return err_set(
		    err, -EPERM,
		    "'%s' in lnk's settings folder can be changed by other "
		    "users (mode %04o): make it writable only by you "
		    "(chmod go-w '%s')",
		    path, (unsigned)(st->st_mode & 07777), path);
	return 0;
}

/* The folders of ~/.lnk that are the sandbox's own (store/paths.h): every
 * entry in them is checked, at every depth. The rest of ~/.lnk belongs to
 * the rest of Link, which may keep links of its own there (a current
 * version, say): its top-level entries must be this user's and writable by
 * no one else, and a link among them this user's; what lies deeper, in
 * folders only this user can change, only this user can have put there. */
static bool own_tree(const char *name)
{
	return strcmp(name, "sandbox") == 0 || strcmp(name, "specs") == 0;
}

/* Everything below the folder dfd (path names it in messages), without
 * following any link. At depth 1 (the entries of ~/.lnk), only the
 * sandbox's own folders are walked into. */
static int walk(int dfd, const char *path, int depth, size_t *count,
		struct lnk_err *err)
{
	int fd = dup(dfd);
	if (fd < 0)
		return err_set(err, -errno, "cannot read '%s': %s", path,
			       strerror(errno));
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return err_set(err, -errno, "cannot read '%s': %s", path,
			       strerror(errno));
	}
	int r = 0;
	struct dirent *de;
	while (r == 0 && (de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		_cleanup_free_ char *sub = xasprintf("%s/%s", path, de->d_name);
		if (++*count > WALK_ENTRIES) {
			r = err_set(
			    err, -E2BIG,
			    "'%s' holds more than %d entries, more than "
			    "lnk ever makes: move what is not lnk's out "
			    "of it",
			    path, WALK_ENTRIES);
			break;
		}
		struct stat st;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) <
		    0) {
			if (errno == ENOENT)
				continue; /* a socket or journal just gone */
			r = err_set(err, -errno, "cannot use '%s': %s", sub,
				    strerror(errno));
			break;
		}
		bool strict = depth > 1 || own_tree(de->d_name);
		if (!strict && S_ISLNK(st.st_mode)) {
			if (st.st_uid != geteuid()) {
				r = not_yours(sub, &st, "the link", err);
				break;
			}
			continue;
		}
		if ((r = check_entry(sub, &st, err)) < 0)
			break;
		if (!S_ISDIR(st.st_mode) || !strict)
			continue;
		if (depth >= WALK_DEPTH) {
			r = err_set(err, -ELOOP,
				    "'%s' is nested deeper than lnk's settings "
				    "ever are: move it out of lnk's folder",
				    sub);
			break;
		}
		int sfd =
		    openat(dirfd(d), de->d_name,
			   O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sfd < 0) {
			if (errno == ENOENT)
				continue;
			r = err_set(err, -errno, "cannot read '%s': %s", sub,
				    strerror(errno));
			break;
		}
		r = walk(sfd, sub, depth + 1, count, err);
		close(sfd);
	}
	closedir(d);
	return r;
}

int secure_settings(const char *home, bool create, struct lnk_err *err)
{
	_cleanup_free_ char *real = realpath(home, NULL);
	if (!real)
		return err_set(err, -errno,
			       "cannot use your home folder '%s': %s; set HOME "
			       "to a folder of yours",
			       home, strerror(errno));
	int r = check_links(home, err);
	if (r == 0)
		r = check_chain(real, err);
	if (r < 0)
		return err_prefix(err, "lnk's settings folder is not safe to "
				       "use: ");

	_cleanup_free_ char *dir = paths_lnk_dir(home);
	if (create && mkdir(dir, 0700) < 0 && errno != EEXIST)
		return err_set(err, -errno, "cannot create folder '%s': %s",
			       dir, strerror(errno));
	_cleanup_close_ int fd =
	    open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	if (fd < 0) {
		if (errno == ENOENT && !create)
			return 0;
		if (lstat(dir, &st) == 0 && S_ISLNK(st.st_mode))
			return err_set(
			    err, -ELOOP,
			    "lnk's settings folder '%s' is a symbolic link: "
			    "it must be a folder of its own, which no one "
			    "else can change; remove the link (rm '%s') and "
			    "run lnk again",
			    dir, dir);
		return err_set(err, -errno,
			       "cannot use lnk's settings folder '%s': %s", dir,
			       strerror(errno));
	}
	if (fstat(fd, &st) < 0)
		return err_set(err, -errno, "cannot use '%s': %s", dir,
			       strerror(errno));
	if (st.st_uid != geteuid())
		return not_yours(dir, &st, "lnk's settings folder", err);
	if (others_write(&st))
		return err_set(err, -EPERM,
			       "lnk's settings folder '%s' can be changed by "
			       "other users (mode %04o): make it yours alone "
			       "(chmod 700 '%s')",
			       dir, (unsigned)(st.st_mode & 07777), dir);
	/* Others must never read the log or the specs. */
	if (st.st_mode & 077)
		(void)fchmod(fd, 0700);
	size_t count = 0;
	return walk(fd, dir, 1, &count, err);
}

int secure_own_folder(const char *path, struct lnk_err *err)
{
	struct stat st;
	if (lstat(path, &st) < 0)
		return err_set(err, -errno, "cannot use the folder '%s': %s",
			       path, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return err_set(err, -ENOTDIR,
			       "'%s' is not a folder (a link or a file): "
			       "lnk's own folders must be real folders",
			       path);
	if (st.st_uid != geteuid())
		return not_yours(path, &st, "the folder", err);
	if (others_write(&st))
		return err_set(err, -EPERM,
			       "the folder '%s' can be changed by other users "
			       "(mode %04o): chmod 700 '%s'",
			       path, (unsigned)(st.st_mode & 07777), path);
	return 0;
}
