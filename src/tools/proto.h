/* The tool call protocol: the client inside the sandbox (client.c) and the
 * broker outside (broker.c), over a SOCK_SEQPACKET unix socket whose file
 * lnk binds into the sandbox at TOOLS_SOCK_INSIDE.
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
 * Integers are little-endian. Libc only: the client includes it.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

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
