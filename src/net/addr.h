/* Address classes and strict IP literals (docs/design.md, invariant 3).
 *
 * The wire decides what a call may reach by the address it connects to, not
 * by the name it was asked for: a name can resolve anywhere (DNS rebinding),
 * and a literal can be spelled many ways (127.1, 2130706433, 0x7f000001,
 * ::ffff:127.0.0.1). So every address, resolved or literal, goes through one
 * classifier, and literals are parsed strictly: a spelling inet_aton would
 * accept but a strict dotted quad would not is refused, never guessed.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct lnk_addr {
	int family;    /* AF_INET or AF_INET6 */
	uint8_t a[16]; /* network order; IPv4 uses a[0..3] */
};

enum addr_class {
	AC_INTERNET,	/* everything not listed below */
	AC_LOOPBACK,	/* 127.0.0.0/8, ::1 */
	AC_UNSPECIFIED, /* 0.0.0.0/8, :: */
	AC_PRIVATE,	/* RFC 1918, fec0::/10, NAT64 local use */
	AC_CGNAT,	/* 100.64.0.0/10 */
	AC_LINK_LOCAL,	/* 169.254.0.0/16, fe80::/10 */
	AC_ULA,		/* fc00::/7 */
	AC_MULTICAST,	/* 224.0.0.0/4, ff00::/8 */
	AC_BROADCAST,	/* 255.255.255.255 */
	AC_RESERVED,	/* 240.0.0.0/4, 192.0.0.0/24, 100::/64 */
	AC_METADATA,	/* 169.254.169.254, fd00:ec2::254, 100.100.100.200 */
};

/* What a host string is. */
enum literal_kind {
	LIT_NAME,     /* not an address: a name to resolve */
	LIT_ADDR,     /* a strict IPv4 dotted quad or an IPv6 address */
	LIT_AMBIGUOUS /* looks numeric but is no strict literal (127.1,
		       * 2130706433, 0x7f000001, 0177.0.0.1, 1.2.3.4.5):
		       * refused, because resolvers disagree on its meaning */
};

/* Classifies host (no brackets; a trailing dot already removed). */
enum literal_kind addr_parse_literal(const char *host, struct lnk_addr *out);

/* The class of a: its own, or the class of an IPv4 address it embeds
 * (addr_embedded) when that one refuses more (::ffff:127.0.0.1 is loopback,
 * 2002:c0a8:101:: private, 64:ff9b::a9fe:a9fe metadata). Embedding only ever
 * adds reasons to refuse. */
enum addr_class addr_classify(const struct lnk_addr *a);
const char *addr_class_name(enum addr_class c);

/* Why no grant reaches an address of class c (this machine, every
 * machine, or a cloud's credentials), or NULL when a grant can. The wire
 * says it when it refuses a call and the spec when it refuses a grant. */
const char *addr_never_why(enum addr_class c);

/* The words for a host that looks numeric but is no strict literal. */
#define ADDR_AMBIGUOUS_WHY \
	"ambiguous address literal (write a plain dotted quad)"
/* The words for an address of this network under an internet grant. */
#define ADDR_NOT_INTERNET_WHY "address on this network, not the internet"

/* The most IPv4 addresses one IPv6 address is read to carry. */
#define ADDR_EMBED_MAX 4
/* The IPv4 addresses an IPv6 address a may carry, into out; how many (0 for
 * IPv4 and for none): IPv4-mapped (::ffff:0:0/96), SIIT (::ffff:0:0:0/96),
 * IPv4-compatible (::/96 but :: and ::1), 6to4 (2002::/16), NAT64
 * (64:ff9b::/96, and the local-use 64:ff9b:1::/48 read as a /48 and as a
 * /96), Teredo (2001::/32: the server and the client) and ISATAP (an
 * interface identifier 0:5efe or 200:5efe under any prefix).
 *
 * Threat: these are other machines (a relay, a translator, a tunnel's far
 * end), so an embedded address is only ever a reason to refuse (this
 * machine, its network, loopback, metadata behind a translator), never a
 * match for a grant: a grant of 198.18.1.2 must not reach
 * [2002:c612:102::2]. */
size_t addr_embedded(const struct lnk_addr *a,
		     struct lnk_addr out[ADDR_EMBED_MAX]);

/* The IPv4 address an AF_INET6 socket connects to for a, when a is
 * IPv4-mapped (::ffff:a.b.c.d): the kernel sends IPv4 to exactly that
 * address, so it is that address, not an embedding. */
bool addr_v4_mapped(const struct lnk_addr *a, struct lnk_addr *v4);

/* Same family and same bytes: one spelling of one address, never through
 * an embedding. */
bool addr_equal(const struct lnk_addr *x, const struct lnk_addr *y);
/* True when a is inside net/prefix (same family; no embedding). */
bool addr_in_net(const struct lnk_addr *a, const struct lnk_addr *net,
		 unsigned prefix);

/* Conversions. addr_to_sockaddr returns the length written. */
int addr_from_sockaddr(const struct sockaddr *sa, struct lnk_addr *out);
socklen_t addr_to_sockaddr(const struct lnk_addr *a, uint16_t port,
			   struct sockaddr_storage *ss);
/* The loopback of family (AF_INET: 127.0.0.1, else ::1) at port, as
 * addr_to_sockaddr writes it. */
socklen_t addr_loopback_sockaddr(int family, uint16_t port,
				 struct sockaddr_storage *ss);
/* Text form: "1.2.3.4" or "2001:db8::1" (no brackets). */
void addr_format(const struct lnk_addr *a, char *out, size_t cap);
