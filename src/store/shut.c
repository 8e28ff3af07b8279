/* The wire's closed state, shared (shut.h). */
#include "store/shut.h"

#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>

/* cause in the low byte, rule in the next; 0 is open */
struct shut {
	_Atomic uint32_t word;
};

struct shut *shut_new(void)
{
	struct shut *s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE,
			      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (s == MAP_FAILED)
		return NULL;
	atomic_init(&s->word, 0);
	return s;
}

void shut_free(struct shut *s)
{
	if (s)
		munmap(s, sizeof(*s));
}

void shut_set(struct shut *s, enum ctl_cause cause, enum trip_rule rule)
{
	if (!s)
		return;
	uint32_t w =
	    cause == CTL_CAUSE_NONE
		? 0
		: ((uint32_t)cause & 0xff) | (((uint32_t)rule & 0xff) << 8);
	atomic_store(&s->word, w);
}

bool shut_closed(const struct shut *s, enum ctl_cause *cause,
		 enum trip_rule *rule)
{
	uint32_t w = s ? atomic_load(&s->word) : 0;
	enum ctl_cause c = (enum ctl_cause)(w & 0xff);
	enum trip_rule r = (enum trip_rule)((w >> 8) & 0xff);
	/* only values the wire writes; anything else is taken as closed
	 * by hand, never as open */
	if (w && (c < CTL_CAUSE_HAND || c > CTL_CAUSE_TRIP))
		c = CTL_CAUSE_HAND;
	if (r > TRIP_RULE_LAST)
		r = TRIP_NONE;
	if (cause)
		*cause = w ? c : CTL_CAUSE_NONE;
	if (rule)
		*rule = w ? r : TRIP_NONE;
	return w != 0;
}
