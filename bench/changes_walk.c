/* bench/changes.sh's driver: one changes_walk of DIR for entries changed
 * at or after STAMP's ctime, as lnk does after a run (src/changes). Prints
 * the counts on stderr with -v. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "changes/changes.h"
#include "common/buf.h"

int main(int argc, char **argv)
{
	if (argc < 3) {
		fputs("usage: changes_walk DIR STAMP [-v]\n", stderr);
		return 2;
	}
	struct stat st;
	if (stat(argv[2], &st) < 0) {
		perror(argv[2]);
		return 1;
	}
	struct changes_bounds b;
	changes_bounds_default(&b);
	struct changes_where in = {0};
	struct changes_folder f;
	struct lnk_err err = {0};
	if (changes_walk(argv[1], st.st_ctim, &in, &b, &f, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	if (argc > 3 && strcmp(argv[3], "-v") == 0) {
		struct buf t = {0};
		changes_text(&t, &f, 1, CHANGES_SUMMARY, NULL, 0, NULL);
		fprintf(stderr, "seen %zu\n%s", f.seen, t.p ? t.p : "");
		buf_free(&t);
	}
	changes_folder_free(&f);
	return 0;
}
