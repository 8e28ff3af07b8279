/* The report at the end of one run (changes.h, changes_run_*): stamp each
 * write folder before the program starts, walk them after it ended,
 * print on stderr and keep the report in lnk.db beside the log. Never
 * changes what lnk exits with: the program's status is the contract, so
 * every failure here is a warning.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "changes/changes.h"
#include "changes/run.h"

#include "common/buf.h"
#include "common/esc.h"
#include "common/notify.h"
#include "common/util.h"
#include "store/db.h"
#include "store/paths.h"

void changes_run_begin(struct changes_run *r, enum changes_mode mode,
		       const struct policy *pol)
{
	memset(r, 0, sizeof(*r));
	r->mode = mode;
	const struct strv *writes = policy_list(pol, K_FILES_WRITE);
	if (mode == CHANGES_OFF || writes->n == 0)
		return;
	/* a write folder inside another is walked on its own; what the
	 * program could not write changed by someone else */
	strv_copy(&r->skip, writes);
	strv_copy(&r->skip, &pol->always_hidden);
	strv_copy(&r->skip, policy_list(pol, K_FILES_HIDE));
	strv_copy(&r->skip, policy_list(pol, K_FILES_READ));
	r->n = writes->n;
	r->tops = writes->v;
	r->since = xcalloc(r->n, sizeof(*r->since));
}

/* An unnamed file made and freed in each write folder (changes_stamp):
 * 40 to 100 us on ext4, so taken while bwrap makes the sandbox, where it
 * costs the start nothing, not before bwrap starts. */
void changes_run_stamp(struct changes_run *r)
{
	if (!r || r->stamped)
		return;
	for (size_t i = 0; i < r->n; i++)
		changes_stamp(r->tops[i], &r->since[i]);
	r->stamped = true;
}

static void path_split(char *const *env, struct strv *out)
{
	for (size_t i = 0; env && env[i]; i++) {
		if (strncmp(env[i], "PATH=", 5) != 0)
			continue;
		_cleanup_free_ char *copy = xstrdup(env[i] + 5);
		char *save = NULL;
		for (char *t = strtok_r(copy, ":", &save); t;
		     t = strtok_r(NULL, ":", &save))
			if (t[0] == '/')
				strv_push(out, t);
		return;
	}
}

/* The folders of the code search paths in env, each with its variable
 * (a static name). */
static void code_split(char *const *env, struct strv *dirs, const char ***vars,
		       size_t *n)
{
	static const char *const names[] = {"PYTHONPATH", "PERL5LIB", "PERLLIB",
					    "RUBYLIB"};
	for (size_t k = 0; k < ARRAY_SIZE(names); k++) {
		size_t len = strlen(names[k]);
		for (size_t i = 0; env && env[i]; i++) {
			if (strncmp(env[i], names[k], len) != 0 ||
			    env[i][len] != '=')
				continue;
			_cleanup_free_ char *copy = xstrdup(env[i] + len + 1);
			char *save = NULL;
			for (char *t = strtok_r(copy, ":", &save); t;
			     t = strtok_r(NULL, ":", &save)) {
				if (t[0] != '/')
					continue;
				strv_push(dirs, t);
				*vars =
				    xrealloc(*vars, dirs->n * sizeof(**vars));
				(*vars)[dirs->n - 1] = names[k];
			}
		}
	}
	*n = dirs->n;
}

void changes_run_end(struct changes_run *r, const char *sandbox,
		     const char *home, char *const *host_env)
{
	/* Never stamped (the program never ran): nothing to compare with,
	 * and every entry would count as changed. */
	if (r->mode == CHANGES_OFF || r->n == 0 || !r->stamped) {
		free(r->since);
		r->since = NULL;
		strv_free(&r->skip);
		return;
	}
	struct changes_bounds b;
	changes_bounds_default(&b);
	b.list = r->mode == CHANGES_FULL;
	struct strv path = {0}, code = {0};
	const char **code_vars = NULL;
	size_t ncode = 0;
	path_split(host_env, &path);
	code_split(host_env, &code, &code_vars, &ncode);
	struct changes_folder *f = xcalloc(r->n, sizeof(*f));
	for (size_t i = 0; i < r->n; i++) {
		struct lnk_err err = {0};
		struct changes_where in = {
		    .path_dirs = (const char *const *)path.v,
		    .npath = path.n,
		    .skip = (const char *const *)r->skip.v,
		    .nskip = r->skip.n,
		    .code_dirs = (const char *const *)code.v,
		    .code_vars = code_vars,
		    .ncode = ncode,
		};
		if (changes_walk(r->tops[i], r->since[i], &in, &b, &f[i],
				 &err) < 0)
			warnx_("%s", err.msg);
	}
	struct buf text = {0}, json = {0};
	changes_text(&text, f, r->n, r->mode, home, CHANGES_SHOWN, sandbox);
	if (text.len)
		write_all(STDERR_FILENO, text.p, text.len);
	/* Nobody at a terminal (a job, an agent in the background) and a
	 * desktop session: what will run later is said there too. */
	size_t flagged = 0;
	for (size_t i = 0; i < r->n; i++)
		flagged += f[i].nflags;
	if (flagged && !isatty(STDERR_FILENO)) {
		char title[160], body[256], q[96];
		snprintf(title, sizeof(title),
			 "lnk: sandbox %s left what runs later",
			 esc_to(q, sizeof(q), sandbox ? sandbox : "?"));
		snprintf(body, sizeof(body),
			 "%zu entr%s in its write folders will run or be "
			 "trusted later: 'lnk sandbox changes %s' names them.",
			 flagged, flagged == 1 ? "y" : "ies", q);
		(void)desktop_notify(host_env, title, body, false);
	}
	if (changes_any(f, r->n)) {
		struct timespec now;
		clock_gettime(CLOCK_REALTIME, &now);
		int64_t ended =
		    (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
		struct buf stored = {0};
		changes_text(&stored, f, r->n, CHANGES_SUMMARY, home, 0, NULL);
		changes_json(&json, sandbox, ended, f, r->n);
		_cleanup_free_ char *dbp = paths_db(home);
		struct db *db = NULL;
		struct lnk_err err = {0};
		if (db_open(dbp, false, &db, &err) < 0 ||
		    db_changes_put(db, sandbox ? sandbox : "", ended, stored.p,
				   json.p, CHANGES_KEEP, &err) < 0)
			warnx_("the report of changes is not kept: %s",
			       err.msg);
		db_close(db);
		buf_free(&stored);
	}
	buf_free(&text);
	buf_free(&json);
	for (size_t i = 0; i < r->n; i++)
		changes_folder_free(&f[i]);
	free(f);
	strv_free(&path);
	strv_free(&code);
	free(code_vars);
	strv_free(&r->skip);
	free(r->since);
	r->since = NULL;
}
