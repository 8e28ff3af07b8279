#!/bin/sh
# Builds the libFuzzer targets with ASan and UBSan (meson -Dfuzz=true):
#   tests/fuzz/build.sh [OUTDIR]      (default: build-fuzz)
# README.md here says how to run a target with its seeds and dictionary.
# tests/run-all runs each target for a few seconds; longer fuzzing runs by
# hand or in a scheduled job.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-"$root/build-fuzz"}
if [ ! -f "$out/build.ninja" ]; then
	CC=${CC:-clang} meson setup "$out" "$root" -Dfuzz=true -Dtests=false \
		-Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug
fi
targets="toml initcfg http socks5 esc spec ctl handoff grammar guard dnsd usage toolcall keeper"
ninja -C "$out" $(for t in $targets; do echo "tests/fuzz/fuzz_$t"; done)
for t in $targets; do echo "built $out/tests/fuzz/fuzz_$t"; done
