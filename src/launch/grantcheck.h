/* What bubblewrap would refuse, found before it starts (grantcheck.c). */
#pragma once

#include <stdbool.h>

#include "common/err.h"
#include "policy/policy.h"

/* Checks a resolved policy's file grants against this user's rights:
 * every --write a folder the user can enter and write, every --read a
 * path the user can read, no grant that is also hidden. -EINVAL for a
 * mistake in the grants (a usage error), -EACCES for a right the user
 * lacks; the message names the grant and says what to do. */
int grantcheck(const struct policy *p, struct lnk_err *err);

/* True when this process runs inside a lnk sandbox: lnk-init is mounted
 * at its fixed place there, and nowhere on a host. */
bool grantcheck_inside_sandbox(void);
