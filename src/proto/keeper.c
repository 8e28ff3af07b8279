/* The keeper's channel (keeper.h). What the wire sends is hostile to the
 * keeper once the wire may be an attacker's: each message is read as one
 * fixed form, every field bounded, every unused byte 0. */
#include "proto/keeper.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "proto/bytes.h"

static const uint8_t msg_magic[4] = {'L', 'N', 'K', 'K'};
static const uint8_t reply_magic[4] = {'L', 'N', 'K', 'A'};

/* Offsets in a wire's message. */
#define M_KIND 4
#define M_FAMILY 5  /* 'A', 'C' */
#define M_RULE 5    /* 'T' */
#define M_TLEN 6    /* 'T' */
#define M_PORT 6    /* 'A', 'C': two bytes */
#define M_ADDR 8    /* 'A', 'C': sixteen bytes */
#define M_FD 8	    /* 'L', 'B', 'P': four bytes */
#define M_TARGET 8  /* 'T' */
#define M_FLAGS 24  /* 'C' */
#define M_CPU 26    /* 'C': two bytes */
#define M_COOKIE 32 /* 'C': eight bytes */

/* Offsets in a keeper's answer. */
#define R_KIND 4
#define R_ANSWER 5
#define R_ERRNO 8
#define R_COOKIE 12

#define ERRNO_MAX 4095

/* Whether in[from..to) are all 0. */
static bool zero(const uint8_t *in, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		if (in[i])
			return false;
	return true;
}

static void put_addr(uint8_t *out, const struct lnk_addr *a, uint16_t port)
{
	out[M_FAMILY] = a->family == AF_INET6 ? 6 : 4;
	out[M_PORT] = (uint8_t)(port >> 8);
	out[M_PORT + 1] = (uint8_t)port;
	memcpy(out + M_ADDR, a->a, a->family == AF_INET6 ? 16 : 4);
}

void keeper_msg_encode(const struct keeper_msg *m, uint8_t out[KEEPER_MSG_SIZE])
{
	memset(out, 0, KEEPER_MSG_SIZE);
	memcpy(out, msg_magic, 4);
	out[M_KIND] = (uint8_t)m->kind;
	switch (m->kind) {
	case KEEPER_M_DNS:
		put_addr(out, &m->addr, m->port);
		return;
	case KEEPER_M_CONNECT:
		put_addr(out, &m->addr, m->port);
		out[M_FLAGS] = (uint8_t)m->flags;
		bytes_put_le(
		    out + M_CPU,
		    m->cpu >= 0 && m->cpu < 0xffff ? (uint64_t)m->cpu + 1 : 0,
		    2);
		bytes_put_le(out + M_COOKIE, m->cookie, 8);
		return;
	case KEEPER_M_LISTENER:
	case KEEPER_M_BIND:
		bytes_put_le(out + M_FD, (uint32_t)m->fd, 4);
		return;
	case KEEPER_M_BIND_PORT:
		out[M_PORT] = (uint8_t)(m->port >> 8);
		out[M_PORT + 1] = (uint8_t)m->port;
		bytes_put_le(out + M_FD, (uint32_t)m->fd, 4);
		return;
	case KEEPER_M_CLOSED:
		return;
	case KEEPER_M_TRIP: {
		size_t n = strnlen(m->target, KEEPER_TARGET_MAX);
		out[M_RULE] = (uint8_t)m->rule;
		out[M_TLEN] = (uint8_t)n;
		memcpy(out + M_TARGET, m->target, n);
		return;
	}
	}
}

/* An address and port ('A', 'C'); the bytes after [M_ADDR + 16) are the
 * caller's to check. */
static int get_addr(const uint8_t *in, struct keeper_msg *m)
{
	if (in[M_FAMILY] != 4 && in[M_FAMILY] != 6)
		return -EAFNOSUPPORT;
	m->addr.family = in[M_FAMILY] == 6 ? AF_INET6 : AF_INET;
	size_t n = in[M_FAMILY] == 6 ? 16 : 4;
	/* an IPv4 address carries nothing after its 4 bytes */
	if (!zero(in, M_ADDR + n, M_ADDR + 16))
		return -EBADMSG;
	memcpy(m->addr.a, in + M_ADDR, n);
	m->port = (uint16_t)(in[M_PORT] << 8 | in[M_PORT + 1]);
	return m->port ? 0 : -EINVAL;
}

static int get_fd(const uint8_t *in, struct keeper_msg *m)
{
	uint64_t fd = bytes_get_le(in + M_FD, 4);
	if (!zero(in, M_KIND + 1, M_FD) || !zero(in, M_FD + 4, KEEPER_MSG_SIZE))
		return -EBADMSG;
	if (fd > KEEPER_FD_MAX)
		return -EINVAL;
	m->fd = (int)fd;
	return 0;
}

/* 'P': a descriptor and a port, nothing else (no family byte). */
static int get_fd_port(const uint8_t *in, struct keeper_msg *m)
{
	uint64_t fd = bytes_get_le(in + M_FD, 4);
	if (!zero(in, M_KIND + 1, M_PORT) ||
	    !zero(in, M_FD + 4, KEEPER_MSG_SIZE))
		return -EBADMSG;
	m->port = (uint16_t)(in[M_PORT] << 8 | in[M_PORT + 1]);
	if (fd > KEEPER_FD_MAX || m->port == 0)
		return -EINVAL;
	m->fd = (int)fd;
	return 0;
}

