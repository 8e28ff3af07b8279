/* Whether a tool may act in a folder.
 *
 * Threat: tools discover their configuration upward from their folder (a
 * `.git` folder or file, a bare repository: HEAD, objects, refs; an
 * .npmrc, a .cargo/config.toml, ...) and obey it: git runs
 * core.fsmonitor, core.pager, aliases, hooks. The program can create any
 * of those in its write folders at any moment, also after a check, so a
 * tool is let act in a folder only when no level from it up to / is one
 * where the program could plant one:
 *   - a level strictly inside a write folder is unsafe (the program may
 *     create anything there);
 *   - the top of a write folder is safe only while lnk's guard keeps its
 *     dot files (src/policy/dotfiles.c, docs/runs-outside.md: no `.git`,
 *     no new repository at the top), i.e. unless --write-dot-files names
 *     it, and never for a tool that obeys the project's own files
 *     (tools_obeys_project_files): a Makefile is no dot file;
 *   - the top of a --read folder is safe but for a tool that obeys the
 *     project's own files: another sandbox with --write there may have
 *     written its Makefile;
 *   - a folder outside every write folder is safe (the program cannot
 *     change it).
 * Levels are judged by (device, inode), walked with openat(".."), never
 * by the spelling of a path. */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "common/err.h"
#include "common/util.h"

struct tools_top {
	dev_t dev;
	ino_t ino;
	bool guarded; /* lnk's guard keeps its dot files (no
		       * --write-dot-files names it) */
	char *path;   /* for messages only */
	bool read;    /* a --read folder: nothing of this run writes below
		       * it, but another sandbox (an earlier one, or one
		       * beside it with --write there) may have made a
		       * repository there: below its top no tool acts either */
};

/* The write folders' tops, recorded when the sandbox starts. */
struct tools_tops {
	struct tools_top *v;
	size_t n;
};

/* Records each folder of writes (real paths) by (device, inode); a top is
 * unguarded when a folder of write_dot_files (NULL for none) is the same
 * folder. A write folder that cannot be opened is an error (-errno); one
 * of write_dot_files that cannot be opened guards nothing more. */
int tools_tops_make(const struct strv *writes,
		    const struct strv *write_dot_files, struct tools_tops *out,
		    struct lnk_err *err);
void tools_tops_free(struct tools_tops *t);
/* Adds the --read folders (those that are no write folder) as tops: a
 * tool may act at their top, never below it. Missing ones are left out.
 * 0 or -ENOMEM. */
int tools_tops_add_reads(const struct strv *reads, struct tools_tops *out);

/* 0 when a tool may act in the folder dirfd (any descriptor of it, O_PATH
 * too), -EPERM when not, with why (cap bytes, escaped) naming the folder
 * and what to do; another -errno when the walk up fails (the call must be
 * refused then too), also with why. */
int tools_folder_check(int dirfd, const struct tools_tops *tops,
		       const char *tool, char *why, size_t cap);

/* Whether tool obeys the project's own files in its folder, not only dot
 * names: a build tool, a test runner, a package manager or an
 * interpreter reads a Makefile, a package.json, a build.rs, a conftest.py
 * there, which the program writes; lnk keeps a write folder's dot names
 * and nothing else, so its guarded top is no place for these: run there,
 * one would run the program's code outside. A table of names (folder.c),
 * the base name of tool compared; a tool it does not name is taken to
 * obey dot names only, as git and the forges' clients do (GAPS AND
 * LIMITS). */
bool tools_obeys_project_files(const char *tool);
/* The name a tool is judged by in the project-files table: the program
 * that runs (path, real) when the table names it, else the name granted.
 * Threat: a grant under another name (Debian's editor or rview, a link
 * of the user's) of a program that obeys the project's files. */
const char *tools_judged_name(const char *name, const char *path);

/* A tool's name as the tables compare it: its base name (NULL for NULL);
 * name exactly or with a version (python3.11, Debian's
 * perl5.36-x86_64-linux-gnu); another build of name (vim.basic,
 * emacs-nox). */
const char *tools_base_name(const char *tool);
bool tools_name_versioned(const char *base, const char *name);
bool tools_name_build(const char *base, const char *name);

/* The folder outside where the tool runs: the program's own (cwd) when
 * it is a granted folder (grants: the --read and --write folders, real),
 * the same path on both sides, that no hidden folder closes; its path in
 * real and an open descriptor, else -1 (the fallback). The path is the
 * client's word, and the program can swap a folder on it for a link at
 * any moment: so it is opened first, and what is checked is where that
 * descriptor is (its path read back from /proc), the folder the tool
 * then enters. A path checked and then opened again could be a link by
 * the time it is opened. A folder the program cannot see is never
 * chosen: a tool's working folder decides what it reads and writes. */
int tools_folder_pick(const struct strv *grants, const struct strv *hidden,
		      const char *cwd, char real[PATH_MAX]);
