/* The declarations of macOS' <sys/event.h> that src/wire/loop_kqueue.c
 * uses, as the SDK has them, so tests/portable/check can compile it on
 * Linux (which has no kqueue). */
#pragma once

#include <stdint.h>
#include <time.h>

struct kevent {
	uintptr_t ident;
	int16_t filter;
	uint16_t flags;
	uint32_t fflags;
	intptr_t data;
	void *udata;
};

#define EVFILT_READ (-1)
#define EVFILT_WRITE (-2)

#define EV_ADD 0x0001
#define EV_DELETE 0x0002
#define EV_ENABLE 0x0004
#define EV_DISABLE 0x0008
#define EV_ONESHOT 0x0010
#define EV_CLEAR 0x0020
#define EV_RECEIPT 0x0040
#define EV_ERROR 0x4000
#define EV_EOF 0x8000

#define EV_SET(kevp, a, b, c, d, e, f)            \
	do {                                      \
		struct kevent *__kevp__ = (kevp); \
		__kevp__->ident = (a);            \
		__kevp__->filter = (b);           \
		__kevp__->flags = (c);            \
		__kevp__->fflags = (d);           \
		__kevp__->data = (e);             \
		__kevp__->udata = (f);            \
	} while (0)

int kqueue(void);
int kevent(int kq, const struct kevent *changelist, int nchanges,
	   struct kevent *eventlist, int nevents,
	   const struct timespec *timeout);

#define EVFILT_PROC (-5)
#define EVFILT_SIGNAL (-6)
#define NOTE_EXIT 0x80000000U
