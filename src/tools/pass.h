/* The broker's inner hand-over: between its reader (reader.h), the one
 * process that reads the clients' bytes, confined, and its starter
 * (broker.c), which decides and runs tools, unconfined. A SOCK_SEQPACKET
 * socketpair made by the starter before it forks the reader; one message
 * each, its first byte the kind, its second the call's slot (below
 * TOOLS_MAX_CALLS):
 *
 *   reader -> starter
 *     'C' slot call   a call, checked and put in canonical form
 *                     (tools_call_encode with PASS_MAGIC), with exactly
 *                     its three descriptors
 *     'S' slot sig    its client passes a signal on
 *     'G' slot        its client went away
 *     'D' 0 text      a call the reader refused itself, for the log
 *     'N' 0 count     more refused calls (u64) it could not tell one by
 *                     one while the starter was behind
 *   starter -> reader
 *     'R' slot text   the call is refused: its client is told text
 *     'X' slot status the tool ended with status
 *
 * The starter trusts the reader no more than a client: a reader taken
 * over sends what it likes, so every message is decoded with bounds and
 * the call checked again (broker.c). Libc and lnk's common code only. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define PASS_MAGIC "LNKB"
#define PASS_HEAD 2	      /* kind, slot */
#define PASS_TEXT_MAX 512     /* a refusal's text */
#define PASS_DEADLINE_MS 5000 /* a client's call must come within it */

/* Sends kind, slot and n bytes of data (with nfd descriptors), never
 * waiting: 0, or -errno (-EAGAIN when the other side is behind). */
int pass_send(int sock, char kind, unsigned slot, const void *data, size_t n,
	      const int *fds, size_t nfd);
