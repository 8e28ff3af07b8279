/* Specs: TOML text <-> policy (docs/design.md, "One model").
 *
 * Reading a spec (policy_load_spec, policy_load_spec_text) is in
 * spec.c; writing one is here
 * (emit.c). The emitted text is canonical: one policy, one text, so that
 * emit -> parse -> emit is identical and the trust digest of what a spec
 * opens does not depend on how its author formatted it.
 */
#pragma once

#include "policy/policy.h"

/* Parses a spec file into p (which must be fresh). Errors carry
 * file:line:col and the closest valid key. */
int policy_load_spec(struct policy *p, const char *path, struct lnk_err *err);
/* The same from text in memory; dir is where relative paths resolve. */
int policy_load_spec_text(struct policy *p, const char *text, size_t len,
			  const char *name, const char *dir,
			  struct lnk_err *err);

enum spec_emit_flags {
	/* Only the grants: no name, no version. What trust digests. */
	SPEC_EMIT_GRANTS_ONLY = 1u << 0,
	/* Leave out what flags set (keys set by a flag, and entries a flag
	 * added to a --hide list): what the spec file itself opens. */
	SPEC_EMIT_SPEC_ONLY = 1u << 1,
	/* With SPEC_EMIT_GRANTS_ONLY, the name too: it opens nothing, but
	 * the sandbox's calls, traffic and pause go by it (what an
	 * acceptance holds, spec/trust.c). */
	SPEC_EMIT_NAME = 1u << 2,
};

/* The canonical TOML of p: name and version at the top, then each section
 * that has a key set, in keys_sections() order, its keys in table order.
 * Ports are integers, every other entry a basic string. Returns allocated
 * text ending in a newline. */
char *spec_emit(const struct policy *p);
char *spec_emit_flags(const struct policy *p, unsigned flags);
/* 0, or -EILSEQ when an entry of p is not UTF-8 (a spec cannot hold it). */
int spec_emit_check(const struct policy *p, struct lnk_err *err);
