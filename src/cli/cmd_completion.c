/* lnk sandbox completion SHELL, and lnk sandbox complete KIND: the shell
 * completions, made from the command table (main.c: each row's options)
 * and the keys table (policy/keys.h: every grant flag), so a new command,
 * option or key completes without anyone touching a script.
 *
 * The build runs `lnk sandbox completion bash|zsh|fish` and installs what it
 * prints (completions/meson.build). The scripts are static text but for
 * the values only lnk knows, such as the names of the running sandboxes:
 * for those they run `lnk sandbox complete KIND`, which prints one per
 * line, given the positional words typed so far (`answer` completes an
 * ask's ID, then yes or no; `tool` its verbs, then for `remove` the tools
 * stored). A new kind is one more case in complete_kind() below and
 * "@kind" in a command's options.
 *
 * Threat: a completion script runs in the user's interactive shell, with
 * what lnk prints as its input. Everything a script holds is a constant of
 * lnk's tables, checked here to be made only of characters no shell treats
 * specially; the names `complete` prints are sandbox names, printed only
 * when they keep to the name grammar; and the scripts take them as data,
 * never through eval or compgen -W (which would expand $(...) in them).
 *
 * Both commands are left out of `lnk sandbox --help` (no summary): they
 * are for the shell, not for a person. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "common/buf.h"
#include "common/util.h"
#include "policy/keys.h"
#include "store/paths.h"
#include "store/registry.h"
#include "tools/allow.h"
#include "tools/asks.h"
#include "tools/store.h"

/* One option of a command, as the completions see it. */
struct copt {
	char name[64]; /* "--write", "-f" */
	char kind[32]; /* "" no value; "dir", "file", "cmd", "word", "@x" */
};

struct ccmd {
	const char *name, *summary;
	struct copt o[64];
	size_t n;
	char pos[32]; /* "@x": positional arguments of that kind */
	bool program; /* "--": a program and its arguments follow */
};

/* A word a script holds unquoted: letters, digits, '-', '_', '.', '@'. */
static bool plain(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!(('a' <= *s && *s <= 'z') || ('A' <= *s && *s <= 'Z') ||
		      ('0' <= *s && *s <= '9') || strchr("-_.@", *s)))
			return false;
	return true;
}

/* What a flag's value completes to, from its metavar in the options of
 * the command table ("DIR", "FILE", "CMD", "@kind"; others are words). */
static void kind_of_metavar(const char *mv, char out[32])
{
	if (strcmp(mv, "DIR") == 0)
		snprintf(out, 32, "dir");
	else if (strcmp(mv, "FILE") == 0)
		snprintf(out, 32, "file");
	else if (strcmp(mv, "CMD") == 0)
		snprintf(out, 32, "cmd");
	else if (mv[0] == '@')
		snprintf(out, 32, "%s", mv);
	else
		snprintf(out, 32, "word");
}

static void add_opt(struct ccmd *c, const char *name, const char *kind)
{
	if (c->n == ARRAY_SIZE(c->o) || !plain(name) ||
	    (kind[0] && !plain(kind)))
		diex(LNK_EXIT_FAIL,
		     "completion: option '%s' of '%s' is not a plain word",
		     name, c->name);
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->o[i].name, name) == 0)
			return;
	snprintf(c->o[c->n].name, sizeof(c->o[0].name), "%s", name);
	snprintf(c->o[c->n].kind, sizeof(c->o[0].kind), "%s", kind);
	c->n++;
}

/* The key flags: folders complete as folders, programs as commands. */
static void add_keys(struct ccmd *c)
{
	const struct key_def *t = keys_table();
	for (size_t i = 0; i < K__COUNT; i++) {
		if (!t[i].flag)
			continue;
		const char *kind = "word";
		switch (t[i].type) {
		case KT_PATHS:
			kind = "dir";
			break;
		case KT_COMMANDS:
			kind = "cmd";
			break;
		case KT_NAME:
		case KT_CHANGES:
		case KT_VERSION:
		case KT_HOSTS:
		case KT_LAN:
		case KT_PORTS:
		case KT_TOOLS:
		case KT_URLS:
		case KT_MODELS:
		case KT_ENV:
		case KT_SIZE:
		case KT_COUNT:
			break;
		}
		add_opt(c, t[i].flag, kind);
	}
}

