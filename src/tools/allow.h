/* Which tools a sandbox has and which of their calls run at once: the
 * grants (--tool, [tools] allow) and the calls the user allowed for good
 * (`lnk sandbox tool add`, store.h). Pure but for the PATH lookup. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "common/err.h"
#include "common/util.h"
#include "policy/policy.h"

struct tool_grant {
	char *name;	   /* "gh": a plain name (tools_name_ok) */
	char *path;	   /* the real program, absolute, found on lnk's PATH
			    * when the sandbox starts */
	bool page;	   /* a page client: path is the desktop's opener
			    * (xdg-open), NULL when this machine has none */
	struct strv allow; /* the calls that run at once: patterns
			    * (tools_allowed), words joined by one space,
			    * from the grant and tools.toml */
};

struct tools_plan {
	struct tool_grant *t;
	size_t n;
	struct strv pages; /* [browser] open: the pages opened at once */
	bool desktop;	   /* a desktop session to open a page in */
};

/* A tool's name as a file name inside and a word of a hint: letters,
 * digits, '.', '_', '+', '-', up to 64, not starting with '.' or '-'. */
bool tools_name_ok(const char *name);

/* The program name on path (as tools_plan_make looks tools up): its real
 * path, allocated, in *out. 0 or -ENOENT. */
int tools_lookup(const char *name, const char *path, char **out);

/* The plan from a resolved policy's [tools] allow and the stored calls
 * (may be NULL). Each tool is looked up in path (lnk's own PATH, or the
 * system's when it has none): its absolute path, symlinks resolved, is
 * what runs, never a path the program names. 0, or -ENOENT/-EINVAL with
 * a message naming the flag or key. */
struct tools_store;
int tools_plan_make(const struct policy *p, const struct tools_store *stored,
		    const char *path, struct tools_plan *out,
		    struct lnk_err *err);
void tools_plan_free(struct tools_plan *p);
const struct tool_grant *tools_plan_find(const struct tools_plan *p,
					 const char *name);

/* Whether a call (args: argv[1..]) runs at once: whether one of the
 * grant's patterns matches the whole call. A word of a pattern matches
 * the argument equal to it; '*' matches exactly one argument, any; a '*'
 * that is the pattern's last word matches any number of further
 * arguments, none too ('*' alone: every call). Nothing else matches: a
 * grant with no pattern allows no call. */
bool tools_allowed(const struct tool_grant *g, const struct strv *args);

/* What a pattern that leaves arguments free ('*') gives the program, as
 * one line (no "lnk: ", no newline, escaped), or NULL when it has no
 * '*'. For git and gh it names their options that reach past the call:
 * files written or read, programs run, other repositories, every API
 * call. */
char *tools_pattern_warning(const char *tool, const char *pattern);
/* Those lines for every tool of the plan, once per pattern (only '*'
 * for a tool that has it), appended to out. */
void tools_plan_warnings(const struct tools_plan *p, struct strv *out);

/* The message a program gets for a call that is not allowed when no one
 * can ask: it names the exact call to paste, `lnk sandbox tool add TOOL
 * --allow '...'` with each argument one word, when a pattern can hold
 * every argument (key_tool_word_why: no space, quote, backslash, control
 * character, '*'; not empty; at most KEY_TOOL_WORDS words and
 * KEY_TOOL_CALL bytes), else says why it cannot be stored and what to do
 * instead. Never a pattern broader than the call. Escaped; freed by the
 * caller. */
char *tools_refusal_text(const struct tool_grant *g, const struct strv *args);

/* The call as the log and messages name it: the tool, then each argument
 * as one shell word (esc_word_dup), escaped. Past max bytes it keeps the
 * first arguments that fit, then " ... (+K more arguments, B bytes)", B
 * the bytes of those left out as the program sent them: at most max bytes
 * in all, unless max is smaller than the tool's name and that note. */
char *tools_call_text(const char *tool, const struct strv *args, size_t max);

/* The same call as a log row's target: the words quoted the same way but
 * not escaped (shell_word_dup), since the log and the terminal escape
 * what they show once. Never print it without escaping it. */
char *tools_call_target(const char *tool, const struct strv *args, size_t max);
