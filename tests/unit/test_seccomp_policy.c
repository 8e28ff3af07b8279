/* The seccomp policy (init/seccomp_policy.h): built and exported without
 * error, then RUN on a small classic-BPF interpreter with hand-made
 * seccomp_data, so every rule is proved without depending on what the
 * kernel would answer natively: each refused syscall, the masked ioctl
 * compare with high bits set, CLONE_NEW* bits, foreign architectures, the
 * notify rules (and only with dot_guard), and the personality filter. The
 * e2e test (tests/e2e/test_init.py) proves the same inside a real sandbox. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <cmocka.h>

#include "common/util.h"
#include "init/seccomp_policy.h"

#define X32_BIT 0x40000000u

/* Classic BPF as the kernel runs a seccomp filter. Unknown opcodes fail
 * the test rather than guess. */
static uint32_t run_bpf(const struct sock_filter *f, size_t n,
			const struct seccomp_data *d)
{
	uint32_t A = 0, X = 0, M[BPF_MEMWORDS] = {0};
	const unsigned char *data = (const unsigned char *)d;

	for (size_t pc = 0; pc < n; pc++) {
		const struct sock_filter *i = &f[pc];
		uint32_t src = BPF_SRC(i->code) == BPF_X ? X : i->k;
		switch (BPF_CLASS(i->code)) {
		case BPF_LD:
			if (i->code == (BPF_LD | BPF_W | BPF_ABS)) {
				assert_true(i->k + 4 <= sizeof(*d));
				memcpy(&A, data + i->k, 4);
			} else if (i->code == (BPF_LD | BPF_IMM)) {
				A = i->k;
			} else if (i->code == (BPF_LD | BPF_MEM)) {
				A = M[i->k];
			} else {
				fail_msg("unknown ld 0x%x", i->code);
			}
			break;
		case BPF_LDX:
			if (i->code == (BPF_LDX | BPF_IMM))
				X = i->k;
			else if (i->code == (BPF_LDX | BPF_MEM))
				X = M[i->k];
			else
				fail_msg("unknown ldx 0x%x", i->code);
			break;
		case BPF_ST:
			M[i->k] = A;
			break;
		case BPF_STX:
			M[i->k] = X;
			break;
		case BPF_ALU:
			switch (BPF_OP(i->code)) {
			case BPF_ADD:
				A += src;
				break;
			case BPF_SUB:
				A -= src;
				break;
			case BPF_AND:
				A &= src;
				break;
			case BPF_OR:
				A |= src;
				break;
			case BPF_XOR:
				A ^= src;
				break;
			case BPF_LSH:
				A <<= src;
				break;
			case BPF_RSH:
				A >>= src;
				break;
			case BPF_NEG:
				A = -A;
				break;
			default:
				fail_msg("unknown alu 0x%x", i->code);
			}
			break;
		case BPF_JMP: {
			bool t;
			switch (BPF_OP(i->code)) {
			case BPF_JA:
				pc += i->k;
				continue;
			case BPF_JEQ:
				t = A == src;
				break;
			case BPF_JGT:
				t = A > src;
				break;
			case BPF_JGE:
				t = A >= src;
				break;
			case BPF_JSET:
				t = (A & src) != 0;
				break;
			default:
				fail_msg("unknown jmp 0x%x", i->code);
				t = false;
			}
			pc += t ? i->jt : i->jf;
			break;
		}
		case BPF_RET:
			return BPF_RVAL(i->code) == BPF_A ? A : i->k;
		case BPF_MISC:
			if (BPF_MISCOP(i->code) == BPF_TAX)
				X = A;
			else
				A = X;
			break;
		default:
			fail_msg("unknown class 0x%x", i->code);
		}
	}
	fail_msg("filter fell off its end");
	return 0;
}

struct filters {
	struct sock_filter *main;
	size_t n;
};

