/* What the commands that talk to wires (pause, resume) share. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "common/util.h"
#include "store/registry.h"

int ctl_control_entry(const char *home, const struct registry_entry *e,
		      enum ctl_op op, int timeout_ms, struct ctl_reply *rep,
		      struct lnk_err *err)
{
	/* The socket's path comes from the name, not from the database: the
	 * one place that knows the layout is paths.c. */
	_cleanup_free_ char *path = ctl_socket_path(home, e->name);
	if (!path)
		return err_set(err, -ENOENT,
			       "no sandbox named '%s' is running here",
			       e->name);
	int r = ctl_request(path, op, timeout_ms, rep, err);
	if (r < 0)
		return err_prefix(err, "%s: ", e->name);
	switch (rep->result) {
	case CTL_R_OK:
		return 0;
	case CTL_R_NOT_OWNER:
		return err_set(
		    err, -EPERM,
		    "the wire of '%s' refused us: only the user who runs a sandbox (uid %u) can %s it",
		    e->name, (unsigned)e->uid, ctl_op_name(op));
	case CTL_R_BAD:
		return err_set(
		    err, -EPROTO,
		    "the wire of '%s' did not understand '%s': is it an older lnk? Stop it with 'lnk sandbox stop'",
		    e->name, ctl_op_name(op));
	case CTL_R_FAILED:
		break;
	}
	return err_set(err, -EIO, "the wire of '%s' could not %s", e->name,
		       ctl_op_name(op));
}

int ctl_control(const char *home, const char *name, enum ctl_op op,
		int timeout_ms, struct ctl_reply *rep, struct lnk_err *err)
{
	struct registry *st = NULL;
	int r = registry_open(home, &st, err);
	if (r < 0)
		return r;
	struct registry_entry e;
	r = registry_find(st, name, &e, err);
	registry_close(st);
	if (r < 0)
		return r;
	return ctl_control_entry(home, &e, op, timeout_ms, rep, err);
}

int cli_control(const char *home, const char *name, enum ctl_op op,
		struct ctl_reply *rep)
{
	struct lnk_err err = {0};
	int r = ctl_control(home, name, op, 2000, rep, &err);
	if (r == -ENOENT) {
		warnx_("%s; 'lnk sandbox traffic' lists the running "
		       "ones",
		       err.msg);
		return 1;
	}
	if (r < 0) {
		warnx_("%s", err.msg);
		return LNK_EXIT_FAIL;
	}
	return -1;
}

/* True when the sandbox name runs here without a wire: it has no network
 * grant, so there is no socket to talk to, and a socket's error would say
 * nothing of why. Anything else (not found, a registry that cannot be
 * read) is left to the request, which says it. */
/* When name runs here without a wire: closes (pause) or opens (resume)
 * its row in the registry, which its tools broker reads before each call
 * and while a tool runs (tools/broker.c): a sandbox granted tools but no
 * network is still paused. 1 when it runs without a wire, 0 when it does
 * not, -1 when its row could not be changed. */
static int without_wire(const char *home, const char *name, bool pause)
{
	struct registry *st = NULL;
	struct registry_entry e;
	struct lnk_err ignored = {0};
	if (registry_open(home, &st, &ignored) < 0)
		return 0;
	int r = 0;
	if (registry_find(st, name, &e, &ignored) == 0 &&
	    !registry_entry_has_wire(&e)) {
		r = 1;
		if ((pause ? registry_set_closed(st, name, CTL_CAUSE_HAND,
						 TRIP_NONE, "",
						 registry_now_ms(), &ignored)
			   : registry_set_open(st, name, &ignored)) < 0)
			r = -1;
	}
	registry_close(st);
	return r;
}

bool cli_said_without_wire(const char *home, const char *name,
			   const char *nothing_to)
{
	bool pause = strcmp(nothing_to, "pause") == 0;
	int r = without_wire(home, name, pause);
	if (r == 0)
		return false;
	char nm[REGISTRY_NAME_MAX + 1];
	ctl_printable(nm, sizeof(nm), name);
	if (r < 0)
		printf("%s has no network grant, so no wire, and its tools "
		       "could not be %s: the registry could not be written; "
		       "'lnk sandbox stop' ends the sandbox\n",
		       nm, pause ? "closed" : "opened");
	else if (pause)
		printf("%s has no network grant, so no wire: it reaches no "
		       "network; its tools and pages are closed until 'lnk "
		       "sandbox resume %s'\n",
		       nm, nm);
	else
		printf("%s has no network grant, so no wire: it reaches no "
		       "network; its tools and pages are open again\n",
		       nm);
	return true;
}
