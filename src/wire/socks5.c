#include "wire/socks5.h"

#include <string.h>

int socks5_parse_greeting(const uint8_t *b, size_t len, int *reply)
{
	*reply = 0;
	if (len < 1)
		return 0;
	if (b[0] != 5)
		return -1; /* not SOCKS5 (SOCKS4 has no names checked) */
	if (len < 2)
		return 0;
	size_t n = b[1];
	if (n == 0) {
		*reply = 1;
		return -1;
	}
	if (len < 2 + n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (b[2 + i] == 0x00)
			return (int)(2 + n);
	*reply = 1; /* 05 FF: no acceptable method */
	return -1;
}

int socks5_parse_request(const uint8_t *b, size_t len, struct socks5_req *r,
			 enum socks5_rep *rep)
{
	memset(r, 0, sizeof(*r));
	*rep = SOCKS5_FAILURE;
	if (len < 4)
		return 0;
	if (b[0] != 5 || b[2] != 0)
		return -1;
	if (b[1] != 1) {
		*rep = SOCKS5_CMD_UNSUPPORTED; /* BIND, UDP ASSOCIATE */
		return -1;
	}
	size_t need;
	switch (b[3]) {
	case 1:	  /* IPv4: 4 bytes */
	case 4: { /* IPv6: 16 bytes */
		size_t alen = b[3] == 1 ? 4 : 16;
		need = 4 + alen + 2;
		if (len < need)
			return 0;
		r->is_addr = 1;
		r->addr.family = b[3] == 1 ? AF_INET : AF_INET6;
		memcpy(r->addr.a, b + 4, alen);
		addr_format(&r->addr, r->host, sizeof(r->host));
		break;
	}
	case 3: {
		if (len < 5)
			return 0;
		size_t n = b[4];
		need = 5 + n + 2;
		if (n == 0) {
			*rep = SOCKS5_HOST_UNREACH;
			return -1;
		}
		if (len < need)
			return 0;
		for (size_t i = 0; i < n; i++)
			if (b[5 + i] == 0) {
				/* "allowed.com\0.evil" must not reach a C
				 * string compare as allowed.com */
				*rep = SOCKS5_HOST_UNREACH;
				return -1;
			}
		memcpy(r->host, b + 5, n);
		r->host[n] = '\0';
		break;
	}
	default:
		*rep = SOCKS5_ATYP_UNSUPPORTED;
		return -1;
	}
	r->port = (uint16_t)(b[need - 2] << 8 | b[need - 1]);
	if (r->port == 0) {
		*rep = SOCKS5_HOST_UNREACH;
		return -1;
	}
	return (int)need;
}

size_t socks5_reply(enum socks5_rep rep, const struct lnk_addr *bound,
		    uint16_t port, uint8_t out[22])
{
	out[0] = 5;
	out[1] = (uint8_t)rep;
	out[2] = 0;
	size_t n;
	if (bound && bound->family == AF_INET6) {
		out[3] = 4;
		memcpy(out + 4, bound->a, 16);
		n = 20;
	} else {
		out[3] = 1;
		if (bound)
			memcpy(out + 4, bound->a, 4);
		else
			memset(out + 4, 0, 4);
		n = 8;
	}
	out[n] = (uint8_t)(port >> 8);
	out[n + 1] = (uint8_t)port;
	return n + 2;
}