static uint32_t eval6(const struct filters *f, uint32_t arch, uint32_t nr,
		      const long a[6])
{
	struct seccomp_data d = {.nr = (int)nr, .arch = arch};
	const struct sock_filter *pers;
	size_t npers;
	uint32_t r1, r2;

	for (int i = 0; i < 6; i++)
		d.args[i] = (uint64_t)a[i];
	r1 = run_bpf(f->main, f->n, &d);
	seccomp_policy_personality(&pers, &npers);
	r2 = run_bpf(pers, npers, &d);
	/* The kernel takes the most restrictive answer of stacked filters;
	 * lower action values win (KILL_PROCESS < ... < ERRNO < ALLOW). */
	return (int32_t)(r1 & SECCOMP_RET_ACTION_FULL) <
		       (int32_t)(r2 & SECCOMP_RET_ACTION_FULL)
		   ? r1
		   : r2;
}

static uint32_t eval4(const struct filters *f, uint32_t arch, uint32_t nr,
		      uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3)
{
	const long a[6] = {(long)a0, (long)a1, (long)a2, (long)a3};

	return eval6(f, arch, nr, a);
}

static uint32_t eval(const struct filters *f, uint32_t arch, uint32_t nr,
		     uint64_t a0, uint64_t a1, uint64_t a2)
{
	return eval4(f, arch, nr, a0, a1, a2, 0);
}

#define NATIVE AUDIT_ARCH_X86_64
#define ERRNO(e) (SECCOMP_RET_ERRNO | (e))

static struct filters build(enum seccomp_notify dot_guard)
{
	struct filters f;
	struct lnk_err err = {0};
	int r = seccomp_policy_export(dot_guard, &f.main, &f.n, &err);
	if (r < 0)
		fail_msg("export: %s", err.msg);
	assert_true(f.n > 10 && f.n <= BPF_MAXINSNS);
	return f;
}

/* Every try of every refusal the policy lists (seccomp_try_get: what
 * check runs in a sandbox) is refused by the compiled filters, with its
 * errno, with and without the guard. */
static void refused_syscalls(void **state)
{
	struct seccomp_try t;
	size_t n = 0;

	(void)state;
	for (int g = 0; g < 2; g++) {
		struct filters f = build(g);
		for (size_t i = 0; seccomp_try_get(i, &t) == 0; i++, n++) {
			uint32_t r = eval6(&f, NATIVE, (uint32_t)t.nr, t.args);
			if (r != ERRNO(t.errnum))
				fail_msg("%s: 0x%x, want errno %d", t.name, r,
					 t.errnum);
		}
		/* ordinary calls run */
		assert_int_equal(eval(&f, NATIVE, SYS_getpid, 0, 0, 0),
				 SECCOMP_RET_ALLOW);
		assert_int_equal(eval(&f, NATIVE, SYS_read, 0, 0, 0),
				 SECCOMP_RET_ALLOW);
		assert_int_equal(eval(&f, NATIVE, SYS_ptrace, 0, 0, 0),
				 SECCOMP_RET_ALLOW);
		free(f.main);
	}
	/* every table has its tries: each refused call, both bits of each
	 * set-id rule, ... (a try generator that stopped early would pass
	 * the loop above) */
	size_t want = seccomp_refused_count + seccomp_refused_ioctls_count + 1;
	for (size_t i = 0; i < seccomp_clone_flags_count; i++)
		want += seccomp_clone_flags[i].unshare_only ? 1 : 2;
	for (size_t i = 0; i < seccomp_setid_rules_count; i++)
		want += seccomp_setid_rules[i].flags_arg < 0 ? 2 : 4;
	assert_int_equal(n, 2 * want);
	assert_int_equal(seccomp_try_find("io_uring_setup", &t), 0);
	assert_int_equal(t.nr, SYS_io_uring_setup);
	assert_int_equal(t.errnum, ENOSYS);
	assert_int_equal(seccomp_try_find("unshare CLONE_NEWUSER", &t), 0);
	assert_int_equal(t.nr, SYS_unshare);
	assert_int_equal(seccomp_try_find("no such call", &t), -ENOENT);
}

