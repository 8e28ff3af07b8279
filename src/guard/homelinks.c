/* Rule P's walk of the home's configuration for links (homelinks.h). */
#include "guard/homelinks.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/esc.h"

struct walk {
	const struct home_links_in *in;
	struct strv parents; /* the folders whose entries are tops */
	size_t total;	     /* folders listed, tops and below */
	size_t links;	     /* links found */
	char *over;	     /* the folder a bound ran out in */
	bool over_top;	     /* its own bound (else the total) */
};

/* The links in dir (stat st) and, with dirs, its subfolders: known from
 * an earlier run while dir is as it was then (linkcache.h), else listed.
 * The stat is taken before the listing, so a change made meanwhile leaves
 * the kept listing stale, never wrong. */
static void list(struct walk *w, const char *dir, const struct stat *st,
		 struct strv *links, struct strv *dirs)
{
	if (linkcache_get(w->in->cache, dir, st, links, dirs))
		return;
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		unsigned char t = e->d_type;
		if (t == DT_UNKNOWN) {
			struct stat es;
			_cleanup_free_ char *p =
			    xasprintf("%s/%s", dir, e->d_name);
			t = lstat(p, &es) < 0	  ? DT_UNKNOWN
			    : S_ISLNK(es.st_mode) ? DT_LNK
			    : S_ISDIR(es.st_mode) ? DT_DIR
						  : DT_REG;
		}
		if (t == DT_LNK)
			strv_push(links, e->d_name);
		else if (t == DT_DIR && dirs)
			strv_push(dirs, e->d_name);
	}
	if (d) {
		closedir(d);
		linkcache_put(w->in->cache, dir, st, links, dirs);
	}
}

/* Counts one more folder listed below top; false (and the walk stopped)
 * past a bound. */
static bool count(struct walk *w, const char *top, size_t *below)
{
	if (w->over)
		return false;
	if (below && ++*below > HOME_LINKS_BELOW) {
		w->over = xstrdup(top);
		w->over_top = true;
		return false;
	}
	if (++w->total > HOME_LINKS_TOTAL) {
		w->over = xstrdup(top);
		return false;
	}
	return true;
}

/* One more link found in top's walk; false (and the walk stopped) past
 * HOME_LINKS_LINKS. Threat: 20,000 links planted in ~/.cache made every
 * later start take seconds (each link's target is followed). */
static bool count_link(struct walk *w, const char *top)
{
	if (w->over)
		return false;
	if (++w->links > HOME_LINKS_LINKS) {
		w->over = xstrdup(top);
		return false;
	}
	return true;
}

/* dir's links, and those of its subfolders down to HOME_LINKS_DEPTH
 * levels below top. A parent met below is skipped: it is walked as one. */
static void walk_below(struct walk *w, const char *dir, const struct stat *st,
		       unsigned level, const char *top, size_t *below,
		       const char *why)
{
	struct strv links = {0}, dirs = {0};
	list(w, dir, st, &links, level < HOME_LINKS_DEPTH ? &dirs : NULL);
	for (size_t i = 0; i < links.n && count_link(w, top); i++) {
		_cleanup_free_ char *p = xasprintf("%s/%s", dir, links.v[i]);
		w->in->found(w->in->ctx, p, why);
	}
	for (size_t i = 0; i < dirs.n; i++) {
		_cleanup_free_ char *p = xasprintf("%s/%s", dir, dirs.v[i]);
		struct stat sst;
		if (strv_contains(&w->parents, p) || lstat(p, &sst) < 0 ||
		    !S_ISDIR(sst.st_mode))
			continue;
		if (!count(w, top, below))
			break;
		walk_below(w, p, &sst, level + 1, top, below, why);
	}
	strv_free(&links);
	strv_free(&dirs);
}

/* The entries of parent (only its dot names, when dots): each link is
 * kept, each folder is a top, walked. */
