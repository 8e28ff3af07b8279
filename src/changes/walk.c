/* The walk of one write folder after the program ended (changes.h).
 *
 * Threat: the tree is the program's. Every folder is opened relative to
 * its parent with O_NOFOLLOW | O_DIRECTORY, so a link planted where a
 * folder was is never followed; a mount below the write folder (bwrap
 * binds the grant with its mounts, so the program wrote there too) is
 * entered when its file system is local, and named as not looked at
 * otherwise (a network share or FUSE could stall the walk); the walk is
 * bounded by entries, by time and by depth, and a walk cut short says so
 * rather than stalls. A folder the run moved keeps its children's change
 * times: what it brings to a place that runs it is judged too (entry).
 */
#include "changes/hooks.h"
#include "changes/changes.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#ifdef __linux__
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#endif
#include <time.h>
#include <unistd.h>

#include "changes/flags.h"
#include "common/buf.h"
#include "common/util.h"
#include "store/paths.h"

/* Folders deeper than this are not entered (each level holds one open
 * folder). */
#define WALK_MAX_DEPTH 128

struct devino {
	dev_t dev;
	ino_t ino;
};

struct walk {
	const struct changes_bounds *b;
	struct changes_folder *out;
	struct timespec since;
	dev_t dev;
	struct timespec deadline;
	struct devino *path_dirs;
	size_t npath;
	struct devino *skip;
	size_t nskip;
	struct devino *codes; /* the code search paths' folders */
	const char **code_vars;
	size_t ncode;
	struct devino *confs; /* the user's configuration folders */
	size_t nconfs;
	struct devino *datas; /* the user's data folders */
	size_t ndatas;
	char rel[PATH_MAX];
	char target[PATH_MAX]; /* a link's, read once at a time */
	size_t rel_len;
	const char *top;
	int topfd;	 /* the write folder, where links are resolved */
	char *mountinfo; /* /proc/self/mountinfo, read at the first mount */
	size_t mountinfo_len;
	bool mountinfo_read;
	struct hooks *hooks; /* the top repository's hooks (hooks.h) */
};

void changes_bounds_default(struct changes_bounds *b)
{
	b->max_entries = 1000000;
	b->max_ms = 5000;
	b->max_flags = 1000;
	b->max_listed = 2000;
	b->list = false;
}

int changes_mode_parse(const char *s, enum changes_mode *out)
{
	if (strcmp(s, "off") == 0)
		*out = CHANGES_OFF;
	else if (strcmp(s, "summary") == 0)
		*out = CHANGES_SUMMARY;
	else if (strcmp(s, "full") == 0)
		*out = CHANGES_FULL;
	else
		return -EINVAL;
	return 0;
}

void changes_stamp(const char *dir, struct timespec *out)
{
#ifdef __linux__
	clock_gettime(CLOCK_REALTIME_COARSE, out);
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	struct stat st;
	if (fstat(fd, &st) == 0)
		*out = st.st_ctim;
	close(fd);
#else
	/* No unnamed file to read the file system's clock from: the
	 * clock, a second early, so a change in the same second counts. */
	(void)dir;
	clock_gettime(CLOCK_REALTIME, out);
	out->tv_sec -= 1;
#endif
}

static bool at_or_after(struct timespec t, struct timespec since)
{
	return t.tv_sec > since.tv_sec ||
	       (t.tv_sec == since.tv_sec && t.tv_nsec >= since.tv_nsec);
}

static void cut(struct walk *w, const char *why)
{
	if (!w->out->cut) {
		w->out->cut = true;
		w->out->cut_why = xstrdup(why);
	}
}

static bool past_deadline(const struct walk *w)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
	return !at_or_after(w->deadline, now);
}

/* lnk walks after the program ended with its signals still blocked (the
 * supervisor's, launch/spawn.h): a ^C or a TERM waits, pending, and ends
 * the walk at its next look rather than after the bound. */