static void terminal_injection(void **state)
{
	struct filters f = build(false);
	const uint64_t high[] = {0, 0x100000000ull, 0xdeadbeef00000000ull,
				 0xffffffff00000000ull};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(high); i++) {
		assert_int_equal(
		    eval(&f, NATIVE, SYS_ioctl, 0, high[i] | TIOCSTI, 0),
		    ERRNO(EPERM));
		assert_int_equal(
		    eval(&f, NATIVE, SYS_ioctl, 0, high[i] | TIOCLINUX, 0),
		    ERRNO(EPERM));
		assert_int_equal(
		    eval(&f, NATIVE, SYS_ioctl, 0, high[i] | TIOCGWINSZ, 0),
		    SECCOMP_RET_ALLOW);
	}
	free(f.main);
}

static void namespaces(void **state)
{
	struct filters f = build(false);
	const uint64_t news[] = {CLONE_NEWNS,  CLONE_NEWCGROUP, CLONE_NEWUTS,
				 CLONE_NEWIPC, CLONE_NEWUSER,	CLONE_NEWPID,
				 CLONE_NEWNET};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(news); i++) {
		uint64_t fl = news[i] | CLONE_FS | SIGCHLD;
		assert_int_equal(eval(&f, NATIVE, SYS_clone, fl, 0, 0),
				 ERRNO(EPERM));
		assert_int_equal(eval(&f, NATIVE, SYS_unshare, news[i], 0, 0),
				 ERRNO(EPERM));
		assert_int_equal(eval(&f, NATIVE, SYS_unshare,
				      news[i] | 0xff00000000ull, 0, 0),
				 ERRNO(EPERM));
	}
	assert_int_equal(
	    eval(&f, NATIVE, SYS_unshare, 0x80 /* NEWTIME */, 0, 0),
	    ERRNO(EPERM));
	/* threads and plain forks, unshare of the fs context: allowed */
	assert_int_equal(eval(&f, NATIVE, SYS_clone, SIGCHLD, 0, 0),
			 SECCOMP_RET_ALLOW);
	assert_int_equal(eval(&f, NATIVE, SYS_clone,
			      CLONE_VM | CLONE_FS | CLONE_FILES |
				  CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM,
			      0, 0),
			 SECCOMP_RET_ALLOW);
	assert_int_equal(eval(&f, NATIVE, SYS_unshare, CLONE_FS, 0, 0),
			 SECCOMP_RET_ALLOW);
	free(f.main);
}

static void foreign_arch_killed(void **state)
{
	struct filters f = build(true);

	(void)state;
	assert_int_equal(eval(&f, AUDIT_ARCH_I386, 20, 0, 0, 0),
			 SECCOMP_RET_KILL_PROCESS);
	assert_int_equal(eval(&f, AUDIT_ARCH_I386, 5 /* open */, 0, 0, 0),
			 SECCOMP_RET_KILL_PROCESS);
	assert_int_equal(eval(&f, AUDIT_ARCH_AARCH64, SYS_getpid, 0, 0, 0),
			 SECCOMP_RET_KILL_PROCESS);
	/* x32 shares x86_64's audit arch: told apart by the number */
	assert_int_equal(eval(&f, NATIVE, X32_BIT | SYS_getpid, 0, 0, 0),
			 SECCOMP_RET_KILL_PROCESS);
	assert_int_equal(
	    eval(&f, NATIVE, X32_BIT | 257 /* openat */, 0, 0, O_CREAT),
	    SECCOMP_RET_KILL_PROCESS);
	free(f.main);
}

