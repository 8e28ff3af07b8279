/* libFuzzer target for the init config decoder (proto/initcfg.h): the bytes
 * lnk-init reads from its config fd. Any input must give a config that
 * passes every check, or a clean refusal with a message; never a crash, a
 * leak or undefined behaviour. A decoded config must also re-encode to the
 * very same bytes (the format has one spelling per config), so nothing is
 * silently dropped or reinterpreted between what was checked and what is
 * used. */
#include "proto/initcfg.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct init_config c;
	struct lnk_err err = {0};
	struct buf b = {0};

	if (initcfg_decode((const char *)data, size, &c, &err) < 0) {
		if (err.msg[0] == '\0' || err.code >= 0)
			abort();
		return 0;
	}
	if (c.argv.n == 0 || c.argv.v[0][0] != '/' || c.cwd[0] != '/')
		abort();
	if (c.nlisteners && c.wire_fd < 0)
		abort();
	if (initcfg_encode(&c, &b) < 0 || b.len != size ||
	    memcmp(b.p, data, size) != 0)
		abort();
	buf_free(&b);
	initcfg_free(&c);
	return 0;
}
