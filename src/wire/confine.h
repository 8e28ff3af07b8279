/* The wire's confinement after setup (see confine.c for the policy). */
#pragma once

#include "common/err.h"

struct confine_plan {
	const char *db_path; /* its database; -wal and -shm beside it */
};

/* Confines the calling process for good: Landlock (only the database
 * files and the resolver's two files), no
 * capabilities in any set, no_new_privs, and the seccomp allow-list. Call
 * it with one thread only: threads started later inherit all of it.
 * *notify_fd is the seccomp listener for connect() and for sendto() with
 * an address: the caller hands it to the keeper (keeper.h), which vets and
 * makes those calls, and then closes it. 0 or -errno. */
int confine_wire(const struct confine_plan *cp, int *notify_fd,
		 struct lnk_err *err);
