#include "tools/folder.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/compat.h"
#include "common/esc.h"

/* More levels than any real tree has (PATH_MAX / 2): a walk that goes on
 * longer is refused rather than followed. */
#define MAX_LEVELS 2048

int tools_tops_make(const struct strv *writes,
		    const struct strv *write_dot_files, struct tools_tops *out,
		    struct lnk_err *err)
{
	char q[PATH_MAX + 16];

	out->v = NULL;
	out->n = 0;
	if (!writes || !writes->n)
		return 0;
	out->v = calloc(writes->n, sizeof(*out->v));
	if (!out->v)
		return err_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < writes->n; i++) {
		struct stat st;
		int e = stat(writes->v[i], &st) < 0 ? -errno
			: !S_ISDIR(st.st_mode)	    ? -ENOTDIR
						    : 0;
		if (e < 0) {
			tools_tops_free(out);
			return err_set(err, e, "write folder '%s': %s",
				       esc_to(q, sizeof(q), writes->v[i]),
				       strerror(-e));
		}
		struct tools_top *t = &out->v[out->n++];
		t->dev = st.st_dev;
		t->ino = st.st_ino;
		t->guarded = true;
		t->path = xstrdup(writes->v[i]);
		for (size_t j = 0; write_dot_files && j < write_dot_files->n;
		     j++) {
			struct stat d;
			if (stat(write_dot_files->v[j], &d) == 0 &&
			    d.st_dev == st.st_dev && d.st_ino == st.st_ino)
				t->guarded = false;
		}
	}
	return 0;
}

static const struct tools_top *top_of(const struct tools_tops *tops,
				      const struct stat *st);

int tools_tops_add_reads(const struct strv *reads, struct tools_tops *out)
{
	for (size_t i = 0; reads && i < reads->n; i++) {
		struct stat st;
		if (stat(reads->v[i], &st) < 0 || !S_ISDIR(st.st_mode) ||
		    top_of(out, &st))
			continue;
		struct tools_top *v =
		    realloc(out->v, (out->n + 1) * sizeof(*out->v));
		if (!v)
			return -ENOMEM;
		out->v = v;
		out->v[out->n++] =
		    (struct tools_top){.dev = st.st_dev,
				       .ino = st.st_ino,
				       .guarded = true,
				       .path = xstrdup(reads->v[i]),
				       .read = true};
	}
	return 0;
}

void tools_tops_free(struct tools_tops *t)
{
	for (size_t i = 0; t->v && i < t->n; i++)
		free(t->v[i].path);
	free(t->v);
	t->v = NULL;
	t->n = 0;
}

static const struct tools_top *top_of(const struct tools_tops *tops,
				      const struct stat *st)
{
	for (size_t i = 0; i < tops->n; i++)
		if (tops->v[i].dev == st->st_dev &&
		    tops->v[i].ino == st->st_ino)
			return &tops->v[i];
	return NULL;
}

/* The folder's path, for the message only (the decision never reads
 * it). */
static const char *folder_name(int dirfd, char *buf, size_t cap)
{
	char link[64], path[PATH_MAX];

	snprintf(link, sizeof(link), "/proc/self/fd/%d", dirfd);
	ssize_t n = readlink(link, path, sizeof(path) - 1);
	if (n <= 0)
		return "the tool's folder";
	path[n] = '\0';
	char e[PATH_MAX + 16];
	snprintf(buf, cap, "'%s'", esc_to(e, sizeof(e), path));
	return buf;
}

/* Tools that run what the project's own files in their folder say:
 * build tools, test runners, package managers (their scripts and hooks),
 * interpreters (a script, a sitecustomize, a local module). Each reads
 * files the program can write at a write folder's top. */
