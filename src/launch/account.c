/* The user's account, read from /etc/passwd and /etc/group when NSS would
 * read exactly those.
 *
 * Why not always NSS: its first use in a process reads and parses
 * nsswitch.conf and sets up its modules, about 0.15 ms on every start of a
 * sandbox (measured; bench/README.md). When nsswitch.conf names "files"
 * first for a database, with no action after it, NSS answers an id found
 * in the file with that file's first line for the id, and never asks the
 * next service: the same answer, read here directly. Anything else (another
 * service first, an action such as [SUCCESS=continue], the NIS '+' and '-'
 * lines of compat, an id not in the file, a file too big or unreadable)
 * goes to NSS, which is right by definition.
 *
 * The answer only names the user inside the sandbox (its passwd, USER,
 * SHELL): it grants nothing. */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "launch/account.h"

/* Bigger account files go to NSS: reading them whole would cost more. */
#define ACCOUNT_FILE_MAX (1 << 20)

static bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

/* Whether nsswitch.conf's line for db names "files" first, and nothing
 * that could change what a match in the files means. */
static bool files_first(char *text, const char *db)
{
	size_t dl = strlen(db);
	char *cur = text, *line;
	while ((line = line_next(&cur))) {
		char *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		while (is_space(*line))
			line++;
		if (strncmp(line, db, dl) != 0 || line[dl] != ':')
			continue;
		char *p = line + dl + 1;
		while (is_space(*p))
			p++;
		if (strncmp(p, "files", 5) != 0 ||
		    (p[5] != '\0' && !is_space(p[5])))
			return false;
		p += 5;
		while (is_space(*p))
			p++;
		return *p != '[';
	}
	return false; /* no line: NSS's own default decides */
}

/* The first line of an account file whose third field is id, copied to
 * *out; -ENOENT when there is none, or a line NSS would read otherwise
 * ('+' and '-' are compat's). */
static int id_line(char *text, unsigned id, char **out)
{
	char *cur = text, *line;
	while ((line = line_next(&cur))) {
		while (is_space(*line))
			line++;
		if (line[0] == '#')
			continue;
		if (line[0] == '+' || line[0] == '-')
			return -ENOENT;
		const char *c1 = strchr(line, ':');
		const char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2 || c1 == line)
			continue;
		const char *num = c2 + 1;
		unsigned long v = 0;
		const char *q = num;
		while (*q >= '0' && *q <= '9' && v <= 0xffffffffUL)
			v = v * 10 + (unsigned long)(*q++ - '0');
		if (q == num || *q != ':' || v != id)
			continue;
		*out = xstrdup(line);
		return 0;
	}
	return -ENOENT;
}

/* account_from_files, with nsswitch.conf's text (NULL: unreadable) read
 * once for both databases. */
static int from_files(const char *etc, const char *nss, const char *db,
		      unsigned id, char **line)
{
	_cleanup_free_ char *db_path = xasprintf("%s/%s", etc, db);
	_cleanup_free_ char *conf = nss ? xstrdup(nss) : NULL;
	_cleanup_free_ char *text = NULL;
	size_t len;

	*line = NULL;
	if (!conf || !files_first(conf, db))
		return -ENOENT;
	if (read_file(db_path, ACCOUNT_FILE_MAX, &text, &len) < 0 ||
	    strlen(text) != len)
		return -ENOENT;
	return id_line(text, id, line);
}

/* nsswitch.conf under etc, whole, or NULL. */
static char *nss_read(const char *etc)
{
	_cleanup_free_ char *path = xasprintf("%s/nsswitch.conf", etc);
	char *text = NULL;
	size_t len;

	if (read_file(path, ACCOUNT_FILE_MAX, &text, &len) < 0)
		return NULL;
	if (strlen(text) != len) {
		free(text);
		return NULL;
	}
	return text;
}

int account_from_files(const char *etc, const char *db, unsigned id,
		       char **line)
{
	_cleanup_free_ char *nss = nss_read(etc);
	return from_files(etc, nss, db, id, line);
}

/* Field n (from 0) of a ':'-separated line, copied; NULL past the end. */
static char *field(const char *line, int n)
{
	const char *p = line;
	for (int i = 0; i < n; i++) {
		p = strchr(p, ':');
		if (!p)
			return NULL;
		p++;
	}
	size_t l = strcspn(p, ":");
	return xstrndup(p, l);
}

void account_lookup(const char *etc, uid_t uid, gid_t gid, struct account *a)
{
	_cleanup_free_ char *pl = NULL, *gl = NULL;
	_cleanup_free_ char *nss = nss_read(etc);

	*a = (struct account){0};
	if (from_files(etc, nss, "passwd", (unsigned)uid, &pl) == 0) {
		a->user = field(pl, 0);
		a->shell = field(pl, 6);
	} else {
		struct passwd *pw = getpwuid(uid);
		if (pw) {
			a->user = xstrdup(pw->pw_name);
			a->shell = pw->pw_shell ? xstrdup(pw->pw_shell) : NULL;
		}
	}
	if (a->shell && a->shell[0] != '/') {
		free(a->shell);
		a->shell = NULL;
	}
	if (a->user && !a->user[0]) {
		free(a->user);
		a->user = NULL;
	}
	if (from_files(etc, nss, "group", (unsigned)gid, &gl) == 0) {
		a->group = field(gl, 0);
	} else {
		struct group *gr = getgrgid(gid);
		if (gr)
			a->group = xstrdup(gr->gr_name);
	}
	if (a->group && !a->group[0]) {
		free(a->group);
		a->group = NULL;
	}
}

void account_free(struct account *a)
{
	free(a->user);
	free(a->shell);
	free(a->group);
	*a = (struct account){0};
}
