/* A desktop notification, for a person who is not at lnk's terminal:
 * notify-send from an absolute PATH entry of env, run without a shell,
 * with a clean environment (only what reaches the desktop's bus, a fixed
 * PATH: nothing else of lnk's, no LD_PRELOAD), left to init by a double
 * fork so that nothing waits on it. Nothing happens without a session bus
 * in env or without notify-send. Everything is built before the fork:
 * callers with threads (the wire) may call it. title and body must be
 * escaped already (ESC_TEXT). */
#pragma once

#include <stdbool.h>

/* true when notify-send was started. */
bool desktop_notify(char *const *env, const char *title, const char *body,
		    bool urgent);
