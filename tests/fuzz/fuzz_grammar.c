/* libFuzzer target for the grammars of the entries a spec or a program
 * hands the wire (net/grammar.h, net/addr.h, policy/keys.h): host names a
 * program asks for, host grants, LAN rules, ports, sizes and sandbox
 * names. The first byte picks the parser; the rest is the entry. Never a
 * crash; what is accepted is checked for what the filter relies on: a
 * normal form that is itself accepted and unchanged by a second pass, and
 * no byte the filter must never see. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "net/addr.h"
#include "net/grammar.h"
#include "policy/keys.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void plain(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p <= ' ' || *p >= 0x7f || *p == '/' || *p == '@' ||
		    *p == '\\')
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 600)
		return 0;
	unsigned which = data[0] % 7;
	const char *s = (const char *)data + 1;
	size_t len = size - 1;
	char *z = malloc(len + 1);
	memcpy(z, s, len);
	z[len] = '\0';
	struct lnk_err err = {0};

	switch (which) {
	case 0: { /* a host a program asked for */
		char out[HOST_MAX + 1];
		const char *why = NULL;
		if (host_normalize(z, out, &why) == 0) {
			plain(out);
			/* What the wire goes on with (a name or an address,
			 * not an ambiguous form it refuses) is normal: a
			 * second pass changes nothing. */
			struct lnk_addr a;
			if (addr_parse_literal(out, &a) == LIT_AMBIGUOUS)
				break;
			char again[HOST_MAX + 1];
			if (host_normalize(out, again, &why) != 0 ||
			    strcmp(out, again) != 0)
				abort();
		} else if (!why) {
			abort();
		}
		break;
	}
	case 1: { /* a host grant */
		char out[HOST_PATTERN_MAX];
		if (host_pattern_parse(s, len, out, &err) == 0) {
			plain(out + (out[0] == '*' ? 1 : 0));
			char again[HOST_PATTERN_MAX];
			if (host_pattern_parse(out, strlen(out), again, &err) !=
				0 ||
			    strcmp(out, again) != 0)
				abort();
			(void)host_pattern_match(out, "a.example.com");
		} else if (!err.msg[0]) {
			abort();
		}
		break;
	}
	case 2: { /* a LAN rule */
		struct lan_rule r;
		if (lan_rule_parse(s, len, &r, &err) == 0) {
			char out[HOST_MAX + 64];
			lan_rule_format(&r, out, sizeof(out));
			struct lan_rule r2;
			char out2[HOST_MAX + 64];
			if (lan_rule_parse(out, strlen(out), &r2, &err) != 0)
				abort();
			lan_rule_format(&r2, out2, sizeof(out2));
			if (strcmp(out, out2) != 0)
				abort();
		} else if (!err.msg[0]) {
			abort();
		}
		break;
	}
	case 3: { /* a port */
		uint16_t port;
		if (port_parse(s, len, &port) == 0 &&
		    (port == 0 || len > 5 || s[0] == '0'))
			abort();
		break;
	}
	case 4: { /* a size */
		uint64_t v;
		(void)key_parse_size(s, len, &v);
		break;
	}
	case 5: /* a sandbox name: it becomes a file name */
		if (sandbox_name_check(s, len, &err) == 0 &&
		    (len == 0 || len > 64 || memchr(s, '/', len) ||
		     s[0] == '.' || memchr(s, 0, len)))
			abort();
		break;
	case 6: { /* an address literal */
		struct lnk_addr a;
		(void)addr_parse_literal(z, &a);
		(void)dns_name_why(s, len);
		break;
	}
	}
	free(z);
	return 0;
}
