/* The dot-file guard's pure parts as row tables: magic-link rewriting, path
 * splitting, and the decision. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "guard/internal.h"

struct rw_row {
	const char *path;
	enum guard_base base;
	int fd;
	const char *rest;
};

static const struct rw_row rw_rows[] = {
    /* relative paths stay relative to the dirfd */
    {"x", GUARD_BASE_DIRFD, -1, "x"},
    {"sub/../.envrc", GUARD_BASE_DIRFD, -1, "sub/../.envrc"},
    {"dev/stdout", GUARD_BASE_DIRFD, -1, "dev/stdout"},
    {"proc/self/cwd/x", GUARD_BASE_DIRFD, -1, "proc/self/cwd/x"},
    /* absolute: the task's root, leading slashes dropped */
    {"/", GUARD_BASE_ROOT, -1, ""},
    {"/home/u/p/.envrc", GUARD_BASE_ROOT, -1, "home/u/p/.envrc"},
    {"//home//u", GUARD_BASE_ROOT, -1, "home//u"},
    {"/dev/null", GUARD_BASE_ROOT, -1, "dev/null"},
    {"/dev/fdx/3", GUARD_BASE_ROOT, -1, "dev/fdx/3"},
    {"/devx/stdout", GUARD_BASE_ROOT, -1, "devx/stdout"},
    /* /dev/std* and /dev/fd/N: the task's fd */
    {"/dev/stdin", GUARD_BASE_FD, 0, ""},
    {"/dev/stdout", GUARD_BASE_FD, 1, ""},
    {"/dev/stderr", GUARD_BASE_FD, 2, ""},
    {"/dev/stdout/", GUARD_BASE_FD, 1, ""},
    {"//dev/./stderr", GUARD_BASE_FD, 2, ""},
    {"/dev/fd/3", GUARD_BASE_FD, 3, ""},
    {"/dev/fd/3/.envrc", GUARD_BASE_FD, 3, ".envrc"},
    {"/dev/fd//12//a/b", GUARD_BASE_FD, 12, "a/b"},
    {"/dev/fd/0", GUARD_BASE_FD, 0, ""},
    /* not fd numbers: left to resolve (and fail) in the task's root */
    {"/dev/fd/03", GUARD_BASE_ROOT, -1, "dev/fd/03"},
    {"/dev/fd/-1", GUARD_BASE_ROOT, -1, "dev/fd/-1"},
    {"/dev/fd/x", GUARD_BASE_ROOT, -1, "dev/fd/x"},
    {"/dev/fd/99999999999", GUARD_BASE_ROOT, -1, "dev/fd/99999999999"},
    {"/dev/fd", GUARD_BASE_ROOT, -1, "dev/fd"},
    /* /proc/self and /proc/thread-self */
    {"/proc/self/fd/4", GUARD_BASE_FD, 4, ""},
    {"/proc/self/fd/4/sub/.git", GUARD_BASE_FD, 4, "sub/.git"},
    {"/proc/thread-self/fd/5/x", GUARD_BASE_FD, 5, "x"},
    {"/proc/self/cwd", GUARD_BASE_CWD, -1, ""},
    {"/proc/self/cwd/.envrc", GUARD_BASE_CWD, -1, ".envrc"},
    {"/proc/self/cwd/../.envrc", GUARD_BASE_CWD, -1, "../.envrc"},
    {"/proc/./self/./cwd/x", GUARD_BASE_CWD, -1, "x"},
    {"/proc/thread-self/cwd/x", GUARD_BASE_CWD, -1, "x"},
    {"/proc/self/root/etc/x", GUARD_BASE_ROOT, -1, "etc/x"},
    {"/proc/self/root", GUARD_BASE_ROOT, -1, ""},
    /* a trailing "." is kept: "x/." must not become "x" */
    {"/proc/self/cwd/x/.", GUARD_BASE_CWD, -1, "x/."},
    /* other /proc entries resolve in the task's root (and fail there) */
    {"/proc/self", GUARD_BASE_ROOT, -1, "proc/self"},
    {"/proc/self/exe", GUARD_BASE_ROOT, -1, "proc/self/exe"},
    {"/proc/self/oom_score_adj", GUARD_BASE_ROOT, -1,
     "proc/self/oom_score_adj"},
    {"/proc/thread-self/comm", GUARD_BASE_ROOT, -1, "proc/thread-self/comm"},
    {"/proc/1/cwd/x", GUARD_BASE_ROOT, -1, "proc/1/cwd/x"},
    {"/proc/selfish/cwd", GUARD_BASE_ROOT, -1, "proc/selfish/cwd"},
};

