/* The keys of a git config that name programs git runs (flags.h).
 *
 * Threat: a repository the program made or changed below the top of a
 * write folder is the program's; its config runs what it names when the
 * user's prompt, editor or next git command reads it. Only the file's
 * own keys are read (an include is itself a reason), by the one reader
 * of git's syntax (common/gitconfig.h), which the guard reads with too:
 * what git takes for a header or a key, this reads the same.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "changes/flags.h"
#include "common/gitconfig.h"
#include "common/util.h"

struct key_rule {
	const char *section; /* lower case */
	bool any_sub;	     /* section "X" with any subsection */
	const char *key;     /* lower case; NULL: any key */
	const char *runs;    /* when git runs it */
};

static const struct key_rule rules[] = {
    {"core", false, "fsmonitor",
     "runs when git reads this repository, as your prompt may on cd"},
    {"core", false, "pager", "runs when git shows its output in a pager"},
    {"core", false, "hookspath",
     "makes git run its hooks from the folder it names"},
    {"core", false, "sshcommand", "runs at the next fetch or push"},
    {"core", false, "gitproxy", "runs at the next fetch"},
    {"core", false, "editor", "runs at the next commit message"},
    {"core", false, "askpass", "runs when git asks for a password"},
    {"sequence", false, "editor", "runs at the next rebase -i"},
    {"credential", false, "helper", "runs when git needs credentials"},
    {"credential", true, "helper", "runs when git needs credentials"},
    {"filter", true, NULL,
     "runs when git checks out or adds the files .gitattributes names"},
    {"diff", true, "textconv", "runs at the next git diff"},
    {"diff", true, "command", "runs at the next git diff"},
    {"diff", false, "external", "runs at the next git diff"},
    {"gpg", false, "program", "runs at the next signed commit"},
    {"gpg", true, "program", "runs at the next signed commit"},
    {"gpg", true, "defaultkeycommand", "runs at the next signed commit"},
    {"pager", false, NULL, "runs when git shows that command's output"},
    {"interactive", false, "difffilter", "runs at the next git add -p"},
    {"difftool", true, "cmd", "runs at the next git difftool"},
    {"difftool", true, "path", "runs at the next git difftool"},
    {"mergetool", true, "cmd", "runs at the next git mergetool"},
    {"mergetool", true, "path", "runs at the next git mergetool"},
    {"merge", true, "driver",
     "runs when git merges the files .gitattributes names"},
    {"remote", true, "uploadpack", "runs at the next fetch"},
    {"remote", true, "receivepack", "runs at the next push"},
    {"uploadpack", false, "packobjectshook",
     "runs when git serves this repository"},
    {"core", false, "alternaterefscommand",
     "runs when git lists an alternate's refs"},
    {"core", false, "attributesfile",
     "names the attributes that choose the filters and drivers git runs"},
    {"init", false, "templatedir",
     "its hooks go into every repository git makes or clones"},
    {"web", false, "browser", "runs when git opens a page"},
    {"browser", true, "cmd", "runs when git opens a page"},
    {"browser", true, "path", "runs when git opens a page"},
    {"man", true, "cmd", "runs at the next git help"},
    {"man", true, "path", "runs at the next git help"},
    {"sendemail", false, "sendmailcmd", "runs at the next git send-email"},
    {"sendemail", false, "smtpserver",
     "runs at the next git send-email when it is a path"},
    {"sendemail", false, "tocmd", "runs at the next git send-email"},
    {"sendemail", false, "cccmd", "runs at the next git send-email"},
    {"guitool", true, "cmd", "runs from git gui's Tools menu"},
    {"imap", false, "tunnel", "runs at the next git imap-send"},
    {"tar", true, "command", "runs at the next git archive"},
    {"instaweb", false, "httpd", "runs at the next git instaweb"},
    {"instaweb", false, "browser", "runs at the next git instaweb"},
    {"trailer", true, "cmd", "runs at the next git commit --trailer"},
    {"trailer", true, "command", "runs at the next git commit --trailer"},
    {"include", false, "path",
     "adds another config file, which may name "
     "programs"},
    {"includeif", true, "path",
     "adds another config file, which may name "
     "programs"},
};

static bool is_bool(const char *v, size_t n)
{
	static const char *const words[] = {"true", "false", "yes", "no",
					    "on",   "off",   "1",   "0"};
	if (n == 0)
		return true;
	for (size_t i = 0; i < sizeof(words) / sizeof(*words); i++)
		if (strlen(words[i]) == n && strncasecmp(v, words[i], n) == 0)
			return true;
	return false;
}

static void add(char ***out, size_t *n, size_t max, char *s)
{
	if (*n >= max) {
		free(s);
		return;
	}
	*out = xrealloc(*out, (*n + 1) * sizeof(**out));
	(*out)[(*n)++] = s;
}

/* Whether an alias's first word, as git splits it (split_cmdline: quotes
 * and a backslash removed), starts with '-': git reads it as an option of
 * its own. Leading blanks are skipped: git's reader drops them, even
 * after an empty "" (a blank git keeps, quoted, makes an empty first
 * word; taken for an option here, the safe side). */
