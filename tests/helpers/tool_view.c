/* Runs a program the way lnk's tools broker runs a tool: the folder
 * checked (tools/folder.h) against the write folders, then, in a forked
 * child in a session of its own, in the tool's view of the system
 * (tools/view.h) with the hidden paths closed.
 *
 *   tool_view [--write DIR]... [--write-dot-files DIR]... [--hide PATH]...
 *             [--plain] -- PROG [ARG]...
 *
 * --plain skips the view (the cost of the view is the difference). The
 * folder is the current one. Exits with the program's status (128+N
 * for signal N), 126 when the folder is refused (the reason on stderr),
 * 125 when the view cannot be made (the reason on stderr). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/compat.h"
#include "common/util.h"
#include "tools/folder.h"
#include "tools/view.h"

int main(int argc, char **argv)
{
	struct strv writes = {0}, dots = {0}, hidden = {0};
	struct tools_tops tops;
	struct lnk_err err = {0};
	char why[8192];
	int i = 1;
	bool plain = false;

	for (; i + 1 < argc && strcmp(argv[i], "--"); i += 2) {
		if (!strcmp(argv[i], "--plain")) {
			plain = true;
			i--;
		} else if (!strcmp(argv[i], "--write"))
			strv_push(&writes, argv[i + 1]);
		else if (!strcmp(argv[i], "--write-dot-files"))
			strv_push(&dots, argv[i + 1]);
		else if (!strcmp(argv[i], "--hide"))
			strv_push(&hidden, argv[i + 1]);
		else
			break;
	}
	if (i >= argc || strcmp(argv[i], "--") || i + 1 >= argc) {
		fprintf(stderr, "usage: tool_view [--write DIR]... "
				"[--write-dot-files DIR]... [--hide PATH]... "
				"-- PROG [ARG]...\n");
		return 2;
	}
	char **prog = argv + i + 1;
	if (tools_tops_make(&writes, &dots, &tops, &err) < 0) {
		fprintf(stderr, "lnk: %s\n", err.msg);
		return 2;
	}
	int dirfd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0 ||
	    tools_folder_check(dirfd, &tops, prog[0], why, sizeof(why))) {
		fprintf(stderr, "lnk: %s\n", dirfd < 0 ? strerror(errno) : why);
		return 126;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return 125;
	if (pid == 0) {
		setsid();
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (fchdir(dirfd) < 0)
			_exit(125);
		close_from(3);
		if (!plain && tools_view_enter(&hidden, &err) < 0) {
			dprintf(2, "lnk: %s\n", err.msg);
			_exit(125);
		}
		execvp(prog[0], prog);
		_exit(127);
	}
	int ws;
	while (waitpid(pid, &ws, 0) < 0)
		if (errno != EINTR)
			return 125;
	tools_tops_free(&tops);
	strv_free(&writes);
	strv_free(&dots);
	strv_free(&hidden);
	return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
}
