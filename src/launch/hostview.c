/* The host as bubblewrap sees it, for a sandbox run as root (see
 * hostview.h). */
#include "launch/hostview.h"

#include <errno.h>
#include <linux/capability.h>
#include <sched.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "launch/devnodes.h"

/* A mount namespace of one's own needs CAP_SYS_ADMIN; a root in a
 * container may lack it, and bwrap then makes a user namespace instead. */
static bool may_unshare_mounts(void)
{
	struct __user_cap_header_struct h = {
	    .version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &h, d) < 0)
		return false;
	return d[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective &
	       CAP_TO_MASK(CAP_SYS_ADMIN);
}

void hostview_plan(struct hostview *v, const char *nodes_dir)
{
	*v = (struct hostview){0};
	if (!nodes_dir)
		return;
	for (const char *const *n = devnodes_names(); *n; n++) {
		strv_pushf(&v->src, "%s/%s", nodes_dir, *n);
		strv_pushf(&v->dst, "/dev/%s", *n);
		strv_push(&v->fallback, "--dev-bind");
		strv_push(&v->fallback, v->src.v[v->src.n - 1]);
		strv_push(&v->fallback, v->dst.v[v->dst.n - 1]);
	}
	v->on = may_unshare_mounts();
}

int hostview_enter(const struct hostview *v)
{
	if (unshare(CLONE_NEWNS) < 0)
		return -errno;
	/* Before any mount: a slave, so that nothing made here propagates to
	 * the host's namespace (its / is shared on a systemd machine). */
	if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) < 0)
		return -errno;
	/* Only bwrap's work is saved: a /sys it cannot detach (none here, or
	 * locked in a user namespace's copy) changes nothing else. */
	if (v->detach_sys)
		(void)umount2("/sys", MNT_DETACH);
	for (size_t i = 0; i < v->src.n; i++)
		if (mount(v->src.v[i], v->dst.v[i], NULL, MS_BIND, NULL) < 0)
			return -errno;
	return 0;
}

void hostview_free(struct hostview *v)
{
	strv_free(&v->src);
	strv_free(&v->dst);
	strv_free(&v->fallback);
	*v = (struct hostview){0};
}
