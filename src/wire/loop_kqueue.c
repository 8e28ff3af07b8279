/* The event loop on macOS: kqueue (loop.h), level-triggered as epoll is.
 *
 * kqueue keeps a reading and a writing filter per descriptor, and reports
 * each as its own event: one batch's events for the same handler are
 * merged into one call, so a handler sees what epoll would have shown it.
 * A kqueue descriptor is itself readable while an event waits (loop_fd).
 * Not built on Linux; tests/portable/check compiles it there against the
 * SDK's declarations (tests/portable/macos/sys/event.h).
 */
#include "wire/loop.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/event.h>
#include <time.h>
#include <unistd.h>

#include "common/util.h"

#define LOOP_BATCH 256

struct loop {
	int kq;
	struct kevent ev[LOOP_BATCH];
};

int loop_new(struct loop **out, struct lnk_err *err)
{
	struct loop *l = xcalloc(1, sizeof(*l));
	l->kq = kqueue();
	/* kqueue descriptors are not inherited by a child of fork anyway;
	 * close-on-exec is said for the rule's sake */
	if (l->kq < 0 || fcntl(l->kq, F_SETFD, FD_CLOEXEC) < 0) {
		int e = errno;
		if (l->kq >= 0)
			close(l->kq);
		free(l);
		return err_set(err, -e,
			       "cannot create the wire's event loop: %s",
			       strerror(e));
	}
	*out = l;
	return 0;
}

void loop_free(struct loop *l)
{
	if (!l)
		return;
	close(l->kq);
	free(l);
}

int loop_set(struct loop *l, struct loop_handler *h, uint32_t events)
{
	events &= LOOP_IN | LOOP_OUT;
	static const struct {
		uint32_t bit;
		int16_t filter;
	} f[] = {{LOOP_IN, EVFILT_READ}, {LOOP_OUT, EVFILT_WRITE}};
	/* one filter at a time, so h->mask always says what is registered,
	 * even when the second change fails */
	for (size_t i = 0; i < ARRAY_SIZE(f); i++) {
		if (!((events ^ h->mask) & f[i].bit))
			continue;
		struct kevent ch;
		EV_SET(&ch, (uintptr_t)h->fd, f[i].filter,
		       (events & f[i].bit) ? EV_ADD : EV_DELETE, 0, 0, h);
		if (kevent(l->kq, &ch, 1, NULL, 0, NULL) < 0)
			return -errno;
		h->mask ^= f[i].bit;
	}
	return 0;
}

void loop_del(struct loop *l, struct loop_handler *h)
{
	/* removes the filters h->mask says are there; a closed fd has lost
	 * them already (an error, and nothing to do) */
	if (h->mask && h->fd >= 0)
		(void)loop_set(l, h, 0);
	h->mask = 0;
}

/* What one kevent says, in loop.h's events. The reading filter's end of
 * stream is not a hang-up: data may still wait before it, and the read
 * that returns 0 says the end, as on Linux (epoll's EPOLLRDHUP, which the
 * loop does not ask for). The writing filter's is: nothing more can be
 * sent. fflags holds the socket's error, if one ended it. */
static uint32_t events_of(const struct kevent *e)
{
	uint32_t ev = e->filter == EVFILT_WRITE ? LOOP_OUT : LOOP_IN;
	if ((e->flags & EV_EOF) && e->fflags)
		ev |= LOOP_ERR;
	else if ((e->flags & EV_EOF) && e->filter == EVFILT_WRITE)
		ev |= LOOP_HUP;
	if (e->flags & EV_ERROR)
		ev |= LOOP_ERR;
	return ev;
}

int loop_once(struct loop *l, int timeout_ms)
{
	struct timespec ts = {.tv_sec = timeout_ms / 1000,
			      .tv_nsec = (long)(timeout_ms % 1000) * 1000000};
	int n = kevent(l->kq, NULL, 0, l->ev, LOOP_BATCH,
		       timeout_ms < 0 ? NULL : &ts);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	for (int i = 0; i < n; i++) {
		struct loop_handler *h = l->ev[i].udata;
		if (!h)
			continue; /* merged into an earlier event */
		uint32_t ev = events_of(&l->ev[i]);
		for (int j = i + 1; j < n; j++)
			if (l->ev[j].udata == h) {
				ev |= events_of(&l->ev[j]);
				l->ev[j].udata = NULL;
			}
		/* a handler removed earlier in this batch has mask 0 */
		if (h->mask)
			h->fn(h, ev);
	}
	return n;
}

int loop_fd(const struct loop *l)
{
	return l->kq;
}

int64_t loop_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
