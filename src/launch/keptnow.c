/* See keptnow.h. */
#include "launch/keptnow.h"

#include <string.h>

#include "common/util.h"
#include "guard/guard.h"
#include "launch/env.h"
#include "policy/keys.h"
#include "store/paths.h"

/* Whether a and b are the same path, or one holds the other. */
static bool near(const char *a, const char *b)
{
	return path_within(a, b) || path_within(b, a);
}

void kept_protect_in(const struct policy *pol, const char *home,
		     char *const *env, struct protect_in *in,
		     struct strv *hidden, struct strv *grants, char **links)
{
	strv_copy(hidden, &pol->always_hidden);
	paths_always_hidden(home, hidden);
	const struct strv *hd = policy_list(pol, K_FILES_HIDE);
	for (size_t i = 0; i < hd->n; i++)
		strv_push(hidden, hd->v[i]);
	strv_copy(grants, policy_list(pol, K_FILES_READ));
	const struct strv *wl = policy_list(pol, K_FILES_WRITE);
	for (size_t i = 0; i < wl->n; i++)
		strv_push(grants, wl->v[i]);
	*links = paths_home_links_cache(home);
	*in = (struct protect_in){
	    .link_cache = *links,
	    .write = wl,
	    .lifted = policy_list(pol, K_FILES_WRITE_DOT_FILES),
	    .hidden = hidden,
	    .grants = grants,
	    .home = home,
	    .path_env = env ? env_lookup(env, "PATH") : NULL,
	    .env = env,
	    .facts = pol->facts,
	};
}

/* Threat: a spec rewritten from `write = ["."]` to `write = ["tools"]`,
 * a folder on the user's PATH the accepted run kept read only, taken
 * for a narrower grant. Every entry the accepted run keeps read only
 * (and every name it will not let be created) is asked for: at, above or
 * below dir, the new grant may open it. A plan that fails counts as
 * holding something: asking is the safe side. */
static bool holds(void *ctx, const struct policy *was, const char *dir)
{
	const struct kept_ctx *c = ctx;
	struct strv hidden = {0}, grants = {0}, ro = {0};
	_cleanup_free_ char *links = NULL;
	struct protect_in pro;
	kept_protect_in(was, c->home, c->env, &pro, &hidden, &grants, &links);
	struct guard_plan np = {0};
	struct lnk_err e = {0};
	bool found = guard_protect(&pro, &np, &ro, &e) < 0;
	for (size_t i = 0; !found && i < ro.n; i++)
		found = near(ro.v[i], dir);
	for (size_t i = 0; !found && i < np.nkept; i++)
		found = near(np.kept[i].path, dir);
	for (size_t i = 0; !found && i < np.n; i++) {
		const struct guard_rule *g = &np.guards[i];
		if (!g->name) {
			/* its listed dot names: kept only while g->dir is
			 * a write folder's top */
			found = path_within(g->dir, dir) && strcmp(g->dir, dir);
			continue;
		}
		_cleanup_free_ char *p = xasprintf("%s/%s", g->dir, g->name);
		found = near(p, dir);
	}
	guard_plan_free(&np);
	strv_free(&ro);
	strv_free(&hidden);
	strv_free(&grants);
	return found;
}

void kept_for_trust(struct cover_kept *k, struct kept_ctx *c)
{
	k->holds = holds;
	k->ctx = c;
}
