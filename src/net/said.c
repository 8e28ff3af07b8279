/* What lnk's terminal says of the calls the wire refuses (said.h). */
#include "net/said.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common/esc.h"
#include "common/util.h"
#include "net/addr.h"
#include "net/grammar.h"

/* Whether why refuses the port of this machine, not the host: then the
 * flag is --port, and each port is said on its own. */
static bool port_reason(const char *why, uint16_t port)
{
	return port && (strcmp(why, "address of this machine") == 0 ||
			strncmp(why, "loopback address", 16) == 0 ||
			strcmp(why, "port not granted") == 0);
}

/* The fix for a refusal's reason, as the flag and the spec key, or NULL
 * when no grant allows it (a metadata address, a malformed request). The
 * reasons are the wire's own (filter.c, conn.c, dnsd.c) and the resolver's
 * without a network grant (nonet.c). word is the escaped host, one shell
 * word. */
enum grant_word { GW_HOST, GW_LOCAL, GW_NONE };

/* The host as --internet-host takes it, into out (HOST_PATTERN_MAX): an
 * IPv4-mapped literal is the IPv4 address it connects to. GW_LOCAL for
 * localhost, whose names are this machine's loopback whatever a grant
 * says (--port reaches it); GW_NONE for a form the flag refuses. */
static enum grant_word internet_word(const char *host, char *out)
{
	size_t n = strlen(host);
	struct lnk_addr a, v4;
	struct lnk_err e = {0};
	if (strcasecmp(host, "localhost") == 0 ||
	    strcasecmp(host, "localhost.") == 0 ||
	    (n > 10 && strcasecmp(host + n - 10, ".localhost") == 0) ||
	    (n > 11 && strcasecmp(host + n - 11, ".localhost.") == 0))
		return GW_LOCAL;
	if (addr_parse_literal(host, &a) == LIT_ADDR &&
	    addr_v4_mapped(&a, &v4)) {
		addr_format(&v4, out, HOST_PATTERN_MAX);
		return GW_HOST;
	}
	return host_pattern_parse(host, n, out, &e) == 0 ? GW_HOST : GW_NONE;
}

static char *fix_for(const char *why, const char *sandbox, const char *host,
		     const char *word, uint16_t port)
{
	if (strcmp(why, "host not in the sandbox's grants") == 0 ||
	    strcmp(why, "this sandbox has no network grant") == 0) {
		char grant[HOST_PATTERN_MAX];
		enum grant_word gw = internet_word(host, grant);
		if (gw == GW_LOCAL && port)
			return xasprintf("it is this machine: --port %u "
					 "reaches this machine's port %u (a "
					 "spec's [localhost] ports)",
					 port, port);
		if (gw != GW_HOST)
			return NULL;
		_cleanup_free_ char *w = esc_word_dup(grant);
		(void)word;
		return xasprintf("--internet-host %s allows it (a spec's "
				 "[internet] hosts)",
				 w);
	}
	if (strcmp(why, "address on this machine's network, not the "
			"internet") == 0 ||
	    strcmp(why, "address outside the lan grant") == 0 ||
	    strcmp(why, WIRE_FIRST_HOP_WHY) == 0)
		return xasprintf("--lan-host %s allows it (a spec's [lan] "
				 "hosts)",
				 word);
	if (strcmp(why, WIRE_HOP_UNKNOWN_WHY) == 0)
		/* the router answers only a few probes a second: most
		 * often, asked again later it answers */
		return xasprintf("the call may be tried again; --lan-host %s "
				 "reaches it without the probe (a spec's "
				 "[lan] hosts)",
				 word);
	if (port_reason(why, port))
		return xasprintf("--port %u reaches this machine's port %u "
				 "(a spec's [localhost] ports)",
				 port, port);
	if (strcmp(why, "stopped") == 0)
		return xstrdup("'lnk sandbox stop' is in force for every "
			       "sandbox here; 'lnk sandbox stop --off' lifts "
			       "it");
	if (strncmp(why, "paused", 6) == 0)
		return xasprintf("'lnk sandbox resume %s' opens its wire",
				 sandbox);
	return NULL;
}

void wire_said_line(struct wire_said *s, const char *sandbox, const char *host,
		    uint16_t port, const char *why, char *line, size_t cap)
{
	line[0] = '\0';
	if (!host || !host[0] || strcmp(host, "-") == 0 || s->more)
		return;
	/* A flood of refusals of hosts said already costs a compare each,
	 * nothing more: the key first. A host is said once whatever its
	 * port, unless the port is what is refused. */
	char key[WIRE_SAID_KEY];
	snprintf(key, sizeof(key), "%s:%u", host,
		 port_reason(why, port) ? port : 0);
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->keys[i], key) == 0)
			return;
	_cleanup_free_ char *word = esc_word_dup(host);
	_cleanup_free_ char *fix = fix_for(why, sandbox, host, word, port);
	/* what no grant allows (a metadata address, a reverse lookup) is in
	 * the log; the terminal says what to type */
	if (!fix)
		return;
	if (s->n == WIRE_SAID_MAX) {
		s->more = true;
		snprintf(line, cap,
			 s->nolog ? "lnk: more hosts were refused; they are "
				    "not named here\n"
				  : "lnk: more hosts were refused; they are "
				    "not named here: 'lnk sandbox log "
				    "--refused' lists them\n");
		return;
	}
	snprintf(s->keys[s->n++], WIRE_SAID_KEY, "%s", key);
	_cleanup_free_ char *shown = esc_dup(host);
	_cleanup_free_ char *reason = esc_dup(why);
	char at[16] = "";
	if (port)
		snprintf(at, sizeof(at), ":%u", port);
	/* an IPv6 address with a port is written as the log writes it */
	bool v6 = port && strchr(host, ':');
	snprintf(line, cap, "lnk: refused %s%s%s%s: %s; %s\n", v6 ? "[" : "",
		 shown, v6 ? "]" : "", at, reason, fix);
}
