/* The hidden folders known by what they are, wherever a grant shows them
 * (docs/design.md, invariant 1).
 *
 * Threat: the home is also reachable at a second path (a /home bound from
 * /data/home, a btrfs volume mounted beside it, a container's bind);
 * --write or --read of that path showed ~/.lnk (keys, answers, specs, the
 * log) and ~/Link/Agents there, since every rule compared spellings. Each
 * grant is matched against each hidden folder by its place in the file
 * system (common/fsplace.h): a grant inside an always-hidden folder is
 * refused; a grant that shows one (or a --hide folder) at another path
 * gets that path hidden too. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/fsplace.h"
#include "policy/policy.h"

/* The real form of each always-hidden and --hide folder that exists. */
static void hidden_real(const struct policy *p, struct strv *out)
{
	struct fs_facts *f = p->facts;
	const struct strv *lists[] = {&p->always_hidden,
				      &p->k[K_FILES_HIDE].list};
	for (size_t l = 0; l < ARRAY_SIZE(lists); l++)
		for (size_t i = 0; i < lists[l]->n; i++) {
			const char *r = facts_real(f, lists[l]->v[i]);
			if (r && !strv_contains(out, r))
				strv_push(out, r);
		}
}

int policy_hidden_by_identity(struct policy *p, struct lnk_err *err)
{
	struct strv hidden = {0}, always = {0}, alts = {0};
	const enum key_id ids[] = {K_FILES_WRITE, K_FILES_READ};
	const struct mount_table *mt;
	int r = 0;

	if (!p->k[K_FILES_WRITE].list.n && !p->k[K_FILES_READ].list.n)
		return 0; /* no grant shows anything */
	if (!(mt = facts_mounts(p->facts)))
		return 0; /* no mountinfo (not Linux): spellings only */
	hidden_real(p, &hidden);
	for (size_t i = 0; i < p->always_hidden.n; i++) {
		const char *x = facts_real(p->facts, p->always_hidden.v[i]);
		if (x)
			strv_push(&always, x);
	}
	for (size_t k = 0; k < ARRAY_SIZE(ids) && r == 0; k++) {
		const struct strv *g = &p->k[ids[k]].list;
		for (size_t i = 0; i < g->n && r == 0; i++) {
			struct fs_place gp;
			if (mounts_place(mt, g->v[i], &gp) < 0)
				continue;
			for (size_t h = 0; h < always.n && r == 0; h++) {
				struct fs_place hp;
				if (mounts_place(mt, always.v[h], &hp) < 0)
					continue;
				if (fs_place_within(&gp, &hp))
					r = err_set(
					    err, -EINVAL,
					    "%s '%s' shows '%s' (or a folder "
					    "in it) at another path, through a "
					    "bind mount: lnk's settings and "
					    "the agents' folders are hidden "
					    "from every sandbox; grant a folder "
					    "that does not lie in it",
					    ids[k] == K_FILES_WRITE ? "--write"
								    : "--read",
					    g->v[i], always.v[h]);
				fs_place_free(&hp);
			}
			fs_place_free(&gp);
			for (size_t h = 0; h < hidden.n; h++)
				mounts_seen_at(mt, g->v[i], hidden.v[h], &alts);
		}
	}
	for (size_t i = 0; i < alts.n; i++)
		if (!strv_contains(&p->always_hidden, alts.v[i]))
			strv_push(&p->always_hidden, alts.v[i]);
	strv_free(&alts);
	strv_free(&always);
	strv_free(&hidden);
	return r;
}
