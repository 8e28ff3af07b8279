/* The host as bubblewrap sees it, for a sandbox run as root.
 *
 * bwrap reads its whole mount table (/proc/self/mountinfo) once for each
 * mount it makes, and that table holds every mount of the host besides
 * the sandbox's own: each host mount costs it a line in each of some
 * seventy reads, about 0.14 ms a run, and each mount it makes one more
 * read (bench/README.md). As root, the child that becomes bwrap first
 * gives itself a mount namespace of its own, a slave of the host's (what
 * it mounts there never reaches the host; the host's later mounts still
 * reach it), and there:
 *  - binds the sandbox's copies of the device nodes (devnodes.h) over the
 *    host's, so that bwrap's --dev binds the copies and makes no six mounts
 *    of its own to cover the host's nodes;
 *  - detaches /sys with everything mounted in it (10 to 15 file systems on
 *    a systemd machine), which no sandbox shows: grants of it are refused
 *    (policy/resolve.c), and it stays when a mount would show it anyway.
 * bwrap builds the sandbox from that view; lnk itself never enters it.
 *
 * Not as another user: a mount namespace of one's own then needs a user
 * namespace, whose copies of the host's mounts are locked together. Not
 * as a root without CAP_SYS_ADMIN either (a container's): then, or when
 * the kernel refuses the namespace all the same, bwrap binds the copies
 * itself (hostview.fallback), as it always did before.
 */
#pragma once

#include <stdbool.h>

#include "common/util.h"

struct hostview {
	bool on; /* the child makes the view (hostview_enter) */
	/* And detaches /sys there: set by the caller once the sandbox's
	 * mounts are planned, unless one shows /sys (bwrap_out.shows_sys). */
	bool detach_sys;
	/* The copies' paths, and the host's nodes each covers. */
	struct strv src, dst;
	/* bwrap's options that bind the copies when the view cannot be
	 * made: added after its --args, before the program. */
	struct strv fallback;
};

/* Plans the view for the copies in nodes_dir (devnodes.h, NULL: none, and
 * no view): on when lnk holds CAP_SYS_ADMIN; when off, bwrap's own
 * options must bind the copies (bwrap_in.dev_nodes_dir). */
void hostview_plan(struct hostview *v, const char *nodes_dir);

/* In the child that becomes bwrap, between fork and exec: only system
 * calls, no malloc. 0, or -errno when the view could not be made whole
 * (the child then gives bwrap the fallback options; a mount made already
 * is in its namespace alone). */
int hostview_enter(const struct hostview *v);

void hostview_free(struct hostview *v);