static bool interrupted(void)
{
	sigset_t s;
	return sigpending(&s) == 0 &&
	       (sigismember(&s, SIGINT) == 1 || sigismember(&s, SIGTERM) == 1 ||
		sigismember(&s, SIGHUP) == 1 || sigismember(&s, SIGQUIT) == 1);
}

static void add_flag(struct walk *w, char *reason)
{
	struct changes_folder *f = w->out;
	if (f->nflags >= w->b->max_flags) {
		/* Past the bound, a plain executable gives its place to any
		 * other reason (a repository's config, a build file): the
		 * program names its files, and so the order they are found
		 * in, and must not push a fsmonitor out with scripts. */
		size_t i = f->nflags;
		bool plain = flags_plain(reason);
		while (!plain && i > 0 && !flags_plain(f->flags[i - 1].reason))
			i--;
		if (plain || i == 0) {
			free(reason);
		} else {
			free(f->flags[i - 1].path);
			free(f->flags[i - 1].reason);
			f->flags[i - 1].path = xstrndup(w->rel, w->rel_len);
			f->flags[i - 1].reason = reason;
		}
		cut(w, "too many flagged entries to list them all (plain "
		       "executables left out first)");
		return;
	}
	f->flags = xrealloc(f->flags, (f->nflags + 1) * sizeof(*f->flags));
	f->flags[f->nflags].path = xstrndup(w->rel, w->rel_len);
	f->flags[f->nflags].reason = reason;
	f->nflags++;
}

/* Lexically, whether a path from the top (relative, components of the
 * target from tgt on) leaves it: a ".." above the top, or one in the
 * target after a name (a name not made yet may become a link, and the
 * climb goes from wherever it leads). */
static bool lexically_leaves(const char *path, const char *tgt)
{
	long depth = 0;
	bool named = false;
	for (const char *p = path; *p;) {
		size_t n = strcspn(p, "/");
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			if (--depth < 0 || (p >= tgt && named))
				return true;
		} else if (n > 0 && !(n == 1 && p[0] == '.')) {
			depth++;
			named |= p >= tgt;
		}
		p += n;
		while (*p == '/')
			p++;
	}
	return false;
}

/* Whether a link (its folder's path rel_dir from the top, its target as
 * read) leads out of the write folder, judged by where it leads, never
 * by its spelling. Threat: "s -> ." then "notes.txt -> s/../secret" is
 * spelled to stay inside and leads out; a tool that opens notes.txt
 * reads or writes there. The kernel resolves it beneath the top
 * (openat2 RESOLVE_BENEATH: a climb out is EXDEV, whatever links it goes
 * through); a dangling one leaves when it climbs out or goes through a
 * link on its way (it leads out as soon as something is made there). */
static bool link_leaves(const struct walk *w, const char *rel_dir,
			size_t dir_len, const char *target)
{
	char path[PATH_MAX];
	const char *tgt;
	if (target[0] == '/') {
		size_t n = strlen(w->top);
		if (strncmp(target, w->top, n) != 0 ||
		    (target[n] != '/' && target[n] != '\0'))
			return true;
		/* inside by spelling: from the top, judged as any other */
		target += n;
		while (*target == '/')
			target++;
		dir_len = 0;
	}
	int len = dir_len ? snprintf(path, sizeof(path), "%.*s/%s",
				     (int)dir_len, rel_dir, target)
			  : snprintf(path, sizeof(path), "%s", target);
	if (len < 0 || (size_t)len >= sizeof(path))
		return true; /* longer than a path: never resolved inside */
	tgt = path + (dir_len ? dir_len + 1 : 0);
#ifdef __linux__
	struct open_how how = {
	    .flags = O_PATH | O_CLOEXEC,
	    .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
	};
	long fd = syscall(SYS_openat2, w->topfd, path[0] ? path : ".", &how,
			  sizeof(how));
	if (fd >= 0) {
		close((int)fd);
		return false;
	}
	if (errno == EXDEV || errno == ELOOP)
		return true;
	if (errno == ENOENT || errno == ENOTDIR) {
		how.resolve |= RESOLVE_NO_SYMLINKS;
		fd = syscall(SYS_openat2, w->topfd, path[0] ? path : ".", &how,
			     sizeof(how));
		if (fd >= 0)
			close((int)fd);
		else if (errno == EXDEV || errno == ELOOP)
			return true;
	}
	/* no openat2 (an older kernel), or a folder lnk cannot search: the
	 * spelling, the safe side of it */
#endif
	return lexically_leaves(path, tgt);
}

