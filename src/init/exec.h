/* The last step of lnk-init: hand the process to the program. */
#pragma once

#include "common/err.h"
#include "init/initcfg.h"

/* Closes every descriptor above 2 (docs/design.md, invariant 4: nothing the
 * init held, such as the config memfd, the wire or supervisor sockets, reaches
 * the program), changes to c->cwd and executes c->argv with exactly c->env.
 * Returns only on failure: -errno with err filled, where -ENOENT from execve
 * means "not found" (exit 127), any other execve error "cannot execute" (126);
 * *stage tells which step failed. */
enum init_exec_stage {
	INIT_EXEC_FDS,
	INIT_EXEC_CWD,
	INIT_EXEC_EXECVE,
};
int init_exec(const struct init_config *c, enum init_exec_stage *stage,
	      struct lnk_err *err);
