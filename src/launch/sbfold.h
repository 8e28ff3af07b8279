/* Names in any case, as the Mac's disks fold them: the regexes by which
 * the Seatbelt profile (seatbelt.c) denies a name under every spelling
 * APFS and HFS+ take for it. Threat: a program creates .vſcode or .GIT,
 * which the disk takes for .vscode or .git, and a rule by exact name does
 * not see it. A pure function; tests/unit/test_seatbelt.c. */
#pragma once

#include "common/buf.h"

/* Appends s to b as an SBPL regex that matches it in any letter case, as
 * APFS and HFS+ compare names (docs/macos.md, "Names the disk folds"):
 * each ASCII letter as its cases and the code points that fold to it (ſ,
 * the Kelvin sign), the pairs a ligature or ß folds to as those too, any
 * other byte as itself in a bracket; '"', '\\', '^' and ']' as any one
 * byte. Use it only in deny rules: it may match more than s, never less
 * (but for s spelled in another Unicode normalization). */
void sbpl_fold(struct buf *b, const char *s);
