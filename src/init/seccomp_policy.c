/* The sandbox's seccomp policy, whole, in one file (as OpenSSH's
 * sandbox-seccomp-filter.c): read this to know what a sandboxed program can
 * never call.
 *
 * This file is the policy as data, the one source of every refusal: the
 * filter is built from these tables (seccomp_build.c, with libseccomp),
 * `lnk sandbox check` tries each refusal inside a sandbox (lnk-probe reads
 * the same tables, seccomp_try_get), and the tests run each try against
 * the compiled filter and in a real sandbox. A refusal added here is built,
 * tried and tested without another list to edit.
 *
 * Shape: allow by default, refuse a list. bubblewrap's namespaces, the
 * mounts and Landlock are the boundary; this filter removes kernel attack
 * surface a sandboxed program has no business touching, closes the calls
 * that would get around the other layers, and (with the dot-file guard)
 * hands creations to the supervisor outside, which performs them itself
 * (docs/design.md, invariant 2; docs/kernel-facts.md,
 * notify-perform-not-continue).
 *
 * Only the native architecture may call anything: a 32-bit (int 0x80) or
 * x32 syscall has other numbers, which a filter written for the native ones
 * would misread, so the process is killed (libseccomp's bad-arch action).
 * 32-bit programs therefore cannot run in the sandbox: fail closed.
 *
 * Errors: EPERM for "not allowed here". ENOSYS where the caller must fall
 * back to a call we CAN check: clone3 and openat2 keep their flags in
 * memory, which a seccomp filter cannot read, and io_uring runs file
 * operations without any syscall at all; glibc, liburing and libuv treat
 * ENOSYS as "this kernel does not have it" and use the plain calls.
 *
 * ptrace is allowed, on purpose: the pid namespace means only the
 * sandbox's own processes are visible, Landlock only lets a domain trace
 * itself or nested domains, seccomp re-checks a syscall after a tracer
 * changes it (Linux >= 4.8), and debuggers and strace are ordinary tools in
 * a build or an agent's session. PTRACE_O_SUSPEND_SECCOMP needs
 * CAP_SYS_ADMIN in the initial namespace, which nothing inside has.
 */
#include "init/seccomp_policy.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/btrfs.h>
#include <linux/fs.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "common/util.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

/* Calls some architectures do not have (aarch64 has only the *at forms,
 * and no iopl or ioperm): -1 there, and no rule or try is made for them. */
#ifndef __NR_open
#define __NR_open (-1)
#endif
#ifndef __NR_creat
#define __NR_creat (-1)
#endif
#ifndef __NR_mkdir
#define __NR_mkdir (-1)
#endif
#ifndef __NR_mknod
#define __NR_mknod (-1)
#endif
#ifndef __NR_symlink
#define __NR_symlink (-1)
#endif
#ifndef __NR_link
#define __NR_link (-1)
#endif
#ifndef __NR_rename
#define __NR_rename (-1)
#endif
#ifndef __NR_unlink
#define __NR_unlink (-1)
#endif
#ifndef __NR_rmdir
#define __NR_rmdir (-1)
#endif
#ifndef __NR_renameat
#define __NR_renameat (-1)
#endif
#ifndef __NR_chmod
#define __NR_chmod (-1)
#endif
#ifndef __NR_chown
#define __NR_chown (-1)
#endif
#ifndef __NR_lchown
#define __NR_lchown (-1)
#endif
#ifndef __NR_iopl
#define __NR_iopl (-1)
#endif
#ifndef __NR_ioperm
#define __NR_ioperm (-1)
#endif

/* ---- 1. refused outright ------------------------------------------------ */

/* fchmodat2 (Linux 6.6) is newer than Debian 12's headers: its number
 * is the same on x86_64 and aarch64 (the shared table of new syscalls). */
#define NR_FCHMODAT2 452
/* The *xattrat calls (Linux 6.13), likewise: setting an attribute (an ACL)
 * by a path in memory the supervisor never sees; refused, so programs fall
 * back to setxattr, which it does see. */
