#include "common/pathenv.h"

#include "common/esc.h"

#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The home folder of the user name names, malloc'd, or NULL. */
static char *user_home(const char *name)
{
	struct passwd pw, *res = NULL;
	char buf[4096];

	if (getpwnam_r(name, &pw, buf, sizeof(buf), &res) != 0 || !res ||
	    !res->pw_dir || res->pw_dir[0] != '/')
		return NULL;
	return xstrdup(res->pw_dir);
}

char *path_tilde(const char *e, const char *home)
{
	size_t n = strcspn(e + 1, "/");
	_cleanup_free_ char *h = NULL;

	if (n == 0) {
		if (!home || home[0] != '/')
			return NULL;
		h = xstrdup(home);
	} else {
		_cleanup_free_ char *name = xstrndup(e + 1, n);
		h = user_home(name);
		if (!h)
			return NULL;
	}
	return xasprintf("%s%s", h, e + 1 + n);
}

void path_entries(const char *path_env, const char *home, struct strv *abs,
		  struct strv *rel)
{
	const char *p = path_env;

	while (p) {
		const char *end = strchr(p, ':');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		_cleanup_free_ char *e = xstrndup(p, n);
		p = end ? end + 1 : NULL;
		if (e[0] == '/') {
			if (!strv_contains(abs, e))
				strv_push(abs, e);
		} else if (e[0] == '~') {
			_cleanup_free_ char *x = path_tilde(e, home);
			if (x && !strv_contains(abs, x))
				strv_push(abs, x);
		} else if (rel && !strv_contains(rel, e)) {
			strv_push(rel, e);
		}
	}
}

void path_relative_notes(const char *path_env, const char *home,
			 struct strv *notes)
{
	struct strv abs = {0}, rel = {0};

	path_entries(path_env, home, &abs, &rel);
	for (size_t i = 0; i < rel.n; i++) {
		_cleanup_free_ char *e = esc_dup(rel.v[i]);
		strv_pushf(notes,
			   "your PATH holds %s%s%s: your shell looks commands "
			   "up in whatever folder you are in, so a file a "
			   "sandbox leaves in any folder it writes runs when "
			   "you type its name there, and lnk cannot protect "
			   "it; remove it from PATH",
			   rel.v[i][0] ? "the relative entry '"
				       : "an empty "
					 "entry (the "
					 "current "
					 "folder)",
			   rel.v[i][0] ? e : "", rel.v[i][0] ? "'" : "");
	}
	strv_free(&abs);
	strv_free(&rel);
}
