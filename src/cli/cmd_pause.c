/* lnk sandbox pause NAME: close the wire of one sandbox while its program
 * keeps running (lnk-sandbox(1), COMMANDS, pause).
 *
 * Exit status: 0 paused (or already closed, or it has no network to
 * pause); 1 no sandbox of that name runs here; 2 usage; 125 lnk could not
 * (its wire does not answer, or refuses us as not its owner). */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "common/err.h"
#include "common/util.h"
#include "store/registry.h"
#include "wire/ctl.h"

static void usage(FILE *f)
{
	fputs(
	    "usage: lnk sandbox pause NAME\n"
	    "\n"
	    "Closes the wire of the sandbox NAME: its open connections end within a\n"
	    "second and every new call is refused as \"paused\", while its program\n"
	    "keeps running. 'lnk sandbox resume NAME' opens it again; 'lnk sandbox\n"
	    "paused' lists the closed wires.\n"
	    "\n"
	    "A sandbox without a network grant has no wire: it reaches no network,\n"
	    "and pause closes its tools and pages only.\n"
	    "\n"
	    "Exit status: 0 paused (or no network to pause); 1 no sandbox of that\n"
	    "name runs here; 2 usage; 125 lnk could not (the wire did not answer,\n"
	    "or it is another user's).\n",
	    f);
}

int cmd_pause(int argc, char **argv, const struct cli_ctx *cx)
{
	const char *name;
	int rc = cli_one_name("pause", argc, argv, usage, &name);
	if (rc >= 0)
		return rc;

	if (cli_said_without_wire(cx->home, name, "pause"))
		return 0;
	char nm[REGISTRY_NAME_MAX + 1];
	ctl_printable(nm, sizeof(nm), name);
	struct ctl_reply rep;
	rc = cli_control(cx->home, name, CTL_PAUSE, &rep);
	if (rc >= 0)
		return rc;
	if (rep.st.closed && rep.st.cause != CTL_CAUSE_HAND)
		printf("%s: its wire stays closed (%s); its program runs on\n",
		       nm, ctl_cause_text(rep.st.cause));
	else
		printf("paused %s: its wire is closed and its program runs on; "
		       "'lnk sandbox resume %s' opens it\n",
		       nm, nm);
	return 0;
}
