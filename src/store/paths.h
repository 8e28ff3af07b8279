/* The only code that knows the layout of ~/.lnk (docs/design.md, "Storage").
 *
 * ~/.lnk is lnk's settings folder (0700). No sandbox may ever read it: it
 * holds the call log, the accepted specs and the control sockets, and a
 * program that could change them could change its own policy (invariant 6).
 */
#pragma once

#include "common/err.h"
#include "common/util.h"

/* The user's home: $HOME if it is absolute, else the passwd entry. */
int paths_home(char **out, struct lnk_err *err);

char *paths_lnk_dir(const char *home);	   /* ~/.lnk */
char *paths_sandbox_dir(const char *home); /* ~/.lnk/sandbox */
char *paths_db(const char *home);	   /* ~/.lnk/sandbox/lnk.db */
char *paths_run_dir(const char *home);	   /* ~/.lnk/sandbox/run (sockets) */
char *paths_settings(const char *home);	   /* ~/.lnk/sandbox/settings.toml */
/* ~/.lnk/sandbox/hidden-folders: the identity of each always-hidden
 * folder as first seen (store/hidden.h). */
char *paths_hidden_record(const char *home);
char *paths_specs_dir(const char *home);  /* ~/.lnk/specs */
char *paths_specs_file(const char *home); /* ~/.lnk/specs/sandbox.toml */
/* ~/.lnk/sandbox/bwrap-version: the version `bwrap --version` said, keyed
 * by the binary's identity, so run does not fork it every time. */
char *paths_bwrap_cache(const char *home);
/* ~/.lnk/sandbox/etc-names: the names of /etc that a glob of the /etc list
 * stands for, with /etc's identity (launch/host.c). */
char *paths_etc_names_cache(const char *home);
/* ~/.lnk/sandbox/home-links: the links the guard found in the folders of
 * the home it looks into, with each folder's identity (guard/linkcache.h). */
char *paths_home_links_cache(const char *home);
/* ~/.lnk/sandbox/routers: the first routers this user's wires have heard
 * answer (wire/heard.h). */
char *paths_routers_heard(const char *home);

/* Folders every sandbox hides, even inside a granted folder: ~/.lnk,
 * ~/Link/Agents, ~/Link/History. Appended to out, absolute. */
void paths_always_hidden(const char *home, struct strv *out);

/* mkdir -p with mode 0700 of lnk's own folders only: from path's ".lnk"
 * component down (else its last component); the folders above (the home
 * and up) must be there, never made. Makes an existing ~/.lnk 0700 again
 * if someone loosened it (never a sticky folder such as /tmp, which is
 * shared by design). 0 or -errno. */
int paths_ensure_dir(const char *path, struct lnk_err *err);
