/* Whether a folder or entry bwrap bound by path is the one lnk checked,
 * and is bound there (proto/initcfg.h, pins).
 *
 * Threats: bwrap binds a grant (and a dot entry kept read only over
 * itself) by path after lnk's checks. A program of another sandbox with
 * --write above it may swap it for a link: bwrap follows it as the source
 * (~/.lnk bound as the grant) or, where this sandbox sees the grant's
 * parent live (--read P, --write P/X), as the destination too (the real
 * home mounted over the empty one), and may swap the folder back before
 * lnk-init looks, so that the path alone shows the pinned folder. */
#pragma once

#include <stdbool.h>

#include "proto/initcfg.h"

/* True when p's path is the root of a mount (not followed if a link)
 * whose (device, inode) are the pin's. */
bool pin_holds(const struct init_pin *p);

/* Whether /proc/self/mountinfo lists path as a mount point: how
 * pin_holds tells a mount's root where statx cannot (before Linux 5.8). */
bool pin_mount_listed(const char *path);
