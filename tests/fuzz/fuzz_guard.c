/* libFuzzer target for what the dot-file guard reads from a sandboxed
 * task (guard/internal.h): the paths it passes to open-like calls, the
 * socket addresses it passes to bind and connect, and the text of its
 * /proc/PID/stat (whose command name the program chooses). The first byte
 * picks the parser; the rest is the input. Never a crash or a read past
 * the input; what is accepted is checked for what the guard relies on: a
 * remainder inside the path, a split that names no "" component and fits
 * its buffers, an abstract or path name of the bytes given. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "guard/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 8192)
		return 0;
	unsigned which = data[0] % 4;
	const uint8_t *in = data + 1;
	size_t len = size - 1;
	char *z = malloc(len + 1);
	memcpy(z, in, len);
	z[len] = '\0';

	switch (which) {
	case 0: { /* a path an open-like call passed */
		struct guard_path p;
		guard_rewrite(z, &p);
		size_t zl = strlen(z);
		if (!p.rest || p.rest < z || p.rest > z + zl)
			abort();
		if (p.base == GUARD_BASE_FD && p.fd < 0)
			abort();
		break;
	}
	case 1: { /* its folder and last component */
		char dir[256], last[64];
		bool slash;
		int r = guard_split(z, dir, sizeof(dir), last, sizeof(last),
				    &slash);
		if (r == 0 &&
		    (strlen(dir) >= sizeof(dir) ||
		     strlen(last) >= sizeof(last) || strchr(last, '/')))
			abort();
		break;
	}
	case 2: { /* a socket address, for each family the guard reads */
		static const int fam[] = {AF_UNIX, AF_INET, AF_INET6,
					  AF_NETLINK, AF_UNSPEC};
		uint8_t ss[sizeof(struct sockaddr_storage)];
		size_t n = len < sizeof(ss) ? len : sizeof(ss);
		memset(ss, 0, sizeof(ss));
		memcpy(ss, in, n);
		for (size_t i = 0; i < sizeof(fam) / sizeof(fam[0]); i++) {
			struct guard_sockaddr sa;
			if (guard_sockaddr_parse(fam[i], ss, n, &sa) < 0)
				continue;
			if ((sa.kind == GUARD_SA_PATH ||
			     sa.kind == GUARD_SA_ABSTRACT) &&
			    memchr(sa.path, 0, sizeof(sa.path)) == NULL)
				abort();
		}
		break;
	}
	case 3: { /* /proc/PID/stat of a task */
		unsigned long tty;
		(void)guard_stat_tty_nr(z, &tty);
		break;
	}
	}
	free(z);
	return 0;
}