/* A row's options: words separated by spaces, each "--flag", "--flag=META",
 * "@kind" (positional arguments), "+keys" (every key flag) or "--". */
static void parse_row(const struct command *row, struct ccmd *c)
{
	memset(c, 0, sizeof(*c));
	c->name = row->name;
	c->summary = row->summary;
	if (!plain(row->name))
		diex(LNK_EXIT_FAIL,
		     "completion: command '%s' is not a plain "
		     "word",
		     row->name);
	_cleanup_free_ char *s = xstrdup(row->opts ? row->opts : "");
	char *save = NULL;
	for (char *w = strtok_r(s, " ", &save); w;
	     w = strtok_r(NULL, " ", &save)) {
		if (strcmp(w, "+keys") == 0) {
			add_keys(c);
		} else if (strcmp(w, "--") == 0) {
			c->program = true;
		} else if (w[0] == '@') {
			if (!plain(w))
				diex(LNK_EXIT_FAIL, "completion: '%s'", w);
			snprintf(c->pos, sizeof(c->pos), "%s", w);
		} else {
			char kind[32] = "";
			char *eq = strchr(w, '=');
			if (eq) {
				*eq = '\0';
				kind_of_metavar(eq + 1, kind);
			}
			add_opt(c, w, kind);
		}
	}
	add_opt(c, "--help", "");
	add_opt(c, "-h", "");
}

/* The visible commands (a row without a summary is for the shell). */
static size_t load(struct ccmd **out)
{
	size_t n;
	const struct command *t = commands_table(&n);
	struct ccmd *v = xcalloc(n, sizeof(*v));
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (t[i].summary)
			parse_row(&t[i], &v[k++]);
	*out = v;
	return k;
}

/* A summary inside single quotes: every ' made '\'' (sh) or \' (fish). */
static void put_quoted(struct buf *b, const char *s, const char *quote)
{
	for (; *s; s++)
		if (*s == '\'')
			buf_puts(b, quote);
		else
			buf_putc(b, *s);
}

static const char HEAD[] =
    "# generated by 'lnk sandbox completion %s' from lnk's command and\n"
    "# keys tables; do not edit (src/cli/cmd_completion.c)\n";

/* What bash and zsh write differently in put_cmd_arms. */
struct arm_words {
	const char *word;	/* the word being completed */
	const char *offer;	/* before the option names */
	const char *offer_end;	/* after them */
	const char *values_end; /* after "_lnk_values KIND" */
};
static const struct arm_words bash_arms = {
    .word = "$cur",
    .offer = "COMPREPLY=($(compgen -W '",
    .offer_end = "' -- \"$cur\"))",
    .values_end = " \"$cur\" \"${COMP_WORDS[@]:3:COMP_CWORD-3}\"",
};
static const struct arm_words zsh_arms = {
    .word = "$PREFIX",
    .offer = "compadd -- ",
    .offer_end = "",
    .values_end = " \"${(@)words[4,CURRENT-1]}\"",
};

/* One case arm per command, the same in bash and zsh: its options (and
 * "--" where a program follows) for a word that starts with '-', else the
 * values its operand takes. The names are lnk's own (plain() checked). */
static void put_cmd_arms(struct buf *b, const struct ccmd *c, size_t n,
			 const struct arm_words *w)
{
	for (size_t i = 0; i < n; i++) {
		buf_printf(b, "\t%s)\n\t\tif [[ %s == -* ]]; then\n\t\t\t%s",
			   c[i].name, w->word, w->offer);
		for (size_t j = 0; j < c[i].n; j++)
			buf_printf(b, "%s%s", j ? " " : "", c[i].o[j].name);
		if (c[i].program)
			buf_puts(b, " --");
		buf_printf(b, "%s\n", w->offer_end);
		if (c[i].pos[0])
			buf_printf(b, "\t\telse\n\t\t\t_lnk_values %s%s\n",
				   c[i].pos + 1, w->values_end);
		buf_puts(b, "\t\tfi ;;\n");
	}
}

/* bash: one function; the command's options and the kind of each flag's
 * value are case arms. Sandbox names come back as data (read, never
 * compgen -W, which would expand what they hold). */
