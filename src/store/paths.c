#include "store/paths.h"

#include <errno.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The home folder as every path under it is compared: "/home/u/" and
 * "/home//u" are /home/u (a doubled or trailing slash is common in HOME);
 * a "." or ".." in it is refused rather than guessed, since which folder
 * ".." names depends on links. */
static int home_norm(const char *h, const char *from, char **out,
		     struct lnk_err *err)
{
	char *n = xmalloc(strlen(h) + 1), *o = n;

	for (const char *p = h; *p;) {
		while (*p == '/')
			p++;
		size_t k = strcspn(p, "/");
		if (!k)
			break;
		if ((k == 1 && p[0] == '.') ||
		    (k == 2 && p[0] == '.' && p[1] == '.')) {
			free(n);
			return err_set(err, -EINVAL,
				       "%s names your home folder with '.' or "
				       "'..' in it: set HOME to its plain path",
				       from);
		}
		*o++ = '/';
		memcpy(o, p, k);
		o += k;
		p += k;
	}
	if (o == n)
		*o++ = '/';
	*o = '\0';
	*out = n;
	return 0;
}

int paths_home(char **out, struct lnk_err *err)
{
	const char *h = getenv("HOME");
	if (h && h[0] == '/')
		return home_norm(h, "HOME", out, err);
	struct passwd *pw = getpwuid(getuid());
	if (pw && pw->pw_dir && pw->pw_dir[0] == '/')
		return home_norm(pw->pw_dir, "your passwd entry", out, err);
	return err_set(err, -ENOENT,
		       "cannot find your home folder: set HOME to its path");
}

char *paths_lnk_dir(const char *home)
{
	return xasprintf("%s/.lnk", home);
}
char *paths_sandbox_dir(const char *home)
{
	return xasprintf("%s/.lnk/sandbox", home);
}
char *paths_db(const char *home)
{
	return xasprintf("%s/.lnk/sandbox/lnk.db", home);
}
char *paths_run_dir(const char *home)
{
	return xasprintf("%s/.lnk/sandbox/run", home);
}
char *paths_settings(const char *home)
{
	return xasprintf("%s/.lnk/sandbox/settings.toml", home);
}
char *paths_bwrap_cache(const char *home)
{
	return xasprintf("%s/.lnk/sandbox/bwrap-version", home);
}
char *paths_etc_names_cache(const char *home)
{
	return xasprintf("%s/.lnk/sandbox/etc-names", home);
}
char *paths_home_links_cache(const char *home)
{
	return xasprintf("%s/.lnk/sandbox/home-links", home);
}

char *paths_routers_heard(const char *home)
{
	return xasprintf("%s/.lnk/sandbox/routers", home);
}
char *paths_hidden_record(const char *home)
{
	return xasprintf("%s/.lnk/sandbox/hidden-folders", home);
}
char *paths_specs_dir(const char *home)
{
	return xasprintf("%s/.lnk/specs", home);
}
char *paths_specs_file(const char *home)
{
	return xasprintf("%s/.lnk/specs/sandbox.toml", home);
}

void paths_always_hidden(const char *home, struct strv *out)
{
	strv_pushf(out, "%s/.lnk", home);
	strv_pushf(out, "%s/Link/Agents", home);
	strv_pushf(out, "%s/Link/History", home);
}

/* One of our folders that others may enter. A sticky folder (/tmp,
 * /var/tmp) is shared by design, never lnk's: a database put there by a
 * test harness or a mistyped path must not make /tmp 0700 for everyone. */
static bool loosened(const struct stat *st)
{
	return (st->st_mode & 077) && !(st->st_mode & S_ISVTX) &&
	       st->st_uid == geteuid();
}

/* Where the folders lnk may make begin in path: its first ".lnk"
 * component (lnk's own folders), else its last component. Every folder
 * above must be there already: lnk never makes the home or a folder above
 * it. Threat: the home's path runs through a link in a write folder
 * (HOME=/data/me, me -> real, --write /data); the program removes the
 * link while lnk runs, and a "mkdir -p" of ~/.lnk/sandbox made /data/me
 * again as a new folder: a home inside the write folder, whose settings
 * and dot files the sandbox writes and the next run takes for the
 * user's. */
static size_t made_from(const char *path)
{
	for (const char *s = path; (s = strstr(s, "/.lnk")); s++)
		if (s[5] == '/' || s[5] == '\0')
			return (size_t)(s - path) + 1;
	const char *last = strrchr(path, '/');
	return last ? (size_t)(last - path) + 1 : 0;
}

int paths_ensure_dir(const char *path, struct lnk_err *err)
{
	struct stat st;
	/* Already there (every run after the first): the folders above it
	 * exist too, and each mkdir below would answer EEXIST. */
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		if (loosened(&st))
			chmod(path, 0700);
		return 0;
	}
	char *p = xstrdup(path);
	size_t from = made_from(p);
	int r = 0;
	for (char *s = p + 1;; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;
		*s = '\0';
		if ((size_t)(s - p) > from && mkdir(p, 0700) < 0 &&
		    errno != EEXIST) {
			if (errno == ENOENT)
				r = err_set(
				    err, -ENOENT,
				    "cannot create folder '%s': the "
				    "folder it goes in is gone, and lnk "
				    "makes no folder above its own (if "
				    "HOME names your home through a "
				    "link, make the link again)",
				    p);
			else
				r = err_set(err, -errno,
					    "cannot create folder '%s': %s", p,
					    strerror(errno));
			break;
		}
		*s = c;
		if (!c)
			break;
	}
	if (!r) {
		if (stat(path, &st) < 0)
			r = err_set(err, -errno, "cannot use folder '%s': %s",
				    path, strerror(errno));
		else if (!S_ISDIR(st.st_mode))
			r = err_set(err, -ENOTDIR,
				    "'%s' is not a folder: move it away", path);
		else if (loosened(&st))
			/* Others must never read the log or the specs. */
			chmod(path, 0700);
	}
	free(p);
	return r;
}
