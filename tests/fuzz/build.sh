#!/bin/sh
# Builds the libFuzzer targets with ASan and UBSan:
#   tests/fuzz/build.sh [OUTDIR]      (default: build-fuzz)
# then runs, e.g.:
#   build-fuzz/fuzz_toml -max_total_time=120 build-fuzz/corpus-toml \
#       ../shared/toml-test/valid
# Not part of the test suite: fuzzing runs for minutes, by hand or in a
# scheduled job.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-"$root/build-fuzz"}
mkdir -p "$out" "$out/corpus-toml"
CC=${CC:-clang}
CFLAGS="-g -O1 -std=gnu17 -D_GNU_SOURCE -fno-omit-frame-pointer
  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
  -Wall -Wextra -Werror -I$root/src"

# fuzz_toml: the TOML parser and the common helpers it uses.
$CC $CFLAGS -o "$out/fuzz_toml" \
	"$root/tests/fuzz/fuzz_toml.c" \
	"$root/src/spec/toml.c" \
	"$root/src/common/err.c" \
	"$root/src/common/util.c" \
	"$root/src/common/buf.c" \
	"$root/src/common/esc.c"
echo "built $out/fuzz_toml"

# fuzz_initcfg: the init config decoder (decode, re-encode, same bytes).
$CC $CFLAGS -I"$root" -o "$out/fuzz_initcfg" \
	"$root/tests/fuzz/fuzz_initcfg.c" \
	"$root/src/init/initcfg.c" \
	"$root/src/common/err.c" \
	"$root/src/common/util.c" \
	"$root/src/common/buf.c" \
	"$root/src/common/esc.c"
echo "built $out/fuzz_initcfg"

# fuzz_http: the wire's HTTP head parser.
$CC $CFLAGS -o "$out/fuzz_http" \
	"$root/tests/fuzz/fuzz_http.c" \
	"$root/src/wire/http.c" \
	"$root/src/common/err.c" \
	"$root/src/common/util.c" \
	"$root/src/common/buf.c" \
	"$root/src/common/esc.c"
echo "built $out/fuzz_http"

# fuzz_socks5: the wire's SOCKS5 parser and the address parser it uses.
$CC $CFLAGS -o "$out/fuzz_socks5" \
	"$root/tests/fuzz/fuzz_socks5.c" \
	"$root/src/wire/socks5.c" \
	"$root/src/wire/addr.c" \
	"$root/src/common/err.c" \
	"$root/src/common/util.c" \
	"$root/src/common/buf.c" \
	"$root/src/common/esc.c"
echo "built $out/fuzz_socks5"

# fuzz_esc: the one escaper; whatever comes in, what it shows is safe.
$CC $CFLAGS -o "$out/fuzz_esc" \
	"$root/tests/fuzz/fuzz_esc.c" \
	"$root/src/common/esc.c" \
	"$root/src/common/util.c" \
	"$root/src/common/buf.c"
echo "built $out/fuzz_esc"