static void gen_bash(struct buf *b, const struct ccmd *c, size_t n)
{
	buf_printf(b, HEAD, "bash");
	buf_puts(b, "_lnk_values() {\n"
		    "\tlocal v kind=$1 cur=$2\n"
		    "\tshift 2\n"
		    "\twhile IFS= read -r v; do\n"
		    "\t\t[[ $v == \"$cur\"* ]] && COMPREPLY+=(\"$v\")\n"
		    "\tdone < <(command lnk sandbox complete \"$kind\" \"$@\" "
		    "2>/dev/null)\n"
		    "}\n"
		    "_lnk_kind() {\n"
		    "\tcase \"$1 $2\" in\n");
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < c[i].n; j++)
			if (c[i].o[j].kind[0])
				buf_printf(b, "\t\"%s %s\") echo %s ;;\n",
					   c[i].name, c[i].o[j].name,
					   c[i].o[j].kind);
	buf_puts(b, "\tesac\n"
		    "}\n"
		    "_lnk() {\n"
		    "\tlocal cur=${COMP_WORDS[COMP_CWORD]} i kind flag\n"
		    "\tlocal prev=${COMP_WORDS[COMP_CWORD-1]}\n"
		    "\tCOMPREPLY=()\n"
		    "\tif ((COMP_CWORD == 1)); then\n"
		    "\t\tCOMPREPLY=($(compgen -W 'sandbox --help --version' "
		    "-- \"$cur\"))\n"
		    "\t\treturn\n"
		    "\tfi\n"
		    "\t[[ ${COMP_WORDS[1]} == sandbox ]] || return\n"
		    "\tif ((COMP_CWORD == 2)); then\n"
		    "\t\tCOMPREPLY=($(compgen -W '--help");
	for (size_t i = 0; i < n; i++)
		buf_printf(b, " %s", c[i].name);
	buf_puts(b, "' -- \"$cur\"))\n"
		    "\t\treturn\n"
		    "\tfi\n"
		    "\tlocal cmd=${COMP_WORDS[2]}\n"
		    "\t# after --: a program, then its own arguments\n"
		    "\tfor ((i = 3; i < COMP_CWORD; i++)); do\n"
		    "\t\tif [[ ${COMP_WORDS[i]} == -- ]]; then\n"
		    "\t\t\tif ((i + 1 == COMP_CWORD)); then\n"
		    "\t\t\t\tCOMPREPLY=($(compgen -c -- \"$cur\"))\n"
		    "\t\t\telse\n"
		    "\t\t\t\tcompopt -o default 2>/dev/null\n"
		    "\t\t\tfi\n"
		    "\t\t\treturn\n"
		    "\t\tfi\n"
		    "\tdone\n"
		    "\t# --flag VALUE and --flag=VALUE ('=' is a word break)\n"
		    "\tflag=$prev\n"
		    "\tif [[ $cur == = ]]; then\n"
		    "\t\tcur=\n"
		    "\telif [[ $prev == = ]] && ((COMP_CWORD > 3)); then\n"
		    "\t\tflag=${COMP_WORDS[COMP_CWORD-2]}\n"
		    "\tfi\n"
		    "\tkind=$(_lnk_kind \"$cmd\" \"$flag\")\n"
		    "\tcase $kind in\n"
		    "\tdir)\n"
		    "\t\tcompopt -o filenames 2>/dev/null\n"
		    "\t\tCOMPREPLY=($(compgen -d -- \"$cur\"))\n"
		    "\t\treturn ;;\n"
		    "\tfile)\n"
		    "\t\tcompopt -o filenames 2>/dev/null\n"
		    "\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
		    "\t\treturn ;;\n"
		    "\tcmd)\n"
		    "\t\tCOMPREPLY=($(compgen -c -- \"$cur\"))\n"
		    "\t\treturn ;;\n"
		    "\t@*)\n"
		    "\t\t_lnk_values \"${kind#@}\" \"$cur\"\n"
		    "\t\treturn ;;\n"
		    "\tword) return ;;\n"
		    "\tesac\n"
		    "\tcase \"$cmd\" in\n");
	put_cmd_arms(b, c, n, &bash_arms);
	buf_puts(b, "\tesac\n"
		    "}\n"
		    "complete -F _lnk lnk\n");
}

