/* Guarded names made or put in place outside while the sandbox runs.
 *
 * Threat: what the guard keeps read only from the start is a read-only
 * mount over each existing entry (.git, .envrc, a PATH folder) and a name
 * it never lets the program create. Someone outside may make or replace
 * such an entry during the run: you run `git init` in the project, an
 * editor saves .envrc by renaming a new file over it, `git checkout`
 * rewrites .gitattributes, `git config --global` renames a new
 * ~/.gitconfig in place, a virtualenv's bin is made again. The new entry
 * has no mount (and the kernel detaches the old one from the sandbox when
 * its file is replaced), so the program wrote the new .git's config and
 * hooks, or appended to the new .envrc, and the next `git status` or `cd`
 * outside ran it.
 *
 * Two answers. An existing guarded name itself is never opened for
 * writing or removed (guard_late_write_refused, open.c and dispatch.c):
 * where it is kept, the kernel refused it already, so the answer is the
 * same. And each folder a rule guards names in is watched (inotify: a name
 * made or moved in); at each call that creates, writes, renames or
 * removes, the events queued so far are read first (the kernel queues one
 * as the name is made, before the program can see it), each guarded name
 * among them recorded by what it is (device and inode), and a call in one
 * of them, at any depth, is refused as a kept entry's is (EROFS), named
 * once. The watches are made when the guard starts, after the plan: a name
 * made between the two is a name the plan saw or the start missed (a few
 * milliseconds, said in GAPS AND LIMITS). */
#include "guard/supervisor.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/esc.h"

/* Folders climbed from a call's folder to find a late entry above it: a
 * deeper one is refused (fail closed) while any late entry exists. */
#define LATE_DEPTH 256

/* The rule guarding name in the folder watched as wd, or NULL. */
static const struct guard_rule *rule_of(const struct guard *n, int wd,
					const char *name)
{
	for (size_t i = 0; i < n->nlate_watches; i++) {
		const struct late_watch *w = &n->late_watches[i];
		if (w->wd != wd)
			continue;
		const struct guard_rule *g = guard_decide(
		    n->plan.guards, n->plan.n, w->dev, w->ino, name);
		/* a folder that holds a hidden one is kept from being
		 * renamed, not read only */
		return g && !g->always ? g : NULL;
	}
	return NULL;
}

static const struct late_watch *watch_of(const struct guard *n, int wd)
{
	for (size_t i = 0; i < n->nlate_watches; i++)
		if (n->late_watches[i].wd == wd)
			return &n->late_watches[i];
	return NULL;
}

/* The write folder that holds dir, for the flag that lifts the rule: the
 * longest top of a kept entry that dir is or lies in; else dir. */
static const char *top_of(const struct guard *n, const char *dir)
{
	const char *best = NULL;

	for (size_t i = 0; i < n->plan.nkept; i++) {
		const char *t = n->plan.kept[i].top;
		size_t l = strlen(t);
		if (strncmp(dir, t, l) == 0 && (dir[l] == '/' || !dir[l]) &&
		    (!best || l > strlen(best)))
			best = t;
	}
	return best ? best : dir;
}

static void record_one(struct guard *n, const struct late_watch *w,
		       const struct guard_rule *g, const char *name,
		       const struct stat *st, const char *shown)
{
	for (size_t i = 0; i < n->nlate; i++)
		if (n->late[i].dev == st->st_dev &&
		    n->late[i].ino == st->st_ino)
			return;
	n->late = xrealloc(n->late, (n->nlate + 1) * sizeof(*n->late));
	n->late[n->nlate++] = (struct late_entry){
	    .dev = st->st_dev,
	    .ino = st->st_ino,
	    .rule = g,
	    .wd = w->wd,
	    .name = xstrdup(name),
	    .path = xasprintf("%s/%s%s", g->dir, name, shown),
	    .top = top_of(n, g->dir),
	};
}

/* The name comp in the folder dir (an fd) kept: never made, renamed or
 * replaced. */
