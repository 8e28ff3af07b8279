#!/bin/bash
# Start time of `lnk sandbox run` against bare bwrap with the same mounts.
# The aims: a typical policy without network (run --write . -- true) at
# most 1.5x bare bwrap, and with a wire (--write . --internet-host '*') at
# most 2x. Prints figures and both ratios; never fails on a time.
#
#   bench/start.sh [LNK]        (default build/lnk; RUNS=N to change)
#
# "The same mounts": the bwrap options lnk builds for `run --write . -- true`
# and `run --write . --internet-host '*' -- true` are read with strace from the --args
# descriptor bwrap reads them from, and run again by bare bwrap with
# /usr/bin/true, minus the options that name lnk's descriptors (info, sync,
# seccomp, data files). Uses hyperfine when installed (apt-get install
# hyperfine), else a loop timed with date +%s%N.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
LNK=$(readlink -f "${1:-$ROOT/build/lnk}")
RUNS=${RUNS:-40}
[ -x "$LNK" ] || { echo "no lnk at $LNK: build it first"; exit 0; }
T=$(mktemp -d)
trap 'rm -rf "$T" ${DEVCOPIES:-}' EXIT
export HOME=$T/home
mkdir -p "$HOME/project"
cd "$HOME/project" || exit 0
BWRAP=$(command -v bwrap || echo /usr/bin/bwrap)

# bwrap's options as lnk builds them for: run GRANTS -- true
capture() {
	out=$1
	shift
	command -v strace >/dev/null || return 0
	# -ff: one file per process, so that no read is split in two lines
	# by another process's call ("<unfinished ...>")
	rm -f "$T"/trace.*
	strace -ff -qq -s 1000000 -e trace=read -o "$T/trace" \
		"$LNK" sandbox run "$@" -- true
	/usr/bin/python3 - "$T" >"$out" <<'PY'
import glob, re, sys
best = None
lines = []
for f in sorted(glob.glob(sys.argv[1] + "/trace.*")):
    lines += open(f, encoding="latin1").readlines()
for line in lines:
    m = re.search(r'read\(\d+, "(.*)", \d+\) = \d+', line)
    if m and "--unshare" in m.group(1):
        s = m.group(1).encode("latin1").decode("unicode_escape")
        best = [a for a in s.split("\0") if a != "" or False]
if not best:
    sys.exit(1)
# options that name lnk's descriptors: (option, number of arguments)
fd_opts = {"--info-fd": 1, "--json-status-fd": 1, "--sync-fd": 1,
           "--block-fd": 1, "--userns-block-fd": 1, "--seccomp": 1,
           "--add-seccomp-fd": 1, "--file": 2, "--bind-data": 2,
           "--ro-bind-data": 2, "--args": 1}
out, i, perms = [], 0, []
while i < len(best):
    a = best[i]
    if a == "--perms":
        perms = best[i:i + 2]
        i += 2
        continue
    if a in fd_opts:
        i += 1 + fd_opts[a]
        perms = []
        continue
    out += perms
    perms = []
    out.append(a)
    i += 1
print("\n".join(out))
PY
}
capture "$T/bwrap-args-bare" --write .
capture "$T/bwrap-args" --write . --internet-host '*'
if [ ! -s "$T/bwrap-args" ] || [ ! -s "$T/bwrap-args-bare" ]; then
	echo "(no strace or no options read: bare bwrap gets a stand-in set of mounts)"
	printf '%s\n' --unshare-all --die-with-parent --new-session --clearenv \
		--ro-bind /usr /usr --symlink usr/bin /bin --symlink usr/lib /lib \
		--symlink usr/lib64 /lib64 --symlink usr/sbin /sbin \
		--ro-bind /etc /etc --proc /proc --dev /dev --tmpfs /tmp \
		--bind "$PWD" "$PWD" --chdir "$PWD" >"$T/bwrap-args"
	grep -v -e "^--bind$" "$T/bwrap-args" >"$T/bwrap-args-bare"
