/* The policy: every grant of one sandbox, resolved.
 *
 * Built from flags, from a spec file, or both (a flag beside --spec replaces
 * that key of the file's, except --hide which adds). Everything downstream
 * (bwrap argv, init config, wire config, canonical TOML, trust digest) is a
 * pure function of a resolved policy, built and checked before anything
 * forks, mounts or writes (docs/design.md, "One model").
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "common/err.h"
#include "common/util.h"
#include "policy/facts.h"
#include "policy/keys.h"
#include "toml/toml.h"

struct key_value {
	bool set;	     /* given by a flag or the spec, even if empty */
	bool from_flag;	     /* the value came from a flag */
	struct strv list;    /* list keys, each entry validated and normalized;
			      * KT_PATHS entries absolute and real after
			      * policy_resolve */
	char *str;	     /* KT_NAME */
	int64_t num;	     /* KT_VERSION */
	struct toml_pos pos; /* where the spec set it ({0,0} for flags) */
	/* Where each list entry came from,
	 * parallel to list.v ({0,0} for a flag's entry). --hide adds to the
	 * file's list, so one list can mix a spec's entries (relative to the
	 * spec's folder) and flags' (relative to the working folder). */
	struct toml_pos *item_pos;
};

struct policy {
	struct key_value k[K__COUNT];
	char *spec_path; /* the spec file, absolute; NULL without --spec */
	char *spec_name; /* the spec as named to us, for messages */
	char *spec_dir;	 /* where the spec's relative paths resolve */
	bool resolved;
	/* Set by policy_resolve from the home folder: the folders that are
	 * always hidden (~/.lnk, ~/Link/Agents, ~/Link/History), absolute;
	 * and every other path a grant shows one (or a --hide folder) at
	 * (policy_hidden_by_identity). */
	struct strv always_hidden;
	/* What resolving asked the file system (the mounts, real paths),
	 * kept for the rest of the run's planning (policy/facts.h): made by
	 * policy_resolve, a fresh one in a copy. */
	struct fs_facts *facts;
};

void policy_init(struct policy *p);
void policy_free(struct policy *p);

/* Records one flag's argument for key id (validates its form, not paths). */
int policy_add_flag(struct policy *p, enum key_id id, const char *arg,
		    struct lnk_err *err);

/* Applies flags over a spec-loaded policy, by each key's merge rule. */
void policy_merge_flags(struct policy *p, const struct policy *flags);

/* Expands ~, makes paths absolute (against the spec's folder, or cwd for
 * flags), resolves symlinks, refuses grants that cannot exist or must never
 * be opened (~/.lnk, /, /proc, /sys, /dev, /run, $XDG_RUNTIME_DIR, sockets),
 * and fills defaults (a flag-only policy without --command runs every
 * system program: commands allow = ["*"]). */
/* Part of policy_resolve (src/policy/seen.c): a grant inside an
 * always-hidden folder at another path (a bind mount) refused; each other
 * path a grant shows a hidden folder at added to always_hidden. */
int policy_hidden_by_identity(struct policy *p, struct lnk_err *err);

int policy_resolve(struct policy *p, const char *cwd, const char *home,
		   struct lnk_err *err);

/* Convenience accessors. */
static inline const struct strv *policy_list(const struct policy *p,
					     enum key_id id)
{
	return &p->k[id].list;
}
static inline bool policy_has(const struct policy *p, enum key_id id)
{
	return p->k[id].set;
}
/* True when commands allow "*" (every system program may run). */
/* Whether the policy grants tools outside or pages to open (a tools
 * broker runs beside the sandbox). */
bool policy_wants_tools(const struct policy *p);
bool policy_any_command(const struct policy *p);

/* Appends one already-normalized entry to a list key, with where it came
 * from; drops duplicates. */
void policy_push(struct key_value *kv, const char *s, struct toml_pos pos);
/* Empties a key (list, string, number) and marks it unset. */
void policy_clear_key(struct key_value *kv);
/* Deep copy of src into dst (dst is initialized here). */
void policy_copy(struct policy *dst, const struct policy *src);
/* True when a and b grant the same (set, values; not positions). */
bool policy_equal(const struct policy *a, const struct policy *b);

/* What p opens, one line a grant, for a person: "writes /home/u/app",
 * "reaches internet host registry.npmjs.org", ... The lines `enter --check`
 * prints and trust shows before asking. A policy that opens nothing says so
 * in one line. Appended to out. */
void policy_describe(const struct policy *p, struct strv *out);
/* The lines of policy_describe for key id alone (its entries, or its
 * value), escaped. */
void policy_describe_key(const struct policy *p, enum key_id id,
			 struct strv *out);

/* Where entry i of key id came from, for messages: "--write" for a flag,
 * "app.toml:4:9: [files] write" for a spec. Returns an allocated string. */
char *policy_origin(const struct policy *p, enum key_id id, size_t i);