/* zsh: the same shape, with each command's summary shown. */
static void gen_zsh(struct buf *b, const struct ccmd *c, size_t n)
{
	buf_puts(b, "#compdef lnk\n");
	buf_printf(b, HEAD, "zsh");
	buf_puts(b, "_lnk_values() {\n"
		    "\tlocal -a v\n"
		    "\tv=(${(f)\"$(command lnk sandbox complete $1 "
		    "\"${(@)argv[2,-1]}\" 2>/dev/null)\"})\n"
		    "\tcompadd -a v\n"
		    "}\n"
		    "_lnk() {\n"
		    "\tlocal i cmd kind\n"
		    "\tif ((CURRENT == 2)); then\n"
		    "\t\tcompadd sandbox --help --version\n"
		    "\t\treturn\n"
		    "\tfi\n"
		    "\t[[ $words[2] == sandbox ]] || return 1\n"
		    "\tif ((CURRENT == 3)); then\n"
		    "\t\tlocal -a cmds\n"
		    "\t\tcmds=(\n");
	for (size_t i = 0; i < n; i++) {
		buf_printf(b, "\t\t\t'%s:", c[i].name);
		_cleanup_free_ char *sum = xstrdup(c[i].summary);
		for (char *p = sum; *p; p++)
			if (*p == ':')
				*p = ',';
		put_quoted(b, sum, "'\\''");
		buf_puts(b, "'\n");
	}
	buf_puts(b, "\t\t)\n"
		    "\t\t_describe command cmds\n"
		    "\t\treturn\n"
		    "\tfi\n"
		    "\tcmd=$words[3]\n"
		    "\tfor ((i = 4; i < CURRENT; i++)); do\n"
		    "\t\tif [[ $words[i] == -- ]]; then\n"
		    "\t\t\tif ((i + 1 == CURRENT)); then\n"
		    "\t\t\t\t_command_names -e\n"
		    "\t\t\telse\n"
		    "\t\t\t\t_files\n"
		    "\t\t\tfi\n"
		    "\t\t\treturn\n"
		    "\t\tfi\n"
		    "\tdone\n"
		    "\tcase \"$cmd $words[CURRENT-1]\" in\n");
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < c[i].n; j++) {
			const struct copt *o = &c[i].o[j];
			if (!o->kind[0])
				continue;
			buf_printf(b, "\t\"%s %s\") ", c[i].name, o->name);
			if (strcmp(o->kind, "dir") == 0)
				buf_puts(b, "_files -/");
			else if (strcmp(o->kind, "file") == 0)
				buf_puts(b, "_files");
			else if (strcmp(o->kind, "cmd") == 0)
				buf_puts(b, "_command_names -e");
			else if (o->kind[0] == '@')
				buf_printf(b, "_lnk_values %s", o->kind + 1);
			else
				buf_puts(b, "_message value");
			buf_puts(b, "; return ;;\n");
		}
	buf_puts(b, "\tesac\n"
		    "\tcase $cmd in\n");
	put_cmd_arms(b, c, n, &zsh_arms);
	buf_puts(b, "\tesac\n"
		    "}\n"
		    "_lnk \"$@\"\n");
}

/* fish: one `complete` line per command and option, each with a
 * condition on the command word. */
