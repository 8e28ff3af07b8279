#include "tools/view.h"

#include <errno.h>

/* macOS has no mount namespaces to hide lnk's settings from a tool in,
 * and its sandbox (launch/macos.c) starts no tools broker: a tool is
 * refused rather than run seeing ~/.lnk. */
int tools_view_enter(const struct strv *hidden, struct lnk_err *err)
{
	(void)hidden;
	return err_set(err, -ENOSYS,
		       "a tool's view of the system needs Linux's namespaces");
}
