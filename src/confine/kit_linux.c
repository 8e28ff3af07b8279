/* The confinement kit (kit.h): no_new_privs, Landlock, capabilities and a
 * seccomp allow-list, in that order, from a process's plan.
 *
 * Run-time libseccomp, not lnk-init's filter compiled at build time: the
 * processes confined here are ordinary dynamic processes outside the
 * sandbox, already linked with libseccomp, and each list stays in one
 * readable place beside the code that needs it. */
#include "confine/kit.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/landlock_defs.h"
#include "common/util.h"
#include "confine/layers.h"

_Static_assert(KIT_READ == LANDLOCK_ACCESS_FS_READ_FILE, "KIT_READ");
_Static_assert(KIT_RW == (LANDLOCK_ACCESS_FS_READ_FILE |
			  LANDLOCK_ACCESS_FS_WRITE_FILE |
			  LANDLOCK_ACCESS_FS_TRUNCATE),
	       "KIT_RW");

/* ---- Landlock and capabilities (layers.h) ---- */

/* One rule for path; a missing optional file is no error. */
static int ll_allow(int ruleset, const struct kit_path *p, const char *who,
		    struct lnk_err *err)
{
	int fd = open(p->path, O_PATH | O_CLOEXEC);
	if (fd < 0) {
		if (p->optional && errno == ENOENT)
			return 0;
		return err_set(err, -errno, "%s cannot open '%s': %s", who,
			       p->path, strerror(errno));
	}
	int r = confine_landlock_rule(ruleset, fd, p->rights);
	close(fd);
	if (r < 0)
		return err_set(err, r, "%s: landlock rule for '%s': %s", who,
			       p->path, strerror(-r));
	return 0;
}

static int kit_landlock(const struct kit_plan *kp, struct lnk_err *err)
{
	int abi = confine_landlock_abi();
	if (abi < 1)
		return err_set(err, -ENOSYS,
			       "landlock is not available (%s): %s cannot "
			       "confine itself; it needs Linux 5.13 or newer "
			       "with landlock in lsm=",
			       strerror(-abi), kp->who);
	/* Every right the ABI knows handled: nothing is left open by
	 * omission; each path then gets only its own rights. */
	int rs = confine_landlock_ruleset(abi, landlock_fs_rights(abi), true);
	if (rs < 0)
		return err_set(err, rs, "%s: landlock: %s", kp->who,
			       strerror(-rs));
	int r = 0;
	for (size_t i = 0; r == 0 && i < kp->npaths; i++) {
		struct kit_path p = kp->paths[i];
		p.rights &= landlock_fs_rights(abi);
		r = ll_allow(rs, &p, kp->who, err);
	}
	if (r == 0 && (r = confine_landlock_enter(rs)) < 0)
		err_set(err, r, "%s: landlock: %s", kp->who, strerror(-r));
	close(rs);
	return r;
}

static int kit_caps(const char *who, struct lnk_err *err)
{
	int r = confine_drop_caps(true);
	if (r < 0)
		return err_set(err, r, "%s cannot drop its capabilities: %s",
			       who, strerror(-r));
	return 0;
}

/* ---- seccomp ---- */

/* What every confined process needs whatever it does: memory (never
 * executable: below), its descriptors' end, signal returns, the clock,
 * and its own end. */
static const int kit_base[] = {
    SCMP_SYS(brk),
    SCMP_SYS(munmap),
    SCMP_SYS(mremap),
    SCMP_SYS(madvise),
    SCMP_SYS(close),
    SCMP_SYS(rt_sigreturn),
    SCMP_SYS(rt_sigprocmask),
    SCMP_SYS(restart_syscall),
    SCMP_SYS(clock_gettime),
    SCMP_SYS(getpid),
    SCMP_SYS(gettid),
    SCMP_SYS(getrandom),
    SCMP_SYS(exit),
    SCMP_SYS(exit_group),
};

static bool in(const int *v, size_t n, int nr)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == nr)
			return true;
	return false;
}

static int kit_seccomp(const struct kit_plan *kp, struct lnk_err *err)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_KILL_PROCESS);
	if (!ctx)
		return err_set(err, -ENOMEM, "%s: seccomp: out of memory",
			       kp->who);
	/* Only the native architecture: seccomp_init adds nothing else, so
	 * the i386 entry and x32 calls are a bad architecture, which kills. */
	int r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH,
				 SCMP_ACT_KILL_PROCESS);
	/* A binary tree of syscall numbers rather than a list: cheaper to
	 * load, and to run on each call. */
	if (r == 0)
		r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	for (size_t i = 0; r == 0 && i < ARRAY_SIZE(kit_base); i++)
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, kit_base[i], 0);
	for (size_t i = 0; r == 0 && i < kp->nallow; i++)
		if (!in(kit_base, ARRAY_SIZE(kit_base), kp->allow[i]) &&
		    !in(kp->allow, i, kp->allow[i]))
			r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, kp->allow[i],
					     0);
	/* Memory is never mapped or made executable: no code that was not
	 * loaded during setup. */
	if (r == 0)
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 1,
				     SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
	if (r == 0)
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mprotect), 1,
				     SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
	/* Threads, never processes. */
	if (r == 0 && kp->threads)
		r = seccomp_rule_add(
		    ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
		    SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD));
	if (r == 0 && kp->threads)
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS),
				     SCMP_SYS(clone3), 0);
	if (r == 0 && kp->rules)
		r = kp->rules(ctx, kp->arg);
	if (r == 0)
		r = seccomp_load(ctx);
	if (r == 0 && kp->notify_fd) {
		*kp->notify_fd = seccomp_notify_fd(ctx);
		if (*kp->notify_fd < 0)
			r = *kp->notify_fd;
	}
	seccomp_release(ctx);
	if (r < 0)
		return err_set(err, r, "%s cannot load its seccomp filter: %s",
			       kp->who, strerror(-r));
	return 0;
}

int kit_confine(const struct kit_plan *kp, struct lnk_err *err)
{
	int r;

	if (kp->notify_fd)
		*kp->notify_fd = -1;
	if ((r = confine_no_new_privs()) < 0)
		return err_set(err, r, "%s: no_new_privs: %s", kp->who,
			       strerror(-r));
	if ((r = kit_landlock(kp, err)) < 0 || (r = kit_caps(kp->who, err)) < 0)
		return r;
	return kit_seccomp(kp, err);
}

/* One "Name:\tvalue" line of /proc/self/status, as a number in base. */
static bool status_field(const char *text, const char *name, int base,
			 unsigned long long *out)
{
	size_t n = strlen(name);
	for (const char *l = text; l && *l;
	     l = strchr(l, '\n'), l = l ? l + 1 : l)
		if (strncmp(l, name, n) == 0 && l[n] == ':') {
			*out = strtoull(l + n + 1, NULL, base);
			return true;
		}
	return false;
}

bool kit_is_confined(void)
{
	char buf[8192];
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	unsigned long long nnp = 0, sec = 0, eff = 1, prm = 1, amb = 1;
	return status_field(buf, "NoNewPrivs", 10, &nnp) && nnp == 1 &&
	       status_field(buf, "Seccomp", 10, &sec) && sec == 2 &&
	       status_field(buf, "CapEff", 16, &eff) && eff == 0 &&
	       status_field(buf, "CapPrm", 16, &prm) && prm == 0 &&
	       status_field(buf, "CapAmb", 16, &amb) && amb == 0;
}