static void gen_fish(struct buf *b, const struct ccmd *c, size_t n)
{
	buf_printf(b, HEAD, "fish");
	buf_puts(
	    b,
	    "function __lnk_using\n"
	    "\tset -l w (commandline -opc)\n"
	    "\ttest (count $w) -ge 3; and test \"$w[2]\" = sandbox; and "
	    "test \"$w[3]\" = $argv[1]; and not contains -- -- $w\n"
	    "end\n"
	    "function __lnk_no_command\n"
	    "\tset -l w (commandline -opc)\n"
	    "\ttest (count $w) -eq 2; and test \"$w[2]\" = sandbox\n"
	    "end\n"
	    "function __lnk_program\n"
	    "\tset -l w (commandline -opc)\n"
	    "\ttest (count $w) -ge 3; and test \"$w[2]\" = sandbox; and "
	    "test \"$w[-1]\" = --\n"
	    "end\n"
	    "complete -c lnk -f\n"
	    "complete -c lnk -n 'test (count (commandline -opc)) -eq 1' -a "
	    "sandbox\n"
	    "complete -c lnk -n 'test (count (commandline -opc)) -eq 1' -l "
	    "version\n"
	    "complete -c lnk -n __lnk_program -a '(__fish_complete_command)'\n");
	for (size_t i = 0; i < n; i++) {
		buf_printf(b, "complete -c lnk -n __lnk_no_command -a %s -d '",
			   c[i].name);
		put_quoted(b, c[i].summary, "\\'");
		buf_puts(b, "'\n");
	}
	for (size_t i = 0; i < n; i++) {
		if (c[i].pos[0])
			buf_printf(b,
				   "complete -c lnk -n '__lnk_using %s' -a "
				   "'(command lnk sandbox complete %s "
				   "(commandline -opc)[4..-1] 2>/dev/null)'\n",
				   c[i].name, c[i].pos + 1);
		for (size_t j = 0; j < c[i].n; j++) {
			const struct copt *o = &c[i].o[j];
			bool lng = o->name[1] == '-';
			buf_printf(b,
				   "complete -c lnk -n '__lnk_using %s' %s %s",
				   c[i].name, lng ? "-l" : "-s",
				   o->name + (lng ? 2 : 1));
			if (strcmp(o->kind, "dir") == 0)
				buf_puts(b, " -r -a '(__fish_complete_"
					    "directories (commandline -ct))'");
			else if (strcmp(o->kind, "file") == 0)
				buf_puts(b, " -r -F");
			else if (strcmp(o->kind, "cmd") == 0)
				buf_puts(b, " -r -a '(__fish_complete_"
					    "command)'");
			else if (o->kind[0] == '@')
				buf_printf(b,
					   " -r -a '(command lnk sandbox "
					   "complete %s 2>/dev/null)'",
					   o->kind + 1);
			else if (o->kind[0])
				buf_puts(b, " -r");
			buf_puts(b, "\n");
		}
	}
}

static void usage_completion(FILE *f)
{
	fputs("usage: lnk sandbox completion bash|zsh|fish\n"
	      "\n"
	      "Prints the shell's completion script for lnk (the build\n"
	      "installs them; see lnk-sandbox(1), SHELL COMPLETION).\n",
	      f);
}

int cmd_completion(int argc, char **argv, const struct cli_ctx *cx)
{
	(void)cx; /* no first steps (main.c) */
	if (argc == 2 && is_help(argv[1])) {
		usage_completion(stdout);
		return 0;
	}
	if (argc != 2) {
		usage_completion(stderr);
		return LNK_EXIT_USAGE;
	}
	struct ccmd *c;
	size_t n = load(&c);
	struct buf b = {0};
	if (strcmp(argv[1], "bash") == 0)
		gen_bash(&b, c, n);
	else if (strcmp(argv[1], "zsh") == 0)
		gen_zsh(&b, c, n);
	else if (strcmp(argv[1], "fish") == 0)
		gen_fish(&b, c, n);
	else {
		free(c);
		warnx_("'lnk sandbox completion' knows bash, zsh and fish, "
		       "not that; see 'lnk sandbox completion --help'");
		return LNK_EXIT_USAGE;
	}
	free(c);
	fwrite(b.p, 1, b.len, stdout);
	buf_free(&b);
	return fflush(stdout) == 0 ? 0 : LNK_EXIT_FAIL;
}

/* The running sandboxes' names, those that keep to the name grammar (a
 * name lands in a shell's completion). No ~/.lnk, or no database yet:
 * none, and nothing is made. */
static int list_sandboxes(const char *home)
{
	_cleanup_free_ char *path = paths_db(home);
	if (access(path, F_OK) < 0)
		return 0;
	struct lnk_err err = {0};
	struct registry *s;
	struct registry_entry *v = NULL;
	size_t n = 0;
	if (registry_open_at(path, &s, &err) < 0)
		diex(LNK_EXIT_FAIL, "%s", err.msg);
	int r = registry_list(s, &v, &n, &err);
	registry_close(s);
	if (r < 0)
		diex(LNK_EXIT_FAIL, "%s", err.msg);
	for (size_t i = 0; i < n; i++)
		if (registry_name_valid(v[i].name) && plain(v[i].name))
			printf("%s\n", v[i].name);
	free(v);
	return 0;
}

/* The IDs of the questions that wait, for `answer ID`; then its verdict.
 * No ~/.lnk: none, and nothing is made (asks_list opens, never creates). */
