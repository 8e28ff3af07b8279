#include "net/addr.h"

#include "common/util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

/* A strict dotted quad: four decimal parts 0..255, no leading zeros, no
 * signs, nothing else. inet_aton would also take 127.1, 0x7f.1 and 017.0.0.1,
 * each a different address than a careless reader assumes. */
static bool parse_v4_strict(const char *s, uint8_t out[4])
{
	for (int i = 0; i < 4; i++) {
		if (*s < '0' || *s > '9')
			return false;
		unsigned v = 0;
		const char *start = s;
		while (*s >= '0' && *s <= '9') {
			v = v * 10 + (unsigned)(*s - '0');
			if (v > 255 || s - start >= 3)
				return false;
			s++;
		}
		if (s - start > 1 && *start == '0')
			return false;
		out[i] = (uint8_t)v;
		if (i < 3) {
			if (*s != '.')
				return false;
			s++;
		}
	}
	return *s == '\0';
}

/* The WHATWG URL rule: a host whose last label is a number (decimal or 0x
 * hex) is meant as an IPv4 address by browsers and inet_aton alike. */
static bool last_label_numeric(const char *s)
{
	const char *dot = strrchr(s, '.');
	const char *l = dot ? dot + 1 : s;
	if (!*l)
		return false;
	if (l[0] == '0' && (l[1] == 'x' || l[1] == 'X')) {
		for (l += 2; *l; l++)
			if (hex_value(*l) < 0)
				return false;
		return true;
	}
	for (; *l; l++)
		if (*l < '0' || *l > '9')
			return false;
	return true;
}

enum literal_kind addr_parse_literal(const char *host, struct lnk_addr *out)
{
	memset(out, 0, sizeof(*out));
	if (parse_v4_strict(host, out->a)) {
		out->family = AF_INET;
		return LIT_ADDR;
	}
	if (strchr(host, ':')) {
		/* inet_pton refuses zone ids (%eth0) and anything loose. */
		if (inet_pton(AF_INET6, host, out->a) == 1) {
			out->family = AF_INET6;
			return LIT_ADDR;
		}
		return LIT_AMBIGUOUS;
	}
	if (last_label_numeric(host))
		return LIT_AMBIGUOUS;
	return LIT_NAME;
}

static bool v4_in(const uint8_t *a, uint32_t net, unsigned prefix)
{
	uint32_t x = (uint32_t)a[0] << 24 | (uint32_t)a[1] << 16 |
		     (uint32_t)a[2] << 8 | a[3];
	uint32_t mask = prefix ? ~0u << (32 - prefix) : 0;
	return (x & mask) == (net & mask);
}

#define V4(a, b, c, d) ((uint32_t)(a) << 24 | (b) << 16 | (c) << 8 | (d))

/* The clouds' metadata and credential services, which hand a program on
 * the machine the machine's (or its task's) secrets: AWS, GCP, Azure's
 * instance metadata and most others (169.254.169.254), Alibaba's
 * (100.100.100.200), Azure's WireServer (168.63.129.16: the VM's goal
 * state, extension settings and certificates; also its platform DNS,
 * which the keeper lets the wire reach on port 53 when it is this
 * machine's DNS server), AWS ECS's task credentials (169.254.170.2) and
 * EKS Pod Identity's agent (169.254.170.23), Tencent's (169.254.0.23) and
 * Oracle's older one (192.0.0.192). */
static const uint32_t metadata_v4[] = {
    V4(169, 254, 169, 254), V4(100, 100, 100, 200), V4(168, 63, 129, 16),
    V4(169, 254, 170, 2),   V4(169, 254, 170, 23),  V4(169, 254, 0, 23),
    V4(192, 0, 0, 192),
};

