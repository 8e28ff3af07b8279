/* The refusals a sandbox's other channels tell its wire's tripwires.
 *
 * Threat: the tripwires pause a sandbox whose calls look like no normal
 * work (30 refused within a minute, 20 different targets refused within
 * 10 minutes: wire/trip.h). A tool's call is a call too, and one refused
 * after another is a program probing what it may run outside as the
 * person; when only the wire counted its own refusals, such a program
 * could probe the tools without end and keep its network open.
 *
 * The tools broker puts the target of each call it refuses into memory
 * lnk maps shared before it forks the wire and the broker; the wire takes
 * them on its tick (a quarter of a second) and counts each as one of its
 * own refusals. The box is bounded: what a full box cannot hold is
 * counted, and each of those still counts toward the rate. Only a pause
 * can come of it, so whatever the broker puts here grants nothing; the
 * wire reads it as data of bounded size. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define TRIPBOX_SLOTS 64
#define TRIPBOX_TARGET_MAX 160 /* bytes, with the NUL */

struct tripbox;

/* The shared box, empty, or NULL when no shared memory can be had (the
 * caller then refuses to start the run, as for store/shut.h). */
struct tripbox *tripbox_new(void);
void tripbox_free(struct tripbox *t);
/* One refused call's target (cut to fit). NULL t: nothing. */
void tripbox_put(struct tripbox *t, const char *target);
/* Takes up to max targets, oldest first, into out; *lost is set to how
 * many a full box could not hold since the last take. Returns how many
 * were taken. */
size_t tripbox_take(struct tripbox *t, char (*out)[TRIPBOX_TARGET_MAX],
		    size_t max, uint64_t *lost);
