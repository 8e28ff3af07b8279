/* lnk sandbox permissions: each section of a spec, its keys and their
 * flags, from the keys table (lnk-sandbox(1), GRANTS). */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/grants.h"
#include "common/buf.h"
#include "common/util.h"
#include "policy/dotfiles.h"
#include "policy/keys.h"

static void usage(FILE *f)
{
	fputs(
	    "usage: lnk sandbox permissions [--json]\n"
	    "\n"
	    "Lists each section of a spec and its keys: the flag that sets\n"
	    "each, what it takes, and what it opens. A section a spec leaves\n"
	    "out stays closed.\n",
	    f);
}

static void key_out(FILE *f, const struct key_def *d)
{
	char flag[64];
	if (d->flag)
		snprintf(flag, sizeof(flag), "%s %s", d->flag, d->metavar);
	else
		snprintf(flag, sizeof(flag), "(spec only)");
	fprintf(f, "  %-16s %-28s %s\n    ", d->key, flag,
		key_toml_type(d->type));
	grants_wrap(f, d->help, 4, 4);
}

static void text_out(FILE *f)
{
	const struct key_def *t = keys_table();
	const char *const *secs = keys_sections();
	fputs("A spec is a TOML file; its sections are the sandbox's only "
	      "grants,\nand a section left out stays closed. Every flag is a "
	      "key.\n\n",
	      f);
	fputs("(top level)\n", f);
	for (size_t i = 0; i < K__COUNT; i++)
		if (!t[i].section)
			key_out(f, &t[i]);
	for (size_t s = 0; secs[s]; s++) {
		fprintf(f, "\n[%s]\n", secs[s]);
		for (size_t i = 0; i < K__COUNT; i++) {
			if (!t[i].section || strcmp(t[i].section, secs[s]) != 0)
				continue;
			key_out(f, &t[i]);
			if (t[i].id != K_FILES_WRITE_DOT_FILES)
				continue;
			fputs(
			    "    what runs outside, kept read only at the top "
			    "of each write folder (besides: a new git\n"
			    "    repository, submodules and worktrees, "
			    "core.hooksPath, every dot name at the top\n"
			    "    of the home folder; lnk-sandbox(1), FILES "
			    "THAT RUN OUTSIDE):\n",
			    f);
			size_t n;
			const struct dot_file *d = dot_files(&n);
			for (size_t j = 0; j < n; j++)
				fprintf(f, "      %-24s %s\n", d[j].name,
					d[j].why);
		}
	}
}

static void json_out(FILE *f)
{
	const struct key_def *t = keys_table();
	struct buf b = {0};
	buf_puts(&b, "{\"sections\":[");
	const char *const *secs = keys_sections();
	for (size_t s = 0; secs[s]; s++) {
		if (s)
			buf_putc(&b, ',');
		buf_json_str(&b, secs[s], strlen(secs[s]));
	}
	buf_puts(&b, "],\"keys\":[");
	for (size_t i = 0; i < K__COUNT; i++) {
		if (i)
			buf_putc(&b, ',');
		buf_puts(&b, "{\"section\":");
		if (t[i].section)
			buf_json_str(&b, t[i].section, strlen(t[i].section));
		else
			buf_puts(&b, "null");
		buf_puts(&b, ",\"key\":");
		buf_json_str(&b, t[i].key, strlen(t[i].key));
		buf_puts(&b, ",\"flag\":");
		if (t[i].flag)
			buf_json_str(&b, t[i].flag, strlen(t[i].flag));
		else
			buf_puts(&b, "null");
		buf_puts(&b, ",\"metavar\":");
		if (t[i].metavar)
			buf_json_str(&b, t[i].metavar, strlen(t[i].metavar));
		else
			buf_puts(&b, "null");
		const char *ty = key_toml_type(t[i].type);
		buf_puts(&b, ",\"type\":");
		buf_json_str(&b, ty, strlen(ty));
		const char *m = t[i].merge == MERGE_ADD ? "add" : "replace";
		buf_puts(&b, ",\"merge\":");
		buf_json_str(&b, m, strlen(m));
		buf_puts(&b, ",\"help\":");
		buf_json_str(&b, t[i].help, strlen(t[i].help));
		buf_putc(&b, '}');
	}
	buf_puts(&b, "],\"dot_files\":[");
	size_t n;
	const struct dot_file *d = dot_files(&n);
	for (size_t j = 0; j < n; j++) {
		if (j)
			buf_putc(&b, ',');
		buf_puts(&b, "{\"name\":");
		buf_json_str(&b, d[j].name, strlen(d[j].name));
		buf_puts(&b, ",\"why\":");
		buf_json_str(&b, d[j].why, strlen(d[j].why));
		buf_putc(&b, '}');
	}
	buf_puts(&b, "]}\n");
	fputs(b.p, f);
	buf_free(&b);
}

int cmd_permissions(int argc, char **argv)
{
	bool json = false;
	int rc = cli_json_only("permissions", argc, argv, usage, &json);
	if (rc >= 0)
		return rc;
	if (json)
		json_out(stdout);
	else
		text_out(stdout);
	return fflush(stdout) == 0 ? 0 : LNK_EXIT_FAIL;
}
