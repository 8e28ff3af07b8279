/* The sandbox's seccomp policy, whole, in one file (as OpenSSH's
 * sandbox-seccomp-filter.c): read this to know what a sandboxed program can
 * never call.
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
#include <linux/audit.h>
#include <linux/fs.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/util.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif
#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif

/* ---- 1. refused outright ------------------------------------------------ */

/* fchmodat2 (Linux 6.6) is newer than libseccomp 2.5.4's table: its number
 * is the same on x86_64 and aarch64 (the shared table of new syscalls). */
#define NR_FCHMODAT2 452
/* The *xattrat calls (Linux 6.13), likewise: setting an attribute (an ACL)
 * by a path in memory the supervisor never sees; refused, so programs fall
 * back to setxattr, which it does see. */
#define NR_SETXATTRAT 463
#define NR_REMOVEXATTRAT 466

struct refusal {
	const char *name;
	int nr;
	int errnum;
};

#define REFUSE(sys, e)                 \
	{                              \
#sys, SCMP_SYS(sys), e \
	}

static const struct refusal refused[] = {
    /* io_uring performs opens, mkdirs and renames from a kernel ring,
	 * never passing through seccomp: with it the dot-file guard is void
	 * (measured: IORING_OP_OPENAT(.envrc) succeeded). */
    REFUSE(io_uring_setup, ENOSYS),
    REFUSE(io_uring_enter, ENOSYS),
    REFUSE(io_uring_register, ENOSYS),
    /* Flags in memory: O_CREAT and CLONE_NEW* cannot be seen here. */
    REFUSE(openat2, ENOSYS),
    REFUSE(clone3, ENOSYS),

    /* Exploitation aids and large kernel surfaces, not namespaced. */
    REFUSE(userfaultfd, EPERM),	    /* stalls kernel copies: wins races */
    REFUSE(perf_event_open, EPERM), /* side channels, many kernel bugs */
    REFUSE(bpf, EPERM),
    /* The kernel keyring is per user, not per sandbox: a program could
	 * read or plant the user's keys outside. */
    REFUSE(keyctl, EPERM),
    REFUSE(add_key, EPERM),
    REFUSE(request_key, EPERM),

    /* The machine itself. */
    REFUSE(init_module, EPERM),
    REFUSE(finit_module, EPERM),
    REFUSE(delete_module, EPERM),
    REFUSE(kexec_load, EPERM),
    REFUSE(kexec_file_load, EPERM),
    REFUSE(reboot, EPERM),
    REFUSE(acct, EPERM),
    REFUSE(swapon, EPERM),
    REFUSE(swapoff, EPERM),
    REFUSE(syslog, EPERM), /* the kernel log leaks addresses */
    REFUSE(quotactl, EPERM),
    REFUSE(vhangup, EPERM),
    REFUSE(iopl, EPERM),
    REFUSE(ioperm, EPERM),
    REFUSE(settimeofday, EPERM),
    REFUSE(clock_settime, EPERM),
    REFUSE(adjtimex, EPERM),
    REFUSE(clock_adjtime, EPERM),

    /* The mount table: the sandbox's view is bwrap's, fixed before the
	 * program starts. Only a nested user namespace could grant the
	 * capability; both are refused. */
    REFUSE(mount, EPERM),
    REFUSE(umount2, EPERM),
    REFUSE(pivot_root, EPERM),
    REFUSE(chroot, EPERM),
    REFUSE(fsopen, EPERM),
    REFUSE(fsconfig, EPERM),
    REFUSE(fsmount, EPERM),
    REFUSE(fspick, EPERM),
    REFUSE(move_mount, EPERM),
    REFUSE(open_tree, EPERM),
    REFUSE(mount_setattr, EPERM),

    /* No nested namespaces: entering another namespace, or making one
	 * (a user namespace hands out every capability over new kernel
	 * objects: the main source of unprivileged kernel exploits). */
    REFUSE(setns, EPERM),

    /* File handles address inodes directly, beneath any mount: the
	 * "shocker" escape from containers. */
    REFUSE(open_by_handle_at, EPERM),
    REFUSE(name_to_handle_at, EPERM),

    /* Extended attributes by a path the supervisor cannot see (see
     * NR_SETXATTRAT). */
    {"setxattrat", NR_SETXATTRAT, ENOSYS},
    {"removexattrat", NR_REMOVEXATTRAT, ENOSYS},
};

/* CLONE_NEW* in clone() and unshare(): checked one bit at a time, so that
 * any of them set refuses the call. CLONE_NEWTIME shares its bit with the
 * exit signal in clone(), so it only counts for unshare(). */
