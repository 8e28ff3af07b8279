/* The program's environment (invariant 4).
 *
 * The sandbox starts from an empty environment and sets only a small,
 * documented set, so no token, SSH_AUTH_SOCK, cloud credential or
 * LD_PRELOAD from the user's shell reaches the program unless the user
 * names it (--env, [commands] env). A pure function: tested in
 * tests/unit/test_env.c.
 */
#pragma once

#include "common/util.h"

/* The fixed PATH inside: the system's folders only, never the user's
 * ~/bin or a project's node_modules/.bin, which the program could write. */
#define ENV_SANDBOX_PATH \
	"/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

struct env_in {
	char *const *host_env;	  /* lnk's own environment (environ) */
	const char *home;	  /* HOME inside: the real home's path */
	const char *user;	  /* USER and LOGNAME, or NULL */
	const char *shell;	  /* SHELL, or NULL */
	const struct strv *pass;  /* names passed by the user (--env) */
	const struct strv *extra; /* KEY=VALUE set by lnk (the wire's proxy
				   * variables), or NULL */
};

/* The environment, KEY=VALUE, one entry per name, in a stable order:
 *   PATH, HOME, USER, LOGNAME, SHELL, TERM, LANG / LC_ALL (C.UTF-8 when
 *   neither is set), then each passed name lnk has, then the extras.
 * A name passed with --env that is invalid (empty, with '=' or a NUL) is
 * skipped; policy refuses those earlier. An extra replaces a passed name
 * of the same key: the proxy variables point at the wire, always. */
void env_build(const struct env_in *in, struct strv *out);

/* The value of name in env, or NULL. */
const char *env_lookup(char *const *env, const char *name);
