/* Internals of the dot-file guard, exposed for the unit tests. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "guard/guard.h"

/* Where a path a sandboxed task passed starts, after rewriting the magic
 * links the supervisor cannot follow for it: /proc/self inside the sandbox
 * names the sandboxed task, but for the supervisor (in another pid
 * namespace) it names nothing, or the wrong process (docs/kernel-facts.md,
 * magic-links). */
enum guard_base {
	GUARD_BASE_DIRFD, /* relative: the syscall's dirfd (or its cwd) */
	GUARD_BASE_ROOT,  /* absolute: the task's root */
	GUARD_BASE_FD,	  /* /dev/fd/N, /dev/std*, /proc/self/fd/N: its fd N */
	GUARD_BASE_CWD,	  /* /proc/self/cwd: its cwd */
};

struct guard_path {
	enum guard_base base;
	int fd;		  /* GUARD_BASE_FD */
	const char *rest; /* the remainder, relative to base (points into
			   * the input); "" when the path IS the magic link */
	bool proc_self;	  /* under /proc/self or /proc/thread-self, but
			   * none of its descriptors, cwd or root: the
			   * supervisor cannot resolve it ("self" is the
			   * task, not the supervisor) */
};

/* Classifies path (never NULL). Only the magic prefixes are matched, on
 * components with empty and "." ones skipped ("//dev/./fd/3/x"); the rest
 * is kept byte for byte so "x/." keeps its meaning. */
void guard_rewrite(const char *path, struct guard_path *out);

/* Splits a path into its folder part and last component: dir is written to
 * dirbuf ("" for none, "/" for the root), last to lastbuf; *slash tells
 * whether trailing slashes followed the last component. 0, or -ENOENT for
 * "", -ENAMETOOLONG. A last component of "." or ".." is returned as is:
 * callers must never hand it to the kernel relative to a resolved folder
 * (".." would climb out of the task's root in the supervisor's view). */
int guard_split(const char *path, char *dirbuf, size_t dircap, char *lastbuf,
		size_t lastcap, bool *slash);

/* The decision, pure: the guard that refuses creating `last` in the folder
 * (dev, ino), or NULL when it is allowed. Names compare without regard to
 * case, since a case-insensitive folder (vfat, ext4 casefold) would make
 * ".ENVRC" the file direnv runs. */
const struct guard_rule *guard_decide(const struct guard_rule *g, size_t n,
				      dev_t dev, ino_t ino, const char *last);

/* Whether the supervisor handles syscall nr, and for open-like calls the
 * index of the flags argument (-1 when every call is handled, e.g. creat,
 * whose flags are fixed). Kept in step with lnk-init's filter
 * (src/init/seccomp_policy.c) by a unit test. */
bool guard_handles(long nr, int *flags_arg);

/* is_dot_file without regard to case. */
bool guard_dot_file_nocase(const char *name);

/* Resolution on descriptors (resolve.c). */
struct guard_ctx {
	int rootfd; /* the task's root, O_PATH; -1 until needed */
	int procfd; /* /proc/TID, to open rootfd lazily; -1 when rootfd is
		     * given */
};

/* The task's root (opened on first use: most paths are relative and
 * never need it). An fd owned by c, or -errno. */
int guard_root(struct guard_ctx *c);

/* Opens (O_PATH) the folder `dir` of a path relative to basefd (absolute
 * dir: relative to ctx->rootfd), inside the task's root, never following a
 * magic link, never letting the kernel follow a symlink out of the task's
 * root. 0 or -errno; *out the fd. */
int guard_open_dir(struct guard_ctx *c, int basefd, const char *dir, int *out);

/* guard_split + guard_open_dir. */
int guard_lookup_parent(struct guard_ctx *c, int basefd, const char *path,
			int *parent, char *last, size_t lastcap, bool *slash);

/* ---- what the supervisor may touch for the task (guard.c, pure) ---- */

/* Whether the supervisor may create in a folder (object false) or open an
 * existing object (object true) on a file system of this statfs f_type.
 * An allow list of ordinary on-disk, network and memory file systems;
 * never procfs, sysfs, cgroupfs, debugfs, nsfs, bpffs, ... whose "files"
 * are kernel objects (/proc/1/mem: the confused deputy). Objects may also
 * be pipes and pty devices (reopening /dev/stdout). */
