/* A moment a person names on the command line: `lnk sandbox log --since`.
 *
 * Either RFC 3339 ("2024-05-01T12:00:00Z", "2024-05-01T14:00:00.5+02:00";
 * a space or a lowercase t/z is accepted as RFC 3339 allows) or a span back
 * from now: digits then s, m, h or d ("90s", "10m", "2h", "7d"). Anything
 * else is refused with what to write instead.
 */
#pragma once

#include <time.h>

#include "common/err.h"

/* *out is the moment, in seconds since the epoch (UTC; fractions of a
 * second are dropped, so the second it names is included). now is the
 * moment a relative span counts back from. 0 or -EINVAL. */
int when_parse(const char *s, time_t now, time_t *out, struct lnk_err *err);