#define NR_SETXATTRAT 463
#define NR_REMOVEXATTRAT 466

/* Each refusal with the arguments of its try: chosen so that the kernel,
 * without the filter, answers otherwise (EINVAL, EBADF or EFAULT from an
 * argument it checks first, or success) than the filter's errno, so a try
 * proves the filter and not the kernel's own refusal. */
#define REFUSE(sys, e, ...)          \
	{                            \
#sys, __NR_##sys, e, \
		{                    \
			__VA_ARGS__  \
		}                    \
	}

const struct seccomp_refusal seccomp_refused[] = {
    /* io_uring performs opens, mkdirs and renames from a kernel ring,
	 * never passing through seccomp: with it the dot-file guard is void
	 * (measured: IORING_OP_OPENAT(.envrc) succeeded). */
    REFUSE(io_uring_setup, ENOSYS, 0, 0),
    REFUSE(io_uring_enter, ENOSYS, -1, 0, 0, 0, 0, 0),
    REFUSE(io_uring_register, ENOSYS, -1, 0, 0, 0),
    /* Flags in memory: O_CREAT and CLONE_NEW* cannot be seen here. */
    REFUSE(openat2, ENOSYS, AT_FDCWD, 0, 0, 0),
    REFUSE(clone3, ENOSYS, 0, 0),

    /* Exploitation aids and large kernel surfaces, not namespaced. */
    REFUSE(userfaultfd, EPERM,
	   0x7fffffff), /* stalls kernel copies: wins races */
    REFUSE(perf_event_open, EPERM, 0, 0, -1, -1,
	   -1), /* side channels, many kernel bugs */
    REFUSE(bpf, EPERM, -1, 0, 0),
    /* The kernel keyring is per user, not per sandbox: a program could
	 * read or plant the user's keys outside. */
    REFUSE(keyctl, EPERM, -1, 0, 0, 0, 0),
    REFUSE(add_key, EPERM, 0, 0, 0, 0, 0),
    REFUSE(request_key, EPERM, 0, 0, 0, 0),

    /* The machine itself. */
    REFUSE(init_module, EPERM, 0, 0, 0),
    REFUSE(finit_module, EPERM, -1, 0, 0),
    REFUSE(delete_module, EPERM, 0, 0),
    REFUSE(kexec_load, EPERM, 0, 0, 0, 0),
    REFUSE(kexec_file_load, EPERM, -1, -1, 0, 0, 0),
    REFUSE(reboot, EPERM, 0, 0, 0, 0),
    REFUSE(acct, EPERM, 1),
    REFUSE(swapon, EPERM, 1, 0),
    REFUSE(swapoff, EPERM, 1),
    REFUSE(syslog, EPERM, -1, 0, 0), /* the kernel log leaks addresses */
    REFUSE(quotactl, EPERM, 0, 0, 0, 0),
    REFUSE(vhangup, EPERM, 0),
    REFUSE(iopl, EPERM, 4),
    REFUSE(ioperm, EPERM, 0, 0, 0),
    REFUSE(settimeofday, EPERM, 1, 0),
    REFUSE(clock_settime, EPERM, -1, 0),
    REFUSE(adjtimex, EPERM, 1),
    REFUSE(clock_adjtime, EPERM, -1, 1),

    /* The mount table: the sandbox's view is bwrap's, fixed before the
	 * program starts. Only a nested user namespace could grant the
	 * capability; both are refused. */
    REFUSE(mount, EPERM, 0, 0, 0, 0, 0),
    REFUSE(umount2, EPERM, 0, -1),
    REFUSE(pivot_root, EPERM, 0, 0),
    REFUSE(chroot, EPERM, 1),
    REFUSE(fsopen, EPERM, 0, 0xffffffff),
    REFUSE(fsconfig, EPERM, -1, 0xffffffff, 0, 0, 0),
    REFUSE(fsmount, EPERM, -1, 0xffffffff, 0),
    REFUSE(fspick, EPERM, -1, 0, 0xffffffff),
    REFUSE(move_mount, EPERM, -1, 0, -1, 0, 0xffffffff),
    REFUSE(open_tree, EPERM, -1, 0, 0xffffffff),
    REFUSE(mount_setattr, EPERM, -1, 0, 0xffffffff, 0, 0),

    /* No nested namespaces: entering another namespace, or making one
	 * (a user namespace hands out every capability over new kernel
	 * objects: the main source of unprivileged kernel exploits). */
    REFUSE(setns, EPERM, -1, 0),

    /* File handles address inodes directly, beneath any mount: the
	 * "shocker" escape from containers. */
    REFUSE(open_by_handle_at, EPERM, -1, 0, 0),
    REFUSE(name_to_handle_at, EPERM, AT_FDCWD, 0, 0, 0, -1),

    /* Extended attributes by a path the supervisor cannot see (see
     * NR_SETXATTRAT). */
    {"setxattrat", NR_SETXATTRAT, ENOSYS, {-1, 0, 0xffffffff, 0, 0, 0}},
    {"removexattrat", NR_REMOVEXATTRAT, ENOSYS, {-1, 0, 0xffffffff, 0}},
};
const size_t seccomp_refused_count = ARRAY_SIZE(seccomp_refused);