fi
# As root, lnk binds copies of the device nodes from a folder of /dev it
# removes at exit (/dev/.lnk-PID-XXXXXX), and every lnk run removes those
# whose PID no longer runs: bare bwrap gets copies of its own in a folder
# named for this script's PID (alive while it runs), removed afterwards.
DEVCOPIES=
if grep -q '^/dev/\.lnk-' "$T/bwrap-args" "$T/bwrap-args-bare"; then
	DEVCOPIES=/dev/.lnk-$$-bench
	mkdir -p "$DEVCOPIES"
	for n in null zero full random urandom tty; do
		cp -a "/dev/$n" "$DEVCOPIES/$n"
	done
	sed -i "s|^/dev/\.lnk-[^/]*|$DEVCOPIES|" "$T/bwrap-args" \
		"$T/bwrap-args-bare"
fi
mapfile -t BW <"$T/bwrap-args"
mapfile -t BW0 <"$T/bwrap-args-bare"
echo "bare bwrap: ${#BW0[@]} and ${#BW[@]} arguments, as lnk builds them"
for set in BW0 BW; do
	declare -n A=$set
	"$BWRAP" "${A[@]}" /usr/bin/true ||
		echo "(bare bwrap failed: figures below are not comparable)"
done

names=("bwrap, mounts of run --write ." "lnk sandbox run --write . -- true"
	"bwrap, mounts of run --write . --internet-host '*'"
	"lnk sandbox run --write . --internet-host '*' -- true")
cmds=("$(printf '%q ' "$BWRAP" "${BW0[@]}" /usr/bin/true)"
	"$(printf '%q ' "$LNK" sandbox run --write . -- true)"
	"$(printf '%q ' "$BWRAP" "${BW[@]}" /usr/bin/true)"
	"$(printf '%q ' "$LNK" sandbox run --write . --internet-host '*' -- true)")