static void test_rewrite(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rw_rows) / sizeof(rw_rows[0]); i++) {
		const struct rw_row *r = &rw_rows[i];
		struct guard_path p;
		guard_rewrite(r->path, &p);
		if (p.base != r->base || p.fd != r->fd ||
		    strcmp(p.rest, r->rest) != 0)
			fail_msg("%s: got base %d fd %d rest '%s', want %d %d "
				 "'%s'",
				 r->path, p.base, p.fd, p.rest, r->base, r->fd,
				 r->rest);
		/* what under /proc/self the supervisor cannot resolve */
		bool other = false;
		static const char *const self[] = {"proc/self",
						   "proc/thread-self"};
		for (int k = 0; k < 2; k++) {
			size_t n = strlen(self[k]);
			other |= strncmp(r->rest, self[k], n) == 0 &&
				 (r->rest[n] == '\0' || r->rest[n] == '/');
		}
		if (p.proc_self != (r->base == GUARD_BASE_ROOT && other))
			fail_msg("%s: proc_self %d", r->path, p.proc_self);
	}
}

struct split_row {
	const char *path;
	int ret;
	const char *dir, *last;
	bool slash;
};

static const struct split_row split_rows[] = {
    {"", -ENOENT, NULL, NULL, false},
    {"x", 0, "", "x", false},
    {".envrc", 0, "", ".envrc", false},
    {"a/b", 0, "a/", "b", false},
    {"a/b/", 0, "a/", "b", true},
    {"a/b//", 0, "a/", "b", true},
    {"/x", 0, "/", "x", false},
    {"/", 0, "/", ".", true},
    {"///", 0, "/", ".", true},
    {"sub/../.envrc", 0, "sub/../", ".envrc", false},
    {"a/.", 0, "a/", ".", false},
    {"..", 0, "", "..", false},
    {"a//b", 0, "a//", "b", false},
};

static void test_split(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(split_rows) / sizeof(split_rows[0]);
	     i++) {
		const struct split_row *r = &split_rows[i];
		char dir[64], last[64];
		bool slash = false;
		int ret = guard_split(r->path, dir, sizeof(dir), last,
				      sizeof(last), &slash);
		if (ret != r->ret)
			fail_msg("%s: ret %d want %d", r->path, ret, r->ret);
		if (ret < 0)
			continue;
		if (strcmp(dir, r->dir) || strcmp(last, r->last) ||
		    slash != r->slash)
			fail_msg("%s: got '%s' '%s' %d", r->path, dir, last,
				 slash);
	}
	char small[4], last[64];
	bool s;
	assert_int_equal(guard_split("abcdef/x", small, sizeof(small), last,
				     sizeof(last), &s),
			 -ENAMETOOLONG);
	assert_int_equal(guard_split("x/abcdef", last, sizeof(last), small,
				     sizeof(small), &s),
			 -ENAMETOOLONG);
}

