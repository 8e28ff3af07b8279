/* race_create MODE SECONDS: races the dot-file guard in the current folder.
 *
 * One thread flips a shared path buffer between a harmless name and
 * ".envrc" as fast as it can; the other creates through that buffer in a
 * loop (MODE: open, mkdir, symlink, rename, link, mknod). A supervisor that
 * checks the path and then lets the kernel re-read it ("continue") loses
 * this race within a second (docs/kernel-facts.md,
 * notify-perform-not-continue). After
 * every success we look for .envrc. Prints the counts; exits 1 if .envrc
 * was ever created, 0 if not, 2 on usage or setup errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define GUARDED ".envrc"
#define HARMLESS "harmls" /* same length: a torn read is harmless too */

static char buf[16] = HARMLESS;
static atomic_bool stop;
static atomic_ulong flips;

static void *flipper(void *arg)
{
	(void)arg;
	unsigned long n = 0;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		memcpy((char *)buf, (n & 1) ? GUARDED : HARMLESS, 6);
		__asm__ volatile("" ::: "memory");
		n++;
	}
	atomic_store(&flips, n);
	return NULL;
}

static int exists(const char *p)
{
	struct stat st;
	return lstat(p, &st) == 0;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: race_create MODE SECONDS\n");
		return 2;
	}
	const char *mode = argv[1];
	double secs = atof(argv[2]);
	unsigned long ok = 0, eperm = 0, other = 0;
	int created = 0;

	if (exists(GUARDED)) {
		fprintf(stderr, "race_create: %s exists already\n", GUARDED);
		return 2;
	}
	if (!strcmp(mode, "rename") || !strcmp(mode, "link")) {
		int fd = open("race-src", O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
		if (fd < 0) {
			perror("race_create: race-src");
			return 2;
		}
		close(fd);
	}

	pthread_t th;
	pthread_create(&th, NULL, flipper, NULL);
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned long i = 0;; i++) {
		if ((i & 63) == 0) {
			clock_gettime(CLOCK_MONOTONIC, &t);
			if ((double)(t.tv_sec - t0.tv_sec) +
				(double)(t.tv_nsec - t0.tv_nsec) / 1e9 >
			    secs)
				break;
		}
		int r;
		if (!strcmp(mode, "open")) {
			r = open(buf, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC,
				 0644);
			if (r >= 0)
				close(r);
		} else if (!strcmp(mode, "mkdir")) {
			r = mkdir(buf, 0755);
		} else if (!strcmp(mode, "symlink")) {
			r = symlink("target", buf);
		} else if (!strcmp(mode, "mknod")) {
			r = mknod(buf, S_IFIFO | 0644, 0);
		} else if (!strcmp(mode, "link")) {
			r = link("race-src", buf);
		} else if (!strcmp(mode, "rename")) {
			r = rename("race-src", buf);
		} else {
			fprintf(stderr, "race_create: unknown mode '%s'\n",
				mode);
			atomic_store(&stop, true);
			pthread_join(th, NULL);
			return 2;
		}
		if (r < 0) {
			if (errno == EPERM)
				eperm++;
			else
				other++;
			/* a torn name took race-src away: make it again */
			if (errno == ENOENT &&
			    (!strcmp(mode, "rename") || !strcmp(mode, "link")))
				close(open("race-src",
					   O_CREAT | O_WRONLY | O_CLOEXEC,
					   0644));
			continue;
		}
		ok++;
		if (exists(GUARDED)) {
			created = 1;
			break;
		}
		/* undo the harmless creation for the next round */
		if (!strcmp(mode, "rename"))
			rename(HARMLESS, "race-src");
		else if (!strcmp(mode, "mkdir"))
			rmdir(HARMLESS);
		else
			unlink(HARMLESS);
	}
	atomic_store(&stop, true);
	pthread_join(th, NULL);
	if (exists(GUARDED))
		created = 1;
	unlink("race-src");
	printf("mode=%s flips=%lu ok=%lu eperm=%lu other=%lu created=%d\n",
	       mode, atomic_load(&flips), ok, eperm, other, created);
	return created;
}
