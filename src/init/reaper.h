/* lnk-init as the sandbox's pid 1 (bwrap --as-pid-1): it confines itself,
 * forks the program, then stays to reap and to forward lnk's signals, and
 * exits with the program's status. See reaper.c for why. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "common/err.h"

/* Blocks the signals pid 1 forwards (SIGINT, SIGQUIT, SIGTERM, SIGHUP,
 * SIGUSR1, SIGUSR2) and SIGCHLD, so that none is lost before the loop runs
 * (a pid 1 drops a signal it has no handler for; a blocked one is queued),
 * and makes the process non-dumpable. Call first thing in main. */
void reaper_init(void);

/* Closes every descriptor above 2 of pid 1 itself: the config memfd, the
 * wire and guard sockets, whatever bwrap left open; all but the n of keep
 * (the lifeline, the guard's socket while the cgroup is still to come on
 * it, the resolver's sockets until it is forked; -1 for none), which it
 * marks close-on-exec so that the program never holds them. */
#define REAPER_KEEP_MAX 40 /* 4, and the low --port sockets (handoff.h) */
int reaper_close_fds(const int *keep, size_t n, struct lnk_err *err);

/* Has the kernel send pid 1 a SIGIO when the lifeline (or -1: none) hangs
 * up; reaper_run waits for it. Call after reaper_close_fds, then check
 * reaper_lifeline_lost (a hang-up before arming sends nothing). */
int reaper_lifeline_arm(int lifeline, struct lnk_err *err);

/* Waits for lnk's one byte on the lifeline, its go-ahead for the program:
 * 0 for 'y' (or no lifeline), -EPERM for another byte (lnk refuses the
 * run and says why), -EPIPE when it hangs up first (lnk is gone). */
int reaper_lifeline_wait(int lifeline);

/* The lifeline (init_config.lifeline_fd) is a pipe whose only writer is
 * lnk: true when it hung up (lnk is gone) or is not a usable pipe, so the
 * sandbox must end. Does not wait. */
bool reaper_lifeline_lost(int lifeline);

/* A forwarded signal sent from outside the sandbox before the program
 * started (lnk was told to stop while the sandbox was being made): its
 * number, or 0. Signals the kernel sent (a terminal's ^C) are dropped. */
int reaper_stop_requested(void);

/* The controlling terminal among descriptors 0-2 when its foreground
 * group is pid 1's own (the pty: the program would have been in the
 * foreground, so it takes it over), or -1. Call before the fork: the
 * parent moves the child's group and its own session right after. */
int reaper_foreground_tty(void);

/* In the forked child, before init_exec: a nested Landlock domain that
 * keeps the program from tracing or (from ABI 6) signalling pid 1 (abi: the
 * ABI pid 1's own domain was made with; 0 for none: nothing to do). Then a
 * process group of its own, which becomes tty's foreground group when tty
 * is not -1 (reaper_foreground_tty). 0 or -errno. */
int reaper_child_setup(int abi, int tty, struct lnk_err *err);

/* The nested Landlock domain of reaper_child_setup alone, for another
 * child of pid 1 that must not reach it either (the resolver). */
int reaper_scope_child(int abi, struct lnk_err *err);

/* pid 1's loop: reaps every child, forwards signals from outside to the
 * program, and exits with the program's status (128+N for signal N) as soon
 * as it is gone; the kernel then kills everything left in the namespace.
 * When the lifeline (or -1: none) hangs up, it kills everything and exits
 * with 128+SIGKILL. With temp_home (the thrown-away home, or NULL), it
 * first says on a terminal how many files the program left there. on_io
 * (or NULL) is called with ctx once at the start and on every SIGIO that
 * was not the lifeline's end: the other descriptors pid 1 watches
 * (the resolver's sockets, init/resolver.h). */
__attribute__((noreturn)) void reaper_run(pid_t program, int lifeline,
					  const char *temp_home,
					  void (*on_io)(void *ctx), void *ctx);
