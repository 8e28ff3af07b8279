/* The channel between the wire and its keeper (wire/keeper.h): a
 * SOCK_SEQPACKET pair of fixed-size messages. The keeper is the wire's
 * unconfined parent: it makes the connects of the confined wire and binds
 * its DNS sockets. After its setup the wire may be an attacker's (a
 * program that took it over), so every message it sends is hostile to
 * the keeper, which decodes it here (keeper_msg_decode) into a checked
 * struct before it acts, and checks each address again.
 *
 * The wire's messages, KEEPER_MSG_SIZE bytes, "LNKK" then the kind:
 *   [0..3] "LNKK"  [4] kind
 *   'A' a DNS server (setup only): [5] 4 or 6, [6..7] port (big-endian,
 *       not 0), [8..23] address (IPv4 in [8..11])
 *   'L' the seccomp listener (setup's last): [8..11] its descriptor
 *       number in the wire (little-endian)
 *   'B' bind a DNS socket: [8..11] its descriptor number in the wire
 *   'T' a trip: [5] the rule (1..TRIP_RULE_LAST), [6] the target's
 *       length, [8..] the target, printable ASCII (ctl_printable)
 *   'C' connect: [5] 4 or 6, [6..7] port, [8..23] address as in 'A',
 *       [24] flags (KEEPER_ASK_*), [26..27] the CPU the wire asked
 *       from plus one (little-endian; 0: not known; a hint only,
 *       wire/near.h), [32..39] the wire's cookie (any value,
 *       little-endian)
 * Every other byte is 0: a message has one form, so what the keeper
 * accepts is exactly what the wire's encoder writes.
 *
 * The keeper's answers, KEEPER_ANSWER_SIZE bytes, "LNKA" then the kind:
 *   [0..3] "LNKA"  [4] kind
 *   'K' / 'N' the listener or the DNS socket taken, or not
 *   'R' to a connect: [5] its outcome (enum keeper_answer_kind), [8..11]
 *       an errno below 4096 (0 with KEEPER_CONNECTING), [12..19] the
 *       cookie; with the socket (SCM_RIGHTS) exactly when the outcome is
 *       KEEPER_CONNECTING (wire/keeper.c checks the descriptor)
 *
 * Pure: no I/O (the sockets are wire/keeper.c's). Fuzzed: fuzz_keeper. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net/addr.h"
#include "proto/ctl.h"

/* A trip's target, at most: the wire's trip.h keeps its targets to this
 * many bytes too. */
#define KEEPER_TARGET_MAX 255
#define KEEPER_MSG_SIZE (8 + KEEPER_TARGET_MAX + 1)
#define KEEPER_ANSWER_SIZE 20
/* The most DNS servers the wire names. */
#define KEEPER_MAX_DNS 16
/* A descriptor number of the wire's, at most. */
#define KEEPER_FD_MAX INT32_MAX

/* The address may be reached as internet only: refuse it when it is the
 * first router's own (wire/hop.h). The only flag. */
#define KEEPER_ASK_FIRST_HOP 1u
#define KEEPER_ASK_ALL KEEPER_ASK_FIRST_HOP

enum keeper_msg_kind {
	KEEPER_M_DNS = 'A',
	KEEPER_M_LISTENER = 'L',
	KEEPER_M_BIND = 'B',
	KEEPER_M_BIND_PORT = 'P',
	KEEPER_M_TRIP = 'T',
	KEEPER_M_CONNECT = 'C',
	/* the wire closed (paused, stopped, tripped): no connect asked
	 * before this message is made; nothing else in it */
	KEEPER_M_CLOSED = 'X',
};

/* One message of the wire's, checked. */
struct keeper_msg {
	enum keeper_msg_kind kind;
	struct lnk_addr addr; /* 'A', 'C' */
	uint16_t port;	      /* 'A', 'C', 'P': never 0 */
	unsigned flags;	      /* 'C': KEEPER_ASK_* */
	uint64_t cookie;      /* 'C' */
	int cpu;	      /* 'C': the wire's CPU, -1 not known; to 65534 */
	int fd;		      /* 'L', 'B', 'P': 0..KEEPER_FD_MAX */
	enum trip_rule rule;  /* 'T': TRIP_NONE < rule <= TRIP_RULE_LAST */
	char target[KEEPER_TARGET_MAX + 1]; /* 'T': printable ASCII */
};

/* m in its one form; the fields its kind does not use are not read. A
 * trip's target must be printable ASCII of at most KEEPER_TARGET_MAX
 * bytes (ctl_printable into a buffer of that size makes one). */
void keeper_msg_encode(const struct keeper_msg *m,
		       uint8_t out[KEEPER_MSG_SIZE]);
/* 0 with *m filled, or -errno for anything but one message of the form
 * above: -EBADMSG (the size, the magic, the kind, a flag, a rule, a
 * length, a byte that should be 0, a target with a byte not printable
 * or a NUL), -EAFNOSUPPORT (a family not 4 or 6), -EINVAL (port 0, a
 * descriptor number out of range). A connect refused for what it holds
 * still has m->kind KEEPER_M_CONNECT and its cookie set, so the keeper
 * answers it (the wire's call would wait for its timeout otherwise);
 * any other refusal leaves m->kind 0. */
int keeper_msg_decode(const uint8_t *in, size_t len, struct keeper_msg *m);

enum keeper_answer_kind {
	KEEPER_CONNECTING = 0, /* fd connects (non-blocking: wait writable) */
	KEEPER_FAILED,	       /* error: the socket or the connect failed,
				* or the address is this machine's */
	KEEPER_FIRST_HOP,      /* the first router's own address */
	KEEPER_HOP_UNKNOWN,    /* the first-hop probe had no answer */
	KEEPER_BUSY,	       /* more connects unanswered than the wire
				* ever has */
};

enum keeper_reply_kind {
	KEEPER_R_ACK = 'K',
	KEEPER_R_NACK = 'N',
	KEEPER_R_ANSWER = 'R',
};

/* One message of the keeper's. */
struct keeper_reply {
	enum keeper_reply_kind kind;
	enum keeper_answer_kind answer; /* 'R' */
	int error;			/* 'R': 0..4095 */
	uint64_t cookie;		/* 'R' */
};

void keeper_reply_encode(const struct keeper_reply *r,
			 uint8_t out[KEEPER_ANSWER_SIZE]);
/* 0 with *r filled, or -EBADMSG for anything but one message of the form
 * above. */
int keeper_reply_decode(const uint8_t *in, size_t len, struct keeper_reply *r);