static enum addr_class classify_v4(const uint8_t *a)
{
	for (size_t i = 0; i < ARRAY_SIZE(metadata_v4); i++)
		if (v4_in(a, metadata_v4[i], 32))
			return AC_METADATA;
	if (v4_in(a, V4(255, 255, 255, 255), 32))
		return AC_BROADCAST;
	if (v4_in(a, V4(0, 0, 0, 0), 8))
		return AC_UNSPECIFIED;
	if (v4_in(a, V4(127, 0, 0, 0), 8))
		return AC_LOOPBACK;
	if (v4_in(a, V4(10, 0, 0, 0), 8) || v4_in(a, V4(172, 16, 0, 0), 12) ||
	    v4_in(a, V4(192, 168, 0, 0), 16))
		return AC_PRIVATE;
	if (v4_in(a, V4(100, 64, 0, 0), 10))
		return AC_CGNAT;
	if (v4_in(a, V4(169, 254, 0, 0), 16))
		return AC_LINK_LOCAL;
	if (v4_in(a, V4(224, 0, 0, 0), 4))
		return AC_MULTICAST;
	if (v4_in(a, V4(240, 0, 0, 0), 4) || v4_in(a, V4(192, 0, 0, 0), 24))
		return AC_RESERVED;
	return AC_INTERNET;
}

static bool prefix_eq(const uint8_t *a, const uint8_t *p, size_t n)
{
	return memcmp(a, p, n) == 0;
}

static void push_v4(struct lnk_addr *out, size_t *n, uint8_t a, uint8_t b,
		    uint8_t c, uint8_t d)
{
	if (*n >= ADDR_EMBED_MAX)
		return;
	memset(&out[*n], 0, sizeof(out[*n]));
	out[*n].family = AF_INET;
	out[*n].a[0] = a;
	out[*n].a[1] = b;
	out[*n].a[2] = c;
	out[*n].a[3] = d;
	(*n)++;
}

bool addr_v4_mapped(const struct lnk_addr *a, struct lnk_addr *v4)
{
	static const uint8_t mapped[12] = {0, 0, 0, 0, 0,    0,
					   0, 0, 0, 0, 0xff, 0xff};
	if (a->family != AF_INET6 || !prefix_eq(a->a, mapped, 12))
		return false;
	memset(v4, 0, sizeof(*v4));
	v4->family = AF_INET;
	memcpy(v4->a, a->a + 12, 4);
	return true;
}

size_t addr_embedded(const struct lnk_addr *a,
		     struct lnk_addr out[ADDR_EMBED_MAX])
{
	static const uint8_t mapped[12] = {0, 0, 0, 0, 0,    0,
					   0, 0, 0, 0, 0xff, 0xff};
	static const uint8_t siit[12] = {0, 0, 0,    0,	   0, 0,
					 0, 0, 0xff, 0xff, 0, 0};
	static const uint8_t zero[12] = {0};
	static const uint8_t nat64[12] = {0, 0x64, 0xff, 0x9b, 0, 0,
					  0, 0,	   0,	 0,    0, 0};
	static const uint8_t nat64_local[6] = {0, 0x64, 0xff, 0x9b, 0, 1};
	static const uint8_t teredo[4] = {0x20, 0x01, 0, 0};
	const uint8_t *x = a->a;
	size_t n = 0;
	if (a->family != AF_INET6)
		return 0;
	if (prefix_eq(x, mapped, 12) || prefix_eq(x, siit, 12) ||
	    prefix_eq(x, nat64, 12))
		push_v4(out, &n, x[12], x[13], x[14], x[15]);
	else if (prefix_eq(x, zero, 12)) {
		/* IPv4-compatible ::a.b.c.d; :: and ::1 stay IPv6. */
		if (x[12] || x[13] || x[14] > 0 || x[15] > 1)
			push_v4(out, &n, x[12], x[13], x[14], x[15]);
		return n;
	}
	if (x[0] == 0x20 && x[1] == 0x02) /* 6to4 2002:AABB:CCDD::/48 */
		push_v4(out, &n, x[2], x[3], x[4], x[5]);
	if (prefix_eq(x, teredo, 4)) {
		/* Teredo 2001:0:SSSS:SSSS:flags:port:CCCC:CCCC: the server,
		 * and the client's address stored inverted */
		push_v4(out, &n, x[4], x[5], x[6], x[7]);
		push_v4(out, &n, (uint8_t)~x[12], (uint8_t)~x[13],
			(uint8_t)~x[14], (uint8_t)~x[15]);
	}
	if (prefix_eq(x, nat64_local, 6)) {
		/* the local-use prefix as a /48 (RFC 6052: bits 48-63 and
		 * 72-87) and as a /96; a translator may use either */
		push_v4(out, &n, x[6], x[7], x[9], x[10]);
		push_v4(out, &n, x[12], x[13], x[14], x[15]);
	}
	/* ISATAP: any prefix, the interface identifier 0:5efe:a.b.c.d or
	 * 200:5efe:a.b.c.d (the universal/local and group bits either way) */
	if ((x[8] & 0xfc) == 0 && x[9] == 0 && x[10] == 0x5e && x[11] == 0xfe)
		push_v4(out, &n, x[12], x[13], x[14], x[15]);
	return n;
}

