/* The refusals told to the wire's tripwires, shared (tripbox.h). */
#include "store/tripbox.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "store/shared.h"

struct tripbox {
	pthread_mutex_t lock;
	unsigned head, n; /* the oldest slot, and how many are full */
	uint64_t lost;
	char slot[TRIPBOX_SLOTS][TRIPBOX_TARGET_MAX];
};

struct tripbox *tripbox_new(void)
{
	return shared_new(sizeof(struct tripbox));
}

void tripbox_free(struct tripbox *t)
{
	shared_free(t, sizeof(*t));
}

static void lock(struct tripbox *t)
{
	shared_lock(&t->lock);
}

void tripbox_put(struct tripbox *t, const char *target)
{
	if (!t)
		return;
	lock(t);
	if (t->n >= TRIPBOX_SLOTS) {
		t->lost++;
	} else {
		char *s = t->slot[(t->head + t->n) % TRIPBOX_SLOTS];
		const char *v = target ? target : "";
		size_t len = strlen(v);
		if (len < TRIPBOX_TARGET_MAX) {
			memcpy(s, v, len + 1);
		} else {
			/* its start and a hash of the whole: targets that
			 * differ past the cut stay different targets */
			uint64_t h = fnv1a(v);
			size_t keep = TRIPBOX_TARGET_MAX - 18;
			memcpy(s, v, keep);
			snprintf(s + keep, 18, "#%016llx",
				 (unsigned long long)h);
		}
		t->n++;
	}
	pthread_mutex_unlock(&t->lock);
}

size_t tripbox_take(struct tripbox *t, char (*out)[TRIPBOX_TARGET_MAX],
		    size_t max, uint64_t *lost)
{
	size_t got = 0;
	*lost = 0;
	if (!t)
		return 0;
	lock(t);
	/* the memory is shared with another process: its counts are
	 * bounded here before they index anything */
	if (t->n > TRIPBOX_SLOTS)
		t->n = TRIPBOX_SLOTS;
	t->head %= TRIPBOX_SLOTS;
	while (got < max && t->n > 0) {
		memcpy(out[got], t->slot[t->head], TRIPBOX_TARGET_MAX);
		out[got][TRIPBOX_TARGET_MAX - 1] = '\0';
		t->head = (t->head + 1) % TRIPBOX_SLOTS;
		t->n--;
		got++;
	}
	*lost = t->lost;
	t->lost = 0;
	pthread_mutex_unlock(&t->lock);
	return got;
}