static int list_asks(const char *home, size_t npos)
{
	if (npos == 1) {
		fputs("yes\nno\n", stdout);
		return 0;
	}
	if (npos != 0)
		return 0;
	_cleanup_free_ char *dir = asks_dir(home);
	struct lnk_err err = {0};
	struct ask *v;
	size_t n;
	if (asks_list(dir, asks_now_ms(), &v, &n, &err) < 0)
		diex(LNK_EXIT_FAIL, "%s", err.msg);
	for (size_t i = 0; i < n; i++)
		if (asks_id_ok(v[i].id))
			printf("%s\n", v[i].id);
	asks_free(v, n);
	return 0;
}

/* `tool`'s verbs, then for `tool remove` the tools stored. A name lands
 * in the shell as data; tools_name_ok keeps it to letters, digits and
 * ".+_-" (a hand-edited store with another name is skipped). */
static int list_tool(const char *home, char **pos, size_t npos)
{
	if (npos == 0) {
		fputs("add\nlist\nremove\n", stdout);
		return 0;
	}
	if (npos != 1 || strcmp(pos[0], "remove") != 0)
		return 0;
	_cleanup_free_ char *path = tools_store_path(home);
	struct tools_store s;
	struct lnk_err err = {0};
	if (tools_store_load(path, &s, &err) < 0)
		return 0; /* a broken store completes nothing; `tool list` says why */
	for (size_t i = 0; i < s.n; i++)
		if (tools_name_ok(s.e[i].tool))
			printf("%s\n", s.e[i].tool);
	tools_store_free(&s);
	return 0;
}

/* The positional words among what the user typed after the command:
 * options are skipped, and so is the value after an option that takes one
 * when it came as a word of its own. Only their count and, for `tool`, the
 * verb matter. */
static size_t positionals(const char *cmd, char **w, size_t n, char **out)
{
	struct ccmd *c;
	size_t nc = load(&c), k = 0;
	const struct ccmd *row = NULL;
	for (size_t i = 0; i < nc; i++)
		if (strcmp(c[i].name, cmd) == 0)
			row = &c[i];
	for (size_t i = 0; i < n; i++) {
		if (strcmp(w[i], "=") == 0) { /* bash: --flag = VALUE */
			i++;
			continue;
		}
		if (w[i][0] != '-') {
			out[k++] = w[i];
			continue;
		}
		for (size_t j = 0; row && j < row->n && !strchr(w[i], '='); j++)
			if (strcmp(row->o[j].name, w[i]) == 0 &&
			    row->o[j].kind[0])
				i++;
	}
	free(c);
	return k;
}

/* The values a completion asks lnk for, by kind, given the positional
 * words typed so far. Here is where a new kind goes: one case below and
 * "@kind" in the command's options in main.c. */
static int complete_kind(const char *kind, const char *home, char **w, size_t n)
{
	_cleanup_free_ char **pos = xcalloc(n + 1, sizeof(*pos));
	if (strcmp(kind, "sandboxes") == 0)
		return list_sandboxes(home);
	if (strcmp(kind, "asks") == 0)
		return list_asks(home, positionals("answer", w, n, pos));
	if (strcmp(kind, "tool") == 0)
		return list_tool(home, pos, positionals("tool", w, n, pos));
	warnx_("'lnk sandbox complete' knows sandboxes, asks and tool, not "
	       "that");
	return LNK_EXIT_USAGE;
}

static void usage_complete(FILE *f)
{
	fputs(
	    "usage: lnk sandbox complete sandboxes|asks|tool [WORD...]\n"
	    "\n"
	    "For the completion scripts: prints, one per line, what the next\n"
	    "word can be, given the words typed after the command (WORD).\n",
	    f);
}

int cmd_complete(int argc, char **argv, const struct cli_ctx *cx)
{
	if (argc == 2 && is_help(argv[1])) {
		usage_complete(stdout);
		return 0;
	}
	if (argc < 2 || argv[1][0] == '-') {
		usage_complete(stderr);
		return LNK_EXIT_USAGE;
	}
	int r = complete_kind(argv[1], cx->home, argv + 2, (size_t)argc - 2);
	return r != 0 ? r : (fflush(stdout) == 0 ? 0 : LNK_EXIT_FAIL);
}