static int get_trip(const uint8_t *in, struct keeper_msg *m)
{
	size_t n = in[M_TLEN];
	if (in[M_RULE] == TRIP_NONE || in[M_RULE] > TRIP_RULE_LAST ||
	    in[M_TLEN + 1] != 0 || n > KEEPER_TARGET_MAX ||
	    !zero(in, M_TARGET + n, KEEPER_MSG_SIZE))
		return -EBADMSG;
	/* the target reaches a terminal and a desktop: printable ASCII,
	 * no NUL within its length */
	for (size_t i = 0; i < n; i++)
		if (in[M_TARGET + i] < 0x20 || in[M_TARGET + i] > 0x7e)
			return -EBADMSG;
	m->rule = (enum trip_rule)in[M_RULE];
	memcpy(m->target, in + M_TARGET, n);
	m->target[n] = '\0';
	return 0;
}

int keeper_msg_decode(const uint8_t *in, size_t len, struct keeper_msg *m)
{
	memset(m, 0, sizeof(*m));
	if (len != KEEPER_MSG_SIZE || memcmp(in, msg_magic, 4) != 0)
		return -EBADMSG;
	int r;
	switch (in[M_KIND]) {
	case KEEPER_M_DNS:
		if (!zero(in, M_ADDR + 16, KEEPER_MSG_SIZE))
			return -EBADMSG;
		r = get_addr(in, m);
		break;
	case KEEPER_M_CONNECT:
		r = get_addr(in, m);
		if (r == 0 && ((in[M_FLAGS] & ~KEEPER_ASK_ALL) ||
			       !zero(in, M_FLAGS + 1, M_CPU) ||
			       !zero(in, M_CPU + 2, M_COOKIE) ||
			       !zero(in, M_COOKIE + 8, KEEPER_MSG_SIZE)))
			r = -EBADMSG;
		if (r < 0) {
			memset(m, 0, sizeof(*m));
			m->cpu = -1;
		} else {
			m->flags = in[M_FLAGS];
			m->cpu = (int)bytes_get_le(in + M_CPU, 2) - 1;
		}
		/* the cookie is any value: a connect refused for what else
		 * it holds is still answered, under its cookie */
		m->kind = KEEPER_M_CONNECT;
		m->cookie = bytes_get_le(in + M_COOKIE, 8);
		return r;
	case KEEPER_M_LISTENER:
	case KEEPER_M_BIND:
		r = get_fd(in, m);
		break;
	case KEEPER_M_BIND_PORT:
		r = get_fd_port(in, m);
		break;
	case KEEPER_M_TRIP:
		r = get_trip(in, m);
		break;
	case KEEPER_M_CLOSED:
		r = zero(in, M_KIND + 1, KEEPER_MSG_SIZE) ? 0 : -EBADMSG;
		break;
	default:
		return -EBADMSG;
	}
	if (r < 0) {
		memset(m, 0, sizeof(*m));
		return r;
	}
	m->kind = (enum keeper_msg_kind)in[M_KIND];
	return 0;
}

void keeper_reply_encode(const struct keeper_reply *r,
			 uint8_t out[KEEPER_ANSWER_SIZE])
{
	memset(out, 0, KEEPER_ANSWER_SIZE);
	memcpy(out, reply_magic, 4);
	out[R_KIND] = (uint8_t)r->kind;
	if (r->kind != KEEPER_R_ANSWER)
		return;
	out[R_ANSWER] = (uint8_t)r->answer;
	bytes_put_le(out + R_ERRNO, (uint32_t)r->error, 4);
	bytes_put_le(out + R_COOKIE, r->cookie, 8);
}

int keeper_reply_decode(const uint8_t *in, size_t len, struct keeper_reply *r)
{
	memset(r, 0, sizeof(*r));
	if (len != KEEPER_ANSWER_SIZE || memcmp(in, reply_magic, 4) != 0)
		return -EBADMSG;
	switch (in[R_KIND]) {
	case KEEPER_R_ACK:
	case KEEPER_R_NACK:
		if (!zero(in, R_KIND + 1, KEEPER_ANSWER_SIZE))
			return -EBADMSG;
		r->kind = (enum keeper_reply_kind)in[R_KIND];
		return 0;
	case KEEPER_R_ANSWER: {
		uint64_t e = bytes_get_le(in + R_ERRNO, 4);
		if (in[R_ANSWER] > KEEPER_BUSY ||
		    !zero(in, R_ANSWER + 1, R_ERRNO) || e > ERRNO_MAX ||
		    (in[R_ANSWER] == KEEPER_CONNECTING && e))
			return -EBADMSG;
		r->kind = KEEPER_R_ANSWER;
		r->answer = (enum keeper_answer_kind)in[R_ANSWER];
		r->error = (int)e;
		r->cookie = bytes_get_le(in + R_COOKIE, 8);
		return 0;
	}
	default:
		return -EBADMSG;
	}
}