static enum addr_class classify_v6(const uint8_t *a)
{
	/* fd00:ec2::254 (AWS's metadata) and fd00:ec2::23 (EKS Pod
	 * Identity's agent) */
	static const uint8_t ec2[14] = {0xfd, 0x00, 0x0e, 0xc2, 0, 0, 0,
					0,    0,    0,	  0,	0, 0, 0};
	static const uint8_t nat64_local[6] = {0, 0x64, 0xff, 0x9b, 0, 1};
	static const uint8_t zero[16] = {0};
	if (memcmp(a, ec2, 14) == 0 &&
	    ((a[14] == 0x02 && a[15] == 0x54) || (a[14] == 0 && a[15] == 0x23)))
		return AC_METADATA;
	if (memcmp(a, zero, 16) == 0)
		return AC_UNSPECIFIED;
	if (memcmp(a, zero, 15) == 0 && a[15] == 1)
		return AC_LOOPBACK;
	if (a[0] == 0xff)
		return AC_MULTICAST;
	if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80)
		return AC_LINK_LOCAL;
	if (a[0] == 0xfe && (a[1] & 0xc0) == 0xc0)
		return AC_PRIVATE; /* site-local, deprecated but routable */
	if ((a[0] & 0xfe) == 0xfc)
		return AC_ULA;
	/* NAT64 local use (RFC 8215) carries a private translator's choice
	 * of IPv4 at a position we cannot know: never internet. */
	if (memcmp(a, nat64_local, 6) == 0)
		return AC_PRIVATE;
	if (a[0] == 0x01 && memcmp(a + 1, zero, 7) == 0)
		return AC_RESERVED; /* 100::/64 discard */
	return AC_INTERNET;
}

/* How strongly a class refuses: the classes no grant reaches first, then
 * those only a [lan] grant reaches, the internet last. */
static int refusal_rank(enum addr_class c)
{
	switch (c) {
	case AC_METADATA:
		return 10;
	case AC_LOOPBACK:
		return 9;
	case AC_UNSPECIFIED:
		return 8;
	case AC_BROADCAST:
		return 7;
	case AC_MULTICAST:
		return 6;
	case AC_RESERVED:
		return 5;
	case AC_LINK_LOCAL:
		return 4;
	case AC_PRIVATE:
		return 3;
	case AC_CGNAT:
		return 2;
	case AC_ULA:
		return 1;
	case AC_INTERNET:
		break;
	}
	return 0;
}

enum addr_class addr_classify(const struct lnk_addr *a)
{
	if (a->family == AF_INET)
		return classify_v4(a->a);
	enum addr_class c = classify_v6(a->a);
	struct lnk_addr e[ADDR_EMBED_MAX];
	size_t n = addr_embedded(a, e);
	for (size_t i = 0; i < n; i++) {
		enum addr_class ec = classify_v4(e[i].a);
		if (refusal_rank(ec) > refusal_rank(c))
			c = ec;
	}
	return c;
}

