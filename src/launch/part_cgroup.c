/* The cgroup of one run (run.h, parts.c; launch/limits.h says why).
 *
 * With a cgroup v2 folder it is made before bwrap, whose process moves
 * itself in before it runs, so the whole sandbox is in it. With the
 * cgroup v1 hierarchies (root) it is made while bwrap makes the sandbox
 * (mkdir in the memory hierarchy alone takes a third of a millisecond)
 * and goes to lnk-init on the guard's socket, whose child for the
 * program moves in: v2 refuses a move from inside the sandbox's cgroup
 * namespace to a cgroup outside it; v1 does not ask. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "common/fdpass.h"
#include "launch/run.h"

static const char *tag(struct run *r)
{
	if (!r->cg_tag)
		r->cg_tag = xasprintf("%s-%d", r->name, (int)getpid());
	return r->cg_tag;
}

int cgroup_part_bind(struct run *r)
{
	r->plan.init.cgroup_on_guard = true;
	return 0;
}

int cgroup2_part_start(struct run *r)
{
	return limits_cgroup_make(&r->lw, &r->lim, tag(r), &r->cg, r->err);
}

/* "C" and the tasks file of each hierarchy on the guard's socket, before
 * the go-ahead (init_config.cgroup_on_guard). lnk's own copies are closed
 * then: the cgroup is removed as soon as the program's processes are
 * gone (cgroup_part_end). */
int cgroup1_part_hold(struct run *r)
{
	int rc = limits_cgroup_make(&r->lw, &r->lim, tag(r), &r->cg, r->err);
	if (rc < 0)
		return rc;
	r->cg.inside = true;
	if ((rc = fd_send(r->guard_pair[0], r->cg.procs, 2, "C", 1)) < 0)
		return err_set(r->err, rc,
			       "cannot hand the sandbox its cgroup: %s",
			       strerror(-rc));
	for (int i = 0; i < 2; i++) {
		close(r->cg.procs[i]);
		r->cg.procs[i] = -1;
	}
	return 0;
}

/* A cgroup only the program's processes were in is removed as soon as
 * they are gone; one that cannot be removed yet, or one bwrap's process
 * was in, once bwrap has exited. What killed lnks left is swept once. */
void cgroup_part_end(struct run *r, bool gone)
{
	if (gone)
		limits_cgroup_end(&r->cg);
	else if (r->cg.inside)
		(void)limits_cgroup_try_end(&r->cg);
	if (!r->cg_swept) {
		r->cg_swept = true;
		limits_cgroup_sweep(&r->lw);
	}
}
