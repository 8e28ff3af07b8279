/* lnk sandbox changes [NAME] [--json]: what the last runs left in their
 * write folders that runs or is trusted later (lnk-sandbox(1), WHAT A RUN
 * LEFT). The reports are kept in lnk.db beside the log, the newest only
 * (changes/run.h); each is lnk's own text, escaped when it was made, and
 * escaped again here in case the file was changed since.
 *
 * Exit status: 0; 2 usage; 125 the database cannot be read. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/commands.h"
#include "common/buf.h"
#include "common/esc.h"
#include "common/util.h"
#include "net/grammar.h"
#include "store/db.h"
#include "store/paths.h"

/* Reports shown without a NAME: the last of each of this many runs. */
#define CHANGES_RUNS_SHOWN 20

static void usage(FILE *f)
{
	fputs(
	    "usage: lnk sandbox changes [NAME] [--json]\n"
	    "\n"
	    "Shows what the last runs (or the last run named NAME) left in\n"
	    "their write folders: how many files changed, and each one that\n"
	    "runs or is trusted later (a repository below the top and the\n"
	    "programs its config names, build files, configuration files that\n"
	    "are programs, modules that shadow Python's, .pth files, new\n"
	    "programs on PATH, links out of the folder), with what will run\n"
	    "it. Review those before you build, open the folder in an editor\n"
	    "or cd into it. A run says the same on its terminal when it ends\n"
	    "(run --changes=off|summary|full).\n"
	    "\n"
	    "  --json   one JSON object per run, a line each\n",
	    f);
}

struct out {
	bool json;
	size_t n;
	struct buf b;
};

static void on_report(const struct db_changes_row *r, void *ud)
{
	struct out *o = ud;
	o->n++;
	if (o->json) {
		/* lnk's own JSON, each value escaped when it was made */
		esc_append(&o->b, r->json, strlen(r->json), ESC_LINE);
		buf_putc(&o->b, '\n');
		return;
	}
	char when[32], nm[256];
	db_format_time((time_t)(r->ended_ms / 1000), when);
	buf_printf(&o->b, "%s%s, ended %s:\n", o->n > 1 ? "\n" : "",
		   esc_to(nm, sizeof(nm), r->sandbox), when);
	esc_append(&o->b, r->text, strlen(r->text), ESC_LINES);
}

int cmd_changes(int argc, char **argv, const struct cli_ctx *cx)
{
	static const char *const opts[] = {"--json", "--help", NULL};
	struct out o = {0};
	const char *name = NULL;
	bool names_only = false;
	for (int i = 1; i < argc; i++) {
		if (!names_only && is_help(argv[i])) {
			usage(stdout);
			return 0;
		}
		if (!names_only && strcmp(argv[i], "--json") == 0) {
			o.json = true;
			continue;
		}
		if (!names_only && strcmp(argv[i], "--") == 0) {
			names_only = true;
			continue;
		}
		if (!names_only && argv[i][0] == '-')
			return usage_unknown_option("changes", argv[i], opts);
		struct lnk_err err = {0};
		if (name) {
			warnx_("'lnk sandbox changes' takes one NAME, not '%s' "
			       "too; see 'lnk sandbox changes --help'",
			       argv[i]);
			return LNK_EXIT_USAGE;
		}
		if (sandbox_name_check(argv[i], strlen(argv[i]), &err) < 0) {
			warnx_("%s", err.msg);
			return LNK_EXIT_USAGE;
		}
		name = argv[i];
	}
	struct lnk_err err = {0};
	_cleanup_free_ char *path = paths_db(cx->home);
	struct db *db;
	int r = db_open(path, true, &db, &err);
	if (r == 0) {
		r = db_changes_read(db, name, name ? 1 : CHANGES_RUNS_SHOWN,
				    on_report, &o, &err);
		db_close(db);
	} else if (r == -ENOENT) {
		r = 0;
	}
	if (r < 0)
		diex(LNK_EXIT_FAIL, "%s", err.msg);
	if (!o.n && !o.json) {
		if (name) {
			char nm[256];
			printf("no report of what '%s' changed: it changed "
			       "nothing, or ran with --changes=off, or its "
			       "report is no longer kept\n",
			       esc_to(nm, sizeof(nm), name));
		} else {
			puts("no run has left changes in its write folders "
			     "yet");
		}
	}
	if (o.b.len)
		fwrite(o.b.p, 1, o.b.len, stdout);
	buf_free(&o.b);
	return 0;
}
