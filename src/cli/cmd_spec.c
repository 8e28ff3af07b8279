/* lnk sandbox spec: a spec from flags, or a spec with its paths absolute
 * and flags applied (lnk-sandbox(1), SPECS). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/grants.h"
#include "common/util.h"
#include "launch/commands.h"
#include "launch/env.h"
#include "launch/seatbelt.h"
#include "spec/spec.h"
#include "store/paths.h"
#include "wire/wire.h"

static void usage(FILE *f)
{
	fputs(
	    "usage: lnk sandbox spec [--seatbelt] [--spec FILE] [grants]\n"
	    "\n"
	    "Prints a spec: from the grant flags, a spec to start from, with\n"
	    "the paths as written (~ stays ~; one under this folder becomes\n"
	    "relative, for a spec saved here); with --spec, that spec with\n"
	    "the flags applied (a flag replaces the file's key, --hide adds\n"
	    "to it) and every path absolute.\n"
	    "\n"
	    "  --seatbelt   print the macOS Seatbelt profile of the sandbox\n"
	    "               instead (SBPL, for sandbox-exec -f), its paths\n"
	    "               and [commands] resolved on this machine\n"
	    "\n"
	    "  lnk sandbox spec --write ~/code/app --internet-host '*' "
	    "--command node > app.toml\n"
	    "  lnk sandbox spec --spec app.toml\n"
	    "  lnk sandbox spec --seatbelt --spec app.toml > app.sb\n"
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

/* The Seatbelt profile of p, as the macOS launcher builds it but for the
 * parts only a run has: no sandbox folder (TMPDIR), no terminal (so no
 * ioctl on any). A network grant is refused: no wire runs on macOS. */
static int print_seatbelt(const struct policy *p, const char *home)
{
	struct lnk_err err = {0};
	struct strv files = {0}, folders = {0};
	_cleanup_free_ char *text = NULL;
	_cleanup_free_ char *home_real = realpath(home, NULL);
	int r = seatbelt_refusals(p, &err), ret = LNK_EXIT_FAIL;

	if (r < 0) {
		warnx_("%s", err.msg);
		return LNK_EXIT_USAGE;
	}
	if (!policy_any_command(p))
		r = commands_allowed(policy_list(p, K_COMMANDS_ALLOW),
				     ENV_SANDBOX_PATH, &files, &folders, &err);
	if (r == 0) {
		struct seatbelt_in in = {
		    .pol = p,
		    .home = home,
		    .home_real = home_real,
		    .exec_files = &files,
		    .exec_folders = &folders,
		};
		r = seatbelt_build(&in, &text, &err);
	}
	strv_free(&files);
	strv_free(&folders);
	if (r < 0) {
		warnx_("%s", err.msg);
		return r == -EINVAL || r == -ENOTDIR || r == -EISDIR
			   ? LNK_EXIT_USAGE
			   : LNK_EXIT_FAIL;
	}
	fputs(text, stdout);
	if (fflush(stdout) != 0) {
		warnx_("cannot write the profile: %s", strerror(errno));
		return ret;
	}
	return 0;
}

int cmd_spec(int argc, char **argv, const struct cli_ctx *cx)
{
	(void)cx; /* no first steps (main.c) */
	struct grants g;
	struct lnk_err err = {0};
	bool seatbelt = false;
	int r = 0;

	/* grants_parse's loop, with --seatbelt beside the grant flags. */
	grants_init(&g);
	for (int i = 1; i < argc && r >= 0 && !g.help;) {
		const char *a = argv[i];
		if (strcmp(a, "--seatbelt") == 0) {
			seatbelt = true;
			i++;
			continue;
		}
		if (strcmp(a, "--") == 0) {
			if (i + 1 < argc)
				r = err_set(&err, -EINVAL,
					    "'lnk sandbox spec' runs no "
					    "program: nothing goes after '--'");
			break;
		}
		r = grants_take(argc, argv, &i, GRANTS_SPEC, &g, &err);
		if (r != 0)
			continue;
		if (a[0] == '-' && a[1] != '\0') {
			/* "did you mean" among every flag spec takes */
			struct strv own = {0};
			grants_flag_names(GRANTS_SPEC, &own);
			strv_push(&own, "--seatbelt");
			int rc = usage_unknown_option(
			    "spec", a, (const char *const *)own.v);
			strv_free(&own);
			grants_free(&g);
			return rc;
		}
		r = err_set(&err, -EINVAL,
			    "unexpected argument '%s' for 'lnk sandbox spec'; "
			    "see 'lnk sandbox spec --help'",
			    a);
	}
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
	if (seatbelt) {
		grants_free(&g);
		if (r < 0)
			return grants_fail(r, &err);
		r = print_seatbelt(&p, home);
		policy_free(&p);
		return r;
	}
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
