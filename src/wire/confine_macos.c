/* The wire's confinement on macOS (confine.h): a Seatbelt profile the wire
 * applies to itself with sandbox_init(3) after setup, as the Linux wire
 * applies Landlock and seccomp (confine_linux.c, whose threat it shares: a
 * bug in the parsers of what the program sends must not become the user's
 * files or programs).
 *
 * The profile allows by default and then denies what the wire never needs
 * once it runs: running or forking any program, and reading or writing any
 * file but its database (and its -wal and -shm) and the resolver's
 * /etc/hosts and /etc/resolv.conf (read only). It is deliberately small:
 * Seatbelt has no counterpart of the seccomp allow-list, and no way to
 * hand connect() to the keeper, so the wire's own route and address checks
 * (conn.c) are the only ones on macOS; the man page says so (GAPS AND
 * LIMITS). Not built on Linux; tests/portable/check compiles it there
 * against <sandbox.h>'s declarations (tests/portable/macos/).
 */
#include "wire/confine.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sandbox.h>

#include "common/buf.h"
#include "common/sbpl.h"
#include "common/util.h"

/* The profile for cp, into b. 0 or -errno (a path SBPL cannot name). */
static int build_profile(const struct confine_plan *cp, struct buf *b,
			 struct lnk_err *err)
{
	buf_puts(b, "(version 1)\n"
		    "(allow default)\n"
		    "; no program: a parser bug cannot run one\n"
		    "(deny process-exec* process-fork)\n"
		    "; no file but its database and the resolver's\n"
		    "(deny file-read-data file-write*)\n"
		    "(allow file-read-data\n"
		    "  (literal \"/private/etc/hosts\")\n"
		    "  (literal \"/private/etc/resolv.conf\")\n"
		    "  (literal \"/private/var/run/resolv.conf\"))\n"
		    "(allow file-read-data file-write-data\n");
	static const char *const tails[] = {"", "-wal", "-shm"};
	for (size_t i = 0; i < ARRAY_SIZE(tails); i++) {
		_cleanup_free_ char *p =
		    xasprintf("%s%s", cp->db_path, tails[i]);
		buf_puts(b, "  (literal ");
		int r = sbpl_quote(b, p, err);
		if (r < 0)
			return r;
		buf_puts(b, ")\n");
	}
	buf_puts(b, ")\n");
	return 0;
}

int confine_wire(const struct confine_plan *cp, int *notify_fd,
		 struct lnk_err *err)
{
	*notify_fd = -1;
	struct buf b = {0};
	int r = build_profile(cp, &b, err);
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
