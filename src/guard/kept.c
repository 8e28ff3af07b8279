/* Naming a change refused in an entry kept read only (guard_kept): the
 * kernel refuses it (EROFS in the read-only bind, EBUSY for removing or
 * renaming over the mount), and its words ("Read-only file system",
 * "Device or resource busy") say neither what lnk keeps nor how to allow
 * it. So the guard says it, in lnk's words, once per entry, and logs it
 * as it logs a refused creation. It decides nothing: the kernel's answer
 * stands. */
#include "guard/supervisor.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/esc.h"

/* Entries named at most: each is a line on the person's terminal and a
 * row in the log, and a home folder can hold hundreds of kept dot
 * names a program may try one by one. */
#define KEPT_NAMED_MAX 64
/* Folders climbed from what was changed to the entry that holds it: a
 * repository's deepest files lie a few levels below .git. */
#define KEPT_DEPTH 40

/* k's path below its write folder (".git", ".venv/bin"). */
static const char *entry_of(const struct guard_kept *k)
{
	const char *e = k->path + strlen(k->top);

	while (*e == '/')
		e++;
	return *e ? e : k->path;
}

static const struct guard_kept *kept_is(const struct guard *n,
					const struct stat *st)
{
	for (size_t i = 0; i < n->plan.nkept; i++)
		if (n->plan.kept[i].dev == st->st_dev &&
		    n->plan.kept[i].ino == st->st_ino)
			return &n->plan.kept[i];
	return NULL;
}

static const void *kept_at(const void *ctx, const struct stat *st)
{
	return kept_is(ctx, st);
}

const void *guard_climb(int dir, int max,
			const void *(*found)(const void *ctx,
					     const struct stat *st),
			const void *ctx, int *r)
{
	const void *k = NULL;
	struct stat st, up_st;
	int cur = -1, depth = 0;

	*r = 0;
	for (; depth < max; depth++) {
		int at = cur >= 0 ? cur : dir;
		if (fstat(at, &st) < 0) {
			*r = -EPERM;
			break;
		}
		if ((k = found(ctx, &st)))
			break;
		int up = openat(at, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (up < 0) {
			*r = -EPERM;
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
	if (!k && depth >= max)
		*r = -EPERM;
	return k;
}

/* The kept entry that is last in dir, or holds dir: by what each folder
 * is on the way up (".." on descriptors, in the task's mount tree), never
 * by a path's spelling. NULL when none does. */
static const struct guard_kept *kept_find(const struct guard *n, int dir,
					  const char *last)
{
	const struct guard_kept *k = NULL;
	struct stat st;

	if (last && !guard_is_dots(last) &&
	    fstatat(dir, last, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    (k = kept_is(n, &st)))
		return k;
	int r;
	return guard_climb(dir, KEPT_DEPTH, kept_at, n, &r);
}

/* What was changed, below k's write folder, for the message: the path of
 * dir (as the sandbox shows it: write folders keep their path inside)
 * and last, when it lies in k; else the entry itself. Display only. */
static char *changed_name(const struct guard_kept *k, int dir, const char *last)
{
	char p[64], path[PATH_MAX];
	const char *entry = entry_of(k);

	snprintf(p, sizeof(p), "/proc/thread-self/fd/%d", dir);
	ssize_t len = readlink(p, path, sizeof(path) - 1);
	if (len <= 0)
		return xstrdup(entry);
	path[len] = '\0';
	_cleanup_free_ char *whole = last && !guard_is_dots(last)
					 ? xasprintf("%s/%s", path, last)
					 : xstrdup(path);
	size_t kl = strlen(k->path);
	if (strncmp(whole, k->path, kl) != 0 ||
	    (whole[kl] != '/' && whole[kl] != '\0'))
		return xstrdup(entry);
	return xasprintf("%s%s", entry, whole + kl);
}

void guard_name_kept(struct guard *n, int dir, const char *last,
		     const char *verb)
{
	if (!n->plan.nkept || dir < 0)
		return;
	/* made or replaced outside during the run: named by late.c (a
	 * kept entry's inode may be the new one's) */
	if (guard_late_holds(n, dir, last))
		return;
	const struct guard_kept *k = kept_find(n, dir, last);
	if (!k)
		return;
	pthread_mutex_lock(&n->mu);
	bool full = n->kept_named >= KEPT_NAMED_MAX;
	if (full)
		n->refused++;
	pthread_mutex_unlock(&n->mu);
	if (full)
		return;
	_cleanup_free_ char *key = xasprintf("kept\t%s", k->path);
	if (!guard_count_refusal(n, key))
		return;
	pthread_mutex_lock(&n->mu);
	unsigned long named = ++n->kept_named;
	pthread_mutex_unlock(&n->mu);

	const char *entry = entry_of(k);
	const char *why = k->why ? k->why : "it would run outside the sandbox";
	/* The flag's value is pasted into a shell: one word. */
	_cleanup_free_ char *word = esc_word_dup(k->top);
	_cleanup_free_ char *reason = xasprintf(
	    "kept read only (%s); --write-dot-files %s allows it", why, word);
	if (!n->plan.quiet) {
		_cleanup_free_ char *what = changed_name(k, dir, last);
		_cleanup_free_ char *shown = esc_dup(what);
		_cleanup_free_ char *top = esc_dup(k->top);
		_cleanup_free_ char *ent = esc_dup(entry);
		bool itself = strcmp(what, entry) == 0;
		_cleanup_free_ char *msg =
		    xasprintf("lnk: refused to %s %s in %s: %s is %s\n", verb,
			      shown, top, itself ? "it" : ent, reason);
		term_write(STDERR_FILENO, msg);
		if (named == KEPT_NAMED_MAX)
			term_write(STDERR_FILENO,
				   "lnk: changes refused in more entries "
				   "kept read only are not named one by "
				   "one\n");
	}
	if (n->plan.on_refusal) {
		struct guard_rule g = {
		    .dev = k->dev,
		    .ino = k->ino,
		    .dir = k->top,
		    .why = reason,
		};
		n->plan.on_refusal(n->plan.on_refusal_ctx, &g, entry);
	}
}
