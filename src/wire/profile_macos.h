/* The wire's Seatbelt profile (macOS), as text: a pure function, so the
 * unit tests read and evaluate it on Linux (tests/unit/test_seatbelt.c);
 * confine_macos.c applies it with sandbox_init(3). */
#pragma once

#include "common/buf.h"
#include "common/err.h"
#include "wire/confine.h"

/* Appends the profile for cp to b. 0, or -EINVAL for a database path SBPL
 * cannot say (a control character). */
int wire_profile_macos(const struct confine_plan *cp, struct buf *b,
		       struct lnk_err *err);