static void notify_rules(void **state)
{
	struct filters g = build(true), ng = build(false);

	(void)state;
	assert_true(seccomp_notified_count >= 15);
	for (size_t i = 0; i < seccomp_notified_count; i++) {
		const struct seccomp_notified *n = &seccomp_notified[i];
		/* the table's numbers are the native ones */
		assert_int_equal(seccomp_syscall_resolve_name(n->name), n->nr);
		assert_ptr_equal(seccomp_notified_lookup(n->nr), n);
		uint64_t a[3] = {0, 0, 0};
		if (n->creat_flag_arg >= 0) {
			/* reading: native, never the supervisor */
			a[n->creat_flag_arg] = O_RDONLY | O_CLOEXEC;
			assert_int_equal(
			    eval(&g, NATIVE, (uint32_t)n->nr, a[0], a[1], a[2]),
			    SECCOMP_RET_ALLOW);
			a[n->creat_flag_arg] = O_PATH | O_NOFOLLOW;
			assert_int_equal(
			    eval(&g, NATIVE, (uint32_t)n->nr, a[0], a[1], a[2]),
			    SECCOMP_RET_ALLOW);
			/* writing without creating: the supervisor, which
			 * gives a file with other names one of its own */
			const uint64_t writes[] = {
			    O_WRONLY, O_RDWR, O_RDONLY | O_TRUNC,
			    O_WRONLY | O_APPEND | 0xffffffff00000000ull,
			    O_ACCMODE};
			for (size_t w = 0; w < ARRAY_SIZE(writes); w++) {
				a[n->creat_flag_arg] = writes[w];
				assert_int_equal(eval(&g, NATIVE,
						      (uint32_t)n->nr, a[0],
						      a[1], a[2]),
						 SECCOMP_RET_USER_NOTIF);
				assert_int_equal(eval(&ng, NATIVE,
						      (uint32_t)n->nr, a[0],
						      a[1], a[2]),
						 SECCOMP_RET_ALLOW);
			}
			a[n->creat_flag_arg] =
			    O_CREAT | O_WRONLY | 0xffffffff00000000ull;
		}
		assert_int_equal(
		    eval(&g, NATIVE, (uint32_t)n->nr, a[0], a[1], a[2]),
		    SECCOMP_RET_USER_NOTIF);
		/* without the guard nothing is notified */
		assert_int_equal(
		    eval(&ng, NATIVE, (uint32_t)n->nr, a[0], a[1], a[2]),
		    SECCOMP_RET_ALLOW);
	}
	assert_null(seccomp_notified_lookup(SYS_getpid));
	assert_null(seccomp_notified_lookup(SYS_utimensat));
	free(g.main);
	free(ng.main);
}

/* A folder granted, no dot file kept: connect() goes to the supervisor
 * (a host daemon's unix socket in the folder), and so do the attribute
 * calls, as with every listener; every creation runs natively. With
 * SN_EXEC or SN_ATTR alone, only the attribute calls of the table. */
static void notify_connect_only(void **state)
{
	const enum seccomp_notify modes[] = {SN_CONNECT, SN_EXEC, SN_ATTR,
					     SN_CONNECT | SN_ATTR};

	(void)state;
	for (size_t m = 0; m < ARRAY_SIZE(modes); m++) {
		struct filters c = build(modes[m]);
		size_t attrs = 0;
		for (size_t i = 0; i < seccomp_notified_count; i++) {
			const struct seccomp_notified *n = &seccomp_notified[i];
			uint64_t a[3] = {0, 0, 0};
			if (n->creat_flag_arg >= 0)
				a[n->creat_flag_arg] = O_CREAT | O_WRONLY;
			bool notified = n->attr || (n->nr == SYS_connect &&
						    (modes[m] & SN_CONNECT));
			attrs += n->attr;
			assert_int_equal(
			    eval(&c, NATIVE, (uint32_t)n->nr, a[0], a[1], a[2]),
			    notified ? SECCOMP_RET_USER_NOTIF
				     : SECCOMP_RET_ALLOW);
		}
		/* mode, owner, extended attributes: 14 calls */
		assert_int_equal(attrs, 14);
		/* the refusals stay */
		assert_int_equal(eval(&c, NATIVE, SYS_io_uring_setup, 0, 0, 0),
				 ERRNO(ENOSYS));
		free(c.main);
	}
}