struct name {
	char *s;
	unsigned char type;
};

/* The names of one folder, at most max of them (a folder of millions
 * would otherwise be held whole in memory): *full when there were more. */
static int names_read(int fd, size_t max, struct name **out, size_t *n,
		      bool *bare, bool *venv, bool *full)
{
	int dfd = dup(fd);
	if (dfd < 0)
		return -errno;
	DIR *d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return -errno;
	}
	bool head = false, objects = false, refs = false, common = false,
	     gitdir = false;
	*venv = false;
	struct dirent *e;
	size_t cap = 0;
	while ((e = readdir(d))) {
		const char *s = e->d_name;
		if (s[0] == '.' &&
		    (s[1] == '\0' || (s[1] == '.' && s[2] == '\0')))
			continue;
		if (*n >= max) {
			*full = true;
			break;
		}
		if (*n == cap) {
			cap = cap ? cap * 2 : 32;
			*out = xrealloc(*out, cap * sizeof(**out));
		}
		(*out)[*n].s = xstrdup(s);
		(*out)[*n].type = e->d_type;
		(*n)++;
		if (strcmp(s, "HEAD") == 0)
			head = true;
		else if (strcmp(s, "objects") == 0)
			objects = true;
		else if (strcmp(s, "refs") == 0)
			refs = true;
		else if (strcmp(s, "commondir") == 0)
			common = true;
		else if (strcmp(s, "gitdir") == 0)
			gitdir = true;
		else if (strcmp(s, "pyvenv.cfg") == 0)
			*venv = true;
	}
	/* git takes a folder for a repository when it holds HEAD and its
	 * objects and refs are there, or in the folder its commondir file
	 * names (a config, aliases and all, read from there); a worktree's
	 * own folder has a gitdir file */
	*bare = head && ((objects && refs) || common || gitdir);
	closedir(d);
	return 0;
}

static void walk_dir(struct walk *w, int fd, const struct flag_where *where,
		     int bulky, bool changed);

static bool devino_in(const struct devino *v, size_t n, const struct stat *st)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].dev == st->st_dev && v[i].ino == st->st_ino)
			return true;
	return false;
}

/* Folders by what they are (device, inode), never by their spelling. */
static struct devino *devinos(const char *const *paths, size_t n, size_t *out_n)
{
	struct devino *v = n ? xcalloc(n, sizeof(*v)) : NULL;
	*out_n = 0;
	for (size_t i = 0; i < n; i++) {
		struct stat ps;
		if (paths[i] && paths[i][0] == '/' &&
		    stat(paths[i], &ps) == 0 && S_ISDIR(ps.st_mode)) {
			v[*out_n].dev = ps.st_dev;
			v[*out_n].ino = ps.st_ino;
			(*out_n)++;
		}
	}
	return v;
}

/* The code search paths' folders, each with its variable (stat'd now:
 * one the run made counts). */
static void code_folders(struct walk *w, const struct changes_where *in)
{
	w->codes = in->ncode ? xcalloc(in->ncode, sizeof(*w->codes)) : NULL;
	w->code_vars =
	    in->ncode ? xcalloc(in->ncode, sizeof(*w->code_vars)) : NULL;
	for (size_t i = 0; i < in->ncode; i++) {
		struct stat ps;
		if (in->code_dirs[i][0] != '/' ||
		    stat(in->code_dirs[i], &ps) < 0 || !S_ISDIR(ps.st_mode))
			continue;
		w->codes[w->ncode] = (struct devino){ps.st_dev, ps.st_ino};
		w->code_vars[w->ncode++] = in->code_vars[i];
	}
}

