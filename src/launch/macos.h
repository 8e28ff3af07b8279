/* What only the macOS launcher (macos.c) adds to sandbox.h. */
#pragma once

#include "common/util.h"

/* `lnk sandbox ready` on macOS: each check as "verdict\tname\tdetail"
 * (verdict ok, warn or fail) appended to lines: Seatbelt takes a profile,
 * and what does not run there yet. 0, or -errno when a check failed. */
int macos_ready(struct strv *lines);
