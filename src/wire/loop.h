/* A small epoll event loop, one per wire (the shape of redis' ae.c: a
 * handler per descriptor, level-triggered, no threads).
 *
 * Handlers are embedded in the objects they serve; an object closed while
 * other events for it wait in the same epoll_wait batch must not be freed
 * until the batch is done, which is the caller's graveyard (see conn.c).
 */
#pragma once

#include <stdint.h>
#include <sys/epoll.h>

#include "common/err.h"

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
/* Registers, changes or (with events == 0) removes h->fd's interest. Only
 * calls epoll_ctl when the mask changes. 0 or -errno. */
int loop_set(struct loop *l, struct loop_handler *h, uint32_t events);
/* Forgets h (before its fd is closed). */
void loop_del(struct loop *l, struct loop_handler *h);
/* Waits up to timeout_ms and dispatches. The number of events, or -errno. */
int loop_once(struct loop *l, int timeout_ms);
/* Monotonic milliseconds. */
int64_t loop_now_ms(void);
