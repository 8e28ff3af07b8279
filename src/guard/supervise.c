/* The supervisor's threads: the receiver, the worker/executor pairs,
 * and starting and stopping them (supervisor.h says how they fit). */
#include "guard/supervisor.h"

#include <errno.h>
#include <linux/capability.h>
#include <linux/landlock.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "common/fdpass.h"
#include "confine/layers.h"

#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

#define GUARD_SIG SIGURG /* ignored by default; interrupts a stuck worker */

static void on_guard_sig(int sig)
{
	(void)sig; /* only interrupts a blocking open */
}

/* The executors' Landlock ruleset: it handles only the rights to make
 * device nodes (which the sandbox never grants either) and has no rule.
 * What it is for is the DOMAIN: a thread in a Landlock domain may ptrace,
 * and open ptrace-guarded /proc files (mem, maps, environ, fd/, ...) of,
 * only processes in its own domain or nested ones, so an executor reaches
 * no process at all, bwrap's pid 1 included, as the program reaches none
 * outside the sandbox. File access stays with the mounts: the sandbox's
 * Landlock file rules mirror bwrap's mounts exactly (src/launch/bwrap.c),
 * and the executor works in the sandbox's mount tree, so the same places
 * are read only, hidden or missing for it. Matching on the task's
 * credentials instead (an access()-like check) would not be sound: it
 * cannot see Landlock, and it would race the object it checked. */
static int make_ruleset(void)
{
	/* ABI 1 knows both rights; no scope: the executor must reach the
	 * sandbox's sockets as the program would. */
	int fd = confine_landlock_ruleset(
	    1, LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_BLOCK,
	    false);

	if (fd >= 0)
		return fd;
	/* No Landlock in this kernel: lnk-init cannot use it either (and
	 * refuses to run unless told it is optional); the file-system and
	 * device checks still hold. */
	return fd == -ENOSYS || fd == -EOPNOTSUPP ? -1 : -2;
}

/* Restricts the calling executor thread: its own umask and cwd, no new
 * privileges, and the Landlock domain above. All three are per thread. */
static int executor_restrict(struct guard *n)
{
	if (unshare(CLONE_FS) < 0)
		return -errno;
	if (n->ll_ruleset == -2)
		return -EPERM;
	if (n->ll_ruleset == -1)
		return 0;
	int r = confine_no_new_privs();
	return r < 0 ? r : confine_landlock_enter(n->ll_ruleset);
}

static void *executor_main(void *arg)
{
	struct worker *w = arg;
	struct guard *n = w->n;
	bool broken = executor_restrict(n) < 0;
	sigset_t ss;

	/* GUARD_SIG interrupts a FIFO open whose peer never comes, when lnk
	 * stops. */
	sigemptyset(&ss);
	sigaddset(&ss, GUARD_SIG);
	pthread_sigmask(SIG_UNBLOCK, &ss, NULL);
	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->pending && !w->quit)
			pthread_cond_wait(&w->cv, &w->mu);
		if (!w->pending)
			break;
		int o = w->req_o, flags = w->req_flags;
		bool fifo = w->req_fifo;
		pthread_mutex_unlock(&w->mu);
		int r = broken ? -EPERM
			: fifo ? guard_open_fifo(n, o, flags)
			       : guard_reopen(o, flags);
		pthread_mutex_lock(&w->mu);
		w->req_r = r;
		w->pending = false;
		pthread_cond_broadcast(&w->cv);
	}
	w->exec_done = true;
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/* Opens (in the executor, restricted) what O_PATH o names. */
int guard_exec_open(struct worker *w, int o, int flags, bool fifo)
{
	int r;

	pthread_mutex_lock(&w->mu);
	w->req_o = o;
	w->req_flags = flags;
	w->req_fifo = fifo;
	w->pending = true;
	pthread_cond_broadcast(&w->cv);
	while (w->pending)
		pthread_cond_wait(&w->cv, &w->mu);
	r = w->req_r;
	pthread_mutex_unlock(&w->mu);
	return r;
}

/* With n->mu held. */
static int spawn_worker(struct guard *n);

/* Whether every task of the filter is gone: the listener then polls
 * POLLHUP (the kernel's seccomp_notify_poll, once the filter has no user
 * left). RECV answers ENOENT in two cases: the task that notified was
 * killed between our wake-up and the lookup (the filter lives on: wait for
 * the next), or the filter has no user left, when RECV no longer waits and
 * answers ENOENT at once, every time: retrying then spun both cores for
 * milliseconds at the end of every guarded run, until guard_stop. */
