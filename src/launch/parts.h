/* The parts of one run: every process or thread a sandbox may have, when
 * it is wanted, when it starts against bwrap, whether it reads bytes the
 * program controls, and how it is confined. One table, read by the
 * documentation's checks and by the test that fails when a part that
 * reads the program's bytes has no confinement (invariant 9): a part
 * added later is a row here first.
 *
 * The order of the rows is the order a run starts them. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

enum part_confine {
	PART_UNCONFINED, /* reads nothing of the program's */
	PART_KIT,	 /* confine/kit.h: no_new_privs, Landlock, no
			    * capability, a seccomp allow-list that kills */
	PART_GUARD,	 /* the guard's threads: every capability dropped
			    * before a worker starts, existing objects opened
			    * only by a Landlock-confined executor, every call
			    * performed by it, never continued */
	PART_SANDBOX,	 /* inside: the sandbox's namespaces, Landlock and
			    * seccomp (lnk-init's filter) */
	PART_TOOL_VIEW,	 /* a tool: the user's own powers, in a view of
			    * its own where lnk's settings and the hidden
			    * folders do not exist */
};

struct part {
	const char *name;
	const char *wanted; /* when a run has it */
	const char *starts; /* when, against bwrap */
	bool reads_program; /* parses bytes the program chose */
	enum part_confine confine;
	/* The files that read those bytes, or that make the part what it
	 * is; NULL ended. */
	const char *files[8];
};

/* The table; *n is its length. */
const struct part *parts_table(size_t *n);
const char *part_confine_name(enum part_confine c);
