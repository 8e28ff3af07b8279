/* Landlock in lnk-init: a second layer over the same read and write grants
 * as bubblewrap's mounts, and the [commands] execute allow-list. */
#pragma once

#include "common/err.h"
#include "proto/initcfg.h"

/* The highest Landlock ABI this kernel offers (1..), or -ENOSYS when the
 * kernel was built without Landlock, or -EOPNOTSUPP when it is built in but
 * not enabled (not in the lsm= boot list). err says which, and what to do. */
int landlock_abi(struct lnk_err *err);

/* Restricts the calling thread (NO_NEW_PRIVS must be set) to:
 *   read (+execute with exec_any) on c->ll_read and the system folders,
 *   read+write on c->ll_write, /tmp, /dev/shm, files under /dev,
 *   EXECUTE|READ_FILE on each c->ll_exec file (without exec_any),
 * handling every filesystem right of the kernel's ABI and, from ABI 6,
 * scoping signals and abstract unix sockets to the sandbox.
 * Returns the ABI used (> 0), or -errno with err filled; -ENOSYS and
 * -EOPNOTSUPP mean "no Landlock here" (see landlock_abi). */
int landlock_apply(const struct init_config *c, struct lnk_err *err);
