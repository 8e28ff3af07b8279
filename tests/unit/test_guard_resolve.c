/* The dot-file guard on real folders: resolution on descriptors inside a
 * (pretend) task root, the plan, and the list of dot files to ro-bind. The
 * "task" is this process, so /proc/self stands in for /proc/TID. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "guard/internal.h"

struct fx {
	char top[PATH_MAX]; /* T */
	char w[PATH_MAX];   /* T/w, the write folder */
	char w2[PATH_MAX];  /* T/w2, a second one */
};

static void mk(const char *base, const char *rel)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/%s", base, rel);
	if (mkdir(p, 0755) < 0)
		fail_msg("mkdir %s: %s", p, strerror(errno));
}

static void ln(const char *target, const char *base, const char *rel)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/%s", base, rel);
	if (symlink(target, p) < 0)
		fail_msg("symlink %s: %s", p, strerror(errno));
}

static void touch(const char *base, const char *rel)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/%s", base, rel);
	int fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	if (fd < 0)
		fail_msg("create %s: %s", p, strerror(errno));
	close(fd);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	char tmpl[] = "/tmp/lnk-notify-XXXXXX";
	if (!mkdtemp(tmpl))
		return -1;
	char *rp = realpath(tmpl, NULL);
	snprintf(f->top, sizeof(f->top), "%s", rp);
	free(rp);
	snprintf(f->w, sizeof(f->w), "%s/w", f->top);
	snprintf(f->w2, sizeof(f->w2), "%s/w2", f->top);
	mk(f->top, "w");
	mk(f->top, "w2");
	mk(f->w, "sub");
	mk(f->w, "sub/deep");
	mk(f->w, ".git");
	touch(f->w, ".npmrc");
	mk(f->w, "real-vscode");
	char t[PATH_MAX];
	snprintf(t, sizeof(t), "%s", f->w);
	ln(t, f->w, "abs-self");	     /* absolute symlink to w itself */
	ln("../", f->w, "sub/up");	     /* relative symlink to w */
	ln("/etc/hostname", f->w, ".envrc"); /* a dot link to outside */
	ln("real-vscode", f->w, ".vscode");  /* a dot link inside */
	ln("idea.local", f->w, ".idea");     /* dangling, in w */
	snprintf(t, sizeof(t), "%s/mcp.json", f->w2);
	touch(f->w2, "mcp.json");
	ln(t, f->w, ".mcp.json"); /* a dot link into another write folder */
	ln("/", f->w, "sub/rootlink");
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->top);
	if (system(cmd) != 0)
		return -1;
	free(f);
	return 0;
}

static void same_dir(int fd, const char *path)
{
	struct stat a, b;
	assert_int_equal(fstat(fd, &a), 0);
	assert_int_equal(stat(path, &b), 0);
	if (a.st_dev != b.st_dev || a.st_ino != b.st_ino)
		fail_msg("fd is not %s", path);
}

static int opendir_path(const char *p)
{
	int fd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		fail_msg("open %s: %s", p, strerror(errno));
	return fd;
}

