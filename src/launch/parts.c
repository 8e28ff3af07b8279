/* The parts of one run (parts.h). */
#include "launch/parts.h"

#include "common/util.h"

static const struct part parts[] = {
    {"lnk, the supervisor",
     "always",
     "first: plans, then starts every other part; relays the pty",
     false,
     PART_UNCONFINED,
     {"src/launch/sandbox.c", "src/launch/spawn.c", "src/launch/plan.c", NULL}},
    {"the keeper",
     "a network grant",
     "forked before bwrap, before any thread",
     false,
     PART_UNCONFINED,
     /* fixed-size messages and addresses from the wire, never the
      * program's bytes */
     {"src/wire/keeper.c", NULL}},
    {"the wire",
     "a network grant",
     "forked by the keeper before bwrap; confined before its first read",
     true,
     PART_KIT,
     {"src/wire/wire.c", "src/wire/http.c", "src/wire/socks5.c",
      "src/wire/dnsd.c", "src/wire/usage.c", "src/wire/model.c",
      "src/proto/tproxy.c", NULL}},
    {"the resolver without network",
     "no network grant",
     "forked before bwrap; binds its sockets, then confined before its "
     "first read",
     true,
     PART_KIT,
     {"src/wire/nonet.c", "src/wire/dnsd.c", "src/wire/said.c", NULL}},
    {"the tools broker's starter",
     "a tool or page grant",
     "forked before bwrap; decides, logs, runs tools",
     /* only the reader's canonical hand-over, decoded with bounds and
      * checked again */
     false,
     PART_UNCONFINED,
     {"src/tools/broker.c", NULL}},
    {"the tools broker's reader",
     "a tool or page grant",
     "forked by the starter first; confined before its first read",
     true,
     PART_KIT,
     {"src/tools/reader.c", "src/tools/call.c", "src/tools/page.c",
      "src/tools/pass.c", NULL}},
    {"the desktop process",
     "a tool or page grant and a desktop session",
     "forked by the starter",
     false,
     PART_UNCONFINED,
     /* the question's text comes escaped from the starter; the rest is
      * the session bus's */
     {"src/tools/desktop.c", NULL}},
    {"a tool",
     "a call allowed or answered yes",
     "forked by the starter for the call",
     false,
     PART_TOOL_VIEW,
     {"src/tools/view.c", "src/tools/folder.c", NULL}},
    {"the guard",
     "always",
     "threads of lnk, while bwrap makes the sandbox",
     true,
     PART_GUARD,
     {"src/guard/dispatch.c", "src/guard/task.c", "src/guard/where.c",
      "src/guard/sockaddr.c", "src/guard/tproxy.c", "src/guard/exec.c", NULL}},
    {"bwrap",
     "always",
     "exec'd by lnk's child",
     false,
     PART_UNCONFINED,
     {"src/launch/bwrap.c", NULL}},
    {"lnk-init",
     "always",
     "bwrap's pid 1 inside",
     false,
     PART_SANDBOX,
     {"src/init/main.c", "src/init/reaper.c", NULL}},
    {"the program",
     "always",
     "lnk-init's child, last",
     true,
     PART_SANDBOX,
     {"src/init/exec.c", NULL}},
};

const struct part *parts_table(size_t *n)
{
	*n = ARRAY_SIZE(parts);
	return parts;
}

const char *part_confine_name(enum part_confine c)
{
	switch (c) {
	case PART_UNCONFINED:
		return "unconfined";
	case PART_KIT:
		return "the confinement kit";
	case PART_GUARD:
		return "the guard's";
	case PART_SANDBOX:
		return "the sandbox";
	case PART_TOOL_VIEW:
		return "a tool's view";
	}
	return "?";
}
