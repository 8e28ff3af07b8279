/* The wire's Seatbelt profile (see profile_macos.h).
 *
 * Threat, as on Linux (confine_linux.c): a bug in the parsers of what the
 * program sends (HTTP, SOCKS, DNS, a model's answer) must not become the
 * user's files or programs. So it starts from nothing, as the sandbox's
 * own profile does, and allows only what the running wire does after its
 * setup (listeners bound, database opened, libssl loaded, resolver
 * channel made): its database, the resolver's files and the TLS roots
 * read, the network (its own checks in conn.c are the network policy:
 * Seatbelt cannot hand a connect to the keeper as seccomp does), the
 * routing socket for route lookups, and a few system settings. No
 * program is run, no process forked, no other file opened, no service
 * looked up. It is written for a wire that does not run on macOS yet:
 * what it lacks there is for a Mac to show (lnk-sandbox(1), MACOS).
 */
#include "wire/profile_macos.h"

#include <stddef.h>

#include "common/sbpl.h"
#include "common/util.h"

int wire_profile_macos(const struct confine_plan *cp, struct buf *b,
		       struct lnk_err *err)
{
	buf_puts(b, ";; lnk's wire, confined after its setup.\n"
		    "(version 1)\n"
		    ";; Nothing is allowed but what follows: no program "
		    "run, no process forked,\n;; no file but those named, "
		    "no service, no device.\n"
		    "(deny default)\n"
		    "(allow process-info* (target self))\n"
		    "(allow signal (target self))\n"
		    ";; Its database (the log, the registry), with SQLite's "
		    "files beside it.\n"
		    "(allow file-read* file-write*");
	static const char *const tails[] = {"", "-wal", "-shm", "-journal"};
	for (size_t i = 0; i < ARRAY_SIZE(tails); i++) {
		_cleanup_free_ char *p =
		    xasprintf("%s%s", cp->db_path, tails[i]);
		buf_puts(b, "\n  (literal ");
		int r = sbpl_quote(b, p, err);
		if (r < 0)
			return r;
		buf_putc(b, ')');
	}
	buf_puts(b, ")\n"
		    ";; The resolver's files and the TLS roots, read only.\n"
		    "(allow file-read*\n"
		    "  (literal \"/private/etc/hosts\")\n"
		    "  (literal \"/private/etc/resolv.conf\")\n"
		    "  (literal \"/private/var/run/resolv.conf\")\n"
		    "  (subpath \"/private/etc/ssl\")\n"
		    "  (literal \"/opt/homebrew/etc/openssl@3/cert.pem\")\n"
		    "  (literal \"/usr/local/etc/openssl@3/cert.pem\"))\n"
		    "(allow file-read-metadata (literal \"/\"))\n"
		    ";; The network: the calls it carries, after its own "
		    "checks of each address;\n;; the routing socket, to ask "
		    "where an address is.\n"
		    "(allow network*)\n"
		    "(allow system-socket)\n"
		    ";; What libraries ask of the system: its size and "
		    "version, nothing of other\n;; processes.\n"
		    "(allow sysctl-read\n"
		    "  (sysctl-name \"hw.ncpu\")\n"
		    "  (sysctl-name \"hw.activecpu\")\n"
		    "  (sysctl-name \"hw.pagesize\")\n"
		    "  (sysctl-name \"kern.osversion\")\n"
		    "  (sysctl-name \"kern.osrelease\")\n"
		    "  (sysctl-name-prefix \"hw.optional.\"))\n");
	return 0;
}
