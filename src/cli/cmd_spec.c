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
	    "Prints a spec: from the grant flags, a spec to start from, with\n"
	    "the paths as written (~ stays ~; one under this folder becomes\n"
	    "relative, for a spec saved here); with --spec, that spec with\n"
	    "the flags applied (a flag replaces the file's key, --hide adds\n"
	    "to it) and every path absolute.\n"
	    "\n"
	    "  lnk sandbox spec --write ~/code/app --internet-host '*' "
	    "--command node > app.toml\n"
	    "  lnk sandbox spec --spec app.toml\n"
	    "\n",
	    f);
	grants_help(f);
}

/* A path as the person wrote it, for a spec saved in cwd: an absolute one
 * under cwd becomes relative to it (the spec's relative paths are its
 * folder's), anything else stays as written (~ stays ~), so the spec can
 * live in its repository and travel with it. */
static char *as_written(const char *e, const char *cwd)
{
	size_t n = strlen(cwd);

	if (e[0] == '/' && strncmp(e, cwd, n) == 0) {
		if (e[n] == '\0')
			return xstrdup(".");
		if (e[n] == '/' && e[n + 1])
			return xstrdup(e + n + 1);
	}
	return xstrdup(e);
}

/* The flags' paths as written, in place of the resolved ones: resolving
 * checked them; the spec keeps what the person meant. */
static void paths_as_written(struct policy *p, const struct policy *flags,
			     const char *cwd)
{
	for (size_t id = 0; id < K__COUNT; id++) {
		const struct key_def *d = key_def((enum key_id)id);
		const struct key_value *f = &flags->k[id];
		struct key_value *kv = &p->k[id];
		if ((d->type != KT_PATHS && id != K_COMMANDS_ALLOW) || !f->set)
			continue;
		bool set = kv->set, from_flag = kv->from_flag;
		policy_clear_key(kv);
		for (size_t i = 0; i < f->list.n; i++) {
			_cleanup_free_ char *w = as_written(f->list.v[i], cwd);
			policy_push(kv, w, (struct toml_pos){0});
		}
		kv->set = set;
		kv->from_flag = from_flag;
	}
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
	if (r == 0 && !g.spec)
		paths_as_written(&p, &g.flags, cwd);
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
