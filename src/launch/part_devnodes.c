/* The device nodes of one run, and bwrap's view of the host (run.h,
 * parts.c; launch/devnodes.h and launch/hostview.h say why, as root). */
#include "launch/run.h"

/* Made while lnk plans, though nothing else acts before the plan is
 * whole: the plan names the folder mkdtemp chooses. bwrap finds them in
 * place in its view of the host, or binds them itself. */
int devnodes_part_plan(struct run *r)
{
	int rc = devnodes_make(&r->dev, r->err);
	if (rc < 0)
		return rc;
	hostview_plan(&r->view, r->dev.dir);
	return 0;
}

/* /sys is detached in the view unless a mount of the sandbox shows it. */
int devnodes_part_bind(struct run *r)
{
	r->view.detach_sys = !r->plan.bw.shows_sys;
	return 0;
}

/* Nothing inside uses them any more. What lnks killed with SIGKILL left
 * is swept once, as the sandbox ends, while the kernel takes it down,
 * and not while bwrap makes it, where the second CPU is better left to
 * bwrap. */
void devnodes_part_end(struct run *r, bool gone)
{
	(void)gone;
	devnodes_remove(&r->dev);
	if (!r->dev_swept) {
		r->dev_swept = true;
		devnodes_sweep();
	}
}
