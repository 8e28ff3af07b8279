/* Memory lnk maps shared before it forks a sandbox's processes (the wire,
 * the tools broker), each map beginning with its lock.
 *
 * The lock is robust: a process killed while holding it (the wire ended
 * by a signal mid-update) leaves it to the next taker rather than hanging
 * every other channel of the sandbox; what it guards is changed whole
 * before each unlock, so the next taker finds it whole. */
#pragma once

#include <pthread.h>
#include <stddef.h>

/* size bytes of zeroed shared memory whose first member is a
 * pthread_mutex_t, made process-shared and robust; NULL when none can be
 * had. Freed with shared_free(p, size). */
void *shared_new(size_t size);
void shared_free(void *p, size_t size);
/* Takes the lock at the start of such memory. */
void shared_lock(pthread_mutex_t *m);
