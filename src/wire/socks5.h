/* The SOCKS5 listener's message parsers (RFC 1928): greeting and CONNECT.
 *
 * Pure and fuzzed, like http.c: hostile bytes in, "need more", a request,
 * or a refusal with the reply code to send. Only "no authentication" is
 * offered (the listener is the sandbox's own), and only CONNECT.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "net/addr.h"

enum socks5_rep {
	SOCKS5_OK = 0x00,
	SOCKS5_FAILURE = 0x01,
	SOCKS5_NOT_ALLOWED = 0x02,
	SOCKS5_NET_UNREACH = 0x03,
	SOCKS5_HOST_UNREACH = 0x04,
	SOCKS5_CONN_REFUSED = 0x05,
	SOCKS5_TTL_EXPIRED = 0x06,
	SOCKS5_CMD_UNSUPPORTED = 0x07,
	SOCKS5_ATYP_UNSUPPORTED = 0x08,
};

/* >0: bytes consumed; 0: need more; <0: bad (close; *reply, if not 0, is
 * the two-byte method reply to send first: 05 FF). */
int socks5_parse_greeting(const uint8_t *b, size_t len, int *reply);

struct socks5_req {
	char host[256]; /* a name (ATYP 3) or the literal's text */
	int is_addr;	/* ATYP 1 or 4 */
	struct lnk_addr addr;
	uint16_t port;
};

/* >0: bytes consumed; 0: need more; <0: bad, answer *rep and close. */
int socks5_parse_request(const uint8_t *b, size_t len, struct socks5_req *r,
			 enum socks5_rep *rep);

/* The reply to a request; bound may be NULL (then 0.0.0.0:0). Writes at
 * most 22 bytes into out and returns the length. */
size_t socks5_reply(enum socks5_rep rep, const struct lnk_addr *bound,
		    uint16_t port, uint8_t out[22]);
