/* The keeper beside the wire: keeps the keeper on the CPU the wire last
 * asked from.
 *
 * Why: each connection the wire makes is one round trip to its keeper
 * (keeper.h). Waking a process that sleeps on another CPU costs an
 * interrupt to that CPU, and on a virtual machine an exit to the host:
 * bench/floor.c measures 76 us a round trip across two CPUs here, 6 us
 * on one. The scheduler sends the keeper to whichever CPU is idle, so at
 * one connection at a time every connect paid the far round trip. The
 * wire names its CPU in each connect it asks ('C' in proto/keeper.h);
 * the keeper moves to it, so its wake-up and its answer stay on the CPU
 * the wire is on. The wire itself is never pinned: it moves as the
 * scheduler likes, and the keeper follows at its next ask.
 *
 * Threat: after its setup the wire may be an attacker's, so the CPU it
 * names is hostile. It is a hint and nothing more: a CPU outside the set
 * the keeper was started with is ignored, and the worst a wire can do is
 * move its own keeper between the CPUs it may use anyway. Before the
 * keeper starts another program (a desktop notice), near_release gives
 * it the whole set back, so the program does not inherit one CPU. */
#pragma once

#include <stdbool.h>

struct near {
	bool on;       /* the keeper's set was read: following is possible */
	int cpu;       /* the one CPU it is on now; -1: its whole set */
	void *allowed; /* the set it started with (a cpu_set_t) */
};

/* Reads the calling process's CPU set; following is off when it cannot
 * be read or holds a single CPU. */
void near_init(struct near *n);
/* Moves the calling process to cpu when it is in the set read at
 * near_init and not where it already is; a cpu < 0 (the wire did not
 * know) is ignored. When the move fails (the set was narrowed since, by
 * a cpuset), the whole set is asked back and following stops. */
void near_follow(struct near *n, int cpu);
/* The whole set back (before a fork). */
void near_release(struct near *n);
void near_free(struct near *n);
/* The CPU the caller runs on, for its ask: -1 when unknown. */
int near_cpu_now(void);
