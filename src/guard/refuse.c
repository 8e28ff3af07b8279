/* Refusals: the guard's decision for one name in one folder, and what
 * stderr and the call log say of it. */
#include "guard/supervisor.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>
#include "common/esc.h"

/* Lines of refused names on stderr in a run, then one that says the rest
 * are in the log: the program chooses how many it causes (every dot name
 * of a home a write folder holds is refused), and a flood of them would
 * scroll a question lnk asks off the screen. */
#define REFUSAL_LINES_MAX 10
/* Bytes of a refused name shown: its text is the program's, and a long
 * one would wrap to start a row of the terminal with words of its
 * choosing, lined up to read as lnk's. */
#define REFUSAL_NAME_SHOWN 40
/* Folder and name pairs remembered, each reported once: past it the
 * rest are counted only. */
#define REFUSED_PAIRS_MAX 4096

/* What stderr says of a refused name: which rule, and how to lift it.
 * The program chose the name, and a repository's files the deeper
 * folders: both escaped (common/esc.h), the name cut. */
static char *refusal_text(const struct guard_rule *g, const char *rawname)
{
	size_t len = strlen(rawname);
	_cleanup_free_ char *cut =
	    len > REFUSAL_NAME_SHOWN
		? xasprintf("%.*s...(%zu bytes)", REFUSAL_NAME_SHOWN, rawname,
			    len)
		: NULL;
	_cleanup_free_ char *name = esc_dup(cut ? cut : rawname);
	_cleanup_free_ char *dir = esc_dup(g->dir);

	if (g->always)
		return xasprintf("lnk: refused to create %s in %s: %s\n", name,
				 dir, g->why);
	if (g->why)
		return xasprintf("lnk: refused to create %s in %s: %s; "
				 "--write-dot-files on its write folder "
				 "allows it\n",
				 name, dir, g->why);
	/* The flag's value is pasted into a shell: one word. */
	_cleanup_free_ char *word = esc_word_dup(g->dir);
	return xasprintf("lnk: refused to create %s at the top of %s: it "
			 "would run outside the sandbox; --write-dot-files %s "
			 "allows it\n",
			 name, dir, word);
}

/* Counts one refused call; true the first time pair ("dir\tname") is
 * refused, when it is reported. */
bool guard_count_refusal(struct guard *n, const char *pair)
{
	bool first;

	pthread_mutex_lock(&n->mu);
	n->refused++;
	first = n->refused_pairs.n < REFUSED_PAIRS_MAX &&
		!strv_contains(&n->refused_pairs, pair);
	if (first)
		strv_push(&n->refused_pairs, pair);
	pthread_mutex_unlock(&n->mu);
	return first;
}

/* Says msg on stderr while fewer than REFUSAL_LINES_MAX were said, then
 * once that the rest are in the log. */
void guard_say_refusal(struct guard *n, const char *msg)
{
	pthread_mutex_lock(&n->mu);
	unsigned said = n->refusal_lines < REFUSAL_LINES_MAX + 1
			    ? ++n->refusal_lines
			    : n->refusal_lines;
	pthread_mutex_unlock(&n->mu);
	if (said <= REFUSAL_LINES_MAX)
		term_write(STDERR_FILENO, msg);
	else if (said == REFUSAL_LINES_MAX + 1)
		term_write(STDERR_FILENO,
			   "lnk: more writes refused; 'lnk sandbox log "
			   "--refused' names them\n");
}

/* Reported once per folder and name, on stderr and to on_refusal. Names
 * match without regard to case (guard_decide), and so are counted: else
 * .envrc, .Envrc, .ENVRC, ... (2^19 spellings of .pre-commit-config.yaml)
 * would each be a new line on the user's terminal and in the call log,
 * and a longer list to search under the lock. */
static void refuse(struct guard *n, const struct guard_rule *g,
		   const char *name)
{
	bool first;
	_cleanup_free_ char *pair = xasprintf("%s\t%s", g->dir, name);

	for (char *c = strchr(pair, '\t') + 1; *c; c++)
		if (*c >= 'A' && *c <= 'Z')
			*c = (char)(*c - 'A' + 'a');
	first = guard_count_refusal(n, pair);
	if (first && !n->plan.quiet) {
		_cleanup_free_ char *msg = refusal_text(g, name);
		guard_say_refusal(n, msg);
	}
	if (first && n->plan.on_refusal)
		n->plan.on_refusal(n->plan.on_refusal_ctx, g, name);
}

/* A change of mode, owner or ACL of a guarded folder, reported once per
 * folder. */
