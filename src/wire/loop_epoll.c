/* The event loop on Linux: epoll (loop.h). */
#include "wire/loop.h"

#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "common/util.h"

#define LOOP_BATCH 256

/* loop.h's events are epoll's: passed through both ways, untranslated. */
_Static_assert(LOOP_IN == EPOLLIN && LOOP_OUT == EPOLLOUT &&
		   LOOP_ERR == EPOLLERR && LOOP_HUP == EPOLLHUP,
	       "the loop's events are epoll's");

struct loop {
	int epfd;
	struct epoll_event ev[LOOP_BATCH];
};

int loop_new(struct loop **out, struct lnk_err *err)
{
	struct loop *l = xcalloc(1, sizeof(*l));
	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (l->epfd < 0) {
		int e = errno;
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
	close(l->epfd);
	free(l);
}

int loop_set(struct loop *l, struct loop_handler *h, uint32_t events)
{
	if (events == h->mask)
		return 0;
	struct epoll_event ev = {.events = events, .data.ptr = h};
	int op = !h->mask ? EPOLL_CTL_ADD
		 : events ? EPOLL_CTL_MOD
			  : EPOLL_CTL_DEL;
	if (epoll_ctl(l->epfd, op, h->fd, &ev) < 0)
		return -errno;
	h->mask = events;
	return 0;
}

void loop_del(struct loop *l, struct loop_handler *h)
{
	if (h->mask && h->fd >= 0)
		epoll_ctl(l->epfd, EPOLL_CTL_DEL, h->fd, NULL);
	h->mask = 0;
}

int loop_once(struct loop *l, int timeout_ms)
{
	int n = epoll_wait(l->epfd, l->ev, LOOP_BATCH, timeout_ms);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	for (int i = 0; i < n; i++) {
		struct loop_handler *h = l->ev[i].data.ptr;
		/* a handler removed earlier in this batch has mask 0 */
		if (h->mask)
			h->fn(h, l->ev[i].events);
	}
	return n;
}

int loop_fd(const struct loop *l)
{
	return l->epfd;
}

int64_t loop_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
