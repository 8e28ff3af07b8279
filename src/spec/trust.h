/* Asked first (lnk-sandbox(1), COMMANDS, run, --yes): a spec not run here
 * before, or one that opens something different now than when it was accepted,
 * shows what it opens and asks on the terminal before anything runs.
 *
 * Threat: a spec can come from anyone (a cloned repository's app.toml), and
 * a program allowed to write the folder holding its own spec could widen
 * its next run. The digest covers what the spec opens, resolved (real,
 * absolute paths), so a changed file, a changed symlink or a moved spec
 * all ask again. The record lives in ~/.lnk/specs/sandbox.toml, which no
 * sandbox can reach (invariant 6).
 */
#pragma once

#include <stdbool.h>

#include "common/err.h"
#include "common/sha256.h"
#include "policy/policy.h"
#include "spec/cover.h"

enum trust_state {
	TRUST_NEW,     /* this spec was never accepted here */
	TRUST_CHANGED, /* accepted, but it opens something else now */
	TRUST_SAME,    /* accepted, and it opens the same */
};

/* The digest of what the spec file of p opens (resolved p; keys a flag
 * replaced left out, as they are not the file's): "sha256:" + 64 hex. */
void trust_digest(const struct policy *p, char out[7 + 2 * SHA256_LEN + 1]);

/* What the record says of spec_path (absolute) with this digest. A record
 * file that is missing or unreadable counts as empty: the spec asks. */
int trust_lookup(const char *home, const char *spec_path, const char *digest,
		 enum trust_state *st, struct lnk_err *err);

/* Records spec_path as accepted with digest, replacing an older record of
 * it; atomically (temp file in the same folder, fsync, rename), 0600, under
 * an flock so two runs accepting at once do not lose each other's. */
int trust_record(const char *home, const char *spec_path, const char *digest,
		 struct lnk_err *err);

/* Asks first, on /dev/tty. kept (or NULL): what an accepted run kept read
 * only below its write folders, to judge a narrower folder by
 * (spec/cover.h). notes (or NULL): lines the question shows
 * after the grants, already escaped: what of the spec does not apply
 * here (a limit this machine cannot enforce), so that the person is never
 * asked about a bound that will not hold. Returns 0 when p may run: no spec (flags alone
 * are never asked), a spec accepted before that opens the same, yes (which
 * records it), or the person answered y. -EPERM when declined, or when
 * there is no terminal and no --yes (the message names --yes); another
 * -errno when the record cannot be written. p must be resolved. */
int trust_check(const struct policy *p, const char *home, bool yes,
		const struct strv *notes, const struct cover_kept *kept,
		struct lnk_err *err);

/* The same with the terminal given: the question is written to out_fd and
 * the answer read from in_fd; in_fd < 0 means there is no terminal. For
 * tests, and for a supervisor that already holds the terminal. */
int trust_check_fds(const struct policy *p, const char *home, bool yes,
		    const struct strv *notes, const struct cover_kept *kept,
		    int in_fd, int out_fd, struct lnk_err *err);
