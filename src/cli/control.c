/* What the commands that talk to wires (pause, resume) share. */
#include <errno.h>
#include <stdio.h>

#include "cli/commands.h"
#include "common/util.h"
#include "store/paths.h"
#include "store/secure.h"

char *cli_home(void)
{
	struct lnk_err err = {0};
	char *home = NULL;
	if (paths_home(&home, &err) < 0 ||
	    secure_settings(home, true, &err) < 0)
		diex(LNK_EXIT_FAIL, "%s", err.msg);
	return home;
}

int cli_control(const char *name, enum ctl_op op, struct ctl_reply *rep)
{
	struct lnk_err err = {0};
	_cleanup_free_ char *home = cli_home();
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
