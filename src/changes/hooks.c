/* The project scripts the repository's hooks name (hooks.h). */
#include "changes/hooks.h"

#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/gitconfig.h"
#include "common/util.h"

struct hook {
	char *name; /* ".git/hooks/pre-commit" */
	char *text;
	size_t len;
};

struct hooks {
	struct hook h[HOOKS_MAX];
	size_t n;
};

/* The folders hooks are read from, below the top: git's own, and the
 * hook managers' that git's hooksPath points at (husky); and the one the
 * repository's core.hooksPath names in the project. */
static const char *const hook_dirs[] = {".git/hooks", ".husky"};

static void read_dir(struct hooks *hs, int topfd, const char *dir)
{
	int dfd =
	    openat(topfd, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return;
	DIR *d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return;
	}
	struct dirent *e;
	while (hs->n < HOOKS_MAX && (e = readdir(d))) {
		const char *nm = e->d_name;
		size_t l = strlen(nm);
		/* git's examples never run; husky's own folder is its */
		if (nm[0] == '.' || nm[0] == '_' ||
		    (l > 7 && strcmp(nm + l - 7, ".sample") == 0))
			continue;
		int fd = openat(dirfd(d), nm,
				O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;
		struct stat st;
		char *text = NULL;
		size_t len = 0;
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
		    read_fd_all(fd, HOOKS_READ_MAX, &text, &len) == 0) {
			struct hook *h = &hs->h[hs->n++];
			h->name = xasprintf("%s/%s", dir, nm);
			h->text = text;
			h->len = len;
		}
		close(fd);
	}
	closedir(d);
}

static void hooks_path(void *ctx, const char *section, const char *sub,
		       const char *key, char *value)
{
	char **out = ctx;
	if (strcmp(section, "core") != 0 || sub[0] ||
	    strcmp(key, "hookspath") != 0)
		return;
	free(*out);
	*out = xstrdup(gitconfig_value(value));
}

/* core.hooksPath of the top's repository, when it is a folder of the
 * project (relative, no ".."): git runs its hooks from there. */
static char *project_hooks_path(int topfd)
{
	int fd = openat(topfd, ".git/config",
			O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	char *text = NULL, *path = NULL;
	size_t len = 0;
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    read_fd_all(fd, HOOKS_READ_MAX, &text, &len) == 0) {
		gitconfig_text_fix(text, len);
		gitconfig_each(text, hooks_path, &path);
	}
	close(fd);
	free(text);
	if (path && (!path[0] || path[0] == '/' || path[0] == '~' ||
		     strstr(path, ".."))) {
		free(path);
		path = NULL;
	}
	return path;
}

struct hooks *hooks_read(int topfd)
{
	struct hooks *hs = xcalloc(1, sizeof(*hs));
	for (size_t i = 0; i < ARRAY_SIZE(hook_dirs); i++)
		read_dir(hs, topfd, hook_dirs[i]);
	char *hp = project_hooks_path(topfd);
	if (hp && strcmp(hp, ".git/hooks") != 0 && strcmp(hp, ".husky") != 0)
		read_dir(hs, topfd, hp);
	free(hp);
	if (!hs->n) {
		free(hs);
		return NULL;
	}
	return hs;
}

/* Where a word of a shell line may begin or end around a path. */
static bool edge(char c)
{
	return strchr(" \t\r\n\"'`=;&|()<>{}$", c) != NULL;
}

static bool names(const struct hook *h, const char *rel, size_t len)
{
	const char *p = h->text, *end = h->text + h->len;
	while (len && p + len <= end) {
		const char *at = memmem(p, (size_t)(end - p), rel, len);
		if (!at)
			return false;
		bool before = at == h->text || edge(at[-1]) || at[-1] == '/';
		bool after = at + len == end || edge(at[len]);
		if (before && after)
			return true;
		p = at + 1;
	}
	return false;
}

/* The words of a hook's text (split at the shell's separators and
 * quotes): `cd DIR` makes what follows relative to DIR (cd hk &&
 * ./pre.sh runs hk/pre.sh), and a word with a wildcard names every file
 * it matches (for s in checks/\*.sh). Whether one of them names rel. */
static bool named_by_words(const struct hook *h, const char *rel)
{
	char cwd[PATH_MAX] = "", w[PATH_MAX];
	bool cd_next = false;
	const char *p = h->text, *end = h->text + h->len;
	while (p < end) {
		while (p < end && edge(*p))
			p++;
		size_t n = 0;
		while (p < end && !edge(*p)) {
			if (n + 1 < sizeof(w))
				w[n++] = *p;
			p++;
		}
		w[n] = '\0';
		if (!n)
			continue;
		const char *v = strncmp(w, "./", 2) == 0 ? w + 2 : w;
		if (cd_next) {
			cd_next = false;
			if (v[0] != '/' && v[0] != '-' && !strchr(v, '$'))
				snprintf(cwd, sizeof(cwd), "%s", v);
			continue;
		}
		if (strcmp(w, "cd") == 0 || strcmp(w, "pushd") == 0) {
			cd_next = true;
			continue;
		}
		if (v[0] == '/' || v[0] == '~' || strchr(v, '$'))
			continue;
		char full[PATH_MAX * 2];
		snprintf(full, sizeof(full), "%s%s%s", cwd, cwd[0] ? "/" : "",
			 v);
		/* a cd the text reads may not be the one in force (a
		 * subshell, a branch): both are named, the safe side */
		if (strpbrk(v, "*?[") ? fnmatch(full, rel, FNM_PATHNAME) == 0 ||
					    fnmatch(v, rel, FNM_PATHNAME) == 0
				      : cwd[0] && strcmp(full, rel) == 0)
			return true;
	}
	return false;
}

/* rel as a hook may name it: whole; without its extension, as node and
 * others find it (node scripts/fmt runs scripts/fmt.js); as Python's
 * module (python3 -m tools.check runs tools/check.py). */
const char *hooks_naming(const struct hooks *h, const char *rel, size_t len)
{
	static const char *const exts[] = {".js", ".mjs", ".cjs", ".ts",
					   ".py", ".sh",  ".rb",  ".pl"};
	char alt[PATH_MAX];
	size_t stem = len;
	for (size_t k = 0; k < ARRAY_SIZE(exts); k++) {
		size_t el = strlen(exts[k]);
		if (len > el && memcmp(rel + len - el, exts[k], el) == 0)
			stem = len - el;
	}
	bool module = stem < len && len - stem == 3 &&
		      memcmp(rel + stem, ".py", 3) == 0 && stem < sizeof(alt) &&
		      memchr(rel, '/', stem);
	for (size_t j = 0; module && j < stem; j++)
		alt[j] = rel[j] == '/' ? '.' : rel[j];
	char relz[PATH_MAX] = "";
	if (len < sizeof(relz)) {
		memcpy(relz, rel, len);
		relz[len] = '\0';
	}
	for (size_t i = 0; h && i < h->n; i++)
		if (names(&h->h[i], rel, len) ||
		    (stem < len && names(&h->h[i], rel, stem)) ||
		    (module && names(&h->h[i], alt, stem)) ||
		    (relz[0] && named_by_words(&h->h[i], relz)))
			return h->h[i].name;
	return NULL;
}

void hooks_free(struct hooks *h)
{
	for (size_t i = 0; h && i < h->n; i++) {
		free(h->h[i].name);
		free(h->h[i].text);
	}
	free(h);
}
