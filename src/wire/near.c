/* The keeper beside the wire (near.h). */
#include "wire/near.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

void near_init(struct near *n)
{
	memset(n, 0, sizeof(*n));
	n->cpu = -1;
	cpu_set_t *s = calloc(1, sizeof(*s));
	if (!s)
		return;
	if (sched_getaffinity(0, sizeof(*s), s) < 0 || CPU_COUNT(s) < 2) {
		free(s);
		return;
	}
	n->allowed = s;
	n->on = true;
}

void near_release(struct near *n)
{
	if (!n->on || n->cpu < 0)
		return;
	if (sched_setaffinity(0, sizeof(cpu_set_t), n->allowed) < 0)
		n->on = false;
	n->cpu = -1;
}

void near_follow(struct near *n, int cpu)
{
	if (!n->on || cpu < 0 || cpu >= CPU_SETSIZE || cpu == n->cpu ||
	    !CPU_ISSET((size_t)cpu, (cpu_set_t *)n->allowed))
		return;
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET((size_t)cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one) == 0) {
		n->cpu = cpu;
		return;
	}
	/* a cpuset narrowed since the start: back to what the kernel
	 * allows, and no more following */
	near_release(n);
	n->on = false;
}

void near_free(struct near *n)
{
	free(n->allowed);
	n->allowed = NULL;
	n->on = false;
}

int near_cpu_now(void)
{
	int c = sched_getcpu();
	return c < 0 ? -1 : c;
}
