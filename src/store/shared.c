/* Shared memory with a robust lock at its start (shared.h). */
#include "store/shared.h"

#include <errno.h>
#include <sys/mman.h>

void *shared_new(size_t size)
{
	pthread_mutexattr_t a;
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	if (pthread_mutexattr_init(&a) != 0)
		goto fail;
	if (pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED) != 0 ||
	    pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST) != 0 ||
	    pthread_mutex_init((pthread_mutex_t *)p, &a) != 0) {
		pthread_mutexattr_destroy(&a);
		goto fail;
	}
	pthread_mutexattr_destroy(&a);
	return p;
fail:
	munmap(p, size);
	return NULL;
}

void shared_free(void *p, size_t size)
{
	if (p)
		munmap(p, size);
}

void shared_lock(pthread_mutex_t *m)
{
	/* its last holder died holding it: take it on (shared.h) */
	if (pthread_mutex_lock(m) == EOWNERDEAD)
		pthread_mutex_consistent(m);
}
