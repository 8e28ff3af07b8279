/* Asked first, by what a run opens: a spec run with flags beside it, or
 * edited, asks only when it opens something that no acceptance of it
 * opened. A run that narrows an accepted one (a folder below an accepted
 * folder, a grant left out, a lower limit, one more hidden folder) is
 * not asked about: asking then teaches people to answer y unread.
 *
 * Threat: a wider run taken for a narrower one. Each key is compared by
 * what it means, never by its text: folders by being the same or below
 * (both real and absolute), --hide the other way round (a folder hidden
 * before and shown now opens it), '*' of hosts and programs covering
 * every one, limits and tripwires by value (unset is the widest); every
 * other grant must be one accepted, exactly. A key the switch does not
 * name does not compile (-Werror=switch-enum). */
#pragma once

#include <stdbool.h>

#include "policy/policy.h"

/* What an accepted run kept read only by what it is, not by its name (a
 * folder on the user's PATH, ~/bin, a hooks folder git's config names):
 * holds(ctx, was, dir) is true when an entry the run of was keeps read
 * only (or will not let be created) lies at, above or below dir.
 * Threat: a program rewrote its spec from `write = ["."]` to a PATH
 * folder below it, taken for a narrower grant. */
struct cover_kept {
	bool (*holds)(void *ctx, const struct policy *was, const char *dir);
	void *ctx;
};

/* true when now opens nothing that was does not (both resolved). kept
 * (or NULL: then a folder below an accepted write folder is judged by the
 * names it passes alone) judges a write folder below an accepted one. */
bool spec_covers(const struct policy *was, const struct policy *now,
		 const struct cover_kept *kept);

/* What now opens that was kept closed inside was's own grants, each an
 * escaped line for the question: a read folder inside a write folder
 * written now ("writes X (read only when you accepted it)"), a hidden
 * folder shown ("shows X (hidden when you accepted it)"). Threat: the
 * question listed only "- reads X" for a carve-out left out, which reads
 * as a narrowing. */
void spec_reopened(const struct policy *was, const struct policy *now,
		   struct strv *out);
