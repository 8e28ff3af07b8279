/* How many refused calls the call log takes one by one (refusals.h). */
#include "store/refusals.h"

#include <pthread.h>
#include <time.h>

#include "store/shared.h"

void refusals_init(struct refusals *r, int64_t now_ms)
{
	r->tokens = REFUSAL_BURST;
	r->refill_ms = now_ms + REFUSAL_EVERY_MS;
	r->unlogged = 0;
	r->summary_ms = now_ms;
}

bool refusals_take(struct refusals *r, int64_t now_ms)
{
	if (now_ms >= r->refill_ms) {
		int64_t add = (now_ms - r->refill_ms) / REFUSAL_EVERY_MS + 1;
		r->tokens = r->tokens + add > REFUSAL_BURST ? REFUSAL_BURST
							    : r->tokens + add;
		r->refill_ms += add * REFUSAL_EVERY_MS;
	}
	if (r->tokens > 0) {
		r->tokens--;
		return true;
	}
	r->unlogged++;
	return false;
}

uint64_t refusals_due(struct refusals *r, int64_t now_ms, bool end)
{
	if (!r->unlogged ||
	    (!end && now_ms - r->summary_ms < REFUSAL_SUMMARY_MS))
		return 0;
	uint64_t n = r->unlogged;
	r->unlogged = 0;
	r->summary_ms = now_ms;
	return n;
}

void refusals_count(struct refusals *r, uint64_t n)
{
	r->unlogged += n;
}

struct refusals_shared {
	pthread_mutex_t lock;
	struct refusals r;
};

int64_t refusals_clock_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

struct refusals_shared *refusals_shared_new(int64_t now_ms)
{
	struct refusals_shared *s = shared_new(sizeof(*s));
	if (s)
		refusals_init(&s->r, now_ms);
	return s;
}

void refusals_shared_free(struct refusals_shared *s)
{
	shared_free(s, sizeof(*s));
}

static void lock(struct refusals_shared *s)
{
	shared_lock(&s->lock);
}

bool refusals_shared_take(struct refusals_shared *s, int64_t now_ms)
{
	lock(s);
	bool r = refusals_take(&s->r, now_ms);
	pthread_mutex_unlock(&s->lock);
	return r;
}

uint64_t refusals_shared_due(struct refusals_shared *s, int64_t now_ms,
			     bool end)
{
	lock(s);
	uint64_t n = refusals_due(&s->r, now_ms, end);
	pthread_mutex_unlock(&s->lock);
	return n;
}

void refusals_shared_count(struct refusals_shared *s, uint64_t n)
{
	lock(s);
	refusals_count(&s->r, n);
	pthread_mutex_unlock(&s->lock);
}
