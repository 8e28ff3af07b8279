/* The init's configuration: everything lnk-init needs to know, built by lnk
 * outside the sandbox and read by lnk-init inside from an inherited memfd.
 *
 * Config crosses into the sandbox only on file descriptors, never in a file the
 * sandbox can write (docs/design.md, "Trust boundaries"). The memfd is sealed
 * before bwrap starts, so nothing can change it between planning and use. The
 * decoder treats the bytes as hostile anyway (fuzzed): every length is bounded
 * and checked.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/err.h"
#include "common/util.h"

#define INITCFG_VERSION 7

enum init_listener_kind {
	INIT_L_HTTP,  /* the wire's HTTP proxy port inside */
	INIT_L_SOCKS, /* the wire's SOCKS5 port inside */
	INIT_L_PORT,  /* an allowed --port: 127.0.0.1:P and [::1]:P inside */
	INIT_L_DNS,   /* the sandbox's resolver: an unbound UDP and TCP socket
		       * the wire's keeper binds to 127.0.0.1:53 */
	INIT_L_TCP,   /* the transparent path: 127.0.0.1:P and [::1]:P, where
		       * the guard brings the program's TCP connects */
};

struct init_listener {
	enum init_listener_kind kind;
	uint16_t port;
};

struct init_pin {
	char *path; /* absolute, the same inside as on the host */
	uint64_t dev, ino;
};

struct init_config {
	/* Landlock, a second layer over the same grants as the mounts. */
	struct strv ll_read;  /* paths the program may read (dirs or files) */
	struct strv ll_write; /* paths it may read and write */
	struct strv ll_exec;  /* files it may execute (with their loaders and
			       * interpreters); ignored when exec_any */
	bool exec_any;	      /* every readable system program may run */
	/* Landlock is required unless this is set: a zeroed config fails
	 * closed (docs/design.md, "Fail closed": a layer that cannot be
	 * applied stops the launch).
	 * Set it only where `lnk sandbox ready` reported Landlock missing and
	 * the user accepted running on the mounts alone. */
	bool landlock_optional;

	/* seccomp: with dot_guard, the filter notifies creations (and
	 * connect) to the guard (src/guard) and the listener goes out
	 * on guard_fd; with connect_guard alone, only connect (a folder is
	 * granted, whose unix sockets a read-only mount leaves open). */
	bool dot_guard;
	bool connect_guard;
	/* with exec_guard (beside either, or alone), execve and execveat
	 * too: the supervisor names a program [commands] refuses */
	bool exec_guard;
	int guard_fd; /* inherited unix socket to the supervisor, or -1 */

	/* The wire: init creates these listeners inside the sandbox's network
	 * namespace and hands them to the wire on wire_fd. */
	int wire_fd; /* inherited unix socket to the wire, or -1 */
	struct init_listener *listeners;
	size_t nlisteners;

	/* The read end of a pipe whose write end only lnk holds, or -1: it
	 * hangs up when lnk dies, however it dies, and lnk-init then ends the
	 * sandbox (invariant 5). bwrap's --die-with-parent alone misses a lnk
	 * SIGKILLed while bwrap is still making the sandbox. */
	int lifeline_fd;

	/* The sandbox's cgroups come on guard_fd: after the go-ahead, one
	 * message "C" with the tasks file of each of its cgroup v1
	 * hierarchies (lnk makes them while bwrap makes the sandbox). The
	 * program's process moves itself in ("0") before anything of the
	 * program runs, so the cgroup holds the program's processes and
	 * nothing else (not pid 1, not bwrap), and lnk can remove it as soon
	 * as they are gone. Without the message the program never runs. */
	bool cgroup_on_guard;

	/* Without a network grant: lnk-init keeps the resolver's sockets of
	 * the handoff (one DNS listener alone), which lnk binds, and forks
	 * the resolver after the program (init/resolver.h). */
	bool resolver;

	/* RLIMIT_NPROC for the program, 0 for none: the tasks of this
	 * sandbox's user namespace (launch/limits.h). */
	uint32_t nproc;

	/* The home folder inside when it is an empty tmpfs thrown away at
	 * the end, else NULL: at exit, init says on a terminal how many
	 * files the program left there (init/discard.h). */
	char *temp_home;

	/* What each granted folder (and each entry kept read only over
	 * itself) was when lnk opened it, after its checks: lnk-init finds
	 * the same object at each path, by (device, inode), before anything
	 * of the program runs, or the program never runs. Threat: bwrap binds
	 * by path; a program of another sandbox with --write above a grant
	 * swaps it for a link to ~/.lnk (or another folder) after lnk's
	 * checks, during the trust question or between the plan and bwrap's
	 * mount, and the link would be followed. */
	struct init_pin *pins;
	size_t npins;

	/* The program. argv[0] is the path to execute (already resolved). */
	char *cwd;
	struct strv argv;
	struct strv env; /* complete, KEY=VALUE */
};

void initcfg_free(struct init_config *c);
int initcfg_encode(const struct init_config *c, struct buf *out);
int initcfg_decode(const char *data, size_t len, struct init_config *c,
		   struct lnk_err *err);

/* Wire format (all integers little-endian; see initcfg.c for the bounds):
 *   "LNKI" u32 version u32 flags(bit0 exec_any, bit1 dot_guard,
 *   bit2 landlock_optional, bit3 connect_guard, bit4 exec_guard,
 *   bit5 cgroup_on_guard) i32 guard_fd i32 wire_fd
 *   i32 lifeline_fd u32 nproc
 *   strv ll_read, strv ll_write, strv ll_exec
 *   strv pins (each "DEV INO /path", decimal)
 *   u32 nlisteners { u8 kind, u16 port }*
 *   str cwd, strv argv, strv env
 * where str = u32 length + bytes (no NUL), strv = u32 count + str*.
 * Nothing may follow. */
#define INITCFG_MAGIC "LNKI"
#define INITCFG_MAX_BYTES (16u << 20) /* the whole config */
#define INITCFG_MAX_STR (1u << 20)    /* one string (an argv or env entry) */
#define INITCFG_MAX_STRV 65536u	      /* entries in one vector */
#define INITCFG_MAX_LISTENERS 1024u
#define INITCFG_MAX_FD 65535
