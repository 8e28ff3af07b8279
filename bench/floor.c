/* bench/floor: what this machine charges for the two things lnk adds to
 * bare bubblewrap and to a plain forwarder, and no code of lnk's can
 * remove:
 *
 * - an exec: lnk runs two programs bare bwrap does not (lnk itself, and
 *   lnk-init, the sandbox's pid 1), so a start costs at least two execs
 *   more than bare bwrap's;
 * - a round trip between two processes: each new connection through the
 *   wire is made by its keeper (the wire may not connect itself), one
 *   round trip more than a forwarder that connects itself; on another CPU
 *   the woken process's CPU may be idle, and waking an idle virtual CPU
 *   costs the hypervisor's time, not the kernel's.
 *
 *   floor [ROUNDS]   (default 2000; prints figures, never fails)
 *
 * The exec is timed as a chain (this program execs itself ROUNDS/10
 * times, static and as built), so no fork or wait is counted; the round
 * trip as one byte each way on a SOCK_SEQPACKET pair (the wire and keeper's
 * channel type), the two processes on different CPUs and then both on one.
 * libc only.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* Pins the caller to cpu; false when the machine has no such CPU. */
static int pin(int cpu)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	return sched_setaffinity(0, sizeof(s), &s) == 0;
}

/* Mean microseconds of one round trip, the echoing child on cpu_b and the
 * caller on cpu_a (-1: wherever the scheduler puts them). */
static double round_trip(int rounds, int cpu_a, int cpu_b)
{
	int sv[2];
	char b[8];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	pid_t p = fork();
	if (p < 0)
		return -1;
	if (p == 0) {
		close(sv[0]);
		if (cpu_b >= 0 && !pin(cpu_b))
			_exit(1);
		while (read(sv[1], b, sizeof(b)) > 0)
			if (write(sv[1], b, 1) != 1)
				break;
		_exit(0);
	}
	close(sv[1]);
	cpu_set_t was;
	sched_getaffinity(0, sizeof(was), &was);
	if (cpu_a >= 0)
		pin(cpu_a);
	double t = -1;
	/* warm up, then time */
	for (int i = 0; i < rounds / 10 + 10; i++)
		if (write(sv[0], "x", 1) != 1 || read(sv[0], b, sizeof(b)) != 1)
			goto out;
	double t0 = now_us();
	for (int i = 0; i < rounds; i++)
		if (write(sv[0], "x", 1) != 1 || read(sv[0], b, sizeof(b)) != 1)
			goto out;
	t = (now_us() - t0) / rounds;
out:
	close(sv[0]);
	waitpid(p, NULL, 0);
	sched_setaffinity(0, sizeof(was), &was);
	return t;
}

/* Microseconds of one exec of self: a chain of n execs, timed from
 * before the first to after the last (the last link prints the time). */
static double exec_chain(const char *self, int n)
{
	int pp[2];
	if (pipe(pp) < 0)
		return -1;
	pid_t p = fork();
	if (p < 0)
		return -1;
	if (p == 0) {
		close(pp[0]);
		char a[16], fd[16], t0[32];
		snprintf(a, sizeof(a), "%d", n);
		snprintf(fd, sizeof(fd), "%d", pp[1]);
		snprintf(t0, sizeof(t0), "%.3f", now_us());
		execl(self, self, "--chain", a, fd, t0, (char *)NULL);
		_exit(127);
	}
	close(pp[1]);
	char buf[64] = {0};
	ssize_t k = read(pp[0], buf, sizeof(buf) - 1);
	close(pp[0]);
	waitpid(p, NULL, 0);
	return k > 0 ? atof(buf) / n : -1;
}

int main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "--chain") == 0) {
		int n = atoi(argv[2]);
		if (n > 0) {
			char a[16];
			snprintf(a, sizeof(a), "%d", n - 1);
			execl("/proc/self/exe", argv[0], "--chain", a, argv[3],
			      argv[4], (char *)NULL);
			return 127;
		}
		dprintf(atoi(argv[3]), "%.3f\n", now_us() - atof(argv[4]));
		return 0;
	}
	int rounds = argc > 1 ? atoi(argv[1]) : 2000;
	if (rounds < 100)
		rounds = 100;
	int n = rounds / 10;
	/* the static copy is built beside this one by the caller, when it
	 * can be (bench/start.sh, bench/conn_bench.py) */
	char st[4096];
	snprintf(st, sizeof(st), "%s-static", argv[0]);
	double e_dyn = exec_chain("/proc/self/exe", n);
	double e_st = access(st, X_OK) == 0 ? exec_chain(st, n) : -1;
	printf("exec of a program, us: as built %.0f", e_dyn);
	if (e_st >= 0)
		printf(", static %.0f", e_st);
	printf(" (a chain of %d)\n", n);
	double any = round_trip(rounds, -1, -1);
	double two = round_trip(rounds, 0, 1);
	double one = round_trip(rounds, 0, 0);
	printf("round trip between two processes, us: where the scheduler "
	       "puts them %.1f",
	       any);
	if (two >= 0)
		printf(", on two CPUs %.1f", two);
	printf(", on one CPU %.1f (%d rounds)\n", one, rounds);
	return 0;
}
