/* Builds the filter of seccomp_policy.c's tables with libseccomp, and
 * exports it as BPF: for lnk and the build's generator (seccomp_gen.c)
 * only; lnk-init loads the prebuilt result and links no libseccomp. */
#include "init/seccomp_policy.h"

#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/util.h"

#ifndef __O_TMPFILE
#define __O_TMPFILE 020000000
#endif

/* ---- building ----------------------------------------------------------- */

static int rule_err(struct lnk_err *err, int r, const char *name)
{
	return err_set(err, r < 0 ? r : -EINVAL,
		       "seccomp: cannot add the rule for %s: %s", name,
		       strerror(r < 0 ? -r : EINVAL));
}

/* The mode argument of a syscall that takes one, or -1. */
static int setid_mode_arg(int nr)
{
	for (size_t i = 0; i < seccomp_setid_rules_count; i++)
		if (seccomp_setid_rules[i].nr == nr)
			return seccomp_setid_rules[i].mode_arg;
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
	int r = seccomp_rule_add_array(ctx, SCMP_ACT_NOTIFY, n->nr, k, c);
	if (r < 0 || n->creat_flag_arg < 0)
		return r;
	/* And every open that writes without creating: a file with other
	 * names gets one of its own first (src/guard/shared.c). Neither
	 * O_CREAT nor O_TMPFILE in these, so they never overlap the set-id
	 * refusals, which need one of them. */
	static const uint64_t writing[] = {O_WRONLY, O_RDWR, O_TRUNC};
	for (size_t i = 0; i < ARRAY_SIZE(writing); i++) {
		uint64_t mask = writing[i] | O_CREAT | __O_TMPFILE;
		r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, n->nr, 1,
				     SCMP_CMP((unsigned)n->creat_flag_arg,
					      SCMP_CMP_MASKED_EQ, mask,
					      writing[i]));
		if (r < 0)
			return r;
	}
	return 0;
}

/* The refusals, one rule per bit (a masked compare tests equality). */
static int add_setid_rules(scmp_filter_ctx ctx, struct lnk_err *err)
{
	static const uint64_t bits[] = {S_ISUID, S_ISGID};
	static const uint64_t creating[] = {O_CREAT, __O_TMPFILE};

	for (size_t i = 0; i < seccomp_setid_rules_count; i++) {
		const struct seccomp_setid_rule *s = &seccomp_setid_rules[i];
		if (s->nr < 0)
			continue; /* not on this architecture */
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
	/* A binary tree of syscall numbers, not a list: the kernel runs
	 * the filter once per syscall number when it is loaded (to cache the
	 * ones always allowed), and the program runs it on every call. A
	 * list of about 150 numbers cost 0.4 ms of each start (measured). */
	r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	if (r < 0)
		goto fail_attr;

	for (size_t i = 0; i < seccomp_refused_count; i++) {
		const struct seccomp_refusal *f = &seccomp_refused[i];
		if (f->nr < 0)
			continue; /* not on this architecture */
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(f->errnum), (int)f->nr,
				     0);
		if (r < 0) {
			rule_err(err, r, f->name);
			goto fail;
		}
	}
	for (size_t i = 0; i < seccomp_clone_flags_count; i++) {
		uint64_t f = seccomp_clone_flags[i].flag;
		if (!seccomp_clone_flags[i].unshare_only) {
			r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
					     __NR_clone, 1,
					     SCMP_A0(SCMP_CMP_MASKED_EQ, f, f));
			if (r < 0) {
				rule_err(err, r, "clone");
				goto fail;
			}
		}
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), __NR_unshare,
				     1, SCMP_A0(SCMP_CMP_MASKED_EQ, f, f));
		if (r < 0) {
			rule_err(err, r, "unshare");
			goto fail;
		}
	}
	for (size_t i = 0; i < seccomp_refused_ioctls_count; i++) {
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), __NR_ioctl, 1,
				     SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu,
					     seccomp_refused_ioctls[i].cmd));
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
		bool want = (notify & SN_ALL) || n->attr ||
			    (n->nr == __NR_connect && (notify & SN_CONNECT));
		if (n->nr < 0 || !want)
			continue;
		r = add_notify_rule(ctx, n);
		if (r < 0) {
			rule_err(err, r, n->name);
			goto fail;
		}
	}
	/* Executions are only seen, never decided here: Landlock's
	 * EXECUTE rights refuse what [commands] does not allow. */
	static const int execs[] = {__NR_execve, __NR_execveat};
	for (size_t i = 0; (notify & SN_EXEC) && i < ARRAY_SIZE(execs); i++) {
		r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, execs[i], 0);
		if (r < 0) {
			rule_err(err, r, i ? "execveat" : "execve");
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
