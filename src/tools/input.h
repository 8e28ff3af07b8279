/* Whether a granted tool reads commands on its standard input.
 *
 * Threat: the broker hands a tool the program's three descriptors. A
 * tool whose input is commands (a database shell, a debugger, an editor,
 * ed or dc, a shell, an interpreter with no script) runs what the
 * program sends there, its shell escapes too (sqlite3's .shell and
 * load_extension, psql's \!, gdb's shell, vi's :!), however exact the
 * grant: `--tool 'sqlite3 app.db'` would run any program outside, as
 * the user. Such a call gets no input from the program (the broker
 * gives it /dev/null); what the tool should do is named in the call's
 * arguments, which the grant fixes. */
#pragma once

#include <stdbool.h>

#include "common/util.h"

/* tool: the grant's name (a path or a bare name); args: the call's
 * arguments. True when the call's input would be commands. */
bool tools_reads_commands(const char *tool, const struct strv *args);
