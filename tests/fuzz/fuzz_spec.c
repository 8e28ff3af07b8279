/* libFuzzer target for the spec loader on top of the TOML parser
 * (spec/spec.h): a spec is a file anyone may hand a person. Any bytes must
 * give a policy or a clean refusal with a "name:..." message free of
 * control characters; never a crash, a leak or undefined behaviour. A
 * policy that loads must emit canonical TOML that loads back and emits the
 * same text again, its grants included (the trust digest is taken over the
 * grants' text, so two spellings of one spec must not digest apart, and
 * what trust showed must be what runs). A spec without a version emits
 * version = 1, so the whole policies are compared from the second load on. */
#include "spec/spec.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void clean_msg(const char *m)
{
	if (strncmp(m, "fuzz.toml", 9) != 0)
		abort();
	for (const unsigned char *p = (const unsigned char *)m; *p; p++)
		if (*p < 0x20 || *p == 0x7f ||
		    (p[0] == 0xC2 && p[1] >= 0x80 && p[1] < 0xA0))
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct policy p;
	struct lnk_err err = {0};
	policy_init(&p);
	if (policy_load_spec_text(&p, (const char *)data, size, "fuzz.toml",
				  "/fuzz", &err) < 0) {
		clean_msg(err.msg);
		policy_free(&p);
		return 0;
	}
	if (spec_emit_check(&p, &err) < 0) {
		policy_free(&p);
		return 0;
	}
	char *t1 = spec_emit(&p);
	struct policy q;
	policy_init(&q);
	struct lnk_err e2 = {0};
	if (policy_load_spec_text(&q, t1, strlen(t1), "fuzz.toml", "/fuzz",
				  &e2) < 0)
		abort(); /* the canonical text of a policy must load */
	char *t2 = spec_emit(&q);
	char *g1 = spec_emit_flags(&p, SPEC_EMIT_GRANTS_ONLY);
	char *g2 = spec_emit_flags(&q, SPEC_EMIT_GRANTS_ONLY);
	struct policy r;
	policy_init(&r);
	if (policy_load_spec_text(&r, t2, strlen(t2), "fuzz.toml", "/fuzz",
				  &e2) < 0)
		abort();
	if (strcmp(t1, t2) != 0 || strcmp(g1, g2) != 0 || !policy_equal(&q, &r))
		abort();
	free(t1);
	free(t2);
	free(g1);
	free(g2);
	policy_free(&r);
	policy_free(&q);
	policy_free(&p);
	return 0;
}
