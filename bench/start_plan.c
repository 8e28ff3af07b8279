/* bench/start_plan: the bwrap options and descriptors `lnk sandbox run`
 * would give bubblewrap, written to a folder, so bench/start_time can run
 * bare bwrap with exactly lnk's mounts and options (bench/start.sh).
 *
 *   start_plan DIR [--write PATH]... [--internet-host PAT]... -- PROGRAM
 *
 * It plans as src/launch/sandbox.c does (host facts, the dot-file guard's
 * read-only mounts, plan_build) but starts nothing. DIR gets:
 *   args        the options, NUL-separated (bwrap --args 3)
 *   prog        PROGRAM, resolved as lnk resolves it, in place of lnk-init
 *   fd.N        what goes in descriptor N: the generated passwd and
 *               group, and a link to each /etc file bwrap copies
 * Not a test and not part of lnk: built by bench/start.sh only.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util.h"
#include "launch/host.h"
#include "launch/plan.h"
#include "guard/guard.h"
#include "policy/policy.h"
#include "store/paths.h"

extern char **environ;

static void put(const char *dir, const char *name, const char *data, size_t len)
{
	char *p = xasprintf("%s/%s", dir, name);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write_all(fd, data, len) < 0) {
		fprintf(stderr, "start_plan: cannot write %s\n", p);
		exit(1);
	}
	close(fd);
	free(p);
}

int main(int argc, char **argv)
{
	struct lnk_err err = {0};
	struct policy pol;
	int i = 2;

	if (argc < 4) {
		fprintf(stderr, "usage: start_plan DIR [--write P] "
				"[--internet-host H] -- PROGRAM\n");
		return 2;
	}
	const char *dir = argv[1];
	policy_init(&pol);
	for (; i < argc && strcmp(argv[i], "--") != 0; i += 2) {
		enum key_id id;
		if (i + 1 >= argc)
			return 2;
		if (strcmp(argv[i], "--write") == 0)
			id = K_FILES_WRITE;
		else if (strcmp(argv[i], "--internet-host") == 0)
			id = K_INTERNET_HOSTS;
		else
			return 2;
		if (policy_add_flag(&pol, id, argv[i + 1], &err) < 0)
			goto fail;
	}
	if (i + 1 >= argc)
		return 2;
	char *cwd = getcwd(NULL, 0);
	char *home = NULL;
	if (!cwd || paths_home(&home, &err) < 0 ||
	    policy_resolve(&pol, cwd, home, &err) < 0)
		goto fail;

	/* As sandbox_run: host facts, the wire, the guard, the plan. */
	struct host_facts host;
	if (host_gather(&host, NULL, NULL, &err) < 0)
		goto fail;
	bool wire = policy_list(&pol, K_INTERNET_HOSTS)->n ||
		    policy_list(&pol, K_LAN_HOSTS)->n ||
		    policy_list(&pol, K_LOCALHOST_PORTS)->n;
	struct guard_plan np = {0};
	int r = guard_plan(&pol, &np, &err);
	if (r < 0)
		goto fail;
	struct strv ro_over = {0};
	const struct strv *wr = policy_list(&pol, K_FILES_WRITE);
	const struct strv *wdf = policy_list(&pol, K_FILES_WRITE_DOT_FILES);
	for (size_t k = 0; k < wr->n; k++)
		if (!strv_contains(wdf, wr->v[k]))
			guard_mounts_in(wr->v[k], wr, &ro_over);
	char *prog[] = {argv[i + 1], NULL};
	struct plan_in pin = {
	    .pol = &pol,
	    .host = &host,
	    .home = home,
	    .cwd = cwd,
	    .host_env = environ,
	    .argv = prog,
	    .argc = 1,
	    .wire = wire,
	    .guard = r == 1,
	    .ro_over = &ro_over,
	};
	struct launch_plan pl;
	if (plan_build(&pin, &pl, &err) < 0)
		goto fail;

	const struct strv args = pl.bw.opts;
	put(dir, "prog", pl.init.argv.v[0], strlen(pl.init.argv.v[0]));
	size_t len = 0;
	for (size_t k = 0; k < args.n; k++)
		len += strlen(args.v[k]) + 1;
	char *buf = xmalloc(len + 1), *q = buf;
	for (size_t k = 0; k < args.n; k++) {
		size_t n = strlen(args.v[k]) + 1;
		memcpy(q, args.v[k], n);
		q += n;
	}
	put(dir, "args", buf, len);
	char name[32];
	snprintf(name, sizeof(name), "fd.%d", LAUNCH_FD_PASSWD);
	put(dir, name, pl.passwd, strlen(pl.passwd));
	snprintf(name, sizeof(name), "fd.%d", LAUNCH_FD_GROUP);
	put(dir, name, pl.group, strlen(pl.group));
	for (size_t k = 0; k < pl.bw.files.n; k++) {
		char *link = xasprintf("%s/fd.%d", dir, LAUNCH_FD_END + (int)k);
		if (symlink(pl.bw.files.v[k], link) < 0) {
			fprintf(stderr, "start_plan: cannot link %s\n", link);
			return 1;
		}
		free(link);
	}
	printf("%zu options, %zu mounts, %zu copied files\n", pl.bw.opts.n,
	       pl.bw.nmounts, pl.bw.files.n);
	return 0;
fail:
	fprintf(stderr, "start_plan: %s\n", err.msg);
	return 1;
}
