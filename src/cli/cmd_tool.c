/* lnk sandbox tool add|list|remove: the calls of each tool that run at
 * once, without asking, kept in ~/.lnk/sandbox/tools.toml (tools/store.h;
 * lnk-sandbox(1), TOOLS AND ASKING).
 *
 * Exit status: 0; 1 remove found nothing to remove; 2 usage; 125 lnk
 * could not read or write the file. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "common/buf.h"
#include "common/esc.h"
#include "common/util.h"
#include "store/paths.h"
#include "tools/allow.h"
#include "tools/store.h"

static void usage(FILE *f)
{
	fputs(
	    "usage: lnk sandbox tool add TOOL --allow CALL\n"
	    "       lnk sandbox tool list [--json]\n"
	    "       lnk sandbox tool remove TOOL [--allow CALL]\n"
	    "\n"
	    "The calls of a tool that run at once, without asking, in every\n"
	    "sandbox that grants the tool (--tool TOOL, [tools] allow). A tool\n"
	    "runs outside the sandbox, as you; other calls of it ask, or are\n"
	    "refused when there is no one to ask. Kept in\n"
	    "~/.lnk/sandbox/tools.toml, which you may edit.\n"
	    "\n"
	    "  --allow CALL   the whole call, its arguments as words: 'pr list'\n"
	    "                 is exactly 'gh pr list'; '*' is any one argument,\n"
	    "                 and as the last word any further ones ('pr view\n"
	    "                 *'); '*' alone is every call\n"
	    "  --json         list: [{\"tool\": \"gh\", \"allow\": [...]}, ...]\n",
	    f);
}

/* what: the message after the quoted argument. */
static int bad(const char *arg, const char *what)
{
	char q[160];
	warnx_("%s%s", esc_to(q, sizeof(q), arg), what);
	return LNK_EXIT_USAGE;
}

/* TOOL [--allow CALL]: 0 or the exit status. */
static int parse(int argc, char **argv, const char **tool, const char **call)
{
	for (int i = 2; i < argc; i++) {
		if (is_help(argv[i])) {
			usage(stdout);
			return 0;
		}
		if (strcmp(argv[i], "--allow") == 0 && i + 1 < argc && !*call)
			*call = argv[++i];
		else if (strncmp(argv[i], "--allow=", 8) == 0 && !*call)
			*call = argv[i] + 8;
		else if (argv[i][0] == '-' && argv[i][1])
			return bad(argv[i], ": give 'lnk sandbox tool add TOOL "
					    "--allow CALL' (one --allow)");
		else if (!*tool)
			*tool = argv[i];
		else
			return bad(argv[i], ": one tool at a time");
	}
	if (!*tool) {
		usage(stderr);
		return LNK_EXIT_USAGE;
	}
	if (!tools_name_ok(*tool))
		return bad(*tool, " is not a tool's name: letters, digits, "
				  "'.', '_', '+' and '-', as the program is "
				  "named on PATH");
	return -1;
}

static int list(int argc, char **argv, const char *path)
{
	struct tools_store s;
	struct lnk_err err = {0};
	bool json = false;

	for (int i = 2; i < argc; i++) {
		if (is_help(argv[i])) {
			usage(stdout);
			return 0;
		}
		if (strcmp(argv[i], "--json") != 0)
			return bad(argv[i], ": tool list takes only --json");
		json = true;
	}
	if (tools_store_load(path, &s, &err) < 0)
		diex(LNK_EXIT_FAIL, "%s", err.msg);
	struct buf b = {0};
	if (json) {
		buf_putc(&b, '[');
		for (size_t i = 0; i < s.n; i++) {
			buf_puts(&b, i ? ",{\"tool\":" : "{\"tool\":");
			buf_json_str(&b, s.e[i].tool, strlen(s.e[i].tool));
			buf_puts(&b, ",\"allow\":[");
			for (size_t j = 0; j < s.e[i].calls.n; j++) {
				const char *c = s.e[i].calls.v[j];
				if (j)
					buf_putc(&b, ',');
				buf_json_str(&b, c, strlen(c));
			}
			buf_puts(&b, "]}");
		}
		buf_puts(&b, "]\n");
	} else if (s.n) {
		size_t w = 4;
		for (size_t i = 0; i < s.n; i++)
			if (strlen(s.e[i].tool) > w)
				w = strlen(s.e[i].tool);
		buf_printf(&b, "%-*s  ALLOW\n", (int)w, "TOOL");
		for (size_t i = 0; i < s.n; i++)
			for (size_t j = 0; j < s.e[i].calls.n; j++) {
				_cleanup_free_ char *c =
				    esc_dup(s.e[i].calls.v[j]);
				buf_printf(&b, "%-*s  %s\n", (int)w,
					   s.e[i].tool, c);
			}
	} else {
		buf_puts(&b, "no tool calls are stored; 'lnk sandbox tool add "
			     "TOOL --allow CALL' adds one\n");
	}
	fwrite(b.p, 1, b.len, stdout);
	buf_free(&b);
	tools_store_free(&s);
	return 0;
}