static const char *code_var_of(const struct walk *w, const struct stat *st)
{
	for (size_t i = 0; i < w->ncode; i++)
		if (w->codes[i].dev == st->st_dev &&
		    w->codes[i].ino == st->st_ino)
			return w->code_vars[i];
	return NULL;
}

/* The file systems a mount below a write folder is walked on: local
 * ones, whose entries answer from this kernel at once (by the type's
 * name in mountinfo, which no FUSE server chooses: its types are
 * "fuse.*"). */
static const char *const local_fs[] = {
    "tmpfs", "ramfs", "ext2",	 "ext3",     "ext4", "xfs",
    "btrfs", "f2fs",  "overlay", "bcachefs", "zfs",
};

/* Whether the mount mnt_id is of a local file system; its type's name
 * in fstype (or "" when unknown). Read from mountinfo, not statfs: a
 * network share's statfs asks its server, and a dead one would hold
 * lnk's exit. */
static bool mount_local(struct walk *w, uint64_t mnt_id, char *fstype,
			size_t cap)
{
	fstype[0] = '\0';
	if (!mnt_id)
		return false;
	if (!w->mountinfo_read) {
		w->mountinfo_read = true;
		int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			if (read_fd_all(fd, 4u << 20, &w->mountinfo,
					&w->mountinfo_len) < 0) {
				w->mountinfo = NULL;
				w->mountinfo_len = 0;
			}
			close(fd);
		}
	}
	const char *p = w->mountinfo, *end = p + w->mountinfo_len;
	while (p && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		char *after;
		errno = 0;
		unsigned long long id = strtoull(p, &after, 10);
		if (errno == 0 && after > p && after < eol && *after == ' ' &&
		    id == mnt_id) {
			/* the optional fields end at " - ", then the type */
			const char *sep =
			    memmem(after, (size_t)(eol - after), " - ", 3);
			if (!sep)
				return false;
			const char *t = sep + 3;
			size_t n = strcspn(t, " \n");
			if (t + n > eol)
				n = (size_t)(eol - t);
			if (n >= cap)
				n = cap - 1;
			memcpy(fstype, t, n);
			fstype[n] = '\0';
			for (size_t i = 0; i < ARRAY_SIZE(local_fs); i++)
				if (strcmp(fstype, local_fs[i]) == 0)
					return true;
			return false;
		}
		p = nl ? nl + 1 : end;
	}
	return false;
}

