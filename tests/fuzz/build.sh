#!/bin/sh
# Builds the libFuzzer targets with ASan and UBSan (meson -Dfuzz=true):
#   tests/fuzz/build.sh [OUTDIR]      (default: build-fuzz)
# then runs, e.g.:
#   mkdir -p corpus-toml
#   build-fuzz/tests/fuzz/fuzz_toml -max_total_time=120 corpus-toml \
#       /usr/share/gocode/src/github.com/BurntSushi/toml/internal/toml-test/tests/valid
# tests/run-all runs each target for a few seconds; longer fuzzing runs by
# hand or in a scheduled job.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-"$root/build-fuzz"}
if [ ! -f "$out/build.ninja" ]; then
	CC=${CC:-clang} meson setup "$out" "$root" -Dfuzz=true -Dtests=false \
		-Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug
fi
ninja -C "$out" tests/fuzz/fuzz_toml tests/fuzz/fuzz_initcfg \
	tests/fuzz/fuzz_http tests/fuzz/fuzz_socks5 tests/fuzz/fuzz_esc \
	tests/fuzz/fuzz_dnsd \
	tests/fuzz/fuzz_usage \
	tests/fuzz/fuzz_toolcall
echo "built $out/tests/fuzz/fuzz_{toml,initcfg,http,socks5,esc,dnsd,usage,toolcall}"