/* Every way of naming w's top resolves to w, so (dev, ino) catches it. */
static void test_parent_is_top(void **state)
{
	struct fx *f = *state;
	struct guard_ctx c = {.rootfd = opendir_path("/"), .procfd = -1};
	char sub[PATH_MAX], deep[PATH_MAX], abs[PATH_MAX];
	snprintf(sub, sizeof(sub), "%s/sub", f->w);
	snprintf(deep, sizeof(deep), "%s/sub/deep", f->w);
	snprintf(abs, sizeof(abs), "%s/.envrc", f->w);
	int wfd = opendir_path(f->w), sfd = opendir_path(sub),
	    dfd = opendir_path(deep);
	struct {
		int base;
		const char *path;
	} rows[] = {
	    {wfd, ".envrc"},
	    {wfd, "./.envrc"},
	    {wfd, "sub/../.envrc"},
	    {wfd, "sub/deep/../../.envrc"},
	    {sfd, "../.envrc"}, /* above the base: EXDEV fallback */
	    {dfd, "../../.envrc"},
	    {sfd, "up/.envrc"},	      /* relative symlink */
	    {wfd, "abs-self/.envrc"}, /* absolute symlink: fallback */
	    {sfd, "../abs-self/sub/up/.envrc"},
	    {dfd, abs},		   /* absolute: IN_ROOT */
	    {dfd, "/../../../.."}, /* placeholder, replaced below */
	};
	/* an absolute path with ".." above the root stays at the root */
	char above[PATH_MAX * 2];
	snprintf(above, sizeof(above), "/../../..%s/.envrc", f->w);
	rows[10].path = above;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int parent = -1;
		char last[NAME_MAX + 1];
		bool slash;
		int r =
		    guard_lookup_parent(&c, rows[i].base, rows[i].path, &parent,
					last, sizeof(last), &slash);
		if (r < 0)
			fail_msg("%s: %s", rows[i].path, strerror(-r));
		same_dir(parent, f->w);
		assert_string_equal(last, ".envrc");
		close(parent);
	}
	close(wfd);
	close(sfd);
	close(dfd);
	close(c.rootfd);
}

/* The task's root is not ours: absolute symlinks and ".." must stay in
 * it, and a path that only exists in OUR root must not be reached. */
static void test_stays_in_task_root(void **state)
{
	struct fx *f = *state;
	char sub[PATH_MAX];
	snprintf(sub, sizeof(sub), "%s/sub", f->w);
	struct guard_ctx c = {.rootfd = opendir_path(sub), .procfd = -1};
	int parent = -1;
	char last[NAME_MAX + 1];
	bool slash;

	/* sub/rootlink -> "/" is the task's root (sub), not the host's */
	assert_int_equal(guard_lookup_parent(&c, c.rootfd, "/rootlink/deep/x",
					     &parent, last, sizeof(last),
					     &slash),
			 0);
	char deep[PATH_MAX];
	snprintf(deep, sizeof(deep), "%s/sub/deep", f->w);
	same_dir(parent, deep);
	close(parent);

	/* ".." above the task's root stays at its root */
	assert_int_equal(guard_lookup_parent(&c, c.rootfd, "/../../deep/x",
					     &parent, last, sizeof(last),
					     &slash),
			 0);
	same_dir(parent, deep);
	close(parent);

	/* the host's /etc is not in this root */
	assert_int_equal(guard_lookup_parent(&c, c.rootfd, "/etc/x", &parent,
					     last, sizeof(last), &slash),
			 -ENOENT);

	/* a relative walk that leaves the base, from a base whose path only
	 * makes sense in our root: refused, never resolved in ours */
	int dfd = opendir_path(deep);
	int r = guard_lookup_parent(&c, dfd, "../rootlink/../../x", &parent,
				    last, sizeof(last), &slash);
	assert_true(r < 0);
	close(dfd);
	close(c.rootfd);
}

static void test_no_magic_links(void **state)
{
	(void)state;
	struct guard_ctx c = {.rootfd = opendir_path("/"), .procfd = -1};
	int parent = -1, cwd = opendir_path(".");
	char last[NAME_MAX + 1];
	bool slash;

	/* /proc/self/cwd would jump anywhere: ELOOP, never followed */
	assert_int_equal(guard_lookup_parent(&c, c.rootfd, "/proc/self/cwd/x",
					     &parent, last, sizeof(last),
					     &slash),
			 -ELOOP);
	char p[64];
	snprintf(p, sizeof(p), "/proc/self/fd/%d/x", cwd);
	assert_int_equal(guard_lookup_parent(&c, c.rootfd, p, &parent, last,
					     sizeof(last), &slash),
			 -ELOOP);
	close(cwd);
	close(c.rootfd);
}