static bool alias_option(const char *v)
{
	while (*v == ' ' || *v == '\t' || *v == '\n' || *v == '\r')
		v++;
	char quote = 0;
	for (; *v; v++) {
		if (!quote && (*v == '"' || *v == '\'')) {
			quote = *v;
			continue;
		}
		if (quote && *v == quote) {
			quote = 0;
			continue;
		}
		if (*v == '\\' && quote != '\'' && v[1])
			v++;
		else if (!quote &&
			 (*v == ' ' || *v == '\t' || *v == '\n' || *v == '\r'))
			return false; /* an empty first word */
		return *v == '-';
	}
	return false;
}

struct found {
	char ***out;
	size_t *n, max;
};

/* One "key = value" of the file, as git reads it (common/gitconfig.h). */
static void one_key(void *ctx, const char *section, const char *sub,
		    const char *key, char *raw)
{
	struct found *f = ctx;
	char ***out = f->out;
	size_t *n = f->n, max = f->max;
	bool has_sub = sub[0] != '\0';
	const char *v = gitconfig_value(raw);
	size_t vn = strlen(v);

	if (strcmp(section, "submodule") == 0 && has_sub &&
	    strcmp(key, "update") == 0) {
		/* '!' runs a shell, as alias's does */
		if (vn > 0 && *v == '!')
			add(out, n, max,
			    xasprintf("submodule.%s.update runs a shell "
				      "command at the next git submodule "
				      "update",
				      sub));
		return;
	}
	/* ext:: URLs are shell commands once the ext protocol is allowed
	 * (protocol.allow, protocol.ext.allow): the key that allows it, a
	 * URL rewritten to one, a remote's that is one */
	if (strcmp(section, "protocol") == 0 && strcmp(key, "allow") == 0 &&
	    (!has_sub || strcasecmp(sub, "ext") == 0) &&
	    !(vn >= 5 && strncasecmp(v, "never", 5) == 0)) {
		add(out, n, max,
		    xasprintf("protocol%s%s.allow lets git run ext:: URLs, "
			      "each a shell command, at the next fetch",
			      has_sub ? "." : "", has_sub ? sub : ""));
		return;
	}
	if (strcmp(section, "url") == 0 && has_sub &&
	    strncasecmp(sub, "ext::", 5) == 0 &&
	    (strcmp(key, "insteadof") == 0 ||
	     strcmp(key, "pushinsteadof") == 0)) {
		add(out, n, max,
		    xasprintf("url.%s.%s makes URLs an ext:: shell command "
			      "git runs at the next fetch",
			      sub, key));
		return;
	}
	if (strcmp(section, "remote") == 0 && has_sub &&
	    (strcmp(key, "url") == 0 || strcmp(key, "pushurl") == 0) &&
	    vn >= 5 && strncasecmp(v, "ext::", 5) == 0) {
		add(out, n, max,
		    xasprintf("remote.%s.%s is an ext:: shell command git "
			      "runs at the next fetch or push",
			      sub, key));
		return;
	}
	if (strcmp(section, "alias") == 0 && !has_sub) {
		/* '!' runs a shell */
		if (vn > 0 && *v == '!')
			add(out, n, max,
			    xasprintf("alias.%s runs a shell command when "
				      "you type git %s",
				      key, key));
		/* git splits the value into words and puts the options
		 * before the command: "-c core.fsmonitor=..." or
		 * --config-env set any key (a program git runs), and
		 * --exec-path, -C, --git-dir, --work-tree pick another
		 * git or repository. Threat: `git st` runs a program with
		 * no '!' in sight. */
		else if (alias_option(v))
			add(out, n, max,
			    xasprintf("alias.%s starts with a git option "
				      "(-c, --exec-path, -C...), which sets "
				      "any config key (a fsmonitor, a pager) "
				      "or runs another git when you type git "
				      "%s",
				      key, key));
		return;
	}
	for (size_t r = 0; r < sizeof(rules) / sizeof(*rules); r++) {
		const struct key_rule *k = &rules[r];
		if (strcmp(section, k->section) != 0 || has_sub != k->any_sub)
			continue;
		if (k->key && strcmp(key, k->key) != 0)
			continue;
		/* core.fsmonitor = true is git's own daemon */
		if (strcmp(key, "fsmonitor") == 0 && is_bool(v, vn))
			continue;
		if (has_sub)
			add(out, n, max,
			    xasprintf("%s.%s.%s %s", section, sub, key,
				      k->runs));
		else
			add(out, n, max,
			    xasprintf("%s.%s %s", section, key, k->runs));
		break;
	}
}

void gitcfg_programs(const char *text, size_t len, char ***out, size_t *n,
		     size_t max)
{
	/* the shared reader's, so the report and the guard read one syntax:
	 * a byte order mark, CR LF, continued lines, headers and variables
	 * on one line, quoting, as git reads them */
	char *copy = xmalloc(len + 1);
	memcpy(copy, text, len);
	copy[len] = '\0';
	struct found f = {out, n, max};
	gitconfig_text_fix(copy, len);
	gitconfig_each(copy, one_key, &f);
	free(copy);
}
