/* The wire's event loop through its interface (wire/loop.h): what every
 * platform's file must do, run here against the Linux one (epoll). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/compat.h"
#include "wire/loop.h"

struct seen {
	struct loop_handler h; /* first: the callback's pointer is ours */
	struct loop *l;
	struct seen *drop; /* removes this one when called */
	int calls;
	uint32_t events;
};

static void on_event(struct loop_handler *h, uint32_t events)
{
	struct seen *s = (struct seen *)h;
	s->calls++;
	s->events |= events;
	if (s->drop)
		loop_del(s->l, &s->drop->h);
}

static struct loop *new_loop(void)
{
	struct loop *l = NULL;
	struct lnk_err err = {0};
	assert_int_equal(loop_new(&l, &err), 0);
	return l;
}

static void readable_and_writable(void **state)
{
	(void)state;
	struct loop *l = new_loop();
	int sv[2];
	assert_int_equal(socketpair_cloexec(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	struct seen a = {.h = {.fn = on_event, .fd = sv[0]}, .l = l};
	/* nothing to read yet: no event */
	assert_int_equal(loop_set(l, &a.h, LOOP_IN), 0);
	assert_int_equal(loop_once(l, 0), 0);
	assert_int_equal(a.calls, 0);
	/* a byte: readable, and only what was asked for is reported */
	assert_int_equal(write(sv[1], "x", 1), 1);
	assert_int_equal(loop_once(l, 1000), 1);
	assert_int_equal(a.calls, 1);
	assert_true(a.events & LOOP_IN);
	assert_false(a.events & LOOP_OUT);
	/* level-triggered: unread, it is reported again */
	a.events = 0;
	assert_int_equal(loop_once(l, 0), 1);
	assert_true(a.events & LOOP_IN);
	/* asking for both: one call with both */
	a.calls = 0;
	a.events = 0;
	assert_int_equal(loop_set(l, &a.h, LOOP_IN | LOOP_OUT), 0);
	assert_int_equal(a.h.mask, LOOP_IN | LOOP_OUT);
	assert_int_equal(loop_once(l, 0), 1);
	assert_int_equal(a.calls, 1);
	assert_int_equal(a.events & (LOOP_IN | LOOP_OUT), LOOP_IN | LOOP_OUT);
	/* the peer gone: a hang-up is reported though never asked for */
	a.events = 0;
	assert_int_equal(loop_set(l, &a.h, LOOP_IN), 0);
	close(sv[1]);
	assert_int_equal(loop_once(l, 1000), 1);
	assert_true(a.events & LOOP_HUP);
	/* events 0 removes it: no more calls */
	a.calls = 0;
	assert_int_equal(loop_set(l, &a.h, 0), 0);
	assert_int_equal(a.h.mask, 0);
	assert_int_equal(loop_once(l, 0), 0);
	assert_int_equal(a.calls, 0);
	close(sv[0]);
	loop_free(l);
}

static void removed_in_the_same_batch_is_not_called(void **state)
{
	(void)state;
	struct loop *l = new_loop();
	int p1[2], p2[2];
	assert_int_equal(pipe_cloexec(p1, 0), 0);
	assert_int_equal(pipe_cloexec(p2, 0), 0);
	struct seen a = {.h = {.fn = on_event, .fd = p1[0]}, .l = l};
	struct seen b = {.h = {.fn = on_event, .fd = p2[0]}, .l = l};
	/* whichever runs first removes the other */
	a.drop = &b;
	b.drop = &a;
	assert_int_equal(loop_set(l, &a.h, LOOP_IN), 0);
	assert_int_equal(loop_set(l, &b.h, LOOP_IN), 0);
	assert_int_equal(write(p1[1], "x", 1), 1);
	assert_int_equal(write(p2[1], "x", 1), 1);
	assert_int_equal(loop_once(l, 1000), 2);
	assert_int_equal(a.calls + b.calls, 1);
	for (int i = 0; i < 2; i++) {
		close(p1[i]);
		close(p2[i]);
	}
	loop_free(l);
}

/* The control server's loop sits inside the wire's: loop_fd is readable
 * while an event waits, and quiet when none does. */
static void a_loop_inside_a_loop(void **state)
{
	(void)state;
	struct loop *inner = new_loop();
	int p[2];
	assert_int_equal(pipe_cloexec(p, 0), 0);
	struct seen a = {.h = {.fn = on_event, .fd = p[0]}, .l = inner};
	assert_int_equal(loop_set(inner, &a.h, LOOP_IN), 0);
	struct pollfd pf = {.fd = loop_fd(inner), .events = POLLIN};
	assert_int_equal(poll(&pf, 1, 0), 0);
	assert_int_equal(write(p[1], "x", 1), 1);
	assert_int_equal(poll(&pf, 1, 1000), 1);
	assert_int_equal(loop_once(inner, 0), 1);
	assert_int_equal(a.calls, 1);
	char c;
	assert_int_equal(read(p[0], &c, 1), 1);
	assert_int_equal(poll(&pf, 1, 0), 0);
	close(p[0]);
	close(p[1]);
	loop_free(inner);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(readable_and_writable),
	    cmocka_unit_test(removed_in_the_same_batch_is_not_called),
	    cmocka_unit_test(a_loop_inside_a_loop),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