static const char *const PROJECT_FILES[] = {
    /* shells and wrappers: a shell runs the script it is given (a file
     * of the project's), and a wrapper (env, nice, timeout, xargs...)
     * starts whatever program its words name, make among them, in the
     * tool's folder */
    "sh",
    "bash",
    "dash",
    "zsh",
    "ksh",
    "mksh",
    "fish",
    "tcsh",
    "csh",
    "busybox",
    "env",
    "nice",
    "nohup",
    "timeout",
    "xargs",
    "stdbuf",
    "setsid",
    "time",
    "flock",
    "ionice",
    "chrt",
    "taskset",
    "unbuffer",
    "watch",
    "parallel",
    "script",
    "strace",
    "ltrace",
    "valgrind",
    "sudo",
    "doas",
    "su",
    "runuser",
    "rbash",
    "fakeroot",
    "fakeroot-sysv",
    "fakeroot-tcp",
    "prlimit",
    "ssh-agent",
    "dbus-run-session",
    "dbus-launch",
    "setpriv",
    "unshare",
    "nsenter",
    "chroot",
    "systemd-run",
    "firejail",
    "bwrap",
    "flatpak-spawn",
    "proot",
    "schroot",
    "catchsegv",
    "gdb",
    "lldb",
    "rr",
    "perf",
    "hyperfine",
    "entr",
    "make-first-existing-target",
    "dpkg-buildpackage",
    "debuild",
    "prove",
    "py.test-3",
    "node-gyp",
    "make",
    "gmake",
    "bmake",
    "just",
    "task",
    "cmake",
    /* CTest runs the add_test commands of CTestTestfile.cmake, CPack the
     * scripts of CPackConfig.cmake; the autotools feed configure.ac and
     * aclocal.m4 through m4, whose esyscmd runs a shell command */
    "ctest",
    "cpack",
    "ccmake",
    "autoreconf",
    "autoconf",
    "autoheader",
    "automake",
    "aclocal",
    "autom4te",
    "autoupdate",
    "autoscan",
    "libtoolize",
    "m4",
    "ninja",
    "meson",
    "bazel",
    "bazelisk",
    "scons",
    "ant",
    "mvn",
    "gradle",
    "sbt",
    "lein",
    "mix",
    "rebar3",
    "cargo",
    "go",
    "dotnet",
    "swift",
    "xcodebuild",
    "npm",
    "npx",
    /* Debian's own names of tools listed here */
    "nodejs",
    "yarnpkg",
    "pytest-3",
    "python3-coverage",
    "pnpm",
    "yarn",
    "bun",
    "bunx",
    "deno",
    "node",
    "corepack",
    "pip",
    "pip3",
    "pipx",
    "poetry",
    "uv",
    "uvx",
    "pdm",
    "hatch",
    "tox",
    "nox",
    "pytest",
    "py.test",
    "python",
    "python3",
    "ruby",
    "rake",
    "bundle",
    "gem",
    "perl",
    "php",
    "composer",
    "terraform",
    "tofu",
    "terragrunt",
    "helm",
    "ansible",
    "ansible-playbook",
    "docker-compose",
    "tilt",
    "skaffold",
    "earthly",
    "nix",
    "nix-build",
    "direnv",
    "pre-commit",
    "lefthook",
    "husky",
    /* container and machine builders: a compose file, a Containerfile,
     * a Vagrantfile or a template starts what it names (a privileged
     * service that binds /) as the user, outside */
    "docker",
    "podman",
    "nerdctl",
    "buildah",
    "vagrant",
    "packer",
    "pulumi",
    "cdk",
    "serverless",
    /* linters, test runners, bundlers and doc builders whose
     * configuration is code (eslint.config.js, jest.config.ts, Sphinx's
     * conf.py, mkdocs' hooks, mypy's plugins) */
    "eslint",
    "prettier",
    "stylelint",
    "jest",
    "vitest",
    "mocha",
    "ava",
    "playwright",
    "cypress",
    "webpack",
    "webpack-cli",
    "vite",
    "rollup",
    "babel",
    "gulp",
    "grunt",
    "nx",
    "turbo",
    "lerna",
    "next",
    "nuxt",
    "astro",
    "storybook",
    "ts-node",
    "tsx",
    "mypy",
    "flake8",
    "pylint",
    "coverage",
    "golangci-lint",
    /* the Haskell, Erlang, Elixir, Nim and Ruby tools: Setup.hs, a
     * .ghci, .erlang, .iex.exs, config.nims, an .irbrc of the folder */
    "cabal",
    "stack",
    "runghc",
    "runhaskell",
    "ghci",
    "erl",
    "elixir",
    "iex",
    "nim",
    "nimble",
    "irb",
    "pry",
    "rails",
    "sphinx-build",
    "mkdocs",
    "invoke",
    "fab",
    "doit",
    "snakemake",
    "dvc",
    "rspec",
    "rubocop",
    "jekyll",
    "pod",
    "fastlane",
    "latexmk",
    /* GNU GLOBAL: with no gtags.conf at the top (a kept name), it reads
     * obj/gtags.conf there, whose gtags_parser is a shared object it
     * loads */
    "gtags",
    "global",
    "htags",
    "gozilla",
    "zig",
    "dune",
    "conan",
    "dagger",
    "devbox",
    "mise",
    "Rscript",
    "R",
    "julia",
    "lua",
    /* interpreters and tools that run a file the call names (a script
     * the program wrote, a module in the folder: pydoc imports it),
     * or whose language runs commands (awk's system(), GNU sed's e,
     * an editor's -S, a test file of bats) */
    "awk",
    "gawk",
    "mawk",
    "nawk",
    "original-awk",
    "sed",
    "tclsh",
    "wish",
    "expect",
    "vim",
    "vi",
    "nvim",
    "ex",
    "view",
    "vimdiff",
    "emacs",
    "java",
    "jshell",
    "kotlin",
    "kotlinc",
    "groovy",
    "scala",
    "clojure",
    "clj",
    "bats",
    "pydoc",
    "ipython",
    "jupyter",
    "pypy",
    "guile",
    "racket",
    "sbcl",
    "clisp",
    "ocaml",
    "gnuplot",
    "octave",
    "maxima",
    "pipenv",
    "dh",
};

