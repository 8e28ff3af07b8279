/* The broker's inner hand-over: between its reader (tools/reader.h), the
 * one process that reads the clients' bytes, confined, and its starter
 * (tools/broker.c), which decides and runs tools, unconfined. A
 * SOCK_SEQPACKET socketpair made by the starter before it forks the
 * reader; one message each, its first byte the kind, its second the
 * call's slot (below TOOLS_MAX_CALLS):
 *
 *   reader -> starter
 *     'C' slot call   a call, checked and put in canonical form
 *                     (tools_call_encode with PASS_MAGIC), with exactly
 *                     its three descriptors
 *     'S' slot sig    its client passes a signal on
 *     'G' slot        its client went away
 *     'D' 0 text      a call the reader refused itself, for the log
 *                     (1 instead of 0: a page to open)
 *     'N' 0 count     more refused calls (u64) it could not tell one by
 *                     one while the starter was behind
 *   starter -> reader
 *     'R' slot text   the call is refused: its client is told text
 *     'X' slot status the tool ended with status
 *
 * The starter trusts the reader no more than a client: a reader taken
 * over sends what it likes, so every message is decoded with bounds
 * (toolpass_decode) and the call checked again (broker.c). Libc and lnk's
 * common code only. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "proto/toolcall.h"

#define PASS_MAGIC "LNKB"
#define PASS_HEAD 2	  /* kind, slot */
#define PASS_TEXT_MAX 512 /* a refusal's text */
/* A call handed on: the client's (up to TOOLS_MAX_CALL + 1 bytes, the
 * reader's receive) in canonical form, with room for a page's URL made
 * normal; the starter receives no more. */
#define PASS_CALL_MAX (TOOLS_MAX_CALL + 16)
#define PASS_DEADLINE_MS 5000 /* a client's call must come within it */

enum toolpass_kind {
	PASS_CALL = 'C',
	PASS_SIGNAL = 'S',
	PASS_GONE = 'G',
	PASS_DENIED = 'D',
	PASS_UNTOLD = 'N',
};

/* A message of the reader's, its head and size checked. */
struct toolpass_msg {
	enum toolpass_kind kind;
	unsigned slot;	  /* below TOOLS_MAX_CALLS; 0 for 'D' and 'N' */
	const char *data; /* 'C': the call, for tools_call_decode_as with
			   * PASS_MAGIC; 'D': the text, not NUL-terminated */
	size_t len;	  /* of data: up to PASS_CALL_MAX, PASS_TEXT_MAX */
	int sig;	  /* 'S': a signal tools_signal_ok passes */
	uint64_t count;	  /* 'N' */
};

/* Sends kind, slot and n bytes of data (with nfd descriptors), never
 * waiting: 0, or -errno (-EAGAIN when the other side is behind). */
int pass_send(int sock, char kind, unsigned slot, const void *data, size_t n,
	      const int *fds, size_t nfd);
/* A message of the reader's, n bytes (pure, fuzzed: fuzz_toolcall): 0
 * with *m filled (data points into buf), or -EBADMSG for an unknown
 * kind, a slot out of range, a size the kind does not have or a signal
 * a client may not pass on. */
int toolpass_decode(const char *buf, size_t n, struct toolpass_msg *m);