/* No setuid or setgid file can be made (a --write folder is on the host):
 * chmod in all its forms, and the mode of a creating open, creat, mkdir and
 * mknod. With the dot-file guard the creating calls are also notified: the
 * refusal must win over the notify rule. */
static void setid_bits(void **state)
{
	const uint64_t hi = 0xffffffff00000000ull;

	(void)state;
	for (int guard = 0; guard < 2; guard++) {
		struct filters f = build(guard);
		const uint32_t create =
		    guard ? SECCOMP_RET_USER_NOTIF : SECCOMP_RET_ALLOW;
		const uint64_t modes[] = {04755, 02755, 06755, 04000 | hi,
					  02000};
		for (size_t i = 0; i < ARRAY_SIZE(modes); i++) {
			uint64_t m = modes[i];
			assert_int_equal(eval(&f, NATIVE, SYS_chmod, 1, m, 0),
					 ERRNO(EPERM));
			assert_int_equal(eval(&f, NATIVE, SYS_fchmod, 3, m, 0),
					 ERRNO(EPERM));
			assert_int_equal(
			    eval(&f, NATIVE, SYS_fchmodat, 3, 1, m),
			    ERRNO(EPERM));
			assert_int_equal(eval4(&f, NATIVE, 452, 3, 1, m, 0),
					 ERRNO(EPERM)); /* fchmodat2 */
			assert_int_equal(eval(&f, NATIVE, SYS_creat, 1, m, 0),
					 ERRNO(EPERM));
			assert_int_equal(eval(&f, NATIVE, SYS_mkdir, 1, m, 0),
					 ERRNO(EPERM));
			assert_int_equal(eval(&f, NATIVE, SYS_mkdirat, 3, 1, m),
					 ERRNO(EPERM));
			assert_int_equal(
			    eval(&f, NATIVE, SYS_mknod, 1, 0100000 | m, 0),
			    ERRNO(EPERM));
			assert_int_equal(eval4(&f, NATIVE, SYS_mknodat, 3, 1,
					       0100000 | m, 0),
					 ERRNO(EPERM));
			assert_int_equal(eval(&f, NATIVE, SYS_open, 1,
					      O_CREAT | O_WRONLY, m),
					 ERRNO(EPERM));
			assert_int_equal(eval4(&f, NATIVE, SYS_openat, 3, 1,
					       O_CREAT | O_EXCL | O_RDWR, m),
					 ERRNO(EPERM));
			assert_int_equal(eval4(&f, NATIVE, SYS_openat, 3, 1,
					       O_TMPFILE | O_WRONLY, m),
					 ERRNO(EPERM));
			assert_int_equal(eval(&f, NATIVE, SYS_open, 1,
					      O_TMPFILE | O_RDWR, m),
					 ERRNO(EPERM));
			/* the mode means nothing without a creation (a write
			 * goes to the guard: shared.c) */
			assert_int_equal(
			    eval(&f, NATIVE, SYS_open, 1, O_WRONLY, m), create);
			assert_int_equal(
			    eval4(&f, NATIVE, SYS_openat, 3, 1, O_RDONLY, m),
			    SECCOMP_RET_ALLOW);
		}
		/* ordinary modes are not refused; with the guard, which
		 * refuses loosening the top of a write folder, notified */
		const uint64_t ok[] = {0755, 0644, 01777, 0777 | hi};
		for (size_t i = 0; i < ARRAY_SIZE(ok); i++) {
			uint64_t m = ok[i];
			assert_int_equal(eval(&f, NATIVE, SYS_chmod, 1, m, 0),
					 create);
			assert_int_equal(eval(&f, NATIVE, SYS_fchmod, 3, m, 0),
					 create);
			assert_int_equal(eval4(&f, NATIVE, 452, 3, 1, m, 0),
					 create);
			assert_int_equal(eval(&f, NATIVE, SYS_open, 1,
					      O_CREAT | O_WRONLY, m),
					 create);
			assert_int_equal(eval4(&f, NATIVE, SYS_openat, 3, 1,
					       O_CREAT | O_WRONLY, m),
					 create);
			assert_int_equal(eval(&f, NATIVE, SYS_mkdir, 1, m, 0),
					 create);
			assert_int_equal(eval(&f, NATIVE, SYS_creat, 1, m, 0),
					 create);
			assert_int_equal(eval4(&f, NATIVE, SYS_openat, 3, 1,
					       O_TMPFILE | O_WRONLY, m),
					 SECCOMP_RET_ALLOW);
		}
		free(f.main);
	}
}

