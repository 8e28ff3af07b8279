/* bench/start_time: wall time from fork to exit of a few commands, run in
 * turn (round robin, so a busy machine slows all of them alike), and the
 * CPU time of each run's whole process tree (the rusage of the run and of
 * every process it waited for), which a busy machine disturbs less.
 *
 *   start_time RUNS LABEL CMD [ARGS...] [';;' LABEL CMD [ARGS...]]...
 *
 * A CMD of @DIR runs bare bubblewrap as lnk would (bench/start_plan): its
 * options from DIR/args on descriptor 3, each DIR/fd.N on descriptor N,
 * DIR/prog as the command (in place of lnk-init),
 * the info descriptor (7) on a pipe read to its end as lnk reads it.
 * Prints min, 10th percentile, median and mean in ms, and each median
 * (wall, then CPU) against the bare bwrap (@DIR) command before it (or the
 * first command), and the median of each round's own ratio to it ("x
 * round"). libc only, so the harness itself costs
 * the same fork and wait for every command.
 */
#include <dirent.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct job {
	const char *label;
	char **argv; /* NULL-terminated */
	const char *dir;
	double *t;
	double *c; /* CPU ms of each run */
	bool failed;
};

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void at(const char *path, int fd)
{
	int f = open(path, O_RDONLY);
	if (f < 0)
		_exit(124);
	if (f != fd) {
		dup2(f, fd);
		close(f);
	}
}

static void bare(const struct job *j, int info)
{
	char p[4096];
	snprintf(p, sizeof(p), "%s/args", j->dir);
	at(p, 3);
	dup2(info, 7);
	DIR *d = opendir(j->dir);
	struct dirent *de;
	while (d && (de = readdir(d)))
		if (strncmp(de->d_name, "fd.", 3) == 0) {
			snprintf(p, sizeof(p), "%s/%s", j->dir, de->d_name);
			at(p, atoi(de->d_name + 3));
		}
	char prog[4096] = "";
	snprintf(p, sizeof(p), "%s/prog", j->dir);
	int f = open(p, O_RDONLY);
	if (f < 0 || read(f, prog, sizeof(prog) - 1) <= 0)
		_exit(124);
	char *av[] = {"bwrap", "--args", "3", "--", prog, NULL};
	char *env[] = {NULL};
	execve("/usr/bin/bwrap", av, env);
	_exit(127);
}

static double run(struct job *j, double *cpu)
{
	int ip[2] = {-1, -1};
	if (j->dir && pipe(ip) < 0)
		return -1;
	double t0 = now_ms();
	pid_t pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		if (j->dir) {
			close(ip[0]);
			bare(j, ip[1]);
		}
		execvp(j->argv[0], j->argv);
		_exit(127);
	}
	if (j->dir) {
		char b[512];
		close(ip[1]);
		while (read(ip[0], b, sizeof(b)) > 0)
			;
		close(ip[0]);
	}
	int st;
	struct rusage ru;
	memset(&ru, 0, sizeof(ru));
	wait4(pid, &st, 0, &ru);
	double t = now_ms() - t0;
	*cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
	if ((!WIFEXITED(st) || WEXITSTATUS(st) != 0) && !j->failed) {
		fprintf(stderr, "start_time: '%s' failed (status %d)\n",
			j->label, st);
		j->failed = true;
	}
	return t;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	if (argc < 4)
		return 2;
	int runs = atoi(argv[1]);
	struct job jobs[16];
	int n = 0;
	for (int i = 2; i < argc && n < 16;) {
		struct job *j = &jobs[n++];
		j->label = argv[i++];
		j->argv = &argv[i];
		j->dir = argv[i][0] == '@' ? argv[i] + 1 : NULL;
		while (i < argc && strcmp(argv[i], ";;") != 0)
			i++;
		if (i < argc)
			argv[i++] = NULL;
		j->t = calloc((size_t)runs, sizeof(double));
		j->c = calloc((size_t)runs, sizeof(double));
	}
	double cpu;
	for (int w = 0; w < 5; w++)
		for (int k = 0; k < n; k++)
			run(&jobs[k], &cpu);
	for (int r = 0; r < runs; r++)
		for (int k = 0; k < n; k++)
			jobs[k].t[r] = run(&jobs[k], &jobs[k].c[r]);
	/* each command's median of its own round's ratio to the base
	 * command's (the first, or the @DIR before it): a busy round slows
	 * both of its runs, so this ratio moves less than the medians' */
	double *rr = calloc((size_t)n, sizeof(double));
	double *q = calloc((size_t)runs, sizeof(double));
	for (int k = 0, b = 0; k < n; k++) {
		if (k == 0 || jobs[k].dir)
			b = k;
		for (int r = 0; r < runs; r++)
			q[r] =
			    jobs[b].t[r] > 0 ? jobs[k].t[r] / jobs[b].t[r] : 0;
		qsort(q, (size_t)runs, sizeof(double), cmp);
		rr[k] = q[runs / 2];
	}
	double base = 0, cbase = 0;
	printf("  %-54s %6s %6s %6s %6s %7s %6s %7s %7s\n", "", "min", "p10",
	       "median", "mean", "x bwrap", "cpu", "x bwrap", "x round");
	for (int k = 0; k < n; k++) {
		struct job *j = &jobs[k];
		double sum = 0;
		qsort(j->t, (size_t)runs, sizeof(double), cmp);
		for (int r = 0; r < runs; r++)
			sum += j->t[r];
		qsort(j->c, (size_t)runs, sizeof(double), cmp);
		double med = j->t[runs / 2], cmed = j->c[runs / 2];
		if (k == 0 || j->dir) {
			base = med;
			cbase = cmed;
		}
		printf("  %-54s %6.2f %6.2f %6.2f %6.2f %7.2f %6.2f %7.2f "
		       "%7.3f\n",
		       j->label, j->t[0], j->t[runs / 10], med, sum / runs,
		       med / base, cmed,
		       cmed > 0 && cbase > 0 ? cmed / cbase : 0, rr[k]);
	}
	free(rr);
	free(q);
	return 0;
}
