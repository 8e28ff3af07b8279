#include "proto/tproxy.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

static const uint8_t magic[4] = {'L', 'N', 'K', 'T'};

void tproxy_head_encode(const struct lnk_addr *a, uint16_t port,
			uint8_t out[TPROXY_HEAD_SIZE])
{
	memset(out, 0, TPROXY_HEAD_SIZE);
	memcpy(out, magic, 4);
	out[4] = TPROXY_VERSION;
	out[5] = a->family == AF_INET6 ? 6 : 4;
	out[6] = (uint8_t)(port >> 8);
	out[7] = (uint8_t)port;
	memcpy(out + 8, a->a, a->family == AF_INET6 ? 16 : 4);
}

int tproxy_head_decode(const uint8_t *in, size_t len, struct lnk_addr *a,
		       uint16_t *port)
{
	if (len != TPROXY_HEAD_SIZE || memcmp(in, magic, 4) != 0 ||
	    in[4] != TPROXY_VERSION || (in[5] != 4 && in[5] != 6))
		return -EPROTO;
	memset(a, 0, sizeof(*a));
	a->family = in[5] == 6 ? AF_INET6 : AF_INET;
	/* an IPv4 head carries nothing after its 4 bytes */
	if (in[5] == 4) {
		for (size_t i = 12; i < TPROXY_HEAD_SIZE; i++)
			if (in[i])
				return -EPROTO;
	}
	memcpy(a->a, in + 8, in[5] == 6 ? 16 : 4);
	*port = (uint16_t)(in[6] << 8 | in[7]);
	if (*port == 0)
		return -EPROTO;
	return 0;
}

int tproxy_verdict_errno(uint8_t v)
{
	switch (v) {
	case TPROXY_OK:
		return 0;
	case TPROXY_REFUSED:
	case TPROXY_CONN_REFUSED:
		return ECONNREFUSED;
	case TPROXY_TIMEDOUT:
		return ETIMEDOUT;
	case TPROXY_NET_UNREACH:
		return ENETUNREACH;
	case TPROXY_HOST_UNREACH:
		return EHOSTUNREACH;
	default:
		return ECONNREFUSED;
	}
}