static void record_name(struct guard *n, const struct guard_rule *g, int dir,
			const char *comp, const char *link)
{
	struct stat st;

	if (fstat(dir, &st) < 0)
		return;
	for (size_t i = 0; i < n->nlate; i++)
		if (n->late[i].kept_name && n->late[i].dev == st.st_dev &&
		    n->late[i].ino == st.st_ino &&
		    strcmp(n->late[i].kept_name, comp) == 0)
			return;
	n->late = xrealloc(n->late, (n->nlate + 1) * sizeof(*n->late));
	n->late[n->nlate++] = (struct late_entry){
	    .dev = st.st_dev,
	    .ino = st.st_ino,
	    .kept_name = xstrdup(comp),
	    .rule = g,
	    .wd = -1,
	    .name = xstrdup(comp),
	    .path = xasprintf("%s (on the way of the link %s/%s)", comp, g->dir,
			      link),
	    .top = top_of(n, g->dir),
	};
}

/* The way of the link name (in the folder of w), as a link kept from the
 * start keeps it: each folder and link it goes through keeps its name (a
 * folder on the way renamed and made again would lead the link to the
 * program's file), and the name it ends at is kept whether or not it
 * exists (a dangling .envrc -> envrc.local: the program must not make
 * envrc.local). A link on the way ends the walk (its own name is kept);
 * what the link leads to, when there, is kept whole (record). */
