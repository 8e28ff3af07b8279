/* SHA-256 against the NIST example vectors (FIPS 180-4 examples,
 * csrc.nist.gov "SHA256.pdf" and the long-message cases). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/sha256.h"

static const struct {
	const char *msg;
	const char *hex;
} vectors[] = {
    {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
    {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
    {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
     "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
    {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmn"
     "opjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
     "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
};

static void nist_vectors(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
		char out[65];
		sha256_hex(vectors[i].msg, strlen(vectors[i].msg), out);
		assert_string_equal(out, vectors[i].hex);
	}
}

static void million_a(void **state)
{
	(void)state;
	size_t n = 1000000;
	char *m = malloc(n);
	assert_non_null(m);
	memset(m, 'a', n);
	char out[65];
	sha256_hex(m, n, out);
	assert_string_equal(
	    out,
	    "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	free(m);
}

/* Feeding in pieces of every size, across block and padding boundaries
 * (55, 56, 63, 64 bytes), gives the one-shot digest. */
static void pieces_equal_one_shot(void **state)
{
	(void)state;
	unsigned char data[300];
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)(i * 7 + 3);
	for (size_t len = 0; len <= sizeof(data); len++) {
		char want[65];
		sha256_hex(data, len, want);
		for (size_t piece = 1; piece <= 70; piece += 3) {
			struct sha256 s;
			sha256_init(&s);
			for (size_t off = 0; off < len; off += piece)
				sha256_update(&s, data + off,
					      len - off < piece ? len - off
								: piece);
			unsigned char d[32];
			sha256_final(&s, d);
			char got[65];
			for (int i = 0; i < 32; i++)
				snprintf(got + 2 * i, 3, "%02x", d[i]);
			assert_string_equal(got, want);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(nist_vectors),
	    cmocka_unit_test(million_a),
	    cmocka_unit_test(pieces_equal_one_shot),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