static bool filter_gone(int listener)
{
	struct pollfd p = {listener, 0, 0};

	return poll(&p, 1, 0) > 0 &&
	       (p.revents & (POLLHUP | POLLERR | POLLNVAL));
}

/* Each worker receives notifications itself (several threads may wait in
 * NOTIF_RECV; the kernel hands each notification to one): no hand-off
 * between workers on the hot path, which halved the cost per call here.
 * The one hand-off left is to its own executor. */
static void *worker_main(void *arg)
{
	struct worker *self = arg;
	struct guard *n = self->n;
	/* umask and cwd become this thread's own; if not, every call it
	 * takes is refused rather than racing another worker's umask. */
	bool broken = unshare(CLONE_FS) < 0;
	struct seccomp_notif req;
	sigset_t ss;

	sigemptyset(&ss);
	sigaddset(&ss, GUARD_SIG);
	pthread_sigmask(SIG_UNBLOCK, &ss, NULL);
	while (!atomic_load(&n->finishing)) {
		memset(&req, 0, sizeof(req));
		/* Blocks until a notification comes; guard_stop interrupts
		 * it with GUARD_SIG (EINTR) once the filter is gone. */
		if (ioctl(n->listener, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOENT && !filter_gone(n->listener))
				continue; /* that task was killed meanwhile */
			break;
		}
		atomic_store(&self->busy, true);
		/* The last idle worker took this one: start another, so a
		 * FIFO open that waits for its peer never stalls the rest. */
		if (atomic_fetch_sub(&n->idle, 1) == 1) {
			pthread_mutex_lock(&n->mu);
			(void)spawn_worker(n);
			pthread_mutex_unlock(&n->mu);
		}
		guard_serve(n, self, &req, broken || n->broken);
		atomic_fetch_add(&n->idle, 1);
		atomic_store(&self->busy, false);
	}
	pthread_mutex_lock(&self->mu);
	self->quit = true;
	pthread_cond_broadcast(&self->cv);
	pthread_mutex_unlock(&self->mu);
	pthread_join(self->exec_th, NULL);
	return NULL;
}

static void worker_free(struct worker *w)
{
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	free(w->jb);
	free(w);
}

static int spawn_worker(struct guard *n)
{
	struct worker *w;
	int r;

	if (n->nworkers >= POOL_MAX || atomic_load(&n->finishing))
		return -EAGAIN;
	w = xcalloc(1, sizeof(*w));
	w->jb = xcalloc(1, sizeof(*w->jb));
	w->n = n;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	r = pthread_create(&w->exec_th, NULL, executor_main, w);
	if (r) {
		worker_free(w);
		return -r;
	}
	atomic_fetch_add(&n->idle, 1);
	r = pthread_create(&w->th, NULL, worker_main, w);
	if (r) {
		atomic_fetch_sub(&n->idle, 1);
		pthread_mutex_lock(&w->mu);
		w->quit = true;
		pthread_cond_broadcast(&w->cv);
		pthread_mutex_unlock(&w->mu);
		pthread_join(w->exec_th, NULL);
		worker_free(w);
		return -r;
	}
	w->started = true;
	n->workers[n->nworkers++] = w;
	return 0;
}

static int recv_listener(struct guard *n)
{
	struct pollfd p[2] = {{n->sock, POLLIN, 0}, {n->stopfd, POLLIN, 0}};
	char byte;
	int fds[2];
	size_t nfds = 2;

	for (;;) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (p[1].revents)
			return -ECANCELED;
		break;
	}
	/* the listener, and lnk-init's sock_diag socket when it could
	 * make one (without it, no pathname unix socket is connected) */
	ssize_t r = fd_recv(n->sock, fds, &nfds, &byte, 1);
	if (r <= 0 || nfds < 1) {
		if (r > 0)
			for (size_t i = 0; i < nfds; i++)
				close(fds[i]);
		return r < 0 ? (int)r : -EPIPE;
	}
	if (nfds == 2)
		n->diag = fds[1];
	return fds[0];
}

/* The manager: takes the listener, starts the pool, and watches for the
 * end (the filter gone, or guard_stop). */