/* CLONE_NEW* in clone() and unshare(): checked one bit at a time, so that
 * any of them set refuses the call. CLONE_NEWTIME shares its bit with the
 * exit signal in clone(), so it only counts for unshare(). */
#define NEW_FLAG(f, unshare_only)   \
	{                           \
#f, f, unshare_only \
	}
const struct seccomp_clone_flag seccomp_clone_flags[] = {
    NEW_FLAG(CLONE_NEWNS, false),   NEW_FLAG(CLONE_NEWCGROUP, false),
    NEW_FLAG(CLONE_NEWUTS, false),  NEW_FLAG(CLONE_NEWIPC, false),
    NEW_FLAG(CLONE_NEWUSER, false), NEW_FLAG(CLONE_NEWPID, false),
    NEW_FLAG(CLONE_NEWNET, false),  NEW_FLAG(CLONE_NEWTIME, true),
};
const size_t seccomp_clone_flags_count = ARRAY_SIZE(seccomp_clone_flags);

/* FS_IOC_SETFLAGS (chattr) could set the casefold attribute on the empty
 * top of a write folder, after which ".vſcode" is the ".vscode" a host
 * editor opens: the dot-file guard refuses names by their spelling, and
 * refuses write grants on folders that fold (src/guard/fold.c). The
 * other flags it sets are rare in a sandbox (+C no copy-on-write), or
 * need a capability the sandbox never holds (+i, +a). The same flags
 * through FS_IOC_FSSETXATTR, and the generation (FS_IOC_SETVERSION, and
 * ext4's older number for it), go too: on a descriptor the program was
 * given (its stdin) or a file with another name, they would change a
 * file outside its grants (nodump hides it from backups).
 *
 * Terminal injection (invariant 5): TIOCSTI pushes bytes into the input of
 * the terminal, so a program could type commands into the user's shell
 * after it exits; TIOCLINUX can do the same on a virtual console. The
 * kernel reads ioctl's cmd as 32 bits, so the compare is masked to the low
 * 32: a cmd with high bits set is still TIOCSTI to the kernel and must
 * still match here (CVE-2019-10063, flatpak). */
/* A btrfs subvolume or snapshot is made (or removed) by an ioctl on the
 * folder that will hold it, not by mkdir: a name the guard never sees, so
 * `btrfs subvolume create .git` made the top's .git, config and hooks the
 * program's (invariant 2). bcachefs has the same two calls; its numbers
 * are written here, its uapi header not being installed everywhere. */
