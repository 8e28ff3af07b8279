/* A DNS message from the program (dnsmsg.h). */
#include "proto/dnsmsg.h"

#include <errno.h>
#include <string.h>

#include "proto/bytes.h"

#define DNS_QR 0x8000u
#define DNS_RD 0x0100u
#define DNS_RA 0x0080u
#define RCODE_FORMERR DNSD_RCODE_FORMERR
#define RCODE_NOTIMP DNSD_RCODE_NOTIMP
#define QTYPE_A DNSD_QTYPE_A
#define QTYPE_AAAA DNSD_QTYPE_AAAA
#define QCLASS_IN 1
/* Short: a name's addresses may change, and a remembered address is only
 * a name for the log and the grants, never a reason to connect. */
#define ANSWER_TTL 30

int dnsd_parse(const uint8_t *m, size_t len, struct dnsd_question *q)
{
	memset(q, 0, sizeof(*q));
	if (len < 12)
		return -EPROTO;
	q->id = bytes_get_be16(m);
	q->flags = bytes_get_be16(m + 2);
	if (q->flags & DNS_QR)
		return -EPROTO; /* an answer: never answered */
	if (((q->flags >> 11) & 0xf) != 0)
		return RCODE_NOTIMP; /* only QUERY */
	if (bytes_get_be16(m + 4) != 1)
		return RCODE_FORMERR;
	size_t off = 12, nlen = 0;
	for (;;) {
		if (off >= len)
			return RCODE_FORMERR;
		uint8_t l = m[off++];
		if (l == 0)
			break;
		/* no compression, no extended labels in a question */
		if (l > 63 || off + l > len || (nlen ? nlen + 1 : 0) + l > 253)
			return RCODE_FORMERR;
		if (nlen)
			q->name[nlen++] = '.';
		for (uint8_t i = 0; i < l; i++) {
			char c = (char)m[off + i];
			if (c >= 'A' && c <= 'Z')
				c = (char)(c - 'A' + 'a');
			/* a NUL or dot inside a label is no host name; the
			 * rest is host_normalize's to judge */
			if (c == '\0' || c == '.')
				c = '\x01';
			q->name[nlen++] = c;
		}
		off += l;
	}
	q->name[nlen] = '\0';
	if (off + 4 > len)
		return RCODE_FORMERR;
	q->qtype = bytes_get_be16(m + off);
	q->qclass = bytes_get_be16(m + off + 2);
	q->qlen = off + 4 - 12;
	return 0;
}

size_t dnsd_answer(const uint8_t *query, const struct dnsd_question *q,
		   int rcode, const struct lnk_addr *a, size_t n, uint8_t *out,
		   size_t cap)
{
	if (cap < 12 + q->qlen)
		return 0;
	bytes_put_be16(out, q->id);
	uint16_t fl =
	    (uint16_t)(DNS_QR | (q->flags & DNS_RD) | DNS_RA | (rcode & 0xf));
	bytes_put_be16(out + 2, fl);
	bytes_put_be16(out + 4, q->qlen ? 1 : 0);
	bytes_put_be16(out + 6, 0);
	bytes_put_be16(out + 8, 0);
	bytes_put_be16(out + 10, 0);
	memcpy(out + 12, query + 12, q->qlen);
	size_t len = 12 + q->qlen;
	uint16_t an = 0;
	for (size_t i = 0; rcode == 0 && i < n; i++) {
		bool v6 = a[i].family == AF_INET6;
		if ((q->qtype == QTYPE_A && v6) ||
		    (q->qtype == QTYPE_AAAA && !v6))
			continue;
		size_t rl = v6 ? 16 : 4;
		if (len + 12 + rl > cap)
			break; /* what fits: a client asks again over TCP */
		bytes_put_be16(out + len, 0xc00c); /* the question's name */
		bytes_put_be16(out + len + 2, q->qtype);
		bytes_put_be16(out + len + 4, QCLASS_IN);
		out[len + 6] = 0;
		out[len + 7] = 0;
		bytes_put_be16(out + len + 8, ANSWER_TTL);
		bytes_put_be16(out + len + 10, (uint16_t)rl);
		memcpy(out + len + 12, a[i].a, rl);
		len += 12 + rl;
		an++;
	}
	bytes_put_be16(out + 6, an);
	return len;
}