const char *tools_base_name(const char *tool)
{
	const char *base = tool ? strrchr(tool, '/') : NULL;
	return base ? base + 1 : tool;
}

bool tools_name_versioned(const char *base, const char *name)
{
	size_t n = strlen(name);
	if (strncmp(base, name, n) != 0)
		return false;
	size_t v = strspn(base + n, "0123456789.");
	return !base[n + v] || (v && base[n + v] == '-');
}

bool tools_name_build(const char *base, const char *name)
{
	size_t n = strlen(name);
	return strncmp(base, name, n) == 0 &&
	       (base[n] == '.' || base[n] == '-');
}

bool tools_obeys_project_files(const char *tool)
{
	const char *base = tools_base_name(tool);
	for (size_t i = 0; base && i < ARRAY_SIZE(PROJECT_FILES); i++)
		if (strcmp(base, PROJECT_FILES[i]) == 0)
			return true;
	/* python3.11, pip3.11, ruby3.1, Debian's perl5.36-x86_64-linux-gnu
	 * and the like: the name, a version, and perhaps a '-' and more */
	static const char *const versioned[] = {
	    "python", "pip",   "ruby",	 "perl",   "php",   "node",
	    "lua",    "tclsh", "wish",	 "pypy",   "guile", "octave",
	    "pydoc",  "java",  "racket", "ipython"};
	for (size_t i = 0; base && i < ARRAY_SIZE(versioned); i++)
		if (tools_name_versioned(base, versioned[i]))
			return true;
	/* Debian's other builds of one program: vim.basic, vim.tiny,
	 * emacs-nox, octave-cli, gdb-multiarch, guile-3.0 */
	static const char *const builds[] = {"vim",   "emacs", "octave",
					     "gdb",   "guile", "gawk",
					     "tclsh", "wish",  "sbcl"};
	for (size_t i = 0; base && i < ARRAY_SIZE(builds); i++)
		if (tools_name_build(base, builds[i]))
			return true;
	return false;
}

