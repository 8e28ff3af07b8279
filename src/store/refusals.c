/* How many refused calls the call log takes one by one (refusals.h). */
#include "store/refusals.h"

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
