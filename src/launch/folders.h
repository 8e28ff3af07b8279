/* The resolved policy's folders in the one order both backends apply them:
 * bwrap.c's mount table on Linux, seatbelt.c's rule table on macOS.
 *
 * Both stack one entry per path and let the deepest win (the deepest mount
 * shows; Seatbelt applies the last rule that matches), so both must sort
 * the same way: a parent before its children, and at one path the weaker
 * kind before the stronger (a --write replaces a --read, a --hide closes
 * both). Kept here once, so the two sandboxes cannot drift apart.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "common/err.h"
#include "policy/policy.h"

/* 0 if p is absolute with no "//", "/./" or "/../" in it, else -EINVAL
 * naming what (the flag or the host fact): anything else is a bug that
 * must not reach a mount or a rule. bwrap takes the host facts so (a HOME
 * of "/home/u/" is the same folder to it). */
int folder_check(const char *what, const char *p, struct lnk_err *err);

/* folder_check, and no trailing "/", "/." or "/.." either: the form
 * realpath gives, which the policy's grants have, and which Seatbelt's
 * rules need (they compare paths as text). */
int folder_check_exact(const char *what, const char *p, struct lnk_err *err);

/* The order of two table entries, each a path and the rank of its kind
 * (higher wins at one path): by path with strcmp, which puts every path
 * before its extensions, so a parent before its children; at one path the
 * lower rank first. Negative, 0 or positive, as qsort wants. */
int folder_order(const char *pa, int ra, const char *pb, int rb);

enum folder_kind {
	FOLDER_READ,  /* --read */
	FOLDER_WRITE, /* --write */
	FOLDER_HIDE,  /* --hide */
};

struct folder {
	enum folder_kind kind;
	const char *path; /* the policy's own string */
};

/* The policy's [files] grants, each checked with folder_check_exact: the
 * reads,
 * then the writes, then the hides. *out (free it) holds *n entries; the
 * caller adds them to its table, which folder_order sorts. */
int folder_grants(const struct policy *p, struct folder **out, size_t *n,
		  struct lnk_err *err);
