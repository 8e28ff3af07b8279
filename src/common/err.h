/* Error values for core code.
 *
 * Core functions return 0 or a negative errno and fill a struct lnk_err with
 * a message a person can act on (what went wrong, where, what to do). Only
 * top-level command code prints and exits (docs/design.md,
 * "Conventions the security core keeps").
 */
#pragma once

#include <stddef.h>

struct lnk_err {
	int code;	/* negative errno, 0 when unset */
	char msg[1024]; /* lowercase, no final period (git's guidelines) */
};

/* Sets err (if not NULL) and returns code, which must be negative:
 *   return err_set(err, -EINVAL, "'%s' is not a port", s); */
int err_set(struct lnk_err *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Prepends context to an existing message: "spec.toml:3:7: " + msg. */
int err_prefix(struct lnk_err *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
