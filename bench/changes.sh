#!/bin/sh
# The walk after a run (src/changes, lnk-sandbox(1) WHAT A RUN LEFT)
# against `find W -newer STAMP -printf ''` on the same tree, side by side
# in one run (round robin, so a busy machine slows both alike), median of
# RUNS each, and the ratio. Target: at most 1.3x find. A benchmark: it
# prints figures and never fails on a time.
#
#   bench/changes.sh [BUILD_DIR]          (default: build)
#   RUNS=9 FILES=100000 bench/changes.sh build
#
# The tree: FILES files, nine tenths of them in node_modules (100 files a
# folder), the rest in a project's src/; a thousand of them changed after
# the stamp. Warm cache: each is run once first.
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-build}" && pwd)
RUNS=${RUNS:-9}
FILES=${FILES:-100000}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/lnk-bench-changes.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

cc -O2 -D_GNU_SOURCE -I"$SRC/src" -I"$BUILD" -o "$TMP/changes_walk" \
	"$SRC/bench/changes_walk.c" "$BUILD/src/changes/liblnkchanges.a" \
	"$BUILD/src/common/liblnkcommon.a"

W="$TMP/w"
python3 - "$W" "$FILES" <<'PY'
import os, sys
w, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    sub = "node_modules/p%d" % (i // 100) if i < n * 9 // 10 \
        else "src/m%d" % (i // 100)
    d = os.path.join(w, sub)
    if i % 100 == 0:
        os.makedirs(d, exist_ok=True)
    open(os.path.join(d, "f%d.js" % i), "w").close()
PY
sleep 0.05
: > "$TMP/stamp"
sleep 0.05

for f in $(find "$W/src" -type f | head -n 1000); do
	echo x >> "$f"
done

python3 - "$RUNS" "$W" "$TMP/stamp" "$TMP/changes_walk" <<'PY'
import statistics, subprocess, sys, time
runs, w, stamp, walker = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
cmds = {
    "find -newer": ["find", w, "-newer", stamp, "-printf", ""],
    "lnk's walk": [walker, w, stamp],
}
subprocess.run([walker, w, stamp, "-v"], check=True)
times = {k: [] for k in cmds}
for c in cmds.values():
    subprocess.run(c, check=True)
for _ in range(runs):
    for k, c in cmds.items():
        t = time.perf_counter()
        subprocess.run(c, check=True)
        times[k].append(time.perf_counter() - t)
med = {k: statistics.median(v) * 1000 for k, v in times.items()}
for k, v in med.items():
    print(f"{k:12s}  median {v:8.1f} ms  (min {min(times[k])*1000:.1f})")
ratio = med["lnk's walk"] / med["find -newer"]
print(f"ratio         {ratio:.2f}x (target 1.3x)")
PY