void guard_refuse_attr(struct guard *n, const struct guard_rule *g)
{
	bool first;
	_cleanup_free_ char *pair = xasprintf("%s\t(metadata)", g->dir);

	first = guard_count_refusal(n, pair);
	if (first && !n->plan.quiet) {
		_cleanup_free_ char *dir = esc_dup(g->dir);
		_cleanup_free_ char *msg = xasprintf(
		    "lnk: refused to change the mode, owner or ACL of %s: "
		    "other accounts could then plant what runs outside the "
		    "sandbox\n",
		    dir);
		guard_say_refusal(n, msg);
	}
}

/* 0 when creating `last` in parent is allowed. For a guarded name:
 * -EEXIST (unreported) when it exists already, since then nothing can be
 * created and the native call fails the same way (open without O_EXCL
 * retries without O_CREAT); else -EPERM, reported. -EPERM when the parent
 * cannot be checked (fail closed). */
int guard_check(struct guard *n, int parent, const char *last)
{
	struct stat st;
	struct statfs sf;
	int r;

	/* in a guarded entry made or replaced outside during the run, or
	 * that entry (late.c) */
	if ((r = guard_late_check(n, parent, last)) < 0)
		return r;
	if (fstat(parent, &st) < 0 || fstatfs(parent, &sf) < 0)
		return -EPERM;
	/* Never create on /proc, /sys or another pseudo file system: what
	 * it makes (or opens) is a kernel object, not a file. */
	if (!guard_fs_ok((unsigned long)sf.f_type, false))
		return -EACCES;
	const struct guard_rule *g =
	    guard_decide(n->plan.guards, n->plan.n, st.st_dev, st.st_ino, last);
	if (!g)
		return 0;
	if (fstatat(parent, last, &st, AT_SYMLINK_NOFOLLOW) == 0)
		return -EEXIST;
	refuse(n, g, last);
	return -EPERM;
}

bool guard_refuses(struct guard *n, int parent, const char *last)
{
	struct stat st;

	if (fstat(parent, &st) < 0)
		return true;
	return guard_decide(n->plan.guards, n->plan.n, st.st_dev, st.st_ino,
			    last) != NULL;
}

/* 1 when name in dir is the root of a mount (seen from dir, that is in
 * the task's mount tree), 0 when not or missing, -EPERM when it cannot be
 * told (fail closed). */
int guard_mount_point_at(int dir, const char *name)
{
	struct statx a, b;

	if (statx(dir, "", AT_EMPTY_PATH, STATX_MNT_ID, &a) < 0 ||
	    !(a.stx_mask & STATX_MNT_ID))
		return -EPERM;
	if (statx(dir, name, AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &b) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!(b.stx_mask & STATX_MNT_ID))
		return -EPERM;
	if (b.stx_mnt_id != a.stx_mnt_id)
		return 1;
	return (b.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
		       (b.stx_attributes & STATX_ATTR_MOUNT_ROOT)
		   ? 1
		   : 0;
}

bool guard_is_dots(const char *s)
{
	return strcmp(s, ".") == 0 || strcmp(s, "..") == 0;
}

/* Files named by guard_refuse_object, at most: each is a new key to keep
 * and a line on the terminal, and a program can be refused for as many
 * files as it can make. */
#define OBJECTS_NAMED_MAX 64

void guard_refuse_object(struct guard *n, int obj, const char *what,
			 const char *why)
{
	char p[64], path[PATH_MAX];

	pthread_mutex_lock(&n->mu);
	bool full = n->objects_named >= OBJECTS_NAMED_MAX;
	if (full)
		n->refused++;
	pthread_mutex_unlock(&n->mu);
	if (full)
		return;

	snprintf(p, sizeof(p), "/proc/thread-self/fd/%d", obj);
	ssize_t len = readlink(p, path, sizeof(path) - 1);
	path[len > 0 ? len : 0] = '\0';
	_cleanup_free_ char *key = xasprintf("%s\t%s", path, why);
	if (!guard_count_refusal(n, key))
		return;
	pthread_mutex_lock(&n->mu);
	unsigned long named = ++n->objects_named;
	pthread_mutex_unlock(&n->mu);
	if (n->plan.quiet)
		return;
	_cleanup_free_ char *shown = esc_dup(len > 0 ? path : "a file");
	_cleanup_free_ char *msg = xasprintf(
	    "lnk: refused to change the %s of %s: %s\n", what, shown, why);
	term_write(STDERR_FILENO, msg);
	if (named == OBJECTS_NAMED_MAX)
		term_write(STDERR_FILENO, "lnk: changes of more files refused "
					  "are not named one by one\n");
}
