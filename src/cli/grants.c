/* Grant flags through the keys table; see grants.h. */
#include "cli/grants.h"

#include <errno.h>
#include <string.h>

#include "common/buf.h"
#include "spec/spec.h"

void grants_init(struct grants *g)
{
	memset(g, 0, sizeof(*g));
	policy_init(&g->flags);
}

void grants_free(struct grants *g)
{
	policy_free(&g->flags);
	free(g->spec);
	g->spec = NULL;
}

void grants_flag_names(unsigned allow, struct strv *out)
{
	const struct key_def *t = keys_table();
	for (size_t i = 0; i < K__COUNT; i++)
		if (t[i].flag)
			strv_push(out, t[i].flag);
	if (allow & GRANTS_SPEC)
		strv_push(out, "--spec");
	if (allow & GRANTS_YES)
		strv_push(out, "--yes");
	strv_push(out, "--help");
}

/* The value of --flag: after '=' or the next argument. */
static int value_of(int argc, char **argv, int *i, const char *name,
		    const char *eq, const char *metavar, const char **out,
		    struct lnk_err *err)
{
	if (eq) {
		*out = eq + 1;
		return 0;
	}
	if (*i + 1 >= argc)
		return err_set(err, -EINVAL, "option '%s' needs a %s", name,
			       metavar);
	*out = argv[++*i];
	return 0;
}

int grants_take(int argc, char **argv, int *i, unsigned allow, struct grants *g,
		struct lnk_err *err)
{
	const char *arg = argv[*i];
	if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
		g->help = true;
		(*i)++;
		return 1;
	}
	if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0')
		return 0;
	const char *eq = strchr(arg, '=');
	size_t nlen = eq ? (size_t)(eq - arg) : strlen(arg);
	char name[64];
	if (nlen >= sizeof(name))
		return 0;
	memcpy(name, arg, nlen);
	name[nlen] = '\0';
	int at = *i;
	const char *v = NULL;

	if ((allow & GRANTS_YES) && strcmp(name, "--yes") == 0) {
		if (eq)
			return err_set(err, -EINVAL,
				       "option '--yes' takes no value");
		g->yes = true;
		(*i)++;
		return 1;
	}
	if ((allow & GRANTS_SPEC) && strcmp(name, "--spec") == 0) {
		int r = value_of(argc, argv, &at, name, eq, "FILE", &v, err);
		if (r < 0)
			return r;
		if (!*v)
			return err_set(err, -EINVAL,
				       "option '--spec' needs a FILE");
		if (g->spec)
			return err_set(err, -EINVAL,
				       "--spec is given twice: one spec a "
				       "sandbox");
		g->spec = xstrdup(v);
		*i = at + 1;
		return 1;
	}
	const struct key_def *d = key_by_flag(name);
	if (!d)
		return 0;
	int r = value_of(argc, argv, &at, name, eq, d->metavar, &v, err);
	if (r < 0)
		return r;
	r = policy_add_flag(&g->flags, d->id, v, err);
	if (r < 0)
		return r;
	*i = at + 1;
	return 1;
}

static int unknown_option(const char *cmd, const char *arg, unsigned allow,
			  struct lnk_err *err)
{
	struct strv names = {0};
	grants_flag_names(allow, &names);
	char name[128];
	snprintf(name, sizeof(name), "%s", arg);
	char *eq = strchr(name, '=');
	if (eq)
		*eq = '\0';
	const char *best =
	    closest_word(name, (const char *const *)names.v, names.n);
	int r;
	if (best)
		r = err_set(err, -EINVAL,
			    "unknown option '%s' for 'lnk sandbox %s'; did you "
			    "mean '%s'?",
			    name, cmd, best);
	else
		r = err_set(err, -EINVAL,
			    "unknown option '%s' for 'lnk sandbox %s'; see "
			    "'lnk sandbox %s --help'",
			    name, cmd, cmd);
	strv_free(&names);
	return r;
}

int grants_parse(const char *cmd, int argc, char **argv, unsigned allow,
		 struct grants *g, struct lnk_err *err)
{
	grants_init(g);
	g->rest = argc;
	int i = 1;
	while (i < argc) {
		const char *arg = argv[i];
		if (strcmp(arg, "--") == 0) {
			if (!(allow & GRANTS_PROGRAM) && i + 1 < argc)
				return err_set(err, -EINVAL,
					       "'lnk sandbox %s' runs no "
					       "program: nothing goes after "
					       "'--'",
					       cmd);
			g->rest = i + 1;
			g->dashdash = true;
			return 0;
		}
		int r = grants_take(argc, argv, &i, allow, g, err);
		if (r < 0)
			return r;
		if (g->help)
			return 0;
		if (r > 0)
			continue;
		if (arg[0] == '-' && arg[1] != '\0')
			return unknown_option(cmd, arg, allow, err);
		if (allow & GRANTS_PROGRAM) {
			g->rest = i;
			return 0;
		}
		return err_set(err, -EINVAL,
			       "unexpected argument '%s' for 'lnk sandbox %s'; "
			       "see 'lnk sandbox %s --help'",
			       arg, cmd, cmd);
	}
	return 0;
}

int grants_build_policy(struct grants *g, const char *cwd, const char *home,
			struct policy *out, struct lnk_err *err)
{
	policy_init(out);
	int r;
	if (g->spec) {
		r = policy_load_spec(out, g->spec, err);
		if (r < 0)
			return r;
	}
	policy_merge_flags(out, &g->flags);
	return policy_resolve(out, cwd, home, err);
}

int grants_fail(int r, const struct lnk_err *err)
{
	warnx_("%s", err->msg);
	return r == -EINVAL ? LNK_EXIT_USAGE : LNK_EXIT_FAIL;
}

void grants_help(FILE *f)
{
	const struct key_def *t = keys_table();
	fputs("grants (each a key of a spec; see 'lnk sandbox permissions'):\n",
	      f);
	for (size_t i = 0; i < K__COUNT; i++) {
		if (!t[i].flag)
			continue;
		char lhs[64];
		snprintf(lhs, sizeof(lhs), "%s %s", t[i].flag, t[i].metavar);
		fprintf(f, "  %-24s ", lhs);
		grants_wrap(f, t[i].help, 27, 27);
	}
}

void grants_wrap(FILE *f, const char *text, int indent, int col)
{
	const char *p = text;
	bool first = true;
	while (*p) {
		const char *sp = strchr(p, ' ');
		int wl = sp ? (int)(sp - p) : (int)strlen(p);
		if (!first && col + 1 + wl > 79) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		} else if (!first) {
			fputc(' ', f);
			col++;
		}
		fwrite(p, 1, (size_t)wl, f);
		col += wl;
		first = false;
		p += wl;
		while (*p == ' ')
			p++;
	}
	fputc('\n', f);
}