static void tops_of(struct walk *w, const char *parent, bool dots,
		    const char *why)
{
	DIR *d = opendir(parent);
	struct dirent *e;
	while (d && (e = readdir(d)) && !w->over) {
		if ((dots && e->d_name[0] != '.') ||
		    strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		/* a file is neither a link nor a top: no stat for it */
		if (e->d_type != DT_UNKNOWN && e->d_type != DT_LNK &&
		    e->d_type != DT_DIR)
			continue;
		_cleanup_free_ char *p = xasprintf("%s/%s", parent, e->d_name);
		struct stat st;
		if (lstat(p, &st) < 0)
			continue;
		if (S_ISLNK(st.st_mode)) {
			if (count_link(w, parent))
				w->in->found(w->in->ctx, p, why);
		} else if (S_ISDIR(st.st_mode) &&
			   !strv_contains(&w->parents, p) &&
			   count(w, p, NULL)) {
			size_t below = 0;
			walk_below(w, p, &st, 0, p, &below, why);
		}
	}
	if (d)
		closedir(d);
}

/* A parent folder, when it is one (through links: XDG_CONFIG_HOME may
 * name a link to a folder of the dotfiles). */
static void add_parent(struct walk *w, const char *p)
{
	struct stat st;
	if (p && p[0] == '/' && stat(p, &st) == 0 && S_ISDIR(st.st_mode) &&
	    !strv_contains(&w->parents, p))
		strv_push(&w->parents, p);
}

int home_links_walk(const struct home_links_in *in, struct lnk_err *err)
{
	struct walk w = {.in = in};
	/* lnk's own settings (store/paths.c): hidden from every sandbox,
	 * they hold no program's configuration, and their folders change at
	 * every run (the database, this very cache), so walking them would
	 * list them anew at every start. Known as a parent, they are not
	 * walked as a top. */
	_cleanup_free_ char *own = xasprintf("%s/.lnk", in->home);
	_cleanup_free_ char *cfg = xasprintf("%s/.config", in->home);
	_cleanup_free_ char *data = xasprintf("%s/.local/share", in->home);
	static const char *const whys[] = {
	    "a folder of ~/.config leads to it: programs run their "
	    "configuration",
	    "a folder of XDG_CONFIG_HOME leads to it: programs run their "
	    "configuration",
	    "a folder of ~/.local/share leads to it: programs run what it "
	    "holds (desktop entries, completions, plugins)",
	    "a folder of XDG_DATA_HOME leads to it: programs run what it "
	    "holds (desktop entries, completions, plugins)",
	};
	const char *named[] = {cfg, in->xdg_config, data, in->xdg_data};
	const char *why_of[4] = {NULL};

	strv_push(&w.parents, in->home);
	strv_push(&w.parents, own);
	for (size_t i = 0; i < 4; i++) {
		size_t before = w.parents.n;
		add_parent(&w, named[i]);
		if (w.parents.n > before)
			why_of[i] = whys[i];
	}
	tops_of(&w, in->home, true,
		"a dot name of the home folder leads to it: shells, sessions, "
		"editors and tools run it");
	for (size_t i = 0, k = 2; i < 4 && !w.over; i++)
		if (why_of[i])
			tops_of(&w, w.parents.v[k++], false, why_of[i]);
	int r = 0;
	if (w.over) {
		_cleanup_free_ char *f = esc_dup(w.over);
		_cleanup_free_ char *what =
		    w.links > HOME_LINKS_LINKS
			? xasprintf("the home's dot folders and configuration "
				    "folders hold more than %d links in all "
				    "(counted up to %s)",
				    HOME_LINKS_LINKS, f)
		    : w.over_top
			? xasprintf("%s holds more than %d folders", f,
				    HOME_LINKS_BELOW)
			: xasprintf("the home's dot folders and "
				    "configuration folders hold more "
				    "than %d folders in all (counted up "
				    "to %s)",
				    HOME_LINKS_TOTAL, f);
		r = err_set(err, -E2BIG,
			    "%s: the links there that lead into a write folder "
			    "cannot all be looked for, and what they lead to "
			    "would be the program's to change; remove the "
			    "folders not needed there (an earlier sandbox that "
			    "could write one may have made them); "
			    "lnk-sandbox(1), FILES THAT RUN OUTSIDE",
			    what);
	}
	free(w.over);
	strv_free(&w.parents);
	return r;
}
