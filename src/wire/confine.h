/* The wire's confinement after setup: what the wire may still do once it
 * starts to read bytes the sandboxed program chose. One file per platform
 * (meson picks): confine_linux.c (Landlock, capabilities, no_new_privs,
 * seccomp; the policy is written there) and confine_macos.c (a Seatbelt
 * profile of the same files). */
#pragma once

#include "common/err.h"

struct confine_plan {
	const char *db_path; /* its database; -wal and -shm beside it */
};

/* Confines the calling process for good. Files: only the database files
 * (read and write) and the resolver's two files (read); no program can be
 * run. On Linux also no capabilities in any set, no_new_privs, and the
 * seccomp allow-list. Call it with one thread only: threads started later
 * inherit all of it.
 * *notify_fd is the seccomp listener for connect() and for sendto() with
 * an address: the caller hands it to the keeper (keeper.h), which vets and
 * makes those calls, and then closes it. It is -1 on macOS, which cannot
 * hand a call to another process: there the wire makes them itself, after
 * the same route and address checks (conn.c). 0 or -errno. */
int confine_wire(const struct confine_plan *cp, int *notify_fd,
		 struct lnk_err *err);
