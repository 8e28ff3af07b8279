/* Whether 'lnk sandbox stop' is in force, for what run says (stopnote.c). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* True when a stop is in force in home's registry; *since_ms (unix ms)
 * says from when. Best effort: a registry that is missing or cannot be
 * read is no stop, as this only decides what lnk says. */
bool stopnote_in_force(const char *home, int64_t *since_ms);
