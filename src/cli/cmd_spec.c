/* lnk sandbox spec: a spec from flags, or a spec with its paths absolute
 * and flags applied (lnk-sandbox(1), SPECS). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/grants.h"
#include "common/util.h"
#include "spec/spec.h"
#include "store/paths.h"

static void usage(FILE *f)
{
	fputs(
	    "usage: lnk sandbox spec [--spec FILE] [grants]\n"
	    "\n"
	    "Prints a spec: from the grant flags, a spec to start from; with\n"
	    "--spec, that spec with the flags applied (a flag replaces the\n"
	    "file's key, --hide adds to it) and every path absolute.\n"
	    "\n"
	    "  lnk sandbox spec --write ~/code/app --internet-host '*' "
	    "--command node > app.toml\n"
	    "  lnk sandbox spec --spec app.toml\n"
	    "\n",
	    f);
	grants_help(f);
}

int cmd_spec(int argc, char **argv)
{
	struct grants g;
	struct lnk_err err = {0};
	int r = grants_parse("spec", argc, argv, GRANTS_SPEC, &g, &err);
	if (r < 0) {
		grants_free(&g);
		return grants_fail(r, &err);
	}
	if (g.help) {
		usage(stdout);
		grants_free(&g);
		return 0;
	}
	_cleanup_free_ char *home = NULL;
	r = paths_home(&home, &err);
	_cleanup_free_ char *cwd = getcwd(NULL, 0);
	if (r == 0 && !cwd)
		r = err_set(&err, -errno, "cannot read the working folder: %s",
			    strerror(errno));
	if (r < 0) {
		grants_free(&g);
		return grants_fail(r, &err);
	}
	struct policy p;
	r = grants_build_policy(&g, cwd, home, &p, &err);
	grants_free(&g);
	if (r == 0)
		r = spec_emit_check(&p, &err);
	if (r < 0) {
		policy_free(&p);
		return grants_fail(r, &err);
	}
	_cleanup_free_ char *text = spec_emit(&p);
	policy_free(&p);
	fputs(text, stdout);
	if (fflush(stdout) != 0) {
		warnx_("cannot write the spec: %s", strerror(errno));
		return LNK_EXIT_FAIL;
	}
	return 0;
}