declare -a ms
if command -v hyperfine >/dev/null; then
	hyperfine -N --warmup 5 --runs "$RUNS" --export-json "$T/h.json" \
		"${cmds[@]}" >"$T/h.out" 2>&1 || hyperfine --warmup 5 \
		--runs "$RUNS" --export-json "$T/h.json" "${cmds[@]}" \
		>"$T/h.out" 2>&1 || {
		echo "(hyperfine failed:)"
		tail -n 5 "$T/h.out"
	}
	[ -s "$T/h.json" ] && mapfile -t ms < <(/usr/bin/python3 -c '
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print("%.2f %.2f" % (r["mean"] * 1000, r["stddev"] * 1000))' "$T/h.json")
	how="hyperfine, $RUNS runs each"
else
	for c in "${cmds[@]}"; do
		for _ in 1 2 3; do eval "$c" >/dev/null 2>&1; done
		t0=$(date +%s%N)
		for _ in $(seq "$RUNS"); do eval "$c" >/dev/null 2>&1; done
		t1=$(date +%s%N)
		ms+=("$(awk -v d=$((t1 - t0)) -v n="$RUNS" 'BEGIN{printf "%.2f -", d/n/1e6}')")
	done
	how="date +%s%N loop, $RUNS runs each"
fi
echo "start time ($how)"
printf '  %-56s %9s %9s %7s\n' "" "mean ms" "stddev" "x bwrap"
for i in 0 1 2 3; do
	base=${ms[$((i / 2 * 2))]%% *}
	m=${ms[$i]%% *}
	sd=${ms[$i]#* }
	printf '  %-56s %9s %9s %7s\n' "${names[$i]}" "$m" "$sd" \
		"$(awk -v a="$m" -v b="$base" 'BEGIN{if (b > 0) printf "%.2f", a/b}')"
done
echo "  (targets: line 2 at most 1.5x line 1, line 4 at most 2x line 3)"

# Exactly lnk's mounts and options (bench/start_plan.c plans as lnk does,
# with lnk's descriptors: passwd, group, the /etc files bwrap copies; only
# the command differs: the program in place of lnk-init). Timed round robin
# by bench/start_time.c (fork to exit, libc only), so a busy machine slows
# every command alike.
BUILD=$(dirname "$LNK")
CC=${CC:-cc}
LIBS=$(pkg-config --libs sqlite3 libcares libseccomp 2>/dev/null ||
	echo -lsqlite3 -lcares -lseccomp)
# one static library per folder of src/ (docs/HACKING.md, Layout)
mapfile -t ALIBS < <(find "$BUILD/src" -name 'liblnk*.a' | sort)
if [ "${#ALIBS[@]}" -gt 0 ] &&
	$CC -O2 -D_GNU_SOURCE -I "$ROOT/src" -I "$BUILD" -o "$T/start_plan" \
		"$ROOT/bench/start_plan.c" -Wl,--start-group "${ALIBS[@]}" \
		-Wl,--end-group $LIBS -lpthread -lm &&
	$CC -O2 -o "$T/start_time" "$ROOT/bench/start_time.c"; then
	# lnk-init is found next to the planner, as next to lnk
	cp "$BUILD/lnk-init" "$T/lnk-init"
	mkdir -p "$T/plan0" "$T/plan2"
	if "$T/start_plan" "$T/plan0" --write . -- true >/dev/null &&
		"$T/start_plan" "$T/plan2" --write . --internet-host '*' \
			-- true >/dev/null; then
		echo "start time, exact mounts (start_time, $RUNS rounds, ms;" \
			"cpu: median CPU of the run's processes)"
		"$T/start_time" "$RUNS" \
			"bare bwrap, exactly the mounts of the next" "@$T/plan0" ';;' \
			"lnk sandbox run --write . -- true" \
			"$LNK" sandbox run --write . -- true ';;' \
			"bare bwrap, exactly the mounts of the next" "@$T/plan2" ';;' \
			"lnk sandbox run --write . --internet-host '*' -- true" \
			"$LNK" sandbox run --write . --internet-host '*' -- true
		echo "  (the aims: line 2 at most 1.5x bwrap, line 4 at most" \
			"2x bwrap; each x bwrap is against the line above it)"
	fi
else
	echo "(cannot build bench/start_plan.c against $BUILD: no exact figures)"
fi

# What no code of lnk's can remove on this machine (bench/floor.c): lnk
# runs two programs bare bwrap does not, lnk itself (dynamic) and lnk-init
# (static), so a start costs at least an exec of each more than bare
# bwrap's. The least ratio is bare bwrap's time with those two added.
# lnk-init is built with musl when its build found musl-gcc: the static
# copy is built the same way (glibc's start-up alone costs 0.85 ms on a
# VM: docs/kernel-facts.md, cpuid-traps-in-glibc-start).
STATIC_CC=$CC
if command -v musl-gcc >/dev/null &&
	! grep -q 'GLIBC' "$BUILD/lnk-init" 2>/dev/null; then
	STATIC_CC=musl-gcc
fi
if $CC -O2 -o "$T/floor" "$ROOT/bench/floor.c" 2>/dev/null; then
	$STATIC_CC -O2 -static -o "$T/floor-static" "$ROOT/bench/floor.c" \
		2>/dev/null || true
	out=$("$T/floor" 1000)
	echo "this machine (bench/floor.c):"
	printf '%s\n' "$out" | sed 's/^/  /'
	bare=${ms[0]%% *}
	/usr/bin/python3 - "$bare" "$out" <<'PY'
import re, sys
bare = float(sys.argv[1]) if sys.argv[1] not in ("", "-") else 0
m = re.search(r"as built (\d+)(?:, static (\d+))?", sys.argv[2])
if m and bare > 0:
    dyn = float(m.group(1)) / 1000
    st = float(m.group(2)) / 1000 if m.group(2) else dyn
    least = dyn + st
    print(f"  the least lnk adds here: two execs, {least:.2f} ms: a ratio "
          f"of at least {(bare + least) / bare:.2f}x before any of lnk's "
          f"own work (bare bwrap {bare:.2f} ms)")
PY
fi