static void record_way(struct guard *n, const struct late_watch *w,
		       const struct guard_rule *g, const char *name)
{
	char target[PATH_MAX];
	ssize_t len = readlinkat(w->fd, name, target, sizeof(target) - 1);
	if (len <= 0)
		return;
	target[len] = '\0';
	int dir = target[0] == '/'
		      ? open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)
		      : openat(w->fd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	char *rest = target, *comp;
	while (dir >= 0 && (comp = strsep(&rest, "/"))) {
		if (!*comp || strcmp(comp, ".") == 0)
			continue;
		int next;
		if (strcmp(comp, "..") == 0) {
			next =
			    openat(dir, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		} else {
			record_name(n, g, dir, comp, name);
			struct stat st;
			if (fstatat(dir, comp, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
			    S_ISLNK(st.st_mode))
				break; /* missing, or a link: its name kept */
			next =
			    openat(dir, comp, O_PATH | O_DIRECTORY | O_CLOEXEC);
		}
		close(dir);
		dir = next;
	}
	if (dir >= 0)
		close(dir);
}

/* name (made in the folder of w) recorded by what it is now; a link, the
 * names on its way and what it leads to (an .envrc made as a link to
 * envrc.real: direnv runs the target, which a link kept from the start
 * keeps read only too). */
static void record(struct guard *n, const struct late_watch *w,
		   const struct guard_rule *g, const char *name)
{
	struct stat st;

	if (fstatat(w->fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	record_one(n, w, g, name, &st, "");
	if (!S_ISLNK(st.st_mode))
		return;
	record_way(n, w, g, name);
	if (fstatat(w->fd, name, &st, 0) == 0)
		record_one(n, w, g, name, &st, " (where the link leads)");
}

/* name moved out of the folder watched as wd: what was recorded of it
 * stays (by inode), under no name there. */
static void unname(struct guard *n, int wd, const char *name)
{
	for (size_t i = 0; i < n->nlate; i++)
		if (n->late[i].wd == wd && strcmp(n->late[i].name, name) == 0)
			n->late[i].wd = -1;
}

/* name gone from the folder watched as wd: what was recorded of it is
 * forgotten (its inode may be another file's next). */
static void forget(struct guard *n, int wd, const char *name)
{
	for (size_t i = 0; i < n->nlate;) {
		struct late_entry *e = &n->late[i];
		if (e->wd != wd || strcmp(e->name, name) != 0) {
			i++;
			continue;
		}
		free(e->name);
		free(e->path);
		free(e->kept_name);
		*e = n->late[--n->nlate];
	}
}

/* Every guarded name in each watched folder, recorded: the queue
 * overflowed, so what was made is known no longer by its events. */
/* Whether name (in the folder of w) was made, or put there by a rename,
 * since the guard started: its birth or change time (a rename changes
 * the moved entry's) at or after late_t0, read from the kernel's coarse
 * clock, as the file system stamps times. What was there before is the
 * plan's (kept by a mount, or a folder on the way kept from renames). */
static bool made_since_start(const struct guard *n, const struct late_watch *w,
			     const char *name)
{
	struct statx sx;
	if (statx(w->fd, name, AT_SYMLINK_NOFOLLOW, STATX_BTIME | STATX_CTIME,
		  &sx) < 0)
		return false;
	const struct timespec *t0 = &n->late_t0;
	struct statx_timestamp ts[2] = {sx.stx_ctime, sx.stx_btime};
	int nts = (sx.stx_mask & STATX_BTIME) ? 2 : 1;
	for (int k = 0; k < nts; k++)
		if (ts[k].tv_sec > t0->tv_sec ||
		    (ts[k].tv_sec == t0->tv_sec &&
		     (long)ts[k].tv_nsec >= t0->tv_nsec))
			return true;
	return false;
}

static void rescan(struct guard *n)
{
	for (size_t i = 0; i < n->nlate_watches; i++) {
		const struct late_watch *w = &n->late_watches[i];
		int fd = openat(w->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
		if (!d) {
			if (fd >= 0)
				close(fd);
			continue;
		}
		struct dirent *e;
		while ((e = readdir(d))) {
			const struct guard_rule *g;
			if (!guard_is_dots(e->d_name) &&
			    (g = rule_of(n, w->wd, e->d_name)) &&
			    made_since_start(n, w, e->d_name))
				record(n, w, g, e->d_name);
		}
		closedir(d);
	}
}

/* The event of a batch that says where the name at (wd, name) went by a
 * rename after event i, or -1: its IN_MOVED_FROM, then the IN_MOVED_TO
 * with the same cookie. */
static ssize_t moved_to(struct inotify_event **ev, size_t nev, size_t i, int wd,
			const char *name)
{
	for (size_t j = i + 1; j < nev; j++) {
		if (ev[j]->wd != wd || !ev[j]->len ||
		    strcmp(ev[j]->name, name) != 0)
			continue;
		if (ev[j]->mask & IN_DELETE)
			return -1; /* removed before any move */
		if (!(ev[j]->mask & IN_MOVED_FROM))
			continue;
		for (size_t k = j + 1; k < nev; k++)
			if ((ev[k]->mask & IN_MOVED_TO) &&
			    ev[k]->cookie == ev[j]->cookie)
				return (ssize_t)k;
		return -1;
	}
	return -1;
}

/* Whether the name at (wd, name) was removed after event i, before it
 * moved. */
static bool removed_later(struct inotify_event **ev, size_t nev, size_t i,
			  int wd, const char *name)
{
	for (size_t j = i + 1; j < nev; j++) {
		if (ev[j]->wd != wd || !ev[j]->len ||
		    strcmp(ev[j]->name, name) != 0)
			continue;
		if (ev[j]->mask & IN_DELETE)
			return true;
		if (ev[j]->mask & IN_MOVED_FROM)
			return false;
	}
	return false;
}

/* A guarded name made (event i), recorded where it is now: when it was
 * renamed again before this batch is read (made, then moved at once),
 * the renames in the batch are followed to where it went, in a watched
 * folder (any name). */
static void made(struct guard *n, struct inotify_event **ev, size_t nev,
		 size_t i, const struct guard_rule *g)
{
	int wd = ev[i]->wd;
	const char *name = ev[i]->name;
	struct stat st;
	for (int hops = 0; hops < 64; hops++) {
		const struct late_watch *w = watch_of(n, wd);
		if (!w)
			return; /* moved out of every watched folder */
		/* renamed later in the batch: followed first, whatever has
		 * the name now (`git init; mv .git .git-bak; git init`: the
		 * first repository is the one at .git-bak) */
		ssize_t k = moved_to(ev, nev, i, wd, name);
		if (k < 0) {
			if (!removed_later(ev, nev, i, wd, name) &&
			    fstatat(w->fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
				record(n, w, g, name);
			return;
		}
		i = (size_t)k;
		wd = ev[k]->wd;
		name = ev[k]->name;
	}
}

/* The events queued so far, read whole, then taken in order. Under
 * late_mu. */
static void drain(struct guard *n)
{
	struct buf b = {0};
	char chunk[8192]
	    __attribute__((aligned(__alignof__(struct inotify_event))));

	for (;;) {
		ssize_t len = read(n->late_fd, chunk, sizeof(chunk));
		if (len <= 0)
			break; /* EAGAIN: none left */
		buf_append(&b, chunk, (size_t)len);
	}
	if (!b.len)
		return;
	/* the batch's events, aligned (b.p is malloc's) */
	size_t nev = 0, cap = 0;
	struct inotify_event **ev = NULL;
	for (size_t at = 0; at + sizeof(struct inotify_event) <= b.len;) {
		struct inotify_event *e = (struct inotify_event *)(b.p + at);
		if (nev == cap) {
			cap = cap ? 2 * cap : 64;
			ev = xrealloc(ev, cap * sizeof(*ev));
		}
		ev[nev++] = e;
		at += sizeof(*e) + e->len;
	}
	for (size_t i = 0; i < nev; i++) {
		struct inotify_event *e = ev[i];
		if (e->mask & IN_Q_OVERFLOW) {
			rescan(n);
			continue;
		}
		if (!e->len)
			continue;
		/* gone (its inode may be another file's next) */
		if (e->mask & IN_DELETE) {
			forget(n, e->wd, e->name);
			continue;
		}
		/* moved away: it keeps its inode and stays kept, so that
		 * what the program writes in it while away (.git-bak/config)
		 * does not come back with it; its name is no longer here */
		if (e->mask & IN_MOVED_FROM) {
			unname(n, e->wd, e->name);
			continue;
		}
		if (!(e->mask & (IN_CREATE | IN_MOVED_TO)))
			continue;
		const struct guard_rule *g = rule_of(n, e->wd, e->name);
		if (g)
			made(n, ev, nev, i, g);
	}
	free(ev);
	buf_free(&b);
}

int guard_late_start(struct guard *n, struct lnk_err *err)
{
	(void)err;
	pthread_mutex_init(&n->late_mu, NULL);
	n->late_fd = -1;
	n->late_wanted = false;
	clock_gettime(CLOCK_REALTIME_COARSE, &n->late_t0);
	for (size_t i = 0; i < n->plan.n && !n->late_wanted; i++)
		n->late_wanted = !n->plan.guards[i].always;
	return 0;
}

static int watch_all(struct guard *n, struct lnk_err *err);

/* The watches, made at the first call that may create, write, rename,
 * remove or change an attribute, not at the start: an inotify instance
 * costs its last close a grace period of the kernel's (about 12 ms under
 * a sandbox's end, measured), which a run whose program changes nothing
 * (`-- true`, a reader) then never pays. Made, they are rescanned: every
 * guarded name there born or renamed into place since the guard started
 * (made_since_start) was made or replaced meanwhile, and is recorded.
 * Under late_mu; -EPERM when they cannot be made (every change is then
 * refused: fail closed). */
static int late_begin(struct guard *n)
{
	if (n->late_started)
		return n->late_fd >= 0 ? 0 : -EPERM;
	n->late_started = true;
	struct lnk_err e = {0};
	int r = watch_all(n, &e);
	if (r < 0) {
		if (n->late_fd >= 0)
			close(n->late_fd);
		n->late_fd = -1;
		_cleanup_free_ char *msg = xasprintf(
		    "lnk: refused every change from now on: %s\n", e.msg);
		guard_say_refusal(n, msg);
		return -EPERM;
	}
	rescan(n);
	return 0;
}

static int watch_all(struct guard *n, struct lnk_err *err)
{
	/* Without the watch a name made outside would be open to the
	 * program: no run (fail closed), and what to raise. */
	n->late_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (n->late_fd < 0)
		return err_set(err, -errno,
			       "cannot watch the folders whose names are "
			       "protected: %s (too many inotify instances? "
			       "raise fs.inotify.max_user_instances)",
			       strerror(errno));
	for (size_t i = 0; i < n->plan.n; i++) {
		const struct guard_rule *g = &n->plan.guards[i];
		bool seen = g->always;
		for (size_t j = 0; j < n->nlate_watches && !seen; j++)
			seen = n->late_watches[j].dev == g->dev &&
			       n->late_watches[j].ino == g->ino;
		if (seen)
			continue;
		/* the folder the rule names, if it is still what was
		 * planned; watched through its descriptor, so the watch is
		 * on that folder whatever its path names meanwhile */
		int fd = open(g->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0 && errno != ENOENT && errno != ENOTDIR &&
		    errno != EACCES)
			return err_set(err, -errno,
				       "cannot watch '%s', whose names are "
				       "protected: %s",
				       g->dir, strerror(errno));
		struct stat st;
		if (fd < 0 || fstat(fd, &st) < 0 || st.st_dev != g->dev ||
		    st.st_ino != g->ino) {
			if (fd >= 0)
				close(fd);
			continue; /* gone or another folder now: the plan's
				   * mounts and rules hold what was there */
		}
		char p[64];
		snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
		int wd = inotify_add_watch(n->late_fd, p,
					   IN_CREATE | IN_MOVED_TO | IN_DELETE |
					       IN_MOVED_FROM | IN_ONLYDIR);
		if (wd < 0) {
			int e = errno;
			close(fd);
			if (e == ENOSPC || e == ENOMEM)
				return err_set(err, -e,
					       "cannot watch '%s', whose names "
					       "are protected: %s (raise "
					       "fs.inotify.max_user_watches)",
					       g->dir, strerror(e));
			continue; /* gone, or not ours to read */
		}
		n->late_watches =
		    xrealloc(n->late_watches,
			     (n->nlate_watches + 1) * sizeof(*n->late_watches));
		n->late_watches[n->nlate_watches++] = (struct late_watch){
		    .wd = wd, .fd = fd, .dev = g->dev, .ino = g->ino};
	}
	return 0;
}

void guard_late_stop(struct guard *n)
{
	for (size_t i = 0; i < n->nlate_watches; i++)
		close(n->late_watches[i].fd);
	free(n->late_watches);
	for (size_t i = 0; i < n->nlate; i++) {
		free(n->late[i].name);
		free(n->late[i].path);
		free(n->late[i].kept_name);
	}
	free(n->late);
	if (n->late_fd >= 0)
		close(n->late_fd);
	pthread_mutex_destroy(&n->late_mu);
}

static const struct late_entry *late_is(const struct guard *n,
					const struct stat *st)
{
	for (size_t i = 0; i < n->nlate; i++)
		if (!n->late[i].kept_name && n->late[i].dev == st->st_dev &&
		    n->late[i].ino == st->st_ino)
			return &n->late[i];
	return NULL;
}

/* The kept name last in the folder dir (st), or NULL. */
static const struct late_entry *
late_name(const struct guard *n, const struct stat *dir, const char *last)
{
	for (size_t i = 0; i < n->nlate; i++)
		if (n->late[i].kept_name && n->late[i].dev == dir->st_dev &&
		    n->late[i].ino == dir->st_ino &&
		    strcmp(n->late[i].kept_name, last) == 0)
			return &n->late[i];
	return NULL;
}

/* Says once per entry that a change in it was refused, and logs it. */
static void name_late(struct guard *n, const struct late_entry *k)
{
	_cleanup_free_ char *key = xasprintf("late\t%s", k->path);
	if (!guard_count_refusal(n, key))
		return;
	const struct guard_rule *g = k->rule;
	const char *why = g->why ? g->why : "it would run outside the sandbox";
	/* The flag's value is pasted into a shell: one word. */
	_cleanup_free_ char *word = esc_word_dup(k->top);
	_cleanup_free_ char *reason =
	    xasprintf("made or replaced outside while the sandbox ran, and "
		      "kept read only as at the start (%s); --write-dot-files "
		      "%s allows it",
		      why, word);
	const char *entry = k->path + strlen(k->top);
	while (*entry == '/')
		entry++;
	if (!n->plan.quiet) {
		_cleanup_free_ char *shown = esc_dup(k->path);
		_cleanup_free_ char *msg = xasprintf(
		    "lnk: refused a change in %s: %s\n", shown, reason);
		guard_say_refusal(n, msg);
	}
	if (n->plan.on_refusal) {
		struct guard_rule r = *g;
		r.dir = (char *)k->top;
		r.why = reason;
		n->plan.on_refusal(n->plan.on_refusal_ctx, &r, entry);
	}
}

static const void *late_at(const void *ctx, const struct stat *st)
{
	return late_is(ctx, st);
}

/* The late entry last in dir, or dir, or a folder above is; NULL with
 * *r 0 when none, -EPERM when it cannot be told. Under late_mu. */
static const struct late_entry *late_find(const struct guard *n, int dir,
					  const char *last, int *r_out)
{
	const struct late_entry *k = NULL;
	struct stat st;
	int r = 0;
	if (last && !guard_is_dots(last) &&
	    fstatat(dir, last, &st, AT_SYMLINK_NOFOLLOW) == 0)
		k = late_is(n, &st);
	if (!k && last && fstat(dir, &st) == 0)
		k = late_name(
		    n, &st,
		    last); /* dir, and each folder above it, by what it is; a folder that
	 * cannot be read, or a climb past LATE_DEPTH: cannot tell, fail
	 * closed */
	if (!k)
		k = guard_climb(dir, LATE_DEPTH, late_at, n, &r);
	*r_out = k ? 0 : r;
	return k;
}

int guard_late_check(struct guard *n, int dir, const char *last)
{
	int r = 0;

	if (!n->late_wanted)
		return 0;
	pthread_mutex_lock(&n->late_mu);
	if ((r = late_begin(n)) < 0) {
		pthread_mutex_unlock(&n->late_mu);
		return r;
	}
	drain(n);
	const struct late_entry *k =
	    n->nlate ? late_find(n, dir, last, &r) : NULL;
	if (k) {
		name_late(n, k);
		r = -EROFS;
	}
	pthread_mutex_unlock(&n->late_mu);
	return r;
}

bool guard_late_holds(struct guard *n, int dir, const char *last)
{
	int r = 0;

	if (!n->late_wanted)
		return false;
	pthread_mutex_lock(&n->late_mu);
	bool held = n->nlate && late_find(n, dir, last, &r);
	pthread_mutex_unlock(&n->late_mu);
	return held;
}

int guard_late_object(struct guard *n, struct task *t, int obj)
{
	struct stat st;
	int r = 0;

	if (!n->late_wanted)
		return 0;
	if (fstat(obj, &st) < 0)
		return -EPERM;
	pthread_mutex_lock(&n->late_mu);
	if ((r = late_begin(n)) < 0) {
		pthread_mutex_unlock(&n->late_mu);
		return r;
	}
	drain(n);
	const struct late_entry *k = NULL;
	if (!n->nlate)
		goto out;
	if ((k = late_is(n, &st)))
		goto out;
	if (S_ISDIR(st.st_mode)) {
		k = late_find(n, obj, NULL, &r);
		goto out;
	} /* A descriptor of a file outside the sandbox's mounts (its output
	 * redirected to a log: `> /dev/stdout` reopens it) holds no entry
	 * made in a write folder during the run: its own access decides. */
	int on = guard_on_sandbox_mounts(t, obj);
	if (on <= 0) {
		r = on;
		goto out;
	}
	/* A file: its folder, found by the name the kernel gives it in the
	 * sandbox's tree (/proc/thread-self/fd), resolved again inside the
	 * task's root and proved to hold this very file (device and inode):
	 * a name that no longer leads to it cannot be told, and is refused
	 * (fail closed). A file with no name left runs nowhere later. */
	char p[64], path[PATH_MAX];
	snprintf(p, sizeof(p), "/proc/thread-self/fd/%d", obj);
	ssize_t len = readlink(p, path, sizeof(path) - 1);
	if (len <= 0 || path[0] != '/') {
		r = st.st_nlink == 0 || len > 0 ? 0 : -EPERM;
		goto out;
	}
	path[len] = '\0';
	if (st.st_nlink == 0)
		goto out;
	struct where w;
	if (guard_locate(t, -1, path, &w) < 0) {
		r = -EPERM;
		goto out;
	}
	struct stat here;
	if (w.magic >= 0 || guard_is_dots(w.last) ||
	    fstatat(w.parent, w.last, &here, AT_SYMLINK_NOFOLLOW) < 0 ||
	    here.st_dev != st.st_dev || here.st_ino != st.st_ino)
		r = -EPERM;
	else
		k = late_find(n, w.parent, w.last, &r);
	guard_where_close(&w);
out:
	if (k) {
		name_late(n, k);
		r = -EROFS;
	}
	pthread_mutex_unlock(&n->late_mu);
	return r;
}

bool guard_late_any(struct guard *n)
{
	if (!n->late_wanted)
		return false;
	pthread_mutex_lock(&n->late_mu);
	bool any = late_begin(n) < 0; /* fail closed: as if one were */
	if (!any) {
		drain(n);
		any = n->nlate > 0;
	}
	pthread_mutex_unlock(&n->late_mu);
	return any;
}

int guard_late_write_refused(struct guard *n, int dir, const char *last,
			     const char *verb)
{
	struct stat st;

	if (fstatat(dir, last, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -EPERM;
	pthread_mutex_lock(&n->late_mu);
	const struct late_entry *k = late_is(n, &st);
	if (k)
		name_late(n, k);
	pthread_mutex_unlock(&n->late_mu);
	if (!k)
		guard_name_kept(n, dir, last, verb);
	return -EROFS;
}
