/* SHA-256 (FIPS 180-4), written here so the trust digest needs no library.
 * Checked against the NIST example vectors in tests/unit/test_sha256.c. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define SHA256_LEN 32

struct sha256 {
	uint32_t h[8];
	uint64_t len; /* bytes so far */
	unsigned char block[64];
	size_t used;
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t n);
void sha256_final(struct sha256 *s, unsigned char out[SHA256_LEN]);
/* One shot, as 64 lower-case hex digits and a NUL. */
void sha256_hex(const void *data, size_t n, char out[2 * SHA256_LEN + 1]);
