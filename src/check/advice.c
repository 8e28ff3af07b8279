/* Warnings about grants that check's tries cannot call leaks: the sandbox
 * keeps its promises, but what it is allowed to do is risky.
 *
 * - The home folder readable and any internet host reachable: keys,
 *   tokens and browser profiles in the home folder can be sent anywhere.
 * - A write folder holding other repositories: only the top's own dot
 *   files are protected, so a nested repository's .git (its hooks and
 *   config, which git runs as the user on the host) is writable inside.
 *
 * Folder names come from the file system and are printed: they are
 * hostile, so control characters are replaced before they go out.
 */
#include "check/advice.h"

#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Nested repositories are looked for this deep below a write folder, and
 * only this many folders are opened: the warning is advice, and a huge
 * tree must not make check slow. */
#define REPO_DEPTH 3
#define REPO_DIRS_MAX 4000
#define REPO_NAMES_SHOWN 3

static bool grants_home(const struct policy *p, const char *home)
{
	const enum key_id ids[] = {K_FILES_READ, K_FILES_WRITE};

	for (size_t k = 0; k < ARRAY_SIZE(ids); k++) {
		const struct strv *g = policy_list(p, ids[k]);
		for (size_t i = 0; i < g->n; i++)
			if (path_within(home, g->v[i]))
				return true;
	}
	return false;
}

static void printable(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

struct walk {
	struct strv found; /* relative paths of nested repositories */
	size_t opened;
};

/* Folders below dfd whose name is .git (a folder or a gitdir file),
 * depth-first, never following a symlink. rel is dfd's path relative to
 * the write folder ("" at its top, whose own .git is protected). */
static void walk(int dfd, const char *rel, int depth, struct walk *w)
{
	DIR *d = fdopendir(dfd);
	struct dirent *e;

	if (!d) {
		close(dfd);
		return;
	}
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (strcmp(e->d_name, ".git") == 0) {
			if (*rel)
				strv_push(&w->found, rel);
			continue;
		}
		if (depth >= REPO_DEPTH || w->opened >= REPO_DIRS_MAX)
			continue;
		if (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN)
			continue;
		int sub = openat(dirfd(d), e->d_name,
				 O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
				     O_CLOEXEC | O_NONBLOCK);
		if (sub < 0)
			continue;
		w->opened++;
		_cleanup_free_ char *srel =
		    *rel ? xasprintf("%s/%s", rel, e->d_name)
			 : xstrdup(e->d_name);
		walk(sub, srel, depth + 1, w);
	}
	closedir(d);
}

static void nested_repos(const char *dir, struct strv *out)
{
	struct walk w = {0};
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return;
	w.opened = 1;
	walk(fd, "", 0, &w);
	if (!w.found.n)
		return;
	char names[1024] = "";
	size_t at = 0;
	for (size_t i = 0; i < w.found.n && i < REPO_NAMES_SHOWN; i++) {
		int n = snprintf(names + at, sizeof(names) - at, "%s%s",
				 i ? ", " : "", w.found.v[i]);
		if (n < 0 || (size_t)n >= sizeof(names) - at)
			break;
		at += (size_t)n;
	}
	_cleanup_free_ char *d = xstrdup(dir);
	printable(d);
	printable(names);
	if (w.found.n > REPO_NAMES_SHOWN)
		strv_pushf(out,
			   "warning: --write '%s' holds other repositories "
			   "(%s and %zu more): their .git is writable inside, "
			   "and git runs its hooks as you; grant each "
			   "repository's own folder instead",
			   d, names, w.found.n - REPO_NAMES_SHOWN);
	else
		strv_pushf(out,
			   "warning: --write '%s' holds other repositories "
			   "(%s): their .git is writable inside, and git runs "
			   "its hooks as you; grant each repository's own "
			   "folder instead",
			   d, names);
	strv_free(&w.found);
}

void check_advice(const struct policy *p, const char *home, struct strv *out)
{
	if (strv_contains(policy_list(p, K_INTERNET_HOSTS), "*") &&
	    grants_home(p, home))
		strv_push(out, "warning: the home folder is readable and any "
			       "internet host is reachable, so secrets in it "
			       "(keys, tokens, browser profiles) can reach "
			       "any internet host; grant only the folders "
			       "the program needs, or only the hosts");
	const struct strv *wr = policy_list(p, K_FILES_WRITE);
	for (size_t i = 0; i < wr->n; i++)
		nested_repos(wr->v[i], out);
}