static const uint64_t clone_new_flags[] = {
    CLONE_NEWNS,   CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC,
    CLONE_NEWUSER, CLONE_NEWPID,    CLONE_NEWNET,
};

/* FS_IOC_SETFLAGS (chattr) could set the casefold attribute on the empty
 * top of a write folder, after which ".vſcode" is the ".vscode" a host
 * editor opens: the dot-file guard refuses names by their spelling, and
 * refuses write grants on folders that fold (src/guard/fold.c). The
 * other flags it sets are rare in a sandbox (+C no copy-on-write), or
 * need a capability the sandbox never holds (+i, +a).
 *
 * Terminal injection (invariant 5): TIOCSTI pushes bytes into the input of
 * the terminal, so a program could type commands into the user's shell
 * after it exits; TIOCLINUX can do the same on a virtual console. The
 * kernel reads ioctl's cmd as 32 bits, so the compare is masked to the low
 * 32: a cmd with high bits set is still TIOCSTI to the kernel and must
 * still match here (CVE-2019-10063, flatpak). */
static const uint32_t refused_ioctls[] = {TIOCSTI, TIOCLINUX,
					  /* chattr: see below */
					  FS_IOC_SETFLAGS, FS_IOC32_SETFLAGS};

/* ---- 2. notified to the supervisor (dot_guard) --------------------------- */

/* Every call that can create a name in a folder. The supervisor (src/guard)
 * resolves the path once, on fds, refuses the protected dot files at the
 * top of each write folder, and otherwise performs the call itself and
 * answers with the result (ADDFD for opens). It never answers CONTINUE:
 * check-then-continue lets the path change in between (measured: .envrc
 * created within 1 s). unlink and rmdir are absent: existing dot files are
 * read-only bind mounts. bind is here because binding an AF_UNIX socket to
 * a path creates that name; the family is in memory, so every bind comes.
 * connect is here because a read-only mount does not stop connect() on a
 * unix socket in it: the supervisor connects only to sockets bound inside
 * the sandbox (a host daemon's socket under a granted folder is refused),
 * and, the address being in memory too, performs every connect. */
const struct seccomp_notified seccomp_notified[] = {
    {"open", SCMP_SYS(open), 1},
    {"openat", SCMP_SYS(openat), 2},
    {"creat", SCMP_SYS(creat), -1},
    {"mkdir", SCMP_SYS(mkdir), -1},
    {"mkdirat", SCMP_SYS(mkdirat), -1},
    {"mknod", SCMP_SYS(mknod), -1},
    {"mknodat", SCMP_SYS(mknodat), -1},
    {"symlink", SCMP_SYS(symlink), -1},
    {"symlinkat", SCMP_SYS(symlinkat), -1},
    {"link", SCMP_SYS(link), -1},
    {"linkat", SCMP_SYS(linkat), -1},
    {"rename", SCMP_SYS(rename), -1},
    {"renameat", SCMP_SYS(renameat), -1},
    {"renameat2", SCMP_SYS(renameat2), -1},
    {"bind", SCMP_SYS(bind), -1},
    {"connect", SCMP_SYS(connect), -1},
    /* Mode, owner and extended attributes (a POSIX ACL is one): refused
     * on the top of a write folder and on what the guard protects, where
     * loosening them would let other accounts plant what the program may
     * not; performed by the supervisor elsewhere. The set-id bits stay
     * refused here (the notify rule of a call with a mode excludes
     * them). */
    {"chmod", SCMP_SYS(chmod), -1},
    {"fchmod", SCMP_SYS(fchmod), -1},
    {"fchmodat", SCMP_SYS(fchmodat), -1},
    {"fchmodat2", NR_FCHMODAT2, -1},
    {"chown", SCMP_SYS(chown), -1},
    {"lchown", SCMP_SYS(lchown), -1},
    {"fchown", SCMP_SYS(fchown), -1},
    {"fchownat", SCMP_SYS(fchownat), -1},
    {"setxattr", SCMP_SYS(setxattr), -1},
    {"lsetxattr", SCMP_SYS(lsetxattr), -1},
    {"fsetxattr", SCMP_SYS(fsetxattr), -1},
    {"removexattr", SCMP_SYS(removexattr), -1},
    {"lremovexattr", SCMP_SYS(lremovexattr), -1},
    {"fremovexattr", SCMP_SYS(fremovexattr), -1},
};
const size_t seccomp_notified_count = ARRAY_SIZE(seccomp_notified);