#define LNK_BCH_IOCTL_SUBVOLUME_CREATE _IOW(0xbc, 16, char[32])
#define LNK_BCH_IOCTL_SUBVOLUME_DESTROY _IOW(0xbc, 17, char[32])
/* ext4's own number for FS_IOC_SETVERSION: _IOW('f', 4, long). */
#define EXT4_IOC_SETVERSION _IOW('f', 4, long)
#define IOCTL(cmd)        \
	{                 \
#cmd, cmd \
	}
const struct seccomp_ioctl seccomp_refused_ioctls[] = {
    IOCTL(TIOCSTI),
    IOCTL(TIOCLINUX),
    IOCTL(FS_IOC_SETFLAGS), /* chattr: see above */
    IOCTL(FS_IOC32_SETFLAGS),
    IOCTL(FS_IOC_FSSETXATTR), /* the same flags, xfs_io's way */
    IOCTL(FS_IOC_SETVERSION), /* the inode's generation (ext4) */
    IOCTL(EXT4_IOC_SETVERSION),
    IOCTL(BTRFS_IOC_SUBVOL_CREATE), /* a name made without mkdir */
    IOCTL(BTRFS_IOC_SUBVOL_CREATE_V2),
    IOCTL(BTRFS_IOC_SNAP_CREATE),
    IOCTL(BTRFS_IOC_SNAP_CREATE_V2),
    IOCTL(BTRFS_IOC_SNAP_DESTROY), /* a name removed without rmdir */
    IOCTL(BTRFS_IOC_SNAP_DESTROY_V2),
    IOCTL(LNK_BCH_IOCTL_SUBVOLUME_CREATE),
    IOCTL(LNK_BCH_IOCTL_SUBVOLUME_DESTROY),
};
const size_t seccomp_refused_ioctls_count = ARRAY_SIZE(seccomp_refused_ioctls);

/* ---- 2. notified to the supervisor (dot_guard) --------------------------- */

/* Every call that can create a name in a folder, and every open that
 * writes (a file with more than one name gets one of its own first:
 * src/guard/shared.c; the opens' rules are in seccomp_build.c). The
 * supervisor (src/guard)
 * resolves the path once, on fds, refuses the protected dot files at the
 * top of each write folder, and otherwise performs the call itself and
 * answers with the result (ADDFD for opens). It never answers CONTINUE:
 * check-then-continue lets the path change in between (measured: .envrc
 * created within 1 s). unlink, unlinkat and rmdir are the exception: an
 * existing dot file is a read-only bind mount, which the kernel refuses
 * to remove itself, so the supervisor decides nothing and lets them
 * through (CONTINUE), only naming a kept entry the kernel will refuse
 * (src/guard/dispatch.c, unlink_note). bind is here because binding an AF_UNIX socket to
 * a path creates that name; the family is in memory, so every bind comes.
 * connect is here because a read-only mount does not stop connect() on a
 * unix socket in it: the supervisor connects only to sockets bound inside
 * the sandbox (a host daemon's socket under a granted folder is refused),
 * and, the address being in memory too, performs every connect. */
