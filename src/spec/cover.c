/* Whether one set of grants opens at least what another does: the rule
 * that decides when a spec asks first (spec/trust.c). See cover.h. */
#include "spec/cover.h"

#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "common/esc.h"
#include "common/util.h"
#include "policy/dotfiles.h"
#include "policy/keys.h"

static bool in_paths(const struct key_value *kv, const char *v)
{
	for (size_t i = 0; i < kv->list.n; i++)
		if (path_within(v, kv->list.v[i]))
			return true;
	return false;
}

/* Whether v, below the accepted folder top, lies at or below an entry
 * lnk keeps read only there: a dot entry or a name of the dot files' list
 * (Jenkinsfile) at any depth (a submodule's sub/.git is kept whole, as
 * the top's .git), or a git directory's hooks (bare.git/hooks), unless the
 * accepted run let the program write them (write_dot_files naming top).
 * Any name starting with a dot counts, not only the list's: asking once
 * too often is the safe side. */
static bool in_kept_entry(const char *v, const char *top,
			  const struct policy *was)
{
	size_t n = strlen(top);
	if (strcmp(top, "/") == 0)
		n = 0;
	if (strncmp(v, top, n) != 0 || v[n] != '/')
		return false;
	if (strv_contains(&was->k[K_FILES_WRITE_DOT_FILES].list, top))
		return false;
	for (const char *p = v + n + 1; *p;) {
		size_t len = strcspn(p, "/");
		char name[NAME_MAX + 1];
		if (len == 0 || len > NAME_MAX)
			return len > NAME_MAX;
		memcpy(name, p, len);
		name[len] = '\0';
		if (name[0] == '.' || is_dot_file(name) ||
		    strcmp(name, "hooks") == 0)
			return true;
		p += len;
		p += strspn(p, "/");
	}
	return false;
}

/* Whether the folder v (of now's write or read) opens nothing that was's
 * grants kept closed: it lies below one of was's folders of the kind
 * (write, or for reading either), never in one of was's hidden folders
 * (a grant there is mounted over the hiding), and, for writing, never
 * in an entry the accepted write folder's top kept read only. Threat: a
 * program rewrote its own spec to write `.git/hooks` too, taken for a
 * folder below the accepted `.`, and planted a hook with no question. */
static bool below_opened(const char *v, const struct policy *was, bool write,
			 const struct cover_kept *kept)
{
	const struct key_value *wr = &was->k[K_FILES_WRITE];
	const struct key_value *rd = &was->k[K_FILES_READ];
	if (in_paths(&was->k[K_FILES_HIDE], v))
		return false;
	/* The deepest accepted folder holding v says what it was: a read
	 * folder inside a write folder was read only there (a program
	 * rewrote its spec to write it). */
	const char *best = NULL;
	bool best_write = false;
	for (int k = 0; k < 2; k++) {
		const struct key_value *kv = k ? wr : rd;
		for (size_t i = 0; i < kv->list.n; i++) {
			const char *g = kv->list.v[i];
			if (path_within(v, g) &&
			    (!best || strlen(g) > strlen(best) ||
			     (strlen(g) == strlen(best) && k))) {
				best = g;
				best_write = k;
			}
		}
	}
	if (!best)
		return false;
	if (!write)
		return true;
	if (!best_write || in_kept_entry(v, best, was))
		return false;
	/* Strictly below: what the accepted run kept there by what it is
	 * (its top's protections are not the new folder's). */
	return strcmp(v, best) == 0 || !kept || !kept->holds(kept->ctx, was, v);
}

/* Whether v is writable by the grants of p alone: the deepest folder of
 * p holding it is a write folder (a read folder inside a write folder is
 * read only there), and no hidden folder holds it. */
static bool writable(const char *v, const struct policy *p)
{
	const struct key_value *wr = &p->k[K_FILES_WRITE];
	const struct key_value *rd = &p->k[K_FILES_READ];
	if (in_paths(&p->k[K_FILES_HIDE], v))
		return false;
	size_t best = 0;
	bool found = false, w = false;
	for (int k = 0; k < 2; k++) {
		const struct key_value *kv = k ? wr : rd;
		for (size_t i = 0; i < kv->list.n; i++) {
			const char *g = kv->list.v[i];
			size_t len = strlen(g);
			if (path_within(v, g) &&
			    (!found || len > best || (len == best && k))) {
				best = len;
				found = true;
				w = k;
			}
		}
	}
	return found && w;
}

/* Every read folder was kept read only inside one of its write folders
 * is still closed to writing in now. Threat: the spec left out
 * `read = ["ro"]` below its `write = ["."]`, a removal taken for a
 * narrowing, and ro/ was written with no question. */
static bool carve_outs_kept(const struct policy *was, const struct policy *now)
{
	const struct key_value *rd = &was->k[K_FILES_READ];
	for (size_t i = 0; i < rd->list.n; i++)
		if (!writable(rd->list.v[i], was) &&
		    writable(rd->list.v[i], now))
			return false;
	return true;
}

