/* Whether one set of grants opens at least what another does: the rule
 * that decides when a spec asks first (spec/trust.c). See cover.h. */
#include "spec/cover.h"

#include <stdint.h>
#include <string.h>

#include "common/util.h"
#include "policy/keys.h"

static bool in_paths(const struct key_value *kv, const char *v)
{
	for (size_t i = 0; i < kv->list.n; i++)
		if (path_within(v, kv->list.v[i]))
			return true;
	return false;
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

/* Whether key id of now opens nothing that was's does not: the rule that
 * decides asking, so that a run which only narrows what was accepted
 * (a folder below an accepted one, a grant left out, a lower limit, one
 * more hidden folder) never asks, and any widening does. */
static bool key_within(enum key_id id, const struct policy *now,
		       const struct policy *was)
{
	const struct key_value *n = &now->k[id], *w = &was->k[id];
	switch (id) {
	case K_NAME:
	case K_VERSION:
	case K_FILES_CHANGES:
	case K_TOOLS_ASK_WAIT: /* how long a question waits opens nothing */
	case K__COUNT:
		return true;
	case K_FILES_WRITE:
	case K_FILES_WRITE_DOT_FILES:
		for (size_t i = 0; i < n->list.n; i++)
			if (!in_paths(w, n->list.v[i]))
				return false;
		return true;
	case K_FILES_READ:
		/* reading what was written is no wider */
		for (size_t i = 0; i < n->list.n; i++)
			if (!in_paths(w, n->list.v[i]) &&
			    !in_paths(&was->k[K_FILES_WRITE], n->list.v[i]))
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

bool spec_covers(const struct policy *was, const struct policy *now)
{
	for (size_t id = 0; id < K__COUNT; id++)
		if (!key_within((enum key_id)id, now, was))
			return false;
	return true;
}
