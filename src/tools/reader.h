/* The broker's reader: the only process of the tools broker that reads
 * the bytes the sandboxed program sends (its clients' calls, their
 * descriptors, their signals and hang-ups). It runs confined for good
 * before it reads a byte (confine/kit.h: no file, no program, no
 * capability, no_new_privs, a seccomp allow-list that kills): a bug in
 * its decoding gains an attacker a process that can do nothing but talk
 * on the sockets it already holds. What it hands on is a call checked and
 * put in canonical form (proto/toolpass.h), which the starter checks again.
 *
 * It also keeps the broker's call slots: a connection that sends no call
 * within PASS_DEADLINE_MS is refused, so slots cannot be held by clients
 * that never speak. */
#pragma once

#include <sys/types.h>

#include "common/err.h"

/* Forks the reader: it keeps listen_fd (the clients' socket) and pass_fd
 * (its end of the socketpair to the starter), closes every other
 * descriptor but stderr, confines itself and serves until pass_fd hangs
 * up. 0 or -errno. */
int tools_reader_start(int listen_fd, int pass_fd, pid_t *pid,
		       struct lnk_err *err);
