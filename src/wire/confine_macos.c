/* The wire's confinement on macOS (confine.h): the Seatbelt profile of
 * profile_macos.c, which starts from (deny default), applied to the wire
 * itself with sandbox_init(3) after setup, as the Linux wire applies
 * Landlock and seccomp (confine_linux.c, whose threat it shares: a bug in
 * the parsers of what the program sends must not become the user's files
 * or programs).
 *
 * Seatbelt has no counterpart of the seccomp allow-list, and no way to
 * hand connect() to the keeper, so the wire's own route and address
 * checks (conn.c) are the only ones on macOS; the man page says so (GAPS
 * AND LIMITS). The wire does not run on macOS (the network grants are
 * refused there); this file is built for it and tests/portable/check
 * compiles and links it on Linux against <sandbox.h>'s declarations
 * (tests/portable/macos/).
 */
#include "wire/confine.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sandbox.h>

#include "common/buf.h"
#include "common/util.h"
#include "wire/profile_macos.h"

int confine_wire(const struct confine_plan *cp, int *notify_fd,
		 struct lnk_err *err)
{
	*notify_fd = -1;
	struct buf b = {0};
	int r = wire_profile_macos(cp, &b, err);
	if (r < 0) {
		buf_free(&b);
		return err_prefix(err, "cannot confine the wire: ");
	}
	_cleanup_free_ char *profile = buf_steal(&b);
	char *why = NULL;
	r = sandbox_init(profile, 0, &why);
	if (r != 0) {
		err_set(err, -EPERM,
			"cannot confine the wire: Seatbelt says %s",
			why ? why : "no reason");
		sandbox_free_error(why);
		return -EPERM;
	}
	return 0;
}
