/* THE table of what runs or is trusted later (docs/runs-outside.md, its
 * "Open" rows): given one changed entry and where it lies, the reason it
 * matters and what will run it, or NULL. `lnk sandbox check` and the end
 * of a run both ask here, so the two never disagree.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct dot_file;

/* Where an entry lies, as the walk knows it (each set by flags_enter for
 * the folder the walk descends into). */
struct flag_where {
	unsigned depth; /* 0: at the top of the write folder */
	bool in_git;	/* inside a git directory (.git or a bare one) */
	bool git_hooks; /* inside a git directory's hooks/ */
	bool below_top; /* that git directory is not the top's own */
	bool bare_here; /* this folder is a bare repository below the top */
	bool git_root;	/* this folder is a git directory's own (.git) */
	/* this git directory below the top has an entry that makes it one
	 * (HEAD, config, objects, refs, commondir, gitdir) new in the run:
	 * its HEAD and config are read as if new (walk.c) */
	bool git_new;
	bool vendored; /* under node_modules, site-packages, target, ... */
	bool site;     /* directly in site-packages or dist-packages */
	bool venv_bin; /* directly in a virtualenv's bin (or Scripts) */
	/* directly in a folder of lnk's PATH, or the home's .local/bin or
	 * bin (a login puts them on PATH, walk.c) */
	bool on_path;
	/* what a login runs (a write folder of ~/.config, ~/.ssh): directly
	 * in an autostart folder, in or below systemd/user, directly in
	 * environment.d, directly in .ssh; systemd: directly in one so
	 * named */
	bool autostart, systemd, systemd_user, env_d, ssh_dir;
	/* below a home folder whose files a program runs at its start
	 * (~/.vim, ~/.emacs.d, ~/.ipython, ~/.oh-my-zsh): what runs them,
	 * or NULL */
	const char *home_code;
	/* in the user's configuration folder ($XDG_CONFIG_HOME, ~/.config,
	 * known by identity) or a folder of it that config_rows (flags.c)
	 * names, whose path below it is xdg ("" at the folder itself);
	 * xdg_data: the user's data folder instead ($XDG_DATA_HOME,
	 * ~/.local/share), and data_rows */
	bool xdg_in, xdg_data;
	char xdg[32];
	/* under a folder of the dot-file list (policy/dotfiles.h: .vscode,
	 * .husky, .cargo, ...), or NULL */
	const struct dot_file *dot;
	/* below a folder the run may have moved into its place (walk.c):
	 * its children keep their change times, so each entry here is
	 * judged as if changed, and said not changed itself (FLAG_MOVED) */
	bool moved;
	/* a folder on the way here, below the top, changed in the run
	 * (walk.c): one moved into place and then written looks like one
	 * merely written, so a folder below it whose place decides is
	 * judged whole */
	bool under_changed;
	/* this folder is one a code search path of yours names
	 * (PYTHONPATH, PERL5LIB, PERLLIB, RUBYLIB): the variable, or NULL */
	const char *code_var;
};

/* How the lowest of the reasons, a plain executable's, starts: past the
 * bound on flags, these give way to any other (walk.c). */
#define FLAG_EXECUTABLE "executable:"

/* How the reason of an entry that did not change itself starts, judged
 * because a folder above it did (walk.c). */
#define FLAG_MOVED "in a folder the run moved or changed: "

/* Whether reason is a plain executable's, the lowest (FLAG_MOVED before
 * it or not). */
bool flags_plain(const char *reason);

/* Whether the folder at w decides what its entries are by where it is:
 * a folder on PATH (its programs run by name), a virtualenv's bin, a git
 * directory, the configuration or data folder's rows, a folder a login
 * runs (autostart, systemd/user, environment.d, .ssh). A folder moved
 * there brings old entries that now run, so when its own change time is
 * the run's, what it holds is judged as if changed (walk.c). */
bool flags_place_decides(const struct flag_where *w);

/* The first component of path (a link's target, as written) that names
 * a folder of packages others wrote (node_modules, site-packages, ...),
 * or NULL. */
const char *flags_vendored_in(const char *path);

/* One changed entry: name in a folder at w; mode its st_mode; dirfd the
 * folder's (to read a git config or a manifest, bounded, without
 * following links); link_target: where a link that leaves the write
 * folder points (the walk decides; NULL otherwise). Returns a reason (allocated) or NULL. */
char *flags_check(int dirfd, const char *name, mode_t mode,
		  const struct flag_where *w, const char *link_target);

/* Where a write folder's top lies, as far as its own path says (the
 * folders of a login: ~/.config/autostart, ~/.config/systemd/user, ...),
 * set in *w. */
void flags_top(const char *top, struct flag_where *w);

/* *w is the user's configuration folder, or the folder rel below it
 * ("" for the folder itself): what its programs run from there is
 * flagged (config_rows). */
void flags_config_folder(const char *rel, struct flag_where *w);

/* The same for the user's data folder (data_rows). */
void flags_data_folder(const char *rel, struct flag_where *w);

/* The flag_where of the folder name below a folder at parent.
 * parent_venv: the parent holds pyvenv.cfg. (A bare repository is known
 * only from the folder's own names: the walk sets in_git and bare_here.) */
void flags_enter(const struct flag_where *parent, const char *name,
		 bool parent_venv, struct flag_where *child);

/* Whether a folder of this name is counted apart (flags_bulky_index) and
 * holds what others wrote (a package's build files are not the
 * project's). */
int flags_bulky_index(const char *name);

/* The program keys of a git config file (core.fsmonitor, core.pager,
 * core.hooksPath, core.sshCommand, core.editor, filter.*, diff.*.textconv,
 * alias.* starting with '!' or a git option, include paths), one reason each, appended
 * to *out (allocated strings, *n grows; at most max). From gitcfg.c. */
void gitcfg_programs(const char *text, size_t len, char ***out, size_t *n,
		     size_t max);

/* Whether name is a lockfile or requirements file whose package sources
 * are read (package-lock.json, npm-shrinkwrap.json, yarn.lock,
 * requirements*.txt, constraints*.txt). From sources.c. */
bool sources_file(const char *name);
/* The reason to name such a file: a source other than the registry's
 * (an allocated string), or NULL. */
char *sources_reason(const char *name, const char *text, size_t len);