bool guard_fs_ok(unsigned long f_type, bool object);

/* The name of a file system of this statfs f_type that folds names
 * (case, trailing dots), or NULL (fold.c). */
const char *guard_fs_folding(unsigned long f_type);

/* 1 when names in folder dir fold (its file system, or ext4/f2fs/tmpfs
 * casefold on it), *why naming which; 0 when not; -errno. */
int guard_dir_folds(const char *dir, const char **why);

/* Character devices an O_CREAT open may reach. */
enum guard_dev {
	GUARD_DEV_OPEN,	  /* null, zero, full, random, urandom, ptmx, pty */
	GUARD_DEV_CTTY,	  /* /dev/tty: the CALLER's terminal, mapped */
	GUARD_DEV_REFUSE, /* anything else (/dev/console of the host, ...) */
};
enum guard_dev guard_chardev(dev_t rdev);

/* Whether an open with flags asks for no more access than a descriptor
 * opened with access mode `have` (O_RDONLY, O_WRONLY, O_RDWR, or O_PATH)
 * already gives: reopening an inherited descriptor through /dev/fd/N must
 * never turn a read-only stdin into a writable file. O_TRUNC counts as
 * writing; an O_PATH request asks for nothing. */
bool guard_access_within(int flags, int have);

/* A socket address as the kernel reads it for a socket of one family
 * (sockaddr.c). */
enum guard_sa_kind {
	GUARD_SA_OTHER,	   /* nothing the guard checks (autobind, AF_UNSPEC,
			 * other families) */
	GUARD_SA_PATH,	   /* AF_UNIX: a name in a folder */
	GUARD_SA_ABSTRACT, /* AF_UNIX: an abstract name (the socket's netns) */
	GUARD_SA_PORT,	   /* AF_INET, AF_INET6: a port */
	GUARD_SA_GROUPS,   /* AF_NETLINK: multicast groups (a bit mask) */
};
struct guard_sockaddr {
	enum guard_sa_kind kind;
	uint16_t port;
	uint32_t groups;
	char path[109]; /* sun_path and its end */
};

/* Reads addr (alen bytes, at most sizeof(struct sockaddr_storage)) as
 * bind(2) and connect(2) read it on a socket of family `domain`: 0 and
 * *out, or -EINVAL where the kernel refuses the length before anything
 * else. */
int guard_sockaddr_parse(int domain, const void *addr, size_t alen,
			 struct guard_sockaddr *out);

/* Whether netlink multicast groups (nl_groups of a bind or connect) may be
 * joined by a task without CAP_NET_ADMIN, as the kernel would let it. */
bool guard_netlink_groups_ok(int protocol, uint32_t groups);

/* The transparent path (tproxy.c): connect(2) of socket sfd (of this
 * domain) to ss, for the program. 1 when it is not the transparent path's
 * (the caller connects as given: the sandbox's loopback, another
 * protocol, an address the kernel refuses itself); else the answer, 0 or
 * -errno: a TCP connect made through the wire's listener at tcp_port, or
 * a datagram socket's refused, then named in *refused for the log (verb
 * "udp" or "icmp", target "ADDRESS:PORT"; verb "" otherwise). tcp_port 0
 * (no wire): always 1. */
struct sockaddr_storage;
struct guard_refused_dgram {
	const char *verb;
	char target[64];
};
int guard_tproxy_connect(int sfd, int domain, uint16_t tcp_port,
			 const struct sockaddr_storage *ss, size_t alen,
			 struct guard_refused_dgram *refused);

/* Without a network grant: names a TCP connect of sfd to an address
 * outside on stderr, once an address and bounded (nonet.c). */
void guard_nonet_connect(struct guard *n, int sfd, int domain,
			 const struct sockaddr_storage *ss, size_t alen);

/* tty_nr (field 7 of /proc/PID/stat) of stat's text: 0 or -EINVAL. The
 * command name (field 2) may hold spaces and parentheses: fields are
 * counted after its LAST ')'. */
int guard_stat_tty_nr(const char *stat, unsigned long *tty_nr);
/* The device number tty_nr encodes (the kernel's new_encode_dev). */
dev_t guard_tty_dev(unsigned long tty_nr);