static void entry(struct walk *w, int dfd, const char *name,
		  const struct flag_where *where, int bulky, bool parent_venv)
{
	struct changes_folder *f = w->out;
	size_t save = w->rel_len, n = strlen(name);
	if (save + n + 2 > sizeof(w->rel)) {
		cut(w, "a path too long to follow");
		return;
	}
	if (save)
		w->rel[w->rel_len++] = '/';
	memcpy(w->rel + w->rel_len, name, n + 1);
	w->rel_len += n;

#ifdef __linux__
	struct statx sx;
	if (statx(dfd, name,
		  AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT | AT_STATX_DONT_SYNC,
		  STATX_TYPE | STATX_MODE | STATX_CTIME | STATX_MTIME |
		      STATX_INO | STATX_MNT_ID,
		  &sx) < 0)
		goto out; /* gone since it was listed */
	mode_t mode = sx.stx_mode;
	struct timespec ct = {sx.stx_ctime.tv_sec, sx.stx_ctime.tv_nsec};
	struct timespec mt = {sx.stx_mtime.tv_sec, sx.stx_mtime.tv_nsec};
	/* a mount below the write folder: bwrap binds the grant with the
	 * mounts below it, so the program writes there too. Where the kernel
	 * says which folders are mount roots, only those: a btrfs subvolume
	 * has a device number of its own but is no mount. */
	bool other_mount =
	    (sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT)
		? (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT) != 0
		: sx.stx_dev_major != major(w->dev) ||
		      sx.stx_dev_minor != minor(w->dev);
	struct stat ids = {.st_dev =
			       makedev(sx.stx_dev_major, sx.stx_dev_minor),
			   .st_ino = sx.stx_ino};
	uint64_t mnt_id = (sx.stx_mask & STATX_MNT_ID) ? sx.stx_mnt_id : 0;
#else
	struct stat sx;
	if (fstatat(dfd, name, &sx, AT_SYMLINK_NOFOLLOW) < 0)
		goto out; /* gone since it was listed */
	mode_t mode = sx.st_mode;
	struct timespec ct = sx.st_ctim;
	struct timespec mt = sx.st_mtim;
	bool other_mount = sx.st_dev != w->dev;
	struct stat ids = sx;
	uint64_t mnt_id = 0;
#endif
	f->seen++;
	bool changed = at_or_after(ct, w->since);
	int b = bulky >= 0 ? bulky : flags_bulky_index(name);
	/* an old HEAD or config of a git directory the run made one */
	bool again =
	    !changed && where->git_new &&
	    (strcmp(name, "HEAD") == 0 || strcmp(name, "config") == 0 ||
	     strcmp(name, "config.worktree") == 0);
	/* judged, not changed: below a folder the run may have moved */
	bool judged = changed || again || where->moved;
	if (judged) {
		const char *target = NULL;
		bool read_target = false;
		if (S_ISLNK(mode)) {
			ssize_t l = readlinkat(dfd, name, w->target,
					       sizeof(w->target) - 1);
			if (l >= 0) {
				read_target = true;
				w->target[l] = '\0';
				if (link_leaves(w, w->rel, save, w->target))
					target = w->target;
			}
		}
		char *reason = flags_check(dfd, name, mode, where, target);
		/* a project script the user's own hook runs at a commit */
		const char *hook =
		    S_ISREG(mode) && !where->in_git && !where->vendored
			? hooks_naming(w->hooks, w->rel, w->rel_len)
			: NULL;
		if (hook) {
			char *s = xasprintf(
			    "%s%sthe repository's hook %s runs it, as you, "
			    "outside the sandbox, when git runs that hook (a "
			    "commit, a push)",
			    reason ? reason : "", reason ? "; " : "", hook);
			free(reason);
			reason = s;
		}
		/* A link into a folder of packages brings what the report
		 * only counts there (a package's conftest.py, Makefile) to
		 * a name where pytest, make or an editor look. */
		const char *into;
		if (!reason && read_target && !where->vendored && !target &&
		    (into = flags_vendored_in(w->target)))
			reason = xasprintf(
			    "a link into %s, to %s: tools that look here find "
			    "a package's files, which the report only counts",
			    into, w->target);
		/* an entry the run did not change itself: said so, or the
		 * user looks for a change that is not there */
		if (reason && !changed && !again) {
			char *moved = xasprintf(FLAG_MOVED "%s", reason);
			free(reason);
			reason = moved;
		}
		if (reason)
			add_flag(w, reason);
		if (changed && !S_ISDIR(mode)) {
			f->changed++;
			if (bulky >= 0)
				f->bulky[bulky]++;
			if (w->b->list && f->nlisted < w->b->max_listed) {
				f->listed =
				    xrealloc(f->listed, (f->nlisted + 1) *
							    sizeof(*f->listed));
				f->listed[f->nlisted++] =
				    xstrndup(w->rel, w->rel_len);
			}
		}
	}
	if (S_ISDIR(mode)) {
		if (where->depth + 1 >= WALK_MAX_DEPTH) {
			cut(w, "folders nested too deep to follow");
			goto out;
		}
		if (devino_in(w->skip, w->nskip, &ids))
			goto out;
		/* Threat: a mount below a write folder is written through
		 * the grant as the folder itself is. A local file system is
		 * walked as the rest; another (FUSE, a network share) may
		 * hang the walk or answer as its server likes, so it is
		 * named once, not looked into. */
		char fstype[64] = "";
		if (other_mount &&
		    !mount_local(w, mnt_id, fstype, sizeof(fstype))) {
			add_flag(w, xasprintf(
					"a mount of another file system (%s), "
					"not looked at: the program could "
					"write there; review what the run left "
					"in it before you build, open or cd "
					"into it",
					fstype[0] ? fstype
						  : "of a type lnk "
						    "could not "
						    "tell"));
			goto out;
		}
		int cfd = openat(
		    dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (cfd < 0) {
			/* a folder the program closed (chmod 0): what it
			 * holds is unseen, so it is named */
			if (errno == EACCES && judged)
				add_flag(w,
					 xstrdup("a folder lnk could not look "
						 "into (its mode keeps you "
						 "out too): review what it "
						 "holds before you open it "
						 "up"));
			goto out;
		}
		/* one that can be listed but not searched (chmod 0400): its
		 * names are read, none can be looked at */
		if (judged && faccessat(cfd, ".", X_OK, AT_EACCESS) < 0 &&
		    errno == EACCES) {
			add_flag(w, xstrdup("a folder lnk could not look into "
					    "(its mode keeps you out too): "
					    "review what it holds before you "
					    "open it up"));
			close(cfd);
			goto out;
		}
		struct flag_where cw;
		flags_enter(where, name, parent_venv, &cw);
		struct stat cst;
		if ((w->npath || w->nskip || w->nconfs || w->ndatas ||
		     w->ncode) &&
		    fstat(cfd, &cst) == 0) {
			if (devino_in(w->skip, w->nskip, &cst)) {
				close(cfd);
				goto out;
			}
			cw.on_path = devino_in(w->path_dirs, w->npath, &cst);
			cw.code_var = code_var_of(w, &cst);
			if (devino_in(w->confs, w->nconfs, &cst))
				flags_config_folder("", &cw);
			else if (devino_in(w->datas, w->ndatas, &cst))
				flags_data_folder("", &cw);
		}
		/* Threat: a rename changes the folder's change time, not
		 * its children's: `mv node_modules bin` makes what an
		 * earlier run left there (only counted) ~/.local/bin/ls.
		 * A folder changed but not written (its content time is
		 * older: a move, a chmod, a chown) has its whole subtree
		 * judged; one whose place decides what its entries are,
		 * even when also written (walk_dir). A folder merely
		 * written elsewhere keeps its old files unflagged. */
		cw.moved =
		    where->moved || (changed && !at_or_after(mt, w->since));
		dev_t dev = w->dev;
		struct timespec since = w->since;
		if (other_mount) {
			w->dev = ids.st_dev;
			/* its file system's clock may tick in seconds
			 * (ext2's): a change in the run's first second counts
			 * however it was stamped (the safe side) */
			w->since.tv_nsec = 0;
		}
		walk_dir(w, cfd, &cw, b, changed);
		w->dev = dev;
		w->since = since;
	}
out:
	w->rel_len = save;
	w->rel[save] = '\0';
}

/* The names that make a folder a git directory (git's
 * is_git_directory, and a worktree's commondir and gitdir). */
static const char *const git_defining[] = {"HEAD",    "config",	   "refs",
					   "objects", "commondir", "gitdir"};

/* Whether any entry that makes the git directory at fd one is new or
 * changed in the run. Threat: a repository assembled over two runs (HEAD,
 * objects and a config with a fsmonitor in one, refs in the next): the
 * run that completes it changed neither HEAD nor the config, which are
 * then read as if new. */
static bool git_made_now(const struct walk *w, int fd)
{
	for (size_t i = 0; i < ARRAY_SIZE(git_defining); i++) {
		struct stat st;
		if (fstatat(fd, git_defining[i], &st, AT_SYMLINK_NOFOLLOW) ==
			0 &&
		    at_or_after(st.st_ctim, w->since))
			return true;
	}
	return false;
}

/* changed: the folder's own change time is the run's. */
static void walk_dir(struct walk *w, int fd, const struct flag_where *where,
		     int bulky, bool changed)
{
	struct name *names = NULL;
	size_t n = 0;
	bool bare = false, venv = false, full = false;
	struct flag_where here = *where;
	size_t left = w->b->max_entries > w->out->seen
			  ? w->b->max_entries - w->out->seen
			  : 0;
	if (names_read(fd, left + 1, &names, &n, &bare, &venv, &full) == 0) {
		/* a bare repository below the top: git takes it for one */
		if (bare && !here.in_git && here.depth > 0) {
			here.in_git = true;
			here.below_top = true;
			here.bare_here = true;
		}
		if ((here.bare_here || here.git_root) && here.below_top)
			here.git_new = git_made_now(w, fd);
		/* a folder whose place decides what its entries are, changed
		 * in the run, may have been moved there, written to or not:
		 * what it holds is judged (entry) */
		if (changed && flags_place_decides(&here))
			here.moved = true;
		/* Threat: `mv node_modules/fv .venv && touch .venv` (or a
		 * site-packages swapped, a nested repository moved then
		 * written): the moved folder looks merely written, and what
		 * it brought keeps its old times. A folder whose place
		 * decides, below a folder changed in the run, is judged
		 * whole, site-packages too (pip adds to it, not above it). */
		if (where->under_changed &&
		    (flags_place_decides(&here) || here.site))
			here.moved = true;
		/* not the top's own git directory: every commit writes it,
		 * and its hooks folder decides on its own time */
		here.under_changed =
		    where->under_changed || (changed && here.depth > 0 &&
					     !(here.in_git && !here.below_top));
		for (size_t i = 0; i < n; i++) {
			if (!w->out->cut_hard) {
				if (w->out->seen >= w->b->max_entries) {
					cut(w, "more entries than the walk's "
					       "bound");
					w->out->cut_hard = true;
				} else if ((w->out->seen & 1023) == 0 &&
					   past_deadline(w)) {
					cut(w, "the walk took longer than its "
					       "bound");
					w->out->cut_hard = true;
				} else if ((w->out->seen & 1023) == 0 &&
					   interrupted()) {
					cut(w, "stopped by a signal");
					w->out->cut_hard = true;
				}
			}
			if (!w->out->cut_hard)
				entry(w, fd, names[i].s, &here, bulky, venv);
			free(names[i].s);
		}
		if (full && !w->out->cut_hard) {
			cut(w, "more entries than the walk's bound");
			w->out->cut_hard = true;
		}
	}
	free(names);
	close(fd);
}

/* The user's configuration folders ($XDG_CONFIG_HOME when absolute,
 * and ~/.config, the one lnk's user's programs read when it is unset)
 * or, data, the data folders ($XDG_DATA_HOME, ~/.local/share); NULL
 * where there is none. */
static void xdg_folders(bool data, char *out[2])
{
	const char *x = getenv(data ? "XDG_DATA_HOME" : "XDG_CONFIG_HOME");
	if (x && x[0] == '/')
		out[0] = xstrdup(x);
	char *home = NULL;
	struct lnk_err e = {0};
	if (paths_home(&home, &e) == 0 && home) {
		out[1] =
		    xasprintf("%s/%s", home, data ? ".local/share" : ".config");
		free(home);
	}
}

/* Whether the top is such a folder (by identity) or a folder below one
 * (by the real path's prefix: top is real): *w says so. */
static void xdg_top(bool data, const char *top, const struct stat *st,
		    char *dirs[2], struct flag_where *w)
{
	for (size_t i = 0; i < 2; i++) {
		struct stat cs;
		if (!dirs[i] || stat(dirs[i], &cs) < 0)
			continue;
		if (cs.st_dev == st->st_dev && cs.st_ino == st->st_ino) {
			(data ? flags_data_folder : flags_config_folder)("", w);
			return;
		}
		char *real = realpath(dirs[i], NULL);
		size_t n = real ? strlen(real) : 0;
		if (real && strncmp(top, real, n) == 0 && top[n] == '/') {
			(data ? flags_data_folder
			      : flags_config_folder)(top + n + 1, w);
			free(real);
			return;
		}
		free(real);
	}
}

/* The home's .local/bin and bin, added to the PATH folders: Debian's
 * ~/.profile (and others') puts them first on PATH when they exist at
 * login, whatever PATH lnk was started with. Threat: one run makes
 * ~/.local/bin, the next leaves ~/.local/bin/ls there: your next login's
 * ls is the program's. They are looked at now, after the run, so a
 * folder the run made counts. */
static void home_bins(struct walk *w)
{
	char *home = NULL;
	struct lnk_err e = {0};
	if (paths_home(&home, &e) < 0 || !home)
		return;
	char *bins[2] = {xasprintf("%s/.local/bin", home),
			 xasprintf("%s/bin", home)};
	size_t n;
	struct devino *v = devinos((const char *const *)bins, 2, &n);
	if (n) {
		w->path_dirs =
		    xrealloc(w->path_dirs, (w->npath + n) * sizeof(*v));
		memcpy(w->path_dirs + w->npath, v, n * sizeof(*v));
		w->npath += n;
	}
	free(v);
	free(bins[0]);
	free(bins[1]);
	free(home);
}

int changes_walk(const char *top, struct timespec since,
		 const struct changes_where *in, const struct changes_bounds *b,
		 struct changes_folder *out, struct lnk_err *err)
{
	memset(out, 0, sizeof(*out));
	out->top = xstrdup(top);
	out->since = since;
	int fd = open(top, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return err_set(err, -errno,
			       "cannot look at what changed in '%s': %s", top,
			       strerror(errno));
	struct stat st;
	if (fstat(fd, &st) < 0) {
		int r = -errno;
		close(fd);
		return err_set(err, r, "cannot look at '%s': %s", top,
			       strerror(-r));
	}
	struct walk w = {
	    .b = b, .out = out, .since = since, .dev = st.st_dev, .top = top};
	clock_gettime(CLOCK_MONOTONIC_COARSE, &w.deadline);
	w.deadline.tv_sec += b->max_ms / 1000;
	w.deadline.tv_nsec += (b->max_ms % 1000) * 1000000;
	if (w.deadline.tv_nsec >= 1000000000) {
		w.deadline.tv_sec++;
		w.deadline.tv_nsec -= 1000000000;
	}
	w.path_dirs = devinos(in->path_dirs, in->npath, &w.npath);
	home_bins(&w);
	w.skip = devinos(in->skip, in->nskip, &w.nskip);
	struct flag_where top_where = {0};
	top_where.on_path = devino_in(w.path_dirs, w.npath, &st);
	code_folders(&w, in);
	top_where.code_var = code_var_of(&w, &st);
	flags_top(top, &top_where);
	char *confs[2] = {NULL, NULL}, *datas[2] = {NULL, NULL};
	xdg_folders(false, confs);
	xdg_folders(true, datas);
	w.confs = devinos((const char *const *)confs, 2, &w.nconfs);
	w.datas = devinos((const char *const *)datas, 2, &w.ndatas);
	xdg_top(false, top, &st, confs, &top_where);
	if (!top_where.xdg_in)
		xdg_top(true, top, &st, datas, &top_where);
	for (size_t i = 0; i < 2; i++) {
		free(confs[i]);
		free(datas[i]);
	}
	w.topfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (w.topfd >= 0)
		w.hooks = hooks_read(w.topfd);
	/* the top cannot be moved (a mount point in the sandbox) nor its
	 * mode changed (rule M): its own times say nothing of its entries */
	walk_dir(&w, fd, &top_where, -1, false);
	if (w.topfd >= 0)
		close(w.topfd);
	free(w.path_dirs);
	free(w.codes);
	free(w.code_vars);
	free(w.skip);
	free(w.confs);
	free(w.datas);
	free(w.mountinfo);
	hooks_free(w.hooks);
	return 0;
}

void changes_folder_free(struct changes_folder *f)
{
	for (size_t i = 0; i < f->nflags; i++) {
		free(f->flags[i].path);
		free(f->flags[i].reason);
	}
	for (size_t i = 0; i < f->nlisted; i++)
		free(f->listed[i]);
	free(f->flags);
	free(f->listed);
	free(f->top);
	free(f->cut_why);
	memset(f, 0, sizeof(*f));
}

bool changes_any(const struct changes_folder *f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (f[i].changed || f[i].nflags || f[i].cut)
			return true;
	return false;
}
