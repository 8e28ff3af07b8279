/* What the tools broker sets up for a sandbox's tools, apart from the
 * broker itself: the clients' socket (tools_listen, declared in broker.h)
 * and the tools' environment. */
#pragma once

#include <stdbool.h>

#include "common/util.h"

/* lnk's environment for the tools, with only the absolute entries of each
 * search path outside every write folder, and no variable whose value
 * names a path in a write folder (HOME excepted): a library, module,
 * command or configuration the tool finds there would be the program's
 * file, run or trusted outside as the user. */
/* false when the driver commands of the git configuration in reach were
 * more than lnk stands in for: some would run as they are (the caller
 * refuses every call then). */
bool tools_env(char *const *env, const struct strv *writes,
	       const struct strv *grants, struct strv *out);
