/* Warnings about a grant set that holds no leak but is risky (advice.c). */
#pragma once

#include "common/util.h"
#include "policy/policy.h"

/* Appends one line per risky combination of a resolved policy's grants,
 * each starting "warning: " and saying what to do. home is the user's
 * home folder, real. */
void check_advice(const struct policy *p, const char *home, struct strv *out);
