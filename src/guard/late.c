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
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

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

/* name (made in the folder of w) recorded by what it is now. */
static void record(struct guard *n, const struct late_watch *w,
		   const struct guard_rule *g, const char *name)
{
	struct stat st;

	if (fstatat(w->fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	for (size_t i = 0; i < n->nlate; i++)
		if (n->late[i].dev == st.st_dev && n->late[i].ino == st.st_ino)
			return;
	n->late = xrealloc(n->late, (n->nlate + 1) * sizeof(*n->late));
	n->late[n->nlate++] = (struct late_entry){
	    .dev = st.st_dev,
	    .ino = st.st_ino,
	    .rule = g,
	    .wd = w->wd,
	    .name = xstrdup(name),
	    .path = xasprintf("%s/%s", g->dir, name),
	    .top = top_of(n, g->dir),
	};
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
		*e = n->late[--n->nlate];
	}
}

/* Every guarded name in each watched folder, recorded: the queue
 * overflowed, so what was made is known no longer by its events. */
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
			    (g = rule_of(n, w->wd, e->d_name)))
				record(n, w, g, e->d_name);
		}
		closedir(d);
	}
}

/* The events queued so far, read. Under late_mu. */
static void drain(struct guard *n)
{
	union {
		char b[8192];
		struct inotify_event align;
	} u;

	for (;;) {
		ssize_t len = read(n->late_fd, u.b, sizeof(u.b));
		if (len <= 0)
			return; /* EAGAIN: none left */
		for (char *p = u.b; p < u.b + len;) {
			struct inotify_event *ev = (struct inotify_event *)p;
			p += sizeof(*ev) + ev->len;
			if (ev->mask & IN_Q_OVERFLOW) {
				rescan(n);
				continue;
			}
			if (!ev->len)
				continue;
			if (ev->mask & (IN_DELETE | IN_MOVED_FROM)) {
				forget(n, ev->wd, ev->name);
				continue;
			}
			if (!(ev->mask & (IN_CREATE | IN_MOVED_TO)))
				continue;
			const struct late_watch *w = watch_of(n, ev->wd);
			const struct guard_rule *g =
			    w ? rule_of(n, ev->wd, ev->name) : NULL;
			if (g)
				record(n, w, g, ev->name);
		}
	}
}

int guard_late_start(struct guard *n, struct lnk_err *err)
{
	pthread_mutex_init(&n->late_mu, NULL);
	n->late_fd = -1;
	bool any = false;
	for (size_t i = 0; i < n->plan.n && !any; i++)
		any = !n->plan.guards[i].always;
	if (!any)
		return 0;
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
		struct stat st;
		if (fd < 0 || fstat(fd, &st) < 0 || st.st_dev != g->dev ||
		    st.st_ino != g->ino) {
			if (fd >= 0)
				close(fd);
			continue;
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
		if (n->late[i].dev == st->st_dev &&
		    n->late[i].ino == st->st_ino)
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
	/* dir, and each folder above it, by what it is (".." on
	 * descriptors, in the task's mount tree) */
	int cur = -1, depth = 0;
	for (; !k && depth < LATE_DEPTH; depth++) {
		int at = cur >= 0 ? cur : dir;
		struct stat up_st;
		if (fstat(at, &st) < 0) {
			r = -EPERM;
			break;
		}
		if ((k = late_is(n, &st)))
			break;
		int up = openat(at, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (up < 0) {
			r = -EPERM;
			break;
		}
		if (fstat(up, &up_st) < 0 ||
		    (up_st.st_dev == st.st_dev && up_st.st_ino == st.st_ino)) {
			close(up); /* the top of the tree */
			break;
		}
		if (cur >= 0)
			close(cur);
		cur = up;
	}
	if (cur >= 0)
		close(cur);
	if (!k && depth >= LATE_DEPTH)
		r = -EPERM; /* cannot tell: fail closed */
	*r_out = k ? 0 : r;
	return k;
}

int guard_late_check(struct guard *n, int dir, const char *last)
{
	int r = 0;

	if (n->late_fd < 0)
		return 0;
	pthread_mutex_lock(&n->late_mu);
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

	if (n->late_fd < 0)
		return false;
	pthread_mutex_lock(&n->late_mu);
	bool held = n->nlate && late_find(n, dir, last, &r);
	pthread_mutex_unlock(&n->late_mu);
	return held;
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
