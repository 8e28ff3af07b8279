/* A DNS message from the program, as the sandbox's resolvers read it
 * (the wire's, src/wire/dnsd.c, and the one of a sandbox without
 * network, src/init/resolver.c): one question, bounded, no compression in
 * it, nothing else read; and the answer built to it.
 *
 * Threat: the query is the program's bytes, read by a parser outside the
 * sandbox (the wire) or beside it; every length is checked before it is
 * used, and a query that is not one plain question is answered FORMERR or
 * NOTIMP, or dropped. Fuzzed: tests/fuzz/fuzz_dnsd.c. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "net/addr.h"

#define DNSD_MSG_MAX 4096
#define DNSD_RCODE_FORMERR 1
#define DNSD_RCODE_SERVFAIL 2
#define DNSD_RCODE_NXDOMAIN 3
#define DNSD_RCODE_NOTIMP 4
#define DNSD_RCODE_REFUSED 5
#define DNSD_QTYPE_A 1
#define DNSD_QTYPE_AAAA 28
/* The largest answer over UDP without EDNS. */
#define DNSD_UDP_ANSWER_MAX 512

struct dnsd_question {
	uint16_t id, flags, qtype, qclass;
	char name[256]; /* lower case, no trailing dot; "" for the root */
	size_t qlen;	/* the question's bytes in the query, from 12 */
};
/* 0, -EPROTO (drop it: not a query), or a DNS rcode > 0 to answer with
 * (1 FORMERR, 4 NOTIMP). */
int dnsd_parse(const uint8_t *m, size_t len, struct dnsd_question *q);
/* The answer to q (query: the question's bytes, echoed) with rcode and,
 * for rcode 0, the addresses of q's type among a; at most cap bytes
 * (the rest of the addresses left out). The length. */
size_t dnsd_answer(const uint8_t *query, const struct dnsd_question *q,
		   int rcode, const struct lnk_addr *a, size_t n, uint8_t *out,
		   size_t cap);