const struct seccomp_notified seccomp_notified[] = {
    {"open", __NR_open, 1},
    {"openat", __NR_openat, 2},
    {"creat", __NR_creat, -1},
    {"mkdir", __NR_mkdir, -1},
    {"mkdirat", __NR_mkdirat, -1},
    {"mknod", __NR_mknod, -1},
    {"mknodat", __NR_mknodat, -1},
    {"symlink", __NR_symlink, -1},
    {"symlinkat", __NR_symlinkat, -1},
    {"link", __NR_link, -1},
    {"linkat", __NR_linkat, -1},
    {"rename", __NR_rename, -1},
    {"renameat", __NR_renameat, -1},
    {"renameat2", __NR_renameat2, -1},
    {"unlink", __NR_unlink, -1},
    {"unlinkat", __NR_unlinkat, -1},
    {"rmdir", __NR_rmdir, -1},
    /* truncate writes a file through its name: as an open that writes
     * (src/guard/shared.c); ftruncate needs a descriptor opened so. */
    {"truncate", __NR_truncate, -1},
    {"bind", __NR_bind, -1},
    {"connect", __NR_connect, -1},
    /* Mode, owner and extended attributes (a POSIX ACL is one): refused
     * on the top of a write folder and on what the guard protects, where
     * loosening them would let other accounts plant what the program may
     * not; performed by the supervisor elsewhere. The set-id bits stay
     * refused here (the notify rule of a call with a mode excludes
     * them). Notified with any listener, not only with dot files kept:
     * through a descriptor it was given (its stdin), the program must not
     * change a file outside its grants (src/guard/attr.c). */
    {"chmod", __NR_chmod, -1, true},
    {"fchmod", __NR_fchmod, -1, true},
    {"fchmodat", __NR_fchmodat, -1, true},
    {"fchmodat2", NR_FCHMODAT2, -1, true},
    {"chown", __NR_chown, -1, true},
    {"lchown", __NR_lchown, -1, true},
    {"fchown", __NR_fchown, -1, true},
    {"fchownat", __NR_fchownat, -1, true},
    {"setxattr", __NR_setxattr, -1, true},
    {"lsetxattr", __NR_lsetxattr, -1, true},
    {"fsetxattr", __NR_fsetxattr, -1, true},
    {"removexattr", __NR_removexattr, -1, true},
    {"lremovexattr", __NR_lremovexattr, -1, true},
    {"fremovexattr", __NR_fremovexattr, -1, true},
};
const size_t seccomp_notified_count = ARRAY_SIZE(seccomp_notified);

const struct seccomp_notified *seccomp_notified_lookup(int nr)
{
	for (size_t i = 0; i < seccomp_notified_count; i++)
		if (seccomp_notified[i].nr == nr)
			return &seccomp_notified[i];
	return NULL;
}

/* ---- 1b. no setuid or setgid files -------------------------------------- */

/* A --write folder is the user's own folder on the host. The sandbox mounts
 * it nosuid, but that holds only inside: a setuid file made there stays
 * setuid on the host, and when lnk runs as root it is a setuid-root program
 * any local user can run for a root shell. So the set-id bits can never be
 * set: not by chmod, and not in the mode of a new file or folder (open with
 * O_CREAT or O_TMPFILE, creat, mkdir, mknod). The mode is a register
 * argument, so a masked compare on it is exact. Setgid on folders (group
 * inheritance) goes too: rare in a project, and one rule is easier to trust.
 * The dot-file supervisor strips the same bits from the modes it creates
 * with (src/guard), should a rule here ever be missed. */
#ifndef __O_TMPFILE
#define __O_TMPFILE 020000000
#endif

const struct seccomp_setid_rule seccomp_setid_rules[] = {
    {"chmod", __NR_chmod, 1, -1},	{"fchmod", __NR_fchmod, 1, -1},
    {"fchmodat", __NR_fchmodat, 2, -1}, {"fchmodat2", NR_FCHMODAT2, 2, -1},
    {"creat", __NR_creat, 1, -1},	{"mkdir", __NR_mkdir, 1, -1},
    {"mkdirat", __NR_mkdirat, 2, -1},	{"mknod", __NR_mknod, 1, -1},
    {"mknodat", __NR_mknodat, 2, -1},	{"open", __NR_open, 2, 1},
    {"openat", __NR_openat, 3, 2},
};
const size_t seccomp_setid_rules_count = ARRAY_SIZE(seccomp_setid_rules);

/* ---- the tries of every refusal ----------------------------------------- */

static void try_set(struct seccomp_try *t, long nr, int errnum,
		    const long args[6], const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static void try_set(struct seccomp_try *t, long nr, int errnum,
		    const long args[6], const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->name, sizeof(t->name), fmt, ap);
	va_end(ap);
	t->nr = nr;
	t->errnum = errnum;
	memcpy(t->args, args, sizeof(t->args));
}