const struct seccomp_notified *seccomp_notified_lookup(int nr)
{
	for (size_t i = 0; i < seccomp_notified_count; i++)
		if (seccomp_notified[i].nr == nr)
			return &seccomp_notified[i];
	return NULL;
}

/* ---- building ----------------------------------------------------------- */

static int rule_err(struct lnk_err *err, int r, const char *name)
{
	return err_set(err, r < 0 ? r : -EINVAL,
		       "seccomp: cannot add the rule for %s: %s", name,
		       strerror(r < 0 ? -r : EINVAL));
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
struct setid_rule {
	const char *name;
	int nr;
	int mode_arg;
	int flags_arg; /* -1: every call; else only with O_CREAT/O_TMPFILE */
};

#ifndef __O_TMPFILE
#define __O_TMPFILE 020000000
#endif

static const struct setid_rule setid_rules[] = {
    {"chmod", SCMP_SYS(chmod), 1, -1},
    {"fchmod", SCMP_SYS(fchmod), 1, -1},
    {"fchmodat", SCMP_SYS(fchmodat), 2, -1},
    {"fchmodat2", NR_FCHMODAT2, 2, -1},
    {"creat", SCMP_SYS(creat), 1, -1},
    {"mkdir", SCMP_SYS(mkdir), 1, -1},
    {"mkdirat", SCMP_SYS(mkdirat), 2, -1},
    {"mknod", SCMP_SYS(mknod), 1, -1},
    {"mknodat", SCMP_SYS(mknodat), 2, -1},
    {"open", SCMP_SYS(open), 2, 1},
    {"openat", SCMP_SYS(openat), 3, 2},
};

/* The mode argument of a syscall that takes one, or -1. */
static int setid_mode_arg(int nr)
{
	for (size_t i = 0; i < ARRAY_SIZE(setid_rules); i++)
		if (setid_rules[i].nr == nr)
			return setid_rules[i].mode_arg;
	return -1;
}

/* With the dot-file guard the same open, creat, mkdir and mknod calls are
 * also NOTIFIED. libseccomp cannot nest a refusal under a broader notify
 * rule of the same syscall (measured: added after it, the refusal is
 * dropped without an error; added before, the notify rule fails with
 * EEXIST), so the notify rule of a call with a mode takes one more
 * condition, "no set-id bit in the mode", and the three rules never
 * overlap (tests/unit/test_seccomp_policy.c runs both filters). */
static int add_notify_rule(scmp_filter_ctx ctx,
			   const struct seccomp_notified *n)
{
	int mode_arg = setid_mode_arg(n->nr);
	struct scmp_arg_cmp c[2];
	unsigned k = 0;

	if (n->creat_flag_arg >= 0)
		c[k++] = SCMP_CMP((unsigned)n->creat_flag_arg,
				  SCMP_CMP_MASKED_EQ, O_CREAT, O_CREAT);
	if (mode_arg >= 0)
		c[k++] = SCMP_CMP((unsigned)mode_arg, SCMP_CMP_MASKED_EQ,
				  S_ISUID | S_ISGID, 0);
	return seccomp_rule_add_array(ctx, SCMP_ACT_NOTIFY, n->nr, k, c);
}

/* The refusals, one rule per bit (a masked compare tests equality). */
static int add_setid_rules(scmp_filter_ctx ctx, struct lnk_err *err)
{
	static const uint64_t bits[] = {S_ISUID, S_ISGID};
	static const uint64_t creating[] = {O_CREAT, __O_TMPFILE};

	for (size_t i = 0; i < ARRAY_SIZE(setid_rules); i++) {
		const struct setid_rule *s = &setid_rules[i];
		for (size_t b = 0; b < ARRAY_SIZE(bits); b++) {
			struct scmp_arg_cmp mode =
			    SCMP_CMP((unsigned)s->mode_arg, SCMP_CMP_MASKED_EQ,
				     bits[b], bits[b]);
			int r;
			if (s->flags_arg < 0) {
				r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
						     s->nr, 1, mode);
				if (r < 0)
					return rule_err(err, r, s->name);
				continue;
			}
			for (size_t c = 0; c < ARRAY_SIZE(creating); c++) {
				r = seccomp_rule_add(
				    ctx, SCMP_ACT_ERRNO(EPERM), s->nr, 2,
				    SCMP_CMP((unsigned)s->flags_arg,
					     SCMP_CMP_MASKED_EQ, creating[c],
					     creating[c]),
				    mode);
				if (r < 0)
					return rule_err(err, r, s->name);
			}
		}
	}
	return 0;
}