static const struct guard_rule guards[] = {
    {.dev = 8, .ino = 100, .dir = "/home/u/p", .name = NULL},
    {.dev = 8, .ino = 200, .dir = "/home/u/q", .name = NULL},
    /* a dangling .envrc -> envrc.local in /home/u/p */
    {.dev = 8, .ino = 100, .dir = "/home/u/p", .name = "envrc.local"},
    /* ... and one whose target lies in another folder */
    {.dev = 9, .ino = 7, .dir = "/home/u/q", .name = "real.rc"},
    /* the top of the home folder: every dot name */
    {.dev = 9, .ino = 50, .dir = "/home/u", .any_dot = true},
    /* a non-dot name on the way to a protected entry */
    {.dev = 9, .ino = 50, .dir = "/home/u", .name = "bin"},
};

struct decide_row {
	dev_t dev;
	ino_t ino;
	const char *last;
	int want; /* index in guards, -1 for allowed */
};

static const struct decide_row decide_rows[] = {
    {8, 100, ".envrc", 0},
    {8, 100, ".git", 0},
    {8, 100, ".vscode", 0},
    {8, 100, ".idea", 0},
    {8, 100, ".github", 0},
    {8, 100, ".husky", 0},
    {8, 100, ".gitmodules", 0},
    {8, 100, ".gitattributes", 0},
    {8, 100, ".mcp.json", 0},
    {8, 100, ".bashrc", 0},
    {8, 100, ".bash_profile", 0},
    {8, 100, ".profile", 0},
    {8, 100, ".zshrc", 0},
    {8, 100, ".zprofile", 0},
    {8, 100, ".npmrc", 0},
    {8, 100, ".pre-commit-config.yaml", 0},
    {8, 100, ".lnk", 0},
    {8, 100, ".direnv", 0},
    /* case-insensitive folders would make these the real thing */
    {8, 100, ".ENVRC", 0},
    {8, 100, ".Git", 0},
    /* ordinary names, near misses */
    {8, 100, "envrc", -1},
    {8, 100, ".envrc~", -1},
    {8, 100, ".envrc.swp", -1},
    {8, 100, ".gitignore", -1},
    {8, 100, ".git2", -1},
    {8, 100, "x.git", -1},
    {8, 100, ".", -1},
    {8, 100, "", -1},
    {8, 100, "README.md", -1},
    /* the second folder */
    {8, 200, ".envrc", 1},
    {8, 200, "a", -1},
    /* same inode number on another device: not the folder */
    {9, 100, ".envrc", -1},
    {8, 101, ".envrc", -1},
    /* a dangling symlink's target name */
    {8, 100, "envrc.local", 2},
    {8, 100, "ENVRC.LOCAL", 2},
    {8, 200, "envrc.local", -1},
    {9, 7, "real.rc", 3},
    {9, 7, ".envrc", -1}, /* only the named target there */
    /* the listed names without a dot */
    {8, 100, "mise.toml", 0},
    {8, 100, "LEFTHOOK.YML", 0},
    {8, 100, "_darcs", 0},
    {8, 100, "HEAD", -1}, /* the git class is planned per folder */
    /* every dot name at the top of the home folder, and only those */
    {9, 50, ".bash_aliases", 4},
    {9, 50, ".not-yet-invented", 4},
    {9, 50, "...", 4},
    {9, 50, "notes.txt", -1},
    {9, 50, "bin", 5},
    {9, 50, "BIN", 5},
    {9, 51, ".bash_aliases", -1},
};

static void test_decide(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(decide_rows) / sizeof(decide_rows[0]);
	     i++) {
		const struct decide_row *r = &decide_rows[i];
		const struct guard_rule *g =
		    guard_decide(guards, sizeof(guards) / sizeof(guards[0]),
				 r->dev, r->ino, r->last);
		int got = g ? (int)(g - guards) : -1;
		if (got != r->want)
			fail_msg("(%lu,%lu) '%s': got %d want %d",
				 (unsigned long)r->dev, (unsigned long)r->ino,
				 r->last, got, r->want);
	}
	/* no guards: everything allowed */
	assert_null(guard_decide(NULL, 0, 8, 100, ".envrc"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rewrite),
	    cmocka_unit_test(test_split),
	    cmocka_unit_test(test_decide),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
