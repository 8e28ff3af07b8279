/* What a program left in its write folders that runs or is trusted later
 * (docs/runs-outside.md, "What a run left").
 *
 * Threat: a program granted a project may write what the user's tools run
 * later (a repository below the top with core.fsmonitor, a Makefile, a
 * .pth file, a link to /etc): the dot-file rules cannot protect project
 * content the program is granted to change. So after the program ends,
 * each write folder is walked for entries whose change time (ctime, which
 * no program can set back) is at or after the run's start, and each one
 * the table of flags.c names is reported with what will run it.
 *
 * Nothing here runs while the program runs: changes_stamp is one
 * O_TMPFILE before bwrap starts, the walk comes after the program ended.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "common/err.h"

struct buf;

/* How much is printed at the end of a run (--changes). */
enum changes_mode {
	CHANGES_OFF,	 /* no walk, nothing printed or kept */
	CHANGES_SUMMARY, /* one line of counts, and every flagged entry */
	CHANGES_FULL,	 /* as summary, and every changed entry (bounded) */
};

/* Parses "off", "summary", "full". 0 or -EINVAL. */
int changes_mode_parse(const char *s, enum changes_mode *out);

/* The bulky folders whose changes are counted apart (a package install
 * or a build writes thousands of files there). */
#define CHANGES_NBULKY 8

struct changes_flag {
	char *path;   /* relative to the write folder */
	char *reason; /* what will run it, lnk's own words */
};

struct changes_folder {
	char *top;		      /* the write folder, absolute */
	struct timespec since;	      /* the run's start on its file system */
	size_t changed;		      /* entries other than folders */
	size_t bulky[CHANGES_NBULKY]; /* of those, under each bulky name */
	size_t seen;		      /* entries looked at */
	bool cut;		      /* bounded: the walk stopped early */
	bool cut_hard;		      /* ... and looked at nothing more */
	char *cut_why;		      /* why, when cut */
	struct changes_flag *flags;
	size_t nflags;
	char **listed; /* full mode: changed entries (bounded) */
	size_t nlisted;
};

struct changes_bounds {
	size_t max_entries; /* entries looked at, per folder */
	int64_t max_ms;	    /* time, per folder */
	size_t max_flags;   /* flags kept, per folder */
	size_t max_listed;  /* full mode's list, per folder */
	bool list;	    /* keep the list (full mode) */
};

/* The defaults: a million entries, 5 seconds (a person waits for the walk
 * at exit; a pending ^C or TERM also ends it), 1000 flags, 2000 listed. */
void changes_bounds_default(struct changes_bounds *b);

/* The names of CHANGES_NBULKY bulky folders, in their index order. */
const char *changes_bulky_name(size_t i);

/* The run's start as the file system of dir counts it: the ctime of an
 * unnamed file made there (O_TMPFILE: no entry, nothing the walk sees),
 * else the coarse real-time clock (which file systems stamp from, never
 * ahead of it). Cheap: one open, fstat, close. */
void changes_stamp(const char *dir, struct timespec *out);

/* What a walk is told besides its folder. */
struct changes_where {
	/* the absolute folders of the PATH lnk was started with (a new
	 * program there runs at your next command) */
	const char *const *path_dirs;
	size_t npath;
	/* folders not walked: the program could not write them (hidden,
	 * read only), or another write folder, walked on its own */
	const char *const *skip;
	size_t nskip;
	/* the folders of the code search paths lnk was started with
	 * (PYTHONPATH, PERL5LIB, PERLLIB, RUBYLIB), each with its variable:
	 * a module there that shadows the language's own loads in every
	 * later start */
	const char *const *code_dirs;
	const char *const *code_vars;
	size_t ncode;
};

/* Walks top (a write folder, absolute and real) for entries changed at or
 * after since, without following links, into the mounts below it of a
 * local file system (another is flagged, not looked at), and flags each
 * by flags.c's table; below a folder the run moved (or one whose place
 * decides, changed), every entry is judged, not counted. Fills *out
 * (changes_folder_free). Returns 0, or -errno when top cannot be opened
 * (err says why); a walk cut short by the bounds is 0 with out->cut
 * set. */
int changes_walk(const char *top, struct timespec since,
		 const struct changes_where *in, const struct changes_bounds *b,
		 struct changes_folder *out, struct lnk_err *err);

void changes_folder_free(struct changes_folder *f);

/* The report for a person: nothing when nothing changed; one line of
 * counts; each flagged entry on its own line with its reason; in full
 * mode each changed entry. Everything the program chose is escaped
 * (ESC_TEXT). home shortens paths to "~/...". max_shown: at most this many
 * flagged lines (0: all), then one line that says how many more and
 * where to see them ('lnk sandbox changes SANDBOX'). Appends to out. */
void changes_text(struct buf *out, const struct changes_folder *f, size_t n,
		  enum changes_mode mode, const char *home, size_t max_shown,
		  const char *sandbox);

/* The same as one JSON object: {"sandbox":..,"ended":..,"folders":[{"top",
 * "changed","bulky":{name:n},"cut","flags":[{"path","reason"}]}]}. */
void changes_json(struct buf *out, const char *sandbox, int64_t ended_ms,
		  const struct changes_folder *f, size_t n);

/* True when any folder changed or was cut short. */
bool changes_any(const struct changes_folder *f, size_t n);
