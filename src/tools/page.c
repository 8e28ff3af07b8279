/* Pages (page.h). */
#include "tools/page.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "policy/keys.h"

bool page_client_name(const char *name)
{
	return strcmp(name, "xdg-open") == 0 ||
	       strcmp(name, "sensible-browser") == 0 ||
	       strcmp(name, "www-browser") == 0;
}

/* The length of "scheme://authority" in a normal URL. */
static size_t origin_len(const char *u)
{
	const char *a = strstr(u, "://");
	size_t i = a ? (size_t)(a - u) + 3 : 0;

	while (u[i] && u[i] != '/' && u[i] != '?' && u[i] != '#')
		i++;
	return i;
}

/* The length of the percent-escape of c at p (either case), or 0: %HH,
 * or %HH escaped again, once or more (%25HH, %2525HH: '%25' is '%'),
 * which a server that decodes the path twice, or a proxy and then the
 * server, reads as c. */
static size_t pct(const char *p, char c)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char u = (unsigned char)c;
	size_t i = 1;

	if (p[0] != '%')
		return 0;
	while (
	    p[i] == '2' && p[i + 1] == '5' &&
	    !((p[i] | 0x20) == hex[u >> 4] && (p[i + 1] | 0x20) == hex[u & 15]))
		i += 2;
	return (p[i] | 0x20) == hex[u >> 4] && (p[i + 1] | 0x20) == hex[u & 15]
		   ? i + 2
		   : 0;
}

/* Whether the path (from its first '/' to the query or fragment) holds
 * what a browser or the server resolves before it serves the page: a '.'
 * or '..' segment, its dots plain or percent-encoded, its slashes plain
 * or %2F (servers such as nginx decode the path before they resolve it),
 * ended by a ';' too (Java servers strip a segment's parameters first);
 * or a backslash, plain or %5C, which browsers read as '/'. A grant is a
 * path prefix, so docs/../admin would match https://host/docs and open
 * /admin. */
static bool path_moves(const char *p, bool whole)
{
	for (; *p && (whole || (*p != '?' && *p != '#')); p++) {
		if (*p == '\\' || pct(p, '\\'))
			return true;
		size_t sl = *p == '/' ? 1 : pct(p, '/');
		if (!sl)
			continue;
		const char *s = p + sl;
		size_t dots = 0, k;
		for (;; dots++) {
			if (*s == '.')
				s++;
			else if ((k = pct(s, '.')))
				s += k;
			else
				break;
		}
		/* a ';' ends the segment too where Java servers (Tomcat,
		 * Jetty, Spring) strip its parameters before resolving:
		 * "..;" is ".." there, though a browser keeps it as a name */
		if (dots && dots <= 2 &&
		    (!*s || *s == '/' || pct(s, '/') || *s == '?' ||
		     *s == '#' || *s == ';' || pct(s, ';')))
			return true;
	}
	return false;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)(c | 0x20);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* One round of a server's percent-decoding: each %HH its byte (but NUL,
 * kept as it is), anything else as it is; whether anything changed. */
static bool decode_once(char *s)
{
	char *w = s;
	bool changed = false;
	for (const char *r = s; *r;) {
		int hi = r[0] == '%' ? hexval(r[1]) : -1;
		int lo = hi >= 0 ? hexval(r[2]) : -1;
		if (lo >= 0 && (hi | lo)) {
			*w++ = (char)(hi << 4 | lo);
			r += 3;
			changed = true;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
	return changed;
}

/* The path as written, then as a server that decodes it again and again
 * reads it (a proxy, then the server; Spring's and IIS's double decode):
 * each round judged as a path of its own. Threat: escapes of escapes
 * that pct() does not spell out, each byte escaped ("%25%32%65") or some
 * ("%%32%65", "%2%65"), are '.' after two rounds. A decoded '?' or '#'
 * is part of that server's path, so rounds after the first are judged
 * whole. Four rounds: past them no server decodes. */
static bool path_moves_decoded(const char *path)
{
	size_t n = strcspn(path, "?#");
	char *cur = xstrndup(path, n);
	bool moves = path_moves(path, false);
	for (int round = 0; !moves && round < 4 && decode_once(cur); round++)
		moves = path_moves(cur, true);
	free(cur);
	return moves;
}

/* page_check's own reasons, which quote nothing of the URL: the log
 * keeps them as they are (page_logged_why). */
#define WHY_PATTERN "a page to open names one host, not a pattern"
#define WHY_MOVES                                          \
	"a page with a '.' or '..' folder or a backslash " \
	"in its path: give the page's own path"

int page_check(const char *url, char **norm, char **origin, struct lnk_err *err)
{
	char *n = NULL;
	int r =
	    key_normalize(key_def(K_BROWSER_OPEN), url, strlen(url), &n, err);

	if (r < 0)
		return r;
	size_t o = origin_len(n);
	if (memchr(n, '*', o)) {
		free(n);
		return err_set(err, -EINVAL, WHY_PATTERN);
	}
	if (path_moves_decoded(n + o)) {
		free(n);
		return err_set(err, -EINVAL, WHY_MOVES);
	}
	*origin = xstrndup(n, o);
	*norm = n;
	return 0;
}

const char *page_logged_why(const struct lnk_err *err)
{
	if (strcmp(err->msg, WHY_PATTERN) == 0)
		return WHY_PATTERN;
	if (strcmp(err->msg, WHY_MOVES) == 0)
		return WHY_MOVES;
	return "not an http:// or https:// page to open, with one host";
}

/* Whether the URL's rest (from its path on) lies under the grant's. A
 * grant with no query or fragment names a path: the URL's path is it, or
 * below it by whole segments (a grant ending in '/' only below it), and
 * any query or fragment may follow, since neither changes the page's
 * path. A grant with a query or fragment names one page: the URL is it,
 * exactly. The threat: read as a string prefix, /me would grant /meevil,
 * another account's pages, and a '?' or '#' in a grant would let a longer
 * URL pass. */
static bool rest_under(const char *grant, const char *url)
{
	size_t gl = strlen(grant);

	if (strpbrk(grant, "?#"))
		return strcmp(grant, url) == 0;
	size_t ul = strcspn(url, "?#"); /* the URL's path alone */
	if (gl == 0)
		return true; /* the host's every page */
	if (ul == 0)	     /* no path: the host's top, "/" */
		return strcmp(grant, "/") == 0;
	if (ul < gl || memcmp(url, grant, gl) != 0)
		return false;
	return grant[gl - 1] == '/' || ul == gl || url[gl] == '/';
}

bool page_allowed(const struct strv *patterns, const char *norm)
{
	size_t uo = origin_len(norm);
	const char *us = strstr(norm, "://");

	for (size_t i = 0; i < patterns->n; i++) {
		const char *p = patterns->v[i];
		size_t po = origin_len(p);
		const char *ps = strstr(p, "://");
		if (!ps || !us || ps - p != us - norm ||
		    strncmp(p, norm, (size_t)(ps - p)) != 0)
			continue; /* another scheme */
		const char *ph = ps + 3, *uh = us + 3;
		size_t phl = (size_t)(p + po - ph),
		       uhl = (size_t)(norm + uo - uh);
		bool host;
		if (phl > 2 && ph[0] == '*' && ph[1] == '.')
			host = uhl > phl - 1 && memcmp(uh + uhl - (phl - 1),
						       ph + 1, phl - 1) == 0;
		else
			host = phl == uhl && memcmp(ph, uh, phl) == 0;
		if (host && rest_under(p + po, norm + uo))
			return true;
	}
	return false;
}
