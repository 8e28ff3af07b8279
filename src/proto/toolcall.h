/* The tool call protocol: the client inside the sandbox (tools/client.c)
 * and the broker outside (tools/broker.c), over a SOCK_SEQPACKET unix
 * socket whose file lnk binds into the sandbox at TOOLS_SOCK_INSIDE.
 *
 * The client is the sandboxed program's: every byte of a call is hostile
 * to the broker. One call per connection:
 *
 *   client -> broker, once:  "LNKC" u32 version u32 nstr, then nstr
 *       NUL-terminated strings: the tool's name, the working folder,
 *       argv[1..]; with exactly three descriptors (SCM_RIGHTS): the
 *       tool's stdin, stdout and stderr
 *   client -> broker, later: 'S' u8 signal (a signal to pass on)
 *   broker -> client:        'R' text (refused; the client prints it and
 *       exits TOOLS_EXIT_REFUSED), or 'X' u8 status (the tool's exit
 *       status, 128+N when signal N ended it)
 *
 * Integers are little-endian. The constants above the call's struct are
 * libc only: the static client includes this header and writes the call
 * itself, without lnk's libraries. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "common/util.h"

#define TOOLS_SOCK_INSIDE "/run/lnk/tools.sock"
#define TOOLS_BIN_INSIDE "/run/lnk/bin" /* PATH entry of the clients */
/* Its own magic: no other format of lnk's starts with it (the
 * transparent path's head is "LNKT", the broker's inner hand-over "LNKB"). */
#define TOOLS_MAGIC "LNKC"
#define TOOLS_VERSION 1u
#define TOOLS_MAX_CALL (256u << 10) /* bytes of one call message */
#define TOOLS_MAX_ARGS 4096u	    /* strings of one call */
#define TOOLS_NFDS 3		    /* stdin, stdout, stderr: never more */
#define TOOLS_EXIT_REFUSED 126	    /* what a refused call exits with */
#define TOOLS_MAX_CALLS 32	    /* calls of one sandbox at once */

/* A tool call as the broker reads it from the client: hostile bytes,
 * decoded with every length bounded. Pure, fuzzed (fuzz_toolcall). */
struct tools_call {
	char *tool;	  /* the name the client says it is */
	char *cwd;	  /* its working folder inside */
	struct strv args; /* argv[1..] */
};

/* 0, or -EINVAL/-E2BIG with a message for the client. */
int tools_call_decode(const char *buf, size_t len, struct tools_call *c,
		      struct lnk_err *err);
/* The same with another format's magic (the broker's reader hands the
 * call on to its starter in this form, toolpass.h). */
int tools_call_decode_as(const char *magic, const char *buf, size_t len,
			 struct tools_call *c, struct lnk_err *err);
/* The call in the form tools_call_decode_as(magic) reads, *len bytes. */
char *tools_call_encode(const char *magic, const struct tools_call *c,
			size_t *len);
void tools_call_free(struct tools_call *c);
/* Whether sig is one a client may pass on to its tool: the ones a
 * terminal or a parent sends to end or tell a program (INT, TERM, HUP,
 * QUIT, USR1, USR2, WINCH, CONT), never a stop or a core dump of lnk's
 * choosing. */
int tools_signal_ok(int sig);