const char *tools_judged_name(const char *name, const char *path)
{
	if (path && !tools_obeys_project_files(name) &&
	    tools_obeys_project_files(path))
		return path;
	return name;
}

int tools_folder_check(int dirfd, const struct tools_tops *tops,
		       const char *tool, char *why, size_t cap)
{
	char name[PATH_MAX + 32], q[PATH_MAX + 16];
	const struct tools_top *here = NULL, *outer = NULL, *reader = NULL;
	struct stat st, up;
	int fd, e = 0;

	if (cap)
		why[0] = '\0';
	e = fstat(dirfd, &st) < 0  ? -errno
	    : !S_ISDIR(st.st_mode) ? -ENOTDIR
				   : 0;
	if (e < 0) {
		snprintf(why, cap, "the tool's folder cannot be checked: %s",
			 strerror(-e));
		return e;
	}
	here = tops ? top_of(tops, &st) : NULL;
	fd = openat(dirfd, ".", COMPAT_O_DIRHANDLE | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		e = -errno;
	/* Each level above the folder: a top there means the folder lies
	 * strictly inside that write folder. The walk goes on to / (whose
	 * ".." is itself) to name the outermost one, where the tool would be
	 * let act. */
	for (int level = 0; fd >= 0; level++) {
		if (level == MAX_LEVELS) {
			e = -ELOOP;
			break;
		}
		int parent = openat(
		    fd, "..", COMPAT_O_DIRHANDLE | O_DIRECTORY | O_CLOEXEC);
		if (parent < 0 || fstat(parent, &up) < 0) {
			e = -errno;
			if (parent >= 0)
				close(parent);
			break;
		}
		close(fd);
		fd = parent;
		if (up.st_dev == st.st_dev && up.st_ino == st.st_ino)
			break;
		const struct tools_top *t = tops ? top_of(tops, &up) : NULL;
		if (t && t->read)
			reader = t;
		else if (t)
			outer = t;
		st = up;
	}
	if (fd >= 0)
		close(fd);
	if (e < 0) {
		snprintf(why, cap,
			 "cannot walk up from %s to check it: %s; the call is "
			 "refused",
			 folder_name(dirfd, name, sizeof(name)), strerror(-e));
		return e;
	}
	/* Below the top of a --read folder: nothing of this run wrote there,
	 * but another sandbox may have (one before it, or beside it, with
	 * --write there), and the tool's own folder is where git, npm and
	 * the rest look first. Only the folder itself is judged so: the
	 * levels above a write folder's guarded top are the user's
	 * (docs/runs-outside.md, Open). */
	if (!outer && reader && !here) {
		outer = reader;
		snprintf(why, cap,
			 "%s lies inside the folder '%s', which the sandbox "
			 "reads, where another sandbox may have made a "
			 "repository or settings the tool would obey; run the "
			 "tool from the top of '%s'",
			 folder_name(dirfd, name, sizeof(name)),
			 esc_to(q, sizeof(q), outer->path),
			 esc_to(q, sizeof(q), outer->path));
		return -EPERM;
	}
	if (outer) {
		if (outer->guarded)
			snprintf(why, cap,
				 "%s lies inside the write folder '%s', where "
				 "the program can make a repository or "
				 "settings the tool would obey; run the tool "
				 "from the top of the write folder '%s', or "
				 "grant the project folder itself with --write",
				 folder_name(dirfd, name, sizeof(name)),
				 esc_to(q, sizeof(q), outer->path),
				 esc_to(q, sizeof(q), outer->path));
		else
			snprintf(why, cap,
				 "%s lies inside the write folder '%s', where "
				 "the program can make a repository or "
				 "settings the tool would obey (--write-dot-"
				 "files leaves even its top to the program); "
				 "run the tool from a folder outside the write "
				 "folders, or grant the project folder itself "
				 "with --write and no --write-dot-files",
				 folder_name(dirfd, name, sizeof(name)),
				 esc_to(q, sizeof(q), outer->path));
		return -EPERM;
	}
	/* A tool that obeys the project's own files (a Makefile is no dot
	 * file) is let act neither at a write folder's top, where the program
	 * can write them, nor at a --read folder's top, where another
	 * sandbox with --write there (beside this one, or before it) may
	 * have: the call would run that program's code outside. */
	if (here && (here->read || here->guarded) &&
	    tools_obeys_project_files(tool)) {
		char t[160];
		esc_to(t, sizeof(t), tool ? tool : "the tool");
		if (here->read)
			snprintf(
			    why, cap,
			    "%s is the top of the folder '%s', which the "
			    "sandbox reads, and %s obeys the project's own "
			    "files there (a Makefile, a package.json, a "
			    "build script), which another sandbox may have "
			    "written (one with --write there, before this "
			    "one or beside it): the call would run that "
			    "program's code outside; run %s yourself, once "
			    "you have looked at what it obeys",
			    folder_name(dirfd, name, sizeof(name)),
			    esc_to(q, sizeof(q), here->path), t, t);
		else
			snprintf(
			    why, cap,
			    "%s is the write folder '%s', and %s obeys the "
			    "project's own files there (a Makefile, a "
			    "package.json, a build script), which the "
			    "program can write: the call would run the "
			    "program's code outside the sandbox; run %s "
			    "yourself once the program has ended, or from a "
			    "folder outside the write folders",
			    folder_name(dirfd, name, sizeof(name)),
			    esc_to(q, sizeof(q), here->path), t, t);
		return -EPERM;
	}
	if (here && !here->guarded) {
		snprintf(why, cap,
			 "%s is the write folder '%s', whose dot files the "
			 "program may change (--write-dot-files): a `.git` or "
			 "settings there would be the tool's; run the tool "
			 "from a folder outside the write folders, or drop "
			 "--write-dot-files for it",
			 folder_name(dirfd, name, sizeof(name)),
			 esc_to(q, sizeof(q), here->path));
		return -EPERM;
	}
	return 0;
}

static bool under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return true;
	return strncmp(path, dir, n) == 0 && (path[n] == '/' || !path[n]);
}