int cmd_tool(int argc, char **argv, const struct cli_ctx *cx)
{
	const char *verb = argc > 1 ? argv[1] : NULL;
	const char *tool = NULL, *call = NULL;
	_cleanup_free_ char *path = tools_store_path(cx->home);
	_cleanup_free_ char *norm = NULL;
	struct tools_store s;
	struct lnk_err err = {0};
	int rc, r;

	if (!verb || is_help(verb)) {
		usage(verb ? stdout : stderr);
		return verb ? 0 : LNK_EXIT_USAGE;
	}
	if (strcmp(verb, "list") == 0)
		return list(argc, argv, path);
	if (strcmp(verb, "add") != 0 && strcmp(verb, "remove") != 0) {
		const char *cands[] = {"add", "list", "remove", NULL};
		return usage_unknown_option("tool", verb, cands);
	}
	if ((rc = parse(argc, argv, &tool, &call)) >= 0)
		return rc;
	bool add = strcmp(verb, "add") == 0;
	if (add && !call)
		return bad(tool, ": give the call that runs at once: --allow "
				 "'CALL', its arguments as words ('pr list'), "
				 "'*' for a free one");
	if (call && tools_call_normalize(call, &norm, &err) < 0) {
		warnx_("--allow: %s", err.msg);
		return LNK_EXIT_USAGE;
	}
	if (tools_store_load(path, &s, &err) < 0)
		diex(LNK_EXIT_FAIL, "%s", err.msg);
	if (add) {
		r = tools_store_add(&s, tool, norm);
		if (r == -EEXIST) {
			_cleanup_free_ char *q = esc_dup(norm);
			printf("%s: '%s' was allowed already\n", tool, q);
		}
	} else {
		r = tools_store_remove(&s, tool, norm);
		if (r == -ENOENT) {
			_cleanup_free_ char *q = norm ? esc_dup(norm) : NULL;
			if (q)
				warnx_("%s: no stored call '%s' (see 'lnk "
				       "sandbox tool list')",
				       tool, q);
			else
				warnx_("%s: no stored calls (see 'lnk sandbox "
				       "tool list')",
				       tool);
			tools_store_free(&s);
			return 1;
		}
	}
	_cleanup_free_ char *dir = paths_sandbox_dir(cx->home);
	if (r == 0 && (paths_ensure_dir(dir, &err) < 0 ||
		       tools_store_save(path, &s, &err) < 0)) {
		tools_store_free(&s);
		diex(LNK_EXIT_FAIL, "%s", err.msg);
	}
	if (r == 0 && add) {
		_cleanup_free_ char *w = tools_pattern_warning(tool, norm);
		_cleanup_free_ char *q = esc_dup(norm);
		printf("%s: the call '%s' runs at once in a sandbox that "
		       "grants %s (--tool %s)\n",
		       tool, q, tool, tool);
		/* Said once, where the person chose it: what a free
		 * argument gives the program. */
		if (w)
			warnx_("%s", w);
	} else if (r == 0) {
		_cleanup_free_ char *q = norm ? esc_dup(norm) : NULL;
		printf("%s: %s%s%s removed\n", tool, q ? "'" : "every call",
		       q ? q : "", q ? "'" : "");
	}
	tools_store_free(&s);
	return 0;
}