static void *receiver_main(void *arg)
{
	struct guard *n = arg;
	sigset_t ss;

	/* Every signal stays with lnk's own threads (its signalfd would
	 * never see a SIGCHLD the kernel handed to one of ours); workers
	 * inherit this and take only GUARD_SIG. */
	sigfillset(&ss);
	pthread_sigmask(SIG_BLOCK, &ss, NULL);

	/* Before any worker exists: they inherit this thread's (empty)
	 * capability sets. If the drop fails, every call is refused. */
	bool broken = confine_drop_caps(false) < 0;

	int l = recv_listener(n);
	pthread_mutex_lock(&n->mu);
	n->broken = broken;
	if (l >= 0) {
		n->listener = l;
		/* The woken task runs on our CPU: halves the cost of a
		 * notification on a 2-vCPU VM (docs/kernel-facts.md,
		 * notify-cost); absent on old
		 * kernels, which is fine. */
		(void)ioctl(l, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
			    SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
		for (int i = 0; i < POOL_START; i++)
			(void)spawn_worker(n);
	}
	pthread_mutex_unlock(&n->mu);

	if (l >= 0) {
		/* events 0: poll returns only for POLLHUP (every task of the
		 * filter exited) or the stop request. */
		struct pollfd p[2] = {{l, 0, 0}, {n->stopfd, POLLIN, 0}};
		for (;;) {
			if (poll(p, 2, -1) < 0) {
				if (errno == EINTR)
					continue;
				break;
			}
			if (p[1].revents)
				break;
			if (p[0].revents & (POLLHUP | POLLERR | POLLNVAL)) {
				uint64_t one = 1;
				(void)!write(n->endedfd, &one, sizeof(one));
				break;
			}
		}
	}

	pthread_mutex_lock(&n->mu);
	atomic_store(&n->finishing, true);
	n->receiver_done = true;
	pthread_cond_broadcast(&n->done_cv);
	pthread_mutex_unlock(&n->mu);
	return NULL;
}

static void plan_copy(struct guard_plan *dst, const struct guard_plan *src)
{
	*dst = *src;
	dst->guards = xcalloc(src->n ? src->n : 1, sizeof(*dst->guards));
	for (size_t i = 0; i < src->n; i++) {
		dst->guards[i] = src->guards[i];
		dst->guards[i].dir = xstrdup(src->guards[i].dir);
		dst->guards[i].name =
		    src->guards[i].name ? xstrdup(src->guards[i].name) : NULL;
	}
	dst->kept = xcalloc(src->nkept ? src->nkept : 1, sizeof(*dst->kept));
	for (size_t i = 0; i < src->nkept; i++) {
		dst->kept[i] = src->kept[i];
		dst->kept[i].path = xstrdup(src->kept[i].path);
		dst->kept[i].top = xstrdup(src->kept[i].top);
	}
	dst->exec_ids =
	    xcalloc(src->nexec ? src->nexec : 1, sizeof(*dst->exec_ids));
	if (src->nexec)
		memcpy(dst->exec_ids, src->exec_ids,
		       src->nexec * sizeof(*dst->exec_ids));
}

int guard_start(const struct guard_plan *np, int sock, struct guard **out,
		struct lnk_err *err)
{
	struct guard *n = xcalloc(1, sizeof(*n));
	struct sigaction sa, old;
	int r;

	n->sock = sock;
	n->listener = -1;
	n->diag = -1;
	pthread_mutex_init(&n->diag_mu, NULL);
	pthread_mutex_init(&n->mnt_mu, NULL);
	n->stopfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	n->endedfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (n->stopfd < 0 || n->endedfd < 0) {
		r = -errno;
		if (n->stopfd >= 0)
			close(n->stopfd);
		if (n->endedfd >= 0)
			close(n->endedfd);
		free(n);
		return err_set(err, r,
			       "cannot start the dot-file protection: %s",
			       strerror(-r));
	}
	plan_copy(&n->plan, np);
	if ((r = guard_late_start(n, err)) < 0) {
		guard_late_stop(n);
		guard_plan_free(&n->plan);
		close(n->stopfd);
		close(n->endedfd);
		free(n);
		return r;
	}
	n->ll_ruleset = make_ruleset();
	pthread_mutex_init(&n->mu, NULL);
	pthread_cond_init(&n->done_cv, NULL);

	/* A no-op handler without SA_RESTART, so guard_stop can interrupt
	 * a worker stuck opening a FIFO whose peer died. Only installed
	 * over the default (ignore) disposition. */
	if (sigaction(GUARD_SIG, NULL, &old) == 0 &&
	    old.sa_handler == SIG_DFL) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_guard_sig;
		sigemptyset(&sa.sa_mask);
		(void)sigaction(GUARD_SIG, &sa, NULL);
	}

	r = pthread_create(&n->receiver, NULL, receiver_main, n);
	if (r) {
		guard_late_stop(n);
		guard_plan_free(&n->plan);
		close(n->stopfd);
		close(n->endedfd);
		if (n->ll_ruleset >= 0)
			close(n->ll_ruleset);
		free(n);
		return err_set(err, -r,
			       "cannot start the dot-file protection: %s",
			       strerror(r));
	}
	n->receiver_started = true;
	*out = n;
	return 0;
}

