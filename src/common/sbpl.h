/* SBPL, the language of macOS' Seatbelt profiles: its string literal,
 * shared by the sandbox's profile (launch/seatbelt.c) and the wire's
 * (wire/confine_macos.c), so a path is quoted one way everywhere. */
#pragma once

#include "common/buf.h"
#include "common/err.h"

/* Appends s as an SBPL string literal, quotes included: '"' and '\' are
 * escaped with a backslash, newline, tab and carriage return as \n \t \r.
 * -EINVAL for any other control character (0x01..0x1f, 0x7f), which a
 * profile could not say unambiguously. */
int sbpl_quote(struct buf *b, const char *s, struct lnk_err *err);
