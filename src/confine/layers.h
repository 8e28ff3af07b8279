/* The confinement kit's layers, one call each (kit.h puts them together
 * for the processes outside that read the program's bytes).
 *
 * For a process that must state its rules itself: lnk-init, whose
 * Landlock rules follow the sandbox's grants and whose seccomp filter is
 * compiled at build time (it links no libseccomp, and neither does this
 * file); the guard's threads, which confine themselves one by one. Each
 * such process states only its own rules; the system calls that make a
 * layer are written here alone. 0 (or a descriptor) or -errno; the
 * caller says what failed, in its own words. Linux only. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* The highest Landlock ABI this kernel offers (1..), or -ENOSYS when it
 * was built without Landlock, or -EOPNOTSUPP when it is built in but not
 * enabled (not in the lsm= boot list). */
int confine_landlock_abi(void);

/* A Landlock ruleset for ABI abi that handles the file-system rights
 * handled (masked to what abi knows: a right the kernel does not know
 * would be refused) and, with scoped and from ABI 6, keeps signals and
 * abstract unix sockets inside the domain. Its descriptor, or -errno. */
int confine_landlock_ruleset(int abi, uint64_t handled, bool scoped);

/* One rule: rights beneath the folder or file parent_fd (O_PATH). */
int confine_landlock_rule(int ruleset, int parent_fd, uint64_t rights);

/* The calling thread enters the ruleset's domain, for good (threads it
 * starts later inherit it). no_new_privs must be set first. */
int confine_landlock_enter(int ruleset);

/* Nothing the calling thread runs from now on gains rights (set-id
 * bits, file capabilities). */
int confine_no_new_privs(void);

/* The calling thread's effective, permitted and inheritable capability
 * sets emptied; with bounding, the bounding set (where the process may:
 * as root) and the ambient set too, which hold for the whole process. */
int confine_drop_caps(bool bounding);
