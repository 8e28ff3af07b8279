/* A small event loop, one per wire (the shape of redis' ae.c: a handler
 * per descriptor, level-triggered, no threads).
 *
 * The interface is the platform's seam: epoll on Linux (loop_epoll.c),
 * kqueue on macOS (loop_kqueue.c), chosen by meson for the host. Both
 * give the loop a descriptor of its own that is readable while an event
 * waits, so one loop can sit inside another (the control server's does).
 *
 * Handlers are embedded in the objects they serve; an object closed while
 * other events for it wait in the same batch must not be freed until the
 * batch is done, which is the caller's graveyard (see conn.c).
 */
#pragma once

#include <stdint.h>

#include "common/err.h"

/* The events a handler asks for and is called with (the values are
 * epoll's and poll's own, which loop_epoll.c passes through). */
#define LOOP_IN 0x001u	/* readable, or a listener's connection waits */
#define LOOP_OUT 0x004u /* writable, or a connect finished */
#define LOOP_ERR 0x008u /* an error waits (reported even when not asked) */
#define LOOP_HUP 0x010u /* the peer hung up (reported even when not asked) */

struct loop;
struct loop_handler;
typedef void (*loop_fn)(struct loop_handler *h, uint32_t events);

struct loop_handler {
	loop_fn fn;
	int fd;
	uint32_t mask; /* events registered now; 0 when not registered */
};

int loop_new(struct loop **out, struct lnk_err *err);
void loop_free(struct loop *l);
/* Registers, changes or (with events == 0) removes h->fd's interest in
 * LOOP_IN and LOOP_OUT. Only asks the kernel when the mask changes. 0 or
 * -errno. */
int loop_set(struct loop *l, struct loop_handler *h, uint32_t events);
/* Forgets h (before its fd is closed). */
void loop_del(struct loop *l, struct loop_handler *h);
/* Forgets h without asking the kernel: only for an fd about to be closed
 * that no other process holds, whose close takes it out of the loop (epoll
 * and kqueue both drop a file's interest at its last close). An event of
 * it already fetched in this round is skipped, as after loop_del. */
static inline void loop_forget(struct loop_handler *h)
{
	h->mask = 0;
}
/* Waits up to timeout_ms and dispatches. The number of events, or -errno. */
int loop_once(struct loop *l, int timeout_ms);
/* The loop's own descriptor: readable while an event waits. */
int loop_fd(const struct loop *l);
/* Monotonic milliseconds. */
int64_t loop_now_ms(void);
