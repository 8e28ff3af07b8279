/* What an accepted run keeps read only, for the asked-first rule
 * (spec/cover.h: struct cover_kept): planned now, as the run of the
 * accepted grants would plan it (guard_protect), so that a folder below an
 * accepted write folder is judged by what lnk keeps there, not by the
 * names on its path. Linux only (the guard's plan). */
#pragma once

#include "spec/cover.h"

struct kept_ctx {
	const char *home;
	char *const *env; /* lnk's environment: its PATH and what the guard
			   * reads (guard/envconf.h) */
};

/* The guard's inputs for the grants of pol, as a run plans them: the
 * hidden folders (always hidden and --hide), the granted folders, the
 * home's links cache. in points into pol, *hidden, *grants and *links;
 * free those three after guard_protect. */
struct protect_in;
struct strv;
void kept_protect_in(const struct policy *pol, const char *home,
		     char *const *env, struct protect_in *in,
		     struct strv *hidden, struct strv *grants, char **links);

/* Fills k to ask guard_protect through c (which must outlive k). */
void kept_for_trust(struct cover_kept *k, struct kept_ctx *c);
