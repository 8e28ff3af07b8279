/* Loading the sandbox's seccomp filters, without libseccomp: lnk-init links
 * this file and not libseccomp, so it stays small and static (its start is
 * part of every sandbox's start).
 *
 * The main filter is the one seccomp_policy.c describes, compiled by
 * libseccomp at BUILD time (seccomp_gen.c writes seccomp_prebuilt.c) rather
 * than in every sandbox: the same bytes, without a libseccomp to load and a
 * compile to run on each start (about 0.5 ms together, measured).
 * tests/unit/test_seccomp_prebuilt.c proves the built-in filters identical
 * to what libseccomp exports at test time, for both dot_guard values.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/util.h"
#include "init/seccomp_policy.h"

#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif

/* ---- 3. personality, and calls newer than the policy ------------------- */

#if defined(__x86_64__)
#define NATIVE_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_AUDIT_ARCH AUDIT_ARCH_AARCH64
#else
#error "lnk: add this architecture's AUDIT_ARCH"
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ARG0_LO offsetof(struct seccomp_data, args[0])
#else
#define ARG0_LO (offsetof(struct seccomp_data, args[0]) + 4)
#endif

/* personality() takes an unsigned int: the kernel ignores the high half of
 * the register, so only the low 32 bits are compared. Allowed: 0 (PER_LINUX,
 * the default) and 0xffffffff (a query that changes nothing). Refused: every
 * other persona, such as READ_IMPLIES_EXEC (every readable mapping becomes
 * executable), ADDR_NO_RANDOMIZE and the foreign-OS personas. Other
 * architectures are left to the main filter, which kills them.
 *
 * And a system call newer than the main filter's review (numbers from
 * SYSCALL_FIRST_UNREVIEWED; new calls share one numbering on every
 * architecture since Linux 5.1) answers ENOSYS, as on an older kernel:
 * the main filter refuses by a list, and a new call can act where no rule
 * looks (file_setattr, Linux 6.17, sets a file's flags by a path, opening
 * nothing). Numbers from 1024 up are not native calls (x32's carry a high
 * bit) and stay the main filter's, which kills them. */
static const struct sock_filter personality_prog[] = {
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_AUDIT_ARCH, 0, 9),
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
    BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, SYSCALL_FIRST_UNREVIEWED, 0, 2),
    BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 1024, 6, 0),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_personality, 0, 4),
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG0_LO),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 2, 0),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xffffffffu, 1, 0),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
};

void seccomp_policy_personality(const struct sock_filter **prog, size_t *len)
{
	*prog = personality_prog;
	*len = ARRAY_SIZE(personality_prog);
}

/* ---- loading ------------------------------------------------------------ */

static int load(const struct sock_filter *insns, size_t n, unsigned flags)
{
	struct sock_fprog fprog = {.len = (unsigned short)n,
				   .filter = (struct sock_filter *)insns};
	long r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &fprog);

	return r < 0 ? -errno : (int)r;
}

void seccomp_policy_prebuilt(enum seccomp_notify notify,
			     const struct sock_filter **prog, size_t *len)
{
	unsigned m = (unsigned)notify & (SN_MODES - 1);

	*prog = seccomp_prebuilt[m].prog;
	*len = seccomp_prebuilt[m].len;
}

int seccomp_policy_install(enum seccomp_notify notify, int *listener,
			   struct lnk_err *err)
{
	bool dot_guard = notify != SN_NONE; /* a listener */
	const struct sock_filter *prog, *pers;
	size_t n, npers;
	unsigned flags = 0;
	int r;

	*listener = -1;
	seccomp_policy_prebuilt(notify, &prog, &n);
	if (n == 0 || n > BPF_MAXINSNS)
		return err_set(err, -E2BIG,
			       "seccomp: the built-in filter has %zu "
			       "instructions; the kernel takes 1 to %d",
			       n, BPF_MAXINSNS);

	seccomp_policy_personality(&pers, &npers);
	if ((r = load(pers, npers, 0)) < 0)
		return err_set(err, r, "seccomp: cannot load a filter: %s",
			       strerror(-r));

	/* WAIT_KILLABLE_RECV (Linux 5.19): without it a signal restarts a
	 * notified call after the supervisor already made the file, and the
	 * program sees a spurious EEXIST (measured: 14,913 in 20,000). */
	if (dot_guard)
		flags = SECCOMP_FILTER_FLAG_NEW_LISTENER |
			SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV;
	r = load(prog, n, flags);
	if (r < 0)
		return err_set(err, r, "seccomp: cannot load the filter%s: %s",
			       dot_guard ? " with a notify listener (needs "
					   "Linux 5.19 or newer)"
					 : "",
			       strerror(-r));
	if (dot_guard)
		*listener = r;
	return 0;
}
