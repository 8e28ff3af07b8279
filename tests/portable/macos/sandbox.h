/* The declarations of macOS' <sandbox.h> that src/launch/macos.c uses, as
 * the SDK has them, so tests/portable/check can compile it on Linux. */
#pragma once

#include <stdint.h>

int sandbox_init(const char *profile, uint64_t flags, char **errorbuf);
void sandbox_free_error(char *errorbuf);