/* The tries in order: the refused calls, CLONE_NEW* in unshare and clone,
 * the ioctls, each set-id bit in each call that takes a mode, and the
 * personality filter of seccomp_load.c. *k counts; true when the next one
 * is the i-th. Calls this architecture lacks are left out. */
static bool try_nth(size_t i, size_t *k, long nr)
{
	return nr >= 0 && (*k)++ == i;
}

int seccomp_try_get(size_t i, struct seccomp_try *t)
{
	static const long set_bits[] = {S_ISUID, S_ISGID};
	static const char *const set_names[] = {"S_ISUID", "S_ISGID"};
	static const long creating[] = {O_CREAT, __O_TMPFILE};
	static const char *const creating_names[] = {"O_CREAT", "O_TMPFILE"};
	size_t k = 0;

	for (size_t r = 0; r < seccomp_refused_count; r++) {
		const struct seccomp_refusal *f = &seccomp_refused[r];
		if (try_nth(i, &k, f->nr)) {
			try_set(t, f->nr, f->errnum, f->try_args, "%s",
				f->name);
			return 0;
		}
	}
	for (size_t c = 0; c < seccomp_clone_flags_count; c++) {
		const struct seccomp_clone_flag *f = &seccomp_clone_flags[c];
		/* bit 0 is no unshare flag, and CLONE_NEWNS with CLONE_FS
		 * is invalid for clone: the kernel says EINVAL */
		const long un[6] = {(long)(f->flag | 1)};
		const long cl[6] = {
		    (long)(f->flag | CLONE_NEWNS | CLONE_FS | SIGCHLD)};
		if (try_nth(i, &k, __NR_unshare)) {
			try_set(t, __NR_unshare, EPERM, un, "unshare %s",
				f->name);
			return 0;
		}
		if (!f->unshare_only && try_nth(i, &k, __NR_clone)) {
			try_set(t, __NR_clone, EPERM, cl, "clone %s", f->name);
			return 0;
		}
	}
	for (size_t c = 0; c < seccomp_refused_ioctls_count; c++) {
		const struct seccomp_ioctl *f = &seccomp_refused_ioctls[c];
		const long a[6] = {-1, (long)f->cmd}; /* fd -1: EBADF */
		if (try_nth(i, &k, __NR_ioctl)) {
			try_set(t, __NR_ioctl, EPERM, a, "ioctl %s", f->name);
			return 0;
		}
	}
	for (size_t s = 0; s < seccomp_setid_rules_count; s++) {
		const struct seccomp_setid_rule *f = &seccomp_setid_rules[s];
		size_t nc = f->flags_arg < 0 ? 1 : ARRAY_SIZE(creating);
		for (size_t b = 0; b < ARRAY_SIZE(set_bits); b++) {
			for (size_t c = 0; c < nc; c++) {
				/* every path and fd invalid: EFAULT, EBADF */
				long a[6] = {-1, -1, -1, -1, -1, -1};
				a[f->mode_arg] = set_bits[b] | 0755;
				if (f->flags_arg >= 0)
					a[f->flags_arg] = creating[c] | O_RDWR;
				if (!try_nth(i, &k, f->nr))
					continue;
				if (f->flags_arg < 0)
					try_set(t, f->nr, EPERM, a, "%s %s",
						f->name, set_names[b]);
				else
					try_set(t, f->nr, EPERM, a, "%s %s %s",
						f->name, creating_names[c],
						set_names[b]);
				return 0;
			}
		}
	}
	/* seccomp_load.c: every persona but the default and the query */
	const long pers[6] = {0x0400000 /* READ_IMPLIES_EXEC */};
	if (try_nth(i, &k, __NR_personality)) {
		try_set(t, __NR_personality, EPERM, pers,
			"personality READ_IMPLIES_EXEC");
		return 0;
	}
	return -ENOENT;
}

int seccomp_try_find(const char *name, struct seccomp_try *t)
{
	for (size_t i = 0; seccomp_try_get(i, t) == 0; i++)
		if (strcmp(t->name, name) == 0)
			return 0;
	return -ENOENT;
}
