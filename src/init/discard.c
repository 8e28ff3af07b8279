/* Counting the files left in the thrown-away home (discard.h).
 *
 * Runs in lnk-init after the program exited and every other process of
 * the sandbox was killed, so the tree no longer changes. It is still the
 * program's tree: names are never printed (only a number), links are
 * never followed (fstatat with AT_SYMLINK_NOFOLLOW, folders opened with
 * O_NOFOLLOW), mounts are not crossed (st_dev), and both the depth and
 * the number of entries are bounded so a tree made to be slow to walk
 * delays the exit by milliseconds at most.
 */
#include "init/discard.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DISCARD_DEPTH 32
#define DISCARD_LIMIT 100000

struct walk {
	dev_t dev;
	size_t files;
	size_t seen;
	size_t limit;
	int more;
};

static void walk_dir(struct walk *w, int dfd, int depth)
{
	DIR *d = fdopendir(dfd);
	struct dirent *e;

	if (!d) {
		close(dfd);
		return;
	}
	while ((e = readdir(d))) {
		struct stat st;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		/* A dot name at the top is a tool's own (npm's cache and
		 * logs, git's and a shell's history, ~/.config): written for
		 * itself, never asked for by the person, so never worth a
		 * line after every run. */
		if (depth == 0 && e->d_name[0] == '.')
			continue;
		if (++w->seen > w->limit) {
			w->more = 1;
			break;
		}
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (st.st_dev != w->dev)
			continue; /* a grant mounted below the home */
		if (!S_ISDIR(st.st_mode)) {
			w->files++;
			continue;
		}
		if (depth >= DISCARD_DEPTH) {
			w->more = 1;
			continue;
		}
		int sub =
		    openat(dirfd(d), e->d_name,
			   O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0)
			walk_dir(w, sub, depth + 1);
	}
	closedir(d);
}

size_t discard_count(const char *home, size_t limit, int *more)
{
	struct walk w = {.limit = limit};
	struct stat st;
	int fd = open(home, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	*more = 0;
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return 0;
	}
	w.dev = st.st_dev;
	walk_dir(&w, fd, 0);
	*more = w.more;
	return w.files;
}

void discard_report(const char *home)
{
	int more;
	size_t n;

	if (!isatty(STDERR_FILENO))
		return;
	n = discard_count(home, DISCARD_LIMIT, &more);
	if (n == 0)
		return;
	fprintf(stderr,
		"lnk: %s%zu file%s the program wrote in the home folder "
		"%s thrown away with the sandbox (the home inside is empty "
		"and temporary; grant a folder with --write to keep files)\r\n",
		more ? "more than " : "", n, n == 1 && !more ? "" : "s",
		n == 1 && !more ? "was" : "were");
}