const char *addr_class_name(enum addr_class c)
{
	switch (c) {
	case AC_INTERNET:
		return "internet";
	case AC_LOOPBACK:
		return "loopback";
	case AC_UNSPECIFIED:
		return "unspecified";
	case AC_PRIVATE:
		return "private";
	case AC_CGNAT:
		return "cgnat";
	case AC_LINK_LOCAL:
		return "link-local";
	case AC_ULA:
		return "unique-local";
	case AC_MULTICAST:
		return "multicast";
	case AC_BROADCAST:
		return "broadcast";
	case AC_RESERVED:
		return "reserved";
	case AC_METADATA:
		return "cloud metadata";
	}
	return "unknown";
}

const char *addr_never_why(enum addr_class c)
{
	switch (c) {
	case AC_METADATA:
		return "cloud metadata address";
	case AC_LOOPBACK:
		return "loopback address (use --port for this machine)";
	case AC_UNSPECIFIED:
		return "unspecified address";
	case AC_MULTICAST:
		return "multicast address";
	case AC_BROADCAST:
		return "broadcast address";
	case AC_RESERVED:
		return "reserved address";
	case AC_INTERNET:
	case AC_PRIVATE:
	case AC_CGNAT:
	case AC_LINK_LOCAL:
	case AC_ULA:
		break;
	}
	return NULL;
}

bool addr_equal(const struct lnk_addr *x, const struct lnk_addr *y)
{
	if (x->family != y->family)
		return false;
	return memcmp(x->a, y->a, x->family == AF_INET ? 4 : 16) == 0;
}

bool addr_in_net(const struct lnk_addr *a, const struct lnk_addr *net,
		 unsigned prefix)
{
	const struct lnk_addr *u = a, *n = net;
	if (u->family != n->family)
		return false;
	unsigned max = u->family == AF_INET ? 32 : 128;
	if (prefix > max)
		return false;
	unsigned full = prefix / 8, rest = prefix % 8;
	if (memcmp(u->a, n->a, full) != 0)
		return false;
	if (rest) {
		uint8_t m = (uint8_t)(0xff << (8 - rest));
		if ((u->a[full] & m) != (n->a[full] & m))
			return false;
	}
	return true;
}

int addr_from_sockaddr(const struct sockaddr *sa, struct lnk_addr *out)
{
	memset(out, 0, sizeof(*out));
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *s = (const void *)sa;
		out->family = AF_INET;
		memcpy(out->a, &s->sin_addr, 4);
		return 0;
	}
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s = (const void *)sa;
		out->family = AF_INET6;
		memcpy(out->a, &s->sin6_addr, 16);
		return 0;
	}
	return -EAFNOSUPPORT;
}

socklen_t addr_to_sockaddr(const struct lnk_addr *a, uint16_t port,
			   struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (a->family == AF_INET) {
		struct sockaddr_in *s = (void *)ss;
		s->sin_family = AF_INET;
		s->sin_port = htons(port);
		memcpy(&s->sin_addr, a->a, 4);
		return sizeof(*s);
	}
	struct sockaddr_in6 *s = (void *)ss;
	s->sin6_family = AF_INET6;
	s->sin6_port = htons(port);
	memcpy(&s->sin6_addr, a->a, 16);
	return sizeof(*s);
}

socklen_t addr_loopback_sockaddr(int family, uint16_t port,
				 struct sockaddr_storage *ss)
{
	struct lnk_addr a = {.family = family == AF_INET ? AF_INET : AF_INET6};
	if (a.family == AF_INET) {
		a.a[0] = 127;
		a.a[3] = 1;
	} else {
		a.a[15] = 1;
	}
	return addr_to_sockaddr(&a, port, ss);
}

void addr_format(const struct lnk_addr *a, char *out, size_t cap)
{
	if (!inet_ntop(a->family, a->a, out, (socklen_t)cap))
		snprintf(out, cap, "?");
}
