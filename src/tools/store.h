/* The calls the user allowed for good: ~/.lnk/sandbox/tools.toml, a file a
 * person can read and edit, written by `lnk sandbox tool add/remove`.
 *
 *   ["gh"]
 *   allow = ["pr list", "issue view *"]
 *
 * A call is a pattern of the whole call (allow.h, tools_allowed): words
 * joined by one space, '*' for any one argument or, last, any further
 * ones; "*" alone is every call. A tool listed here still exists in a
 * sandbox only when the sandbox grants it (--tool, [tools] allow). */
#pragma once

#include "common/err.h"
#include "common/util.h"

struct tools_store_entry {
	char *tool;
	struct strv calls;
};

struct tools_store {
	struct tools_store_entry *e;
	size_t n;
};

/* ~/.lnk/sandbox/tools.toml */
char *tools_store_path(const char *home);
/* Reads path (a missing file is an empty store). 0 or -errno with a
 * message naming file:line. */
int tools_store_load(const char *path, struct tools_store *s,
		     struct lnk_err *err);
/* Writes it whole (a new file renamed over the old, mode 0600). */
int tools_store_save(const char *path, const struct tools_store *s,
		     struct lnk_err *err);
void tools_store_free(struct tools_store *s);
/* The calls stored for tool, or NULL. */
const struct strv *tools_store_calls(const struct tools_store *s,
				     const char *tool);
/* Checks and normalizes one pattern ("pr  list" -> "pr list"; "*"), with
 * the grammar of --tool's (key_tool_pattern). 0 or -EINVAL with a
 * message. */
int tools_call_normalize(const char *call, char **out, struct lnk_err *err);
/* 0, or -EEXIST when it was there already. */
int tools_store_add(struct tools_store *s, const char *tool, const char *call);
/* call NULL removes the tool. 0, or -ENOENT when it was not there. */
int tools_store_remove(struct tools_store *s, const char *tool,
		       const char *call);