static void personality(void **state)
{
	struct filters f = build(false);

	(void)state;
	assert_int_equal(eval(&f, NATIVE, SYS_personality, 0, 0, 0),
			 SECCOMP_RET_ALLOW);
	assert_int_equal(eval(&f, NATIVE, SYS_personality, 0xffffffff, 0, 0),
			 SECCOMP_RET_ALLOW);
	/* the kernel reads 32 bits: these are 0 and a query to it */
	assert_int_equal(
	    eval(&f, NATIVE, SYS_personality, 0xffffffff00000000ull, 0, 0),
	    SECCOMP_RET_ALLOW);
	assert_int_equal(
	    eval(&f, NATIVE, SYS_personality, 0xffffffffffffffffull, 0, 0),
	    SECCOMP_RET_ALLOW);
	assert_int_equal(eval(&f, NATIVE, SYS_personality, 0x0400000, 0, 0),
			 ERRNO(EPERM)); /* READ_IMPLIES_EXEC */
	assert_int_equal(
	    eval(&f, NATIVE, SYS_personality, 0x1000400000ull, 0, 0),
	    ERRNO(EPERM));
	assert_int_equal(eval(&f, NATIVE, SYS_personality, 0x0040000, 0, 0),
			 ERRNO(EPERM)); /* ADDR_NO_RANDOMIZE */
	assert_int_equal(eval(&f, NATIVE, SYS_personality, 8, 0, 0),
			 ERRNO(EPERM)); /* PER_LINUX32 */
	free(f.main);
}

/* A call newer than the policy's review answers ENOSYS, with and without
 * the guard; the last reviewed one is the main filter's to decide
 * (removexattrat: refused there), a plain old one is allowed. */
static void unreviewed_calls(void **state)
{
	const enum seccomp_notify modes[] = {SN_NONE, SN_ALL | SN_EXEC,
					     SN_ATTR};

	(void)state;
	for (size_t m = 0; m < ARRAY_SIZE(modes); m++) {
		struct filters f = build(modes[m]);
		const uint32_t newer[] = {SYSCALL_FIRST_UNREVIEWED,
					  468 /* file_getattr */,
					  469 /* file_setattr */, 600, 1023};
		for (size_t i = 0; i < ARRAY_SIZE(newer); i++)
			assert_int_equal(
			    eval(&f, NATIVE, newer[i], AT_FDCWD, 0, 0),
			    ERRNO(ENOSYS));
		assert_int_equal(eval(&f, NATIVE, 466 /* removexattrat */, -1,
				      0, 0xffffffff),
				 ERRNO(ENOSYS));
		assert_int_equal(eval(&f, NATIVE, SYS_getpid, 0, 0, 0),
				 SECCOMP_RET_ALLOW);
		/* an x32 number stays the main filter's: killed */
		assert_int_equal(eval(&f, NATIVE, X32_BIT | 469, 0, 0, 0),
				 SECCOMP_RET_KILL_PROCESS);
		free(f.main);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(refused_syscalls),
	    cmocka_unit_test(terminal_injection),
	    cmocka_unit_test(namespaces),
	    cmocka_unit_test(foreign_arch_killed),
	    cmocka_unit_test(notify_rules),
	    cmocka_unit_test(setid_bits),
	    cmocka_unit_test(personality),
	    cmocka_unit_test(unreviewed_calls),
	    cmocka_unit_test(notify_connect_only),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
