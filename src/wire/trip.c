/* Tripwires: a pure state machine over refused calls (see trip.h). */
#include "wire/trip.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "common/util.h"
#include "net/addr.h"
#include "net/grammar.h"

static unsigned threshold(unsigned v, unsigned def, unsigned max)
{
	if (v == 0)
		return def;
	return v > max ? max : v;
}

void trip_init_at(struct trip *t, unsigned calls, unsigned targets)
{
	memset(t, 0, sizeof(*t));
	t->rate_limit = threshold(calls, TRIP_RATE_COUNT, TRIP_RATE_MAX);
	t->targets_limit = threshold(targets, TRIP_TARGETS, TRIP_TARGETS_MAX);
}

void trip_init(struct trip *t)
{
	trip_init_at(t, 0, 0);
}

void trip_reset(struct trip *t)
{
	trip_init_at(t, t->rate_limit, t->targets_limit);
}

bool trip_tripped(const struct trip *t)
{
	return t->tripped;
}

/* Targets are compared case-insensitively (hosts are), so a program cannot
 * make one host look like many by changing its case. */
static void make_key(const char *target, char key[TRIP_TARGET_MAX + 1])
{
	if (!target)
		target = "";
	size_t n = strlen(target);
	if (n <= TRIP_TARGET_MAX) {
		for (size_t i = 0; i <= n; i++) {
			char c = target[i];
			key[i] = (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c;
		}
		return;
	}
	char low[TRIP_TARGET_MAX + 1];
	/* prefix (239) + '#' + 16 hex digits = 256 > 255: keep 238. */
	size_t keep = TRIP_TARGET_MAX - 17;
	for (size_t i = 0; i < keep; i++) {
		char c = target[i];
		low[i] = (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c;
	}
	low[keep] = '\0';
	snprintf(key, TRIP_TARGET_MAX + 1, "%s#%016llx", low,
		 (unsigned long long)fnv1a(target));
}

static bool trip_now(struct trip *t, enum trip_rule r, int64_t now,
		     const char *key, struct trip_verdict *out)
{
	t->tripped = true;
	t->verdict.rule = r;
	t->verdict.at_ms = now;
	snprintf(t->verdict.target, sizeof(t->verdict.target), "%s", key);
	if (out)
		*out = t->verdict;
	return true;
}

static bool note_rate(struct trip *t, int64_t now)
{
	t->rate[t->rate_head] = now;
	t->rate_head = (t->rate_head + 1) % t->rate_limit;
	if (t->rate_n < t->rate_limit)
		t->rate_n++;
	if (t->rate_n < t->rate_limit)
		return false;
	/* The ring is full: its oldest entry is the first of the last
	 * rate_limit. */
	int64_t first = t->rate[t->rate_head];
	return now - first < TRIP_RATE_WINDOW_MS;
}

static bool note_target(struct trip *t, int64_t now, const char *key)
{
	/* Forget targets whose last refusal left the window. */
	unsigned j = 0;
	for (unsigned i = 0; i < t->ntargets; i++)
		if (now - t->targets[i].last_ms < TRIP_TARGETS_WINDOW_MS)
			t->targets[j++] = t->targets[i];
	t->ntargets = j;

	for (unsigned i = 0; i < t->ntargets; i++)
		if (strcmp(t->targets[i].key, key) == 0) {
			t->targets[i].last_ms = now;
			return false;
		}
	/* Not yet full: ntargets < targets_limit, since reaching it trips
	 * and a tripped machine notes nothing until trip_reset. */
	struct trip_target *e = &t->targets[t->ntargets++];
	e->last_ms = now;
	memcpy(e->key, key, sizeof(e->key));
	return t->ntargets >= t->targets_limit;
}

/* The domain a name's data would be carried under: its last two labels
 * ("x1.granted.test" -> "granted.test"), lower case. */
static const char *domain_of(const char *key)
{
	const char *last = strrchr(key, '.');
	if (!last)
		return key;
	const char *p = last;
	while (p > key && p[-1] != '.')
		p--;
	return p;
}

/* Whether domain entry a is a better one to give up than b. */
static bool evict_before(const struct trip_domain *a,
			 const struct trip_domain *b, int64_t now)
{
	bool a_free = !a->n || now - a->first_ms >= TRIP_NAMES_WINDOW_MS;
	bool b_free = !b->n || now - b->first_ms >= TRIP_NAMES_WINDOW_MS;
	if (a_free != b_free)
		return a_free;
	if (a->n != b->n)
		return a->n < b->n;
	return a->last_ms < b->last_ms;
}

static bool note_lookup(struct trip *t, int64_t now, const char *key,
			struct trip_verdict *out)
{
	const char *dom = domain_of(key);
	uint64_t dk = fnv1a(dom), nk = fnv1a(key);
	struct trip_domain *d = NULL, *old = NULL;
	for (unsigned i = 0; i < TRIP_DOMAINS; i++) {
		struct trip_domain *e = &t->domains[i];
		if (e->n && e->key == dk) {
			d = e;
			break;
		}
		/* an empty or finished entry, else the one with the fewest
		 * names (the least like a leak), idle longest */
		if (!old || evict_before(e, old, now))
			old = e;
	}
	if (!d || now - d->first_ms >= TRIP_NAMES_WINDOW_MS) {
		/* a new domain takes the place of the one idle longest */
		if (!d)
			d = old;
		memset(d, 0, sizeof(*d));
		d->key = dk;
		d->first_ms = now;
	}
	d->last_ms = now;
	for (unsigned i = 0; i < d->n; i++)
		if (d->names[i] == nk)
			return false;
	d->names[d->n++] = nk;
	if (d->n < TRIP_NAMES)
		return false;
	char what[TRIP_TARGET_MAX + 1];
	snprintf(what, sizeof(what), "*.%s", dom);
	return trip_now(t, TRIP_DNS_NAMES, now, what, out);
}

bool trip_note(struct trip *t, int64_t now_ms, enum trip_event ev,
	       const char *target, struct trip_verdict *out)
{
	if (t->tripped)
		return false;
	char key[TRIP_TARGET_MAX + 1];
	make_key(target, key);

	/* A clock going back (a caller's bug, or a wall clock) must not make
	 * old refusals look new forever: treat it as no time passing. */
	int64_t last = 0;
	if (t->rate_n)
		last =
		    t->rate[(t->rate_head + t->rate_limit - 1) % t->rate_limit];
	for (unsigned i = 0; i < t->ntargets; i++)
		if (t->targets[i].last_ms > last)
			last = t->targets[i].last_ms;
	if (now_ms < last)
		now_ms = last;

	switch (ev) {
	case TRIP_EV_METADATA:
		return trip_now(t, TRIP_METADATA, now_ms, key, out);
	case TRIP_EV_LOOKUP:
		return note_lookup(t, now_ms, key, out);
	case TRIP_EV_REFUSED:
		break;
	}
	bool rate = note_rate(t, now_ms);
	bool targets = note_target(t, now_ms, key);
	if (rate)
		return trip_now(t, TRIP_REFUSED_RATE, now_ms, key, out);
	if (targets)
		return trip_now(t, TRIP_REFUSED_TARGETS, now_ms, key, out);
	return false;
}

/* The address classes own the list of metadata addresses (net/addr.c), so
 * the tripwire and the filter cannot disagree about one. */
bool trip_addr_is_metadata(int family, const void *addr)
{
	struct lnk_addr a = {.family = family};
	if (family == AF_INET)
		memcpy(a.a, addr, 4);
	else if (family == AF_INET6)
		memcpy(a.a, addr, 16);
	else
		return false;
	return addr_classify(&a) == AC_METADATA;
}

bool trip_target_is_metadata(const char *host)
{
	char h[256];
	if (!host)
		return false;
	size_t n = strlen(host);
	if (n == 0 || n >= sizeof(h))
		return false;
	memcpy(h, host, n + 1);
	if (h[0] == '[' && h[n - 1] == ']') {
		memmove(h, h + 1, n - 2);
		h[n - 2] = '\0';
		n -= 2;
	}
	if (n && h[n - 1] == '.')
		h[--n] = '\0';
	struct lnk_addr a;
	if (addr_parse_literal(h, &a) == LIT_ADDR)
		return addr_classify(&a) == AC_METADATA;
	return host_is_metadata_name(h);
}