static void test_mounts(void **state)
{
	struct fx *f = *state;
	struct strv ro = {0}, wds = {0};
	char p[PATH_MAX];

	guard_mounts(f->w, &ro);
	snprintf(p, sizeof(p), "%s/.git", f->w);
	assert_true(strv_contains(&ro, p));
	snprintf(p, sizeof(p), "%s/.npmrc", f->w);
	assert_true(strv_contains(&ro, p));
	/* a dot link inside: its target, never the link */
	snprintf(p, sizeof(p), "%s/real-vscode", f->w);
	assert_true(strv_contains(&ro, p));
	snprintf(p, sizeof(p), "%s/.vscode", f->w);
	assert_false(strv_contains(&ro, p));
	/* a dot link outside every write folder: nothing (binding it would
	 * expose /etc/hostname at its own path) */
	snprintf(p, sizeof(p), "%s/.envrc", f->w);
	assert_false(strv_contains(&ro, p));
	assert_false(strv_contains(&ro, "/etc/hostname"));
	/* dangling: nothing to bind (the plan guards its name) */
	snprintf(p, sizeof(p), "%s/.idea", f->w);
	assert_false(strv_contains(&ro, p));
	/* a link into another write folder: only when told about it */
	snprintf(p, sizeof(p), "%s/mcp.json", f->w2);
	assert_false(strv_contains(&ro, p));
	assert_int_equal(ro.n, 3);
	strv_free(&ro);

	strv_push(&wds, f->w);
	strv_push(&wds, f->w2);
	guard_mounts_in(f->w, &wds, &ro);
	assert_true(strv_contains(&ro, p));
	assert_int_equal(ro.n, 4);
	strv_free(&ro);
	strv_free(&wds);

	/* a folder with no dot files: nothing */
	guard_mounts(f->w2, &ro);
	assert_int_equal(ro.n, 0);
	strv_free(&ro);
}

static void test_plan(void **state)
{
	struct fx *f = *state;
	struct policy p;
	struct guard_plan np = {0};
	struct lnk_err err = {0};
	struct stat st;

	memset(&p, 0, sizeof(p));
	strv_push(&p.k[K_FILES_WRITE].list, f->w);
	strv_push(&p.k[K_FILES_WRITE].list, f->w2);
	p.k[K_FILES_WRITE].set = true;
	assert_int_equal(guard_plan(&p, &np, &err), 1);
	/* w, w2, and w's dangling .idea -> idea.local */
	assert_int_equal(np.n, 3);
	assert_int_equal(stat(f->w, &st), 0);
	assert_non_null(
	    guard_decide(np.guards, np.n, st.st_dev, st.st_ino, ".envrc"));
	const struct guard_rule *g =
	    guard_decide(np.guards, np.n, st.st_dev, st.st_ino, "idea.local");
	assert_non_null(g);
	assert_string_equal(g->dir, f->w);
	assert_null(guard_decide(np.guards, np.n, st.st_dev, st.st_ino, "x"));
	guard_plan_free(&np);

	/* --write-dot-files lifts it for that folder only */
	strv_push(&p.k[K_FILES_WRITE_DOT_FILES].list, f->w);
	memset(&np, 0, sizeof(np));
	assert_int_equal(guard_plan(&p, &np, &err), 1);
	assert_int_equal(np.n, 1);
	assert_string_equal(np.guards[0].dir, f->w2);
	guard_plan_free(&np);

	strv_push(&p.k[K_FILES_WRITE_DOT_FILES].list, f->w2);
	memset(&np, 0, sizeof(np));
	assert_int_equal(guard_plan(&p, &np, &err), 0);
	guard_plan_free(&np);

	/* a folder that is gone: a clear error */
	memset(&np, 0, sizeof(np));
	assert_int_equal(guard_plan_add(&np, "/nonexistent/lnk", &err),
			 -ENOENT);
	assert_non_null(strstr(err.msg, "/nonexistent/lnk"));
	assert_int_equal(guard_plan_add(&np, "relative", &err), -EINVAL);
	guard_plan_free(&np);
	strv_free(&p.k[K_FILES_WRITE].list);
	strv_free(&p.k[K_FILES_WRITE_DOT_FILES].list);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_parent_is_top, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_stays_in_task_root, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_no_magic_links, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_mounts, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_plan, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
