/* What bubblewrap would refuse, found before it starts.
 *
 * bwrap fails on a bind it cannot make or a folder it cannot enter with
 * its own message and exit status 1, which the user would take for the
 * program's. Each grant is checked here with the user's own rights
 * (access(2) uses the real ids, which are the user's: lnk is not setuid),
 * so the refusal names the grant and exits 2 or 125 before anything
 * starts. This is a courtesy, not a guard: bwrap and Landlock still
 * enforce, so a race with a chmod only brings back bwrap's message.
 */
#include "launch/grantcheck.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launch/bwrap.h"

/* strerror's text, lowercase as lnk's messages are: "permission denied". */
static const char *why(int e, char buf[128])
{
	snprintf(buf, 128, "%s", strerror(e));
	buf[0] = (char)tolower((unsigned char)buf[0]);
	return buf;
}

static int check_write(const struct policy *p, size_t i, struct lnk_err *err)
{
	const char *d = policy_list(p, K_FILES_WRITE)->v[i];
	_cleanup_free_ char *o = policy_origin(p, K_FILES_WRITE, i);
	struct stat st;
	char eb[128];

	if (stat(d, &st) < 0)
		return err_set(err, -EACCES, "%s: cannot use '%s': %s", o, d,
			       why(errno, eb));
	if (!S_ISDIR(st.st_mode))
		return err_set(err, -EINVAL,
			       "%s: '%s' is a file: --write takes a folder; "
			       "use --read for a file",
			       o, d);
	if (access(d, W_OK | X_OK) < 0)
		return err_set(err, -EACCES,
			       "%s: you cannot write '%s' (%s); grant a "
			       "folder you can write",
			       o, d, why(errno, eb));
	return 0;
}

static int check_read(const struct policy *p, size_t i, struct lnk_err *err)
{
	const char *f = policy_list(p, K_FILES_READ)->v[i];
	_cleanup_free_ char *o = policy_origin(p, K_FILES_READ, i);
	struct stat st;
	char eb[128];

	if (stat(f, &st) < 0)
		return err_set(err, -EACCES, "%s: cannot use '%s': %s", o, f,
			       why(errno, eb));
	if (access(f, S_ISDIR(st.st_mode) ? R_OK | X_OK : R_OK) < 0)
		return err_set(err, -EACCES,
			       "%s: you cannot read '%s' (%s); grant only "
			       "what you can read",
			       o, f, why(errno, eb));
	return 0;
}

/* A grant that a --hide of the very same path covers would show an empty
 * folder (and bwrap could not enter it): one of the two is a mistake. A
 * grant inside a hidden folder is fine: it is mounted over the hiding. */
static int check_hidden(const struct policy *p, enum key_id id,
			struct lnk_err *err)
{
	const struct strv *g = policy_list(p, id);
	const struct strv *h = policy_list(p, K_FILES_HIDE);

	for (size_t i = 0; i < g->n; i++)
		for (size_t j = 0; j < h->n; j++)
			if (strcmp(g->v[i], h->v[j]) == 0) {
				_cleanup_free_ char *o =
				    policy_origin(p, id, i);
				_cleanup_free_ char *oh =
				    policy_origin(p, K_FILES_HIDE, j);
				return err_set(err, -EINVAL,
					       "%s and %s both name '%s': it "
					       "cannot be granted and hidden; "
					       "remove one",
					       o, oh, g->v[i]);
			}
	return 0;
}

int grantcheck(const struct policy *p, struct lnk_err *err)
{
	int r;

	if ((r = check_hidden(p, K_FILES_WRITE, err)) < 0 ||
	    (r = check_hidden(p, K_FILES_READ, err)) < 0)
		return r;
	for (size_t i = 0; i < policy_list(p, K_FILES_WRITE)->n; i++)
		if ((r = check_write(p, i, err)) < 0)
			return r;
	for (size_t i = 0; i < policy_list(p, K_FILES_READ)->n; i++)
		if ((r = check_read(p, i, err)) < 0)
			return r;
	return 0;
}

bool grantcheck_inside_sandbox(void)
{
	return access(BWRAP_INIT_PATH, F_OK) == 0;
}
