/* lnk sandbox resume NAME: open the wire of one sandbox again, whatever
 * closed it (by hand, by stop, or a tripwire).
 *
 * Exit status: 0 open (or it has no network to open); 1 no sandbox of that
 * name runs here; 2 usage; 125 lnk could not (its wire does not answer,
 * or refuses us as not its owner). */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "common/util.h"
#include "store/registry.h"
#include "wire/ctl.h"

static void usage(FILE *f)
{
	fputs(
	    "usage: lnk sandbox resume NAME\n"
	    "\n"
	    "Opens the wire of the sandbox NAME again, whether it was paused by\n"
	    "hand, closed by 'lnk sandbox stop', or paused by a tripwire.\n"
	    "\n"
	    "A sandbox without a network grant has no wire: it reaches no network,\n"
	    "and resume says so.\n"
	    "\n"
	    "Exit status: 0 open (or no network to open); 1 no sandbox of that\n"
	    "name runs here; 2 usage; 125 lnk could not (the wire did not answer,\n"
	    "or it is another user's).\n",
	    f);
}

int cmd_resume(int argc, char **argv, const struct cli_ctx *cx)
{
	const char *name;
	int rc = cli_one_name("resume", argc, argv, usage, &name);
	if (rc >= 0)
		return rc;

	if (cli_said_without_wire(cx->home, name, "open"))
		return 0;
	char nm[REGISTRY_NAME_MAX + 1];
	ctl_printable(nm, sizeof(nm), name);
	struct ctl_reply rep;
	rc = cli_control(cx->home, name, CTL_RESUME, &rep);
	if (rc >= 0)
		return rc;
	if (rep.st.closed) {
		warnx_("the wire of %s stays closed (%s)", nm,
		       ctl_cause_text(rep.st.cause));
		return LNK_EXIT_FAIL;
	}
	printf("resumed %s: its wire is open\n", nm);
	/* A stop in force still closes every wire that starts. */
	struct lnk_err err = {0};
	const char *home = cx->home;
	struct registry *st;
	bool stopped = false;
	if (registry_open(home, &st, &err) == 0) {
		(void)registry_stop_get(st, &stopped, NULL, &err);
		registry_close(st);
	}
	if (stopped)
		warnx_(
		    "note: a stop is in force: new sandboxes start with their wire closed until 'lnk sandbox stop --off'");
	return 0;
}
