/* Where a lockfile or a requirements file fetches its packages from
 * (flags.h).
 *
 * Threat: the program points a package-lock.json's "resolved" URL, a
 * yarn.lock's resolved line or a requirements file's index at a server of
 * its own. A lockfile's diff is thousands of lines nobody reads, and the
 * user's next `npm ci`, `yarn install` or `pip install -r` installs what
 * it names as it stands (a lockfile's integrity hash is its own) and runs
 * that package's install scripts as the user. The registry's own
 * tarballs and plain version pins say nothing; any other source is named.
 * A file spelled so this simple reading cannot be sure (a \u escape in a
 * JSON lockfile) is named whole. */
#include <stdio.h>
#include <string.h>

#include "changes/flags.h"
#include "common/util.h"

/* The registries whose tarballs a lockfile names by default. */
static const char *const registries[] = {
    "https://registry.npmjs.org/",
    "https://registry.yarnpkg.com/",
};

static bool from_registry(const char *u, size_t n)
{
	for (size_t i = 0; i < ARRAY_SIZE(registries); i++) {
		size_t l = strlen(registries[i]);
		if (n >= l && memcmp(u, registries[i], l) == 0)
			return true;
	}
	return false;
}

/* The reason naming url (at most 80 bytes of it). */
static char *named(const char *what, const char *u, size_t n)
{
	return xasprintf("%s %.*s%s: the next install fetches it from there "
			 "and runs its install scripts",
			 what, (int)(n > 80 ? 80 : n), u, n > 80 ? "..." : "");
}

/* package-lock.json, npm-shrinkwrap.json: each "resolved": "URL". */
static char *npm_lock(const char *t, size_t len)
{
	if (memmem(t, len, "\\u", 2))
		return xstrdup(
		    "a lockfile spelled with \\u escapes lnk does not "
		    "decode: review where it fetches its packages "
		    "from; the next npm ci installs them and runs "
		    "their install scripts");
	const char *end = t + len, *p = t;
	while ((p = memmem(p, (size_t)(end - p), "\"resolved\"", 10))) {
		p += 10;
		while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' ||
				   *p == '\r' || *p == ':'))
			p++;
		if (p >= end || *p != '"')
			continue;
		const char *u = ++p;
		while (p < end && *p != '"')
			p++;
		if (!from_registry(u, (size_t)(p - u)))
			return named("it resolves a package to", u,
				     (size_t)(p - u));
	}
	return NULL;
}

/* A yarn 2+ resolution's protocol (after the name's '@'): the
 * registry's (npm:), the project's own workspaces, yarn's built-in
 * patches say nothing; a URL, a git repository, a file, a folder, a
 * local patch, or exec: (a script yarn runs to make the package) is
 * named. */
static bool berry_plain(const char *v, size_t n)
{
	/* the first '@' but a scope's, which is the first byte */
	const char *at = n > 1 ? memchr(v + 1, '@', n - 1) : NULL;
	if (!at)
		return false;
	const char *r = at + 1;
	size_t rl = (size_t)(v + n - r);
	if ((rl >= 4 && memcmp(r, "npm:", 4) == 0 && !memchr(r, '#', rl)) ||
	    (rl >= 10 && memcmp(r, "workspace:", 10) == 0))
		return true;
	return rl >= 6 && memcmp(r, "patch:", 6) == 0 &&
	       memmem(r, rl, "#~builtin<", 10) != NULL;
}

/* yarn.lock: each `resolved "URL"` line (version 1), each
 * `resolution: "name@protocol"` line (yarn 2 and later). */
static char *yarn_lock(const char *t, size_t len)
{
	const char *end = t + len;
	for (const char *l = t; l < end;) {
		const char *nl = memchr(l, '\n', (size_t)(end - l));
		const char *le = nl ? nl : end;
		const char *p = l;
		while (p < le && (*p == ' ' || *p == '\t'))
			p++;
		if ((size_t)(le - p) > 9 && memcmp(p, "resolved ", 9) == 0) {
			p += 9;
			if (*p == '"')
				p++;
			const char *u = p;
			while (p < le && *p != '"')
				p++;
			if (!from_registry(u, (size_t)(p - u)))
				return named("it resolves a package to", u,
					     (size_t)(p - u));
		} else if ((size_t)(le - p) > 12 &&
			   memcmp(p, "resolution: ", 12) == 0) {
			p += 12;
			if (*p == '"')
				p++;
			const char *u = p;
			while (p < le && *p != '"')
				p++;
			if (!berry_plain(u, (size_t)(p - u)))
				return named("it resolves a package to", u,
					     (size_t)(p - u));
		}
		l = nl ? nl + 1 : end;
	}
	return NULL;
}

/* requirements*.txt, constraints*.txt: a line that changes where pip
 * looks (an index, a links page, a trusted plain-HTTP host) or names a
 * package by URL (a VCS, an archive, a local path). */
static char *pip_reqs(const char *t, size_t len)
{
	static const char *const opts[] = {
	    "-i", "--index-url",  "--extra-index-url",
	    "-f", "--find-links", "--trusted-host",
	};
	static const char *const urls[] = {
	    "git+", "hg+", "svn+", "bzr+", "http://", "https://", "file:"};
	const char *end = t + len;
	for (const char *l = t; l < end;) {
		const char *nl = memchr(l, '\n', (size_t)(end - l));
		const char *le = nl ? nl : end;
		const char *p = l;
		while (p < le && (*p == ' ' || *p == '\t'))
			p++;
		size_t w = 0;
		while (p + w < le && p[w] != ' ' && p[w] != '\t' &&
		       p[w] != '=' && p[w] != '\r')
			w++;
		for (size_t i = 0; i < ARRAY_SIZE(opts); i++)
			if (w == strlen(opts[i]) && memcmp(p, opts[i], w) == 0)
				return named(
				    "it sets pip's index or links with", p,
				    (size_t)(le - p));
		/* -e URL, --editable URL, or a URL as the requirement */
		const char *r = p;
		if ((w == 2 && memcmp(p, "-e", 2) == 0) ||
		    (w == 10 && memcmp(p, "--editable", 10) == 0)) {
			r = p + w;
			while (r < le && (*r == ' ' || *r == '\t' || *r == '='))
				r++;
		}
		for (size_t i = 0; i < ARRAY_SIZE(urls); i++)
			if ((size_t)(le - r) >= strlen(urls[i]) &&
			    memcmp(r, urls[i], strlen(urls[i])) == 0)
				return named("it installs a package from", r,
					     (size_t)(le - r));
		/* name @ URL (PEP 508) */
		const char *at = memmem(p, (size_t)(le - p), " @ ", 3);
		if (at && p[0] != '#')
			return named("it installs a package from", at + 3,
				     (size_t)(le - at - 3));
		l = nl ? nl + 1 : end;
	}
	return NULL;
}

bool sources_file(const char *name)
{
	size_t n = strlen(name);
	return strcmp(name, "package-lock.json") == 0 ||
	       strcmp(name, "npm-shrinkwrap.json") == 0 ||
	       strcmp(name, "yarn.lock") == 0 ||
	       (n > 4 && strcmp(name + n - 4, ".txt") == 0 &&
		(strncmp(name, "requirements", 12) == 0 ||
		 strncmp(name, "constraints", 11) == 0));
}

char *sources_reason(const char *name, const char *text, size_t len)
{
	if (strcmp(name, "yarn.lock") == 0)
		return yarn_lock(text, len);
	if (strcmp(name, "package-lock.json") == 0 ||
	    strcmp(name, "npm-shrinkwrap.json") == 0)
		return npm_lock(text, len);
	return pip_reqs(text, len);
}
