/* Whether 'lnk sandbox stop' is in force, so run can say so: at start (a
 * sandbox started during a stop has its network closed, which would
 * otherwise look like a broken network) and at the end (a program ended
 * by stop would otherwise end without a word). Nothing is enforced here:
 * the stop itself lives in src/store/registry.c and the wire. */
#include "launch/stopnote.h"

#include <unistd.h>

#include "common/util.h"
#include "store/paths.h"
#include "store/registry.h"

bool stopnote_in_force(const char *home, int64_t *since_ms)
{
	_cleanup_free_ char *db = paths_db(home);
	struct registry *st;
	struct lnk_err ignored = {0};
	bool on = false;

	*since_ms = 0;
	if (access(db, F_OK) < 0)
		return false; /* nothing ever ran here: no file made */
	if (registry_open(home, &st, &ignored) < 0)
		return false;
	if (registry_stop_get(st, &on, since_ms, &ignored) < 0)
		on = false;
	registry_close(st);
	return on;
}
