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
	bool any;	   /* every call runs at once */
	bool page;	   /* a page client: path is the desktop's opener
			    * (xdg-open), NULL when this machine has none */
	struct strv allow; /* else: calls whose leading arguments are one of
			    * these ("pr", "pr list"), words joined by one
			    * space */
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

/* Whether a call (args: argv[1..]) runs at once. *matched is how many
 * leading arguments the allowed call named (0 for a tool allowed whole). */
bool tools_allowed(const struct tool_grant *g, const struct strv *args,
		   size_t *matched);
/* The call to name in `lnk sandbox tool add TOOL --allow CALL` for args:
 * up to its first two leading words that are plain (letters, digits and
 * ". _ : @ = + -", not starting with '-'), else "*". Never more of the
 * argv, which can hold secrets. Freed by the caller. */
char *tools_hint_call(const struct strv *args);
/* The call log's target: the tool and its first `matched` arguments. */
char *tools_log_target(const char *tool, const struct strv *args,
		       size_t matched);