void guard_wait(struct guard *n)
{
	if (!n)
		return;
	pthread_mutex_lock(&n->mu);
	while (!n->receiver_done)
		pthread_cond_wait(&n->done_cv, &n->mu);
	pthread_mutex_unlock(&n->mu);
}

int guard_ended_fd(struct guard *n)
{
	return n ? n->endedfd : -1;
}

void guard_get_stats(struct guard *n, struct guard_stats *st,
		     struct strv *refused_pairs)
{
	pthread_mutex_lock(&n->mu);
	st->notifications = n->notifications;
	st->refused = n->refused;
	st->exec_named = n->exec_named;
	if (refused_pairs)
		strv_copy(refused_pairs, &n->refused_pairs);
	pthread_mutex_unlock(&n->mu);
}

static void timespec_add_ns(struct timespec *t, long ns)
{
	t->tv_nsec += ns;
	while (t->tv_nsec >= 1000000000L) {
		t->tv_nsec -= 1000000000L;
		t->tv_sec++;
	}
}

static bool timespec_before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec ||
	       (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/* Joins w's thread (which joins its executor), kicking both with GUARD_SIG
 * between short waits; false (and the thread detached) after 2 s. */
static bool join_worker(struct worker *w)
{
	struct timespec now, end, until;
	long wait_ns = 20 * 1000;

	if (pthread_tryjoin_np(w->th, NULL) == 0)
		return true;
	/* pthread_timedjoin_np takes a CLOCK_REALTIME deadline. */
	clock_gettime(CLOCK_REALTIME, &end);
	end.tv_sec += 2;
	for (;;) {
		pthread_kill(w->th, GUARD_SIG);
		pthread_mutex_lock(&w->mu);
		if (!w->exec_done)
			pthread_kill(w->exec_th, GUARD_SIG);
		pthread_mutex_unlock(&w->mu);
		clock_gettime(CLOCK_REALTIME, &now);
		if (!timespec_before(&now, &end))
			break;
		until = now;
		timespec_add_ns(&until, wait_ns);
		if (timespec_before(&end, &until))
			until = end;
		if (pthread_timedjoin_np(w->th, NULL, &until) == 0)
			return true;
		if (wait_ns < 10 * 1000 * 1000)
			wait_ns *= 2;
	}
	if (pthread_tryjoin_np(w->th, NULL) == 0)
		return true;
	pthread_detach(w->th);
	return false;
}

void guard_stop_begin(struct guard *n)
{
	uint64_t one = 1;

	if (n)
		(void)!write(n->stopfd, &one, sizeof(one));
}

void guard_stop(struct guard *n)
{
	bool leak = false;

	if (!n)
		return;
	guard_stop_begin(n);
	if (n->receiver_started)
		pthread_join(n->receiver, NULL);
	atomic_store(&n->finishing, true);

	/* Workers have usually ended by themselves (RECV fails once the
	 * filter is gone), or wait in NOTIF_RECV, or sit in a FIFO open whose
	 * task is gone: interrupt them (GUARD_SIG, no SA_RESTART) until they
	 * exit, for up to two seconds each, then leave a stuck one be. The
	 * wait between kicks starts at 20 us and doubles up to 10 ms: a kick
	 * can land just before a thread blocks, so it is repeated, but the
	 * usual worker ends within microseconds of its first kick (a fixed
	 * 1 ms sleep cost up to 1 ms per worker at every guarded run's end). */
	pthread_mutex_lock(&n->mu);
	size_t nw = n->nworkers;
	pthread_mutex_unlock(&n->mu);
	for (size_t i = 0; i < nw; i++) {
		struct worker *w = n->workers[i];
		if (!join_worker(w)) {
			leak = true;
			continue;
		}
		worker_free(w);
	}
	if (leak)
		return; /* a thread still uses n: never free it under it */
	guard_late_stop(n);
	if (n->listener >= 0)
		close(n->listener);
	if (n->diag >= 0)
		close(n->diag);
	pthread_mutex_destroy(&n->diag_mu);
	pthread_mutex_destroy(&n->mnt_mu);
	close(n->stopfd);
	close(n->endedfd);
	if (n->ll_ruleset >= 0)
		close(n->ll_ruleset);
	strv_free(&n->refused_pairs);
	strv_free(&n->dgram_refused);
	strv_free(&n->nonet_said);
	guard_plan_free(&n->plan);
	pthread_mutex_destroy(&n->mu);
	pthread_cond_destroy(&n->done_cv);
	free(n);
}