/* tools_folder_pick: the program's folder, opened first (folder.h). */
int tools_folder_pick(const struct strv *grants, const struct strv *hidden,
		      const char *cwd, char real[PATH_MAX])
{
	char link[64];
	size_t best = 0;

	if (cwd[0] != '/')
		return -1;
	int fd = open(cwd, COMPAT_O_DIRHANDLE | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, real, PATH_MAX - 1);
	if (n <= 0 || real[0] != '/') {
		close(fd);
		return -1;
	}
	real[n] = '\0';
	/* The path read back must name that very folder here: a folder of
	 * another mount namespace (through /proc/PID/root) reads back as
	 * the path it has there, and a removed one with " (deleted)". */
	struct stat fs, ps;
	if (fstat(fd, &fs) < 0 || stat(real, &ps) < 0 ||
	    fs.st_dev != ps.st_dev || fs.st_ino != ps.st_ino) {
		close(fd);
		return -1;
	}
	for (size_t i = 0; i < grants->n; i++)
		if (under(real, grants->v[i]) && strlen(grants->v[i]) > best)
			best = strlen(grants->v[i]);
	for (size_t i = 0; best && i < hidden->n; i++)
		if (under(real, hidden->v[i]) && strlen(hidden->v[i]) > best)
			best = 0;
	if (!best) {
		close(fd);
		return -1;
	}
	return fd;
}