/* Every entry of now's list one of was's, exactly. */
static bool all_accepted(const struct key_value *n, const struct key_value *w)
{
	for (size_t i = 0; i < n->list.n; i++)
		if (!strv_contains(&w->list, n->list.v[i]))
			return false;
	return true;
}

/* A limit or threshold, unset or 0 meaning none (the widest). */
static uint64_t scalar(const struct key_value *kv)
{
	uint64_t v = kv->set && kv->str ? key_scalar_value(kv->str) : 0;
	return v ? v : UINT64_MAX;
}

/* How much the end of a run says: off, summary (the default), full. */
static int changes_rank(const struct key_value *v)
{
	if (!v->set || !v->str)
		return 1;
	return strcmp(v->str, "off") == 0    ? 0
	       : strcmp(v->str, "full") == 0 ? 2
					     : 1;
}

/* Whether key id of now opens nothing that was's does not: the rule that
 * decides asking, so that a run which only narrows what was accepted
 * (a folder below an accepted one, a grant left out, a lower limit, one
 * more hidden folder) never asks, and any widening does. */
static bool key_within(enum key_id id, const struct policy *now,
		       const struct policy *was, const struct cover_kept *kept)
{
	const struct key_value *n = &now->k[id], *w = &was->k[id];
	switch (id) {
	case K_NAME:
		/* opens nothing, but the name the log, traffic and pause go
		 * by is shown when asked: another one asks again */
		return !n->set || !n->str ||
		       (w->set && w->str && strcmp(n->str, w->str) == 0);
	case K_FILES_CHANGES:
		/* less said of what a run left hides what runs later: asks */
		return changes_rank(n) >= changes_rank(w);
	case K_VERSION:
	case K_TOOLS_ASK_WAIT: /* how long a question waits opens nothing */
	case K__COUNT:
		return true;
	case K_FILES_WRITE:
		for (size_t i = 0; i < n->list.n; i++)
			if (!below_opened(n->list.v[i], was, true, kept))
				return false;
		return true;
	case K_FILES_WRITE_DOT_FILES:
		for (size_t i = 0; i < n->list.n; i++)
			if (!in_paths(w, n->list.v[i]))
				return false;
		return true;
	case K_FILES_READ:
		/* reading what was written is no wider */
		for (size_t i = 0; i < n->list.n; i++)
			if (!below_opened(n->list.v[i], was, false, kept))
				return false;
		return true;
	case K_FILES_HIDE:
		/* the other way round: a folder hidden before and shown now
		 * opens it */
		for (size_t i = 0; i < w->list.n; i++)
			if (!in_paths(n, w->list.v[i]))
				return false;
		return true;
	case K_INTERNET_HOSTS:
	case K_COMMANDS_ALLOW:
		return strv_contains(&w->list, "*") || all_accepted(n, w);
	case K_INTERNET_MODELS:
	case K_LAN_HOSTS:
	case K_LOCALHOST_PORTS:
	case K_TOOLS_ALLOW:
	case K_BROWSER_OPEN:
	case K_COMMANDS_ENV:
		return all_accepted(n, w);
	case K_LIMITS_MEMORY:
	case K_LIMITS_TASKS:
	case K_LIMITS_TMP_SIZE:
	case K_TRIP_CALLS:
	case K_TRIP_TARGETS:
		return scalar(n) <= scalar(w);
	}
	return false;
}

void spec_reopened(const struct policy *was, const struct policy *now,
		   struct strv *out)
{
	const struct key_value *rd = &was->k[K_FILES_READ];
	for (size_t i = 0; i < rd->list.n; i++)
		if (!writable(rd->list.v[i], was) &&
		    in_paths(&was->k[K_FILES_WRITE], rd->list.v[i]) &&
		    writable(rd->list.v[i], now)) {
			_cleanup_free_ char *v = esc_dup(rd->list.v[i]);
			strv_pushf(out,
				   "writes %s (read only when you "
				   "accepted it)",
				   v);
		}
	const struct key_value *hd = &was->k[K_FILES_HIDE];
	for (size_t i = 0; i < hd->list.n; i++)
		if (!in_paths(&now->k[K_FILES_HIDE], hd->list.v[i]) &&
		    (in_paths(&now->k[K_FILES_READ], hd->list.v[i]) ||
		     in_paths(&now->k[K_FILES_WRITE], hd->list.v[i]))) {
			_cleanup_free_ char *v = esc_dup(hd->list.v[i]);
			strv_pushf(out,
				   "shows %s (hidden when you accepted "
				   "it)",
				   v);
		}
}

bool spec_covers(const struct policy *was, const struct policy *now,
		 const struct cover_kept *kept)
{
	for (size_t id = 0; id < K__COUNT; id++)
		if (!key_within((enum key_id)id, now, was, kept))
			return false;
	return carve_outs_kept(was, now);
}
