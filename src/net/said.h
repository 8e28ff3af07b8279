/* What lnk's terminal says of the calls the wire refuses: one `lnk:` line
 * per refused host, naming the flag (and the spec key) that allows it, so
 * a person sees why at once instead of a bare 403 or "could not resolve"
 * (the log says it too, but nobody reads the log while a build fails).
 *
 * Threat: the host is the program's choice, and the program can be
 * refused for as many hosts as it likes. Every name is escaped
 * (common/esc.h), and only the first WIRE_SAID_MAX distinct hosts are
 * named; then one line says the rest are in the log, and nothing more is
 * said: a flood of refusals is a flood of rows (bounded by refusals.h),
 * never of lines on the user's terminal. The program owns its own stderr;
 * these lines are written by the wire on lnk's, which it cannot reach. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Why a call to the first router's own address is refused under an
 * internet grant, and one whose probes had no answer (wire/hop.h): the
 * wire's reasons, here so that their lines name the fix. */
#define WIRE_FIRST_HOP_WHY                                                 \
	"the first router's own address: this machine's network, not the " \
	"internet"
#define WIRE_HOP_UNKNOWN_WHY                                                 \
	"no answer to the first-hop probe (the router's own address cannot " \
	"be ruled out)"

#define WIRE_SAID_MAX 5
#define WIRE_SAID_KEY 280

struct wire_said {
	char keys[WIRE_SAID_MAX][WIRE_SAID_KEY];
	size_t n;
	bool more;  /* the line that says the rest are in the log */
	bool nolog; /* set by the owner: no log holds them (no wire) */
};

/* The line for a call to host (port 0: a lookup) refused for why, in
 * line (cap bytes); "" when nothing is to be said (said already, past
 * the bound, or no grant would allow it). sandbox names the sandbox for the commands that lift a
 * pause. Pure: the caller writes it. */
void wire_said_line(struct wire_said *s, const char *sandbox, const char *host,
		    uint16_t port, const char *why, char *line, size_t cap);