static int build(enum seccomp_notify notify, scmp_filter_ctx *out,
		 struct lnk_err *err)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int r;

	if (!ctx)
		return err_set(err, -ENOMEM, "seccomp: cannot start a filter");
	/* Any architecture but the native one: kill (see the top). x32
	 * numbers on x86_64 are caught by libseccomp as a bad arch too. */
	r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH,
			     SCMP_ACT_KILL_PROCESS);
	if (r < 0)
		goto fail_attr;
	/* We set NO_NEW_PRIVS ourselves, before Landlock, and load the BPF
	 * ourselves: libseccomp must not do either. */
	r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0);
	if (r < 0)
		goto fail_attr;

	for (size_t i = 0; i < ARRAY_SIZE(refused); i++) {
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(refused[i].errnum),
				     refused[i].nr, 0);
		if (r < 0) {
			rule_err(err, r, refused[i].name);
			goto fail;
		}
	}
	for (size_t i = 0; i < ARRAY_SIZE(clone_new_flags); i++) {
		uint64_t f = clone_new_flags[i];
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
				     SCMP_SYS(clone), 1,
				     SCMP_A0(SCMP_CMP_MASKED_EQ, f, f));
		if (r < 0) {
			rule_err(err, r, "clone");
			goto fail;
		}
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
				     SCMP_SYS(unshare), 1,
				     SCMP_A0(SCMP_CMP_MASKED_EQ, f, f));
		if (r < 0) {
			rule_err(err, r, "unshare");
			goto fail;
		}
	}
	r = seccomp_rule_add(
	    ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 1,
	    SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWTIME, CLONE_NEWTIME));
	if (r < 0) {
		rule_err(err, r, "unshare");
		goto fail;
	}
	for (size_t i = 0; i < ARRAY_SIZE(refused_ioctls); i++) {
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
				     SCMP_SYS(ioctl), 1,
				     SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu,
					     refused_ioctls[i]));
		if (r < 0) {
			rule_err(err, r, "ioctl");
			goto fail;
		}
	}

	if ((r = add_setid_rules(ctx, err)) < 0)
		goto fail;
	for (size_t i = 0; notify != SN_NONE && i < seccomp_notified_count;
	     i++) {
		const struct seccomp_notified *n = &seccomp_notified[i];
		if (notify == SN_CONNECT && n->nr != SCMP_SYS(connect))
			continue;
		r = add_notify_rule(ctx, n);
		if (r < 0) {
			rule_err(err, r, n->name);
			goto fail;
		}
	}
	*out = ctx;
	return 0;

fail_attr:
	err_set(err, r, "seccomp: cannot set a filter attribute: %s",
		strerror(-r));
fail:
	seccomp_release(ctx);
	return r;
}

int seccomp_policy_export(enum seccomp_notify notify, struct sock_filter **prog,
			  size_t *len, struct lnk_err *err)
{
	scmp_filter_ctx ctx = NULL;
	_cleanup_close_ int mfd = -1;
	char *data = NULL;
	size_t n = 0;
	int r;

	*prog = NULL;
	*len = 0;
	if ((r = build(notify, &ctx, err)) < 0)
		return r;
	/* libseccomp 2.5 has no attribute for WAIT_KILLABLE_RECV, so it
	 * cannot load the filter the way the guard needs: export the BPF and
	 * load it ourselves. */
	mfd = memfd_create("lnk-seccomp", MFD_CLOEXEC);
	if (mfd < 0) {
		r = -errno;
		seccomp_release(ctx);
		return err_set(err, r, "seccomp: cannot create a memfd: %s",
			       strerror(-r));
	}
	r = seccomp_export_bpf(ctx, mfd);
	seccomp_release(ctx);
	if (r < 0)
		return err_set(err, r, "seccomp: cannot compile the filter: %s",
			       strerror(-r));
	if (lseek(mfd, 0, SEEK_SET) < 0)
		return err_set(err, -errno,
			       "seccomp: cannot rewind the filter");
	r = read_fd_all(mfd, BPF_MAXINSNS * sizeof(struct sock_filter), &data,
			&n);
	if (r < 0)
		return err_set(err, r, "seccomp: cannot read the filter: %s",
			       strerror(-r));
	if (n == 0 || n % sizeof(struct sock_filter)) {
		free(data);
		return err_set(err, -EINVAL,
			       "seccomp: the compiled filter has a bad size "
			       "(%zu bytes)",
			       n);
	}
	*prog = (struct sock_filter *)data;
	*len = n / sizeof(struct sock_filter);
	return 0;
}
