#!/bin/sh
# The dot-file guard's cost on ordinary work (docs/kernel-facts.md,
# notify-cost): the same workloads in a write folder without and with the
# guard, side by side in one run, median of RUNS each, and the ratio.
# Target: at most 1.5x. A benchmark: it prints figures and never fails on a
# time.
#
#   bench/dotfiles.sh [BUILD_DIR]      (default: build)
#   RUNS=5 FILES=10000 GITFILES=3000 VIA=harness bench/dotfiles.sh build-x
#
# It runs through `lnk sandbox run` when that works, else through
# guard-harness (what lnk does: bwrap + the seccomp filter that notifies + our
# supervisor; -n is the same bwrap without the guard).
set -eu
BUILD=$(cd "${1:-build}" && pwd)
RUNS=${RUNS:-5}
FILES=${FILES:-10000}
GITFILES=${GITFILES:-3000}
HARNESS=$BUILD/src/guard/guard-harness
LNK=$BUILD/lnk
TMP=$(mktemp -d "${TMPDIR:-/tmp}/lnk-bench-dotfiles.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.invalid
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.invalid
export GIT_CONFIG_NOSYSTEM=1 HOME="$TMP"

# VIA=lnk|harness forces one
mkdir -p "$TMP/probe"
if [ -n "${VIA:-}" ]; then
	:
elif "$LNK" sandbox run --write "$TMP/probe" -- true >/dev/null 2>&1; then
	VIA=lnk
else
	VIA=harness
fi
if [ "$VIA" = harness ] && [ ! -x "$HARNESS" ]; then
	echo "bench/dotfiles.sh: neither lnk sandbox run nor $HARNESS works" >&2
	exit 0
fi

# run GUARDED(0|1) DIR CMD...: in a sandbox writing DIR
run() {
	g=$1 d=$2
	shift 2
	if [ "$VIA" = lnk ]; then
		if [ "$g" = 1 ]; then
			(cd "$d" && "$LNK" sandbox run --write "$d" -- "$@")
		else
			(cd "$d" && "$LNK" sandbox run --write "$d" \
				--write-dot-files "$d" -- "$@")
		fi
	elif [ "$g" = 1 ]; then
		"$HARNESS" -w "$d" -C "$d" -- "$@"
	else
		"$HARNESS" -n -w "$d" -C "$d" -- "$@"
	fi
}

now_ms() { date +%s%3N; }

# time_ms GUARDED WORKLOAD: prints the milliseconds of one fresh run
time_ms() {
	g=$1 w=$2
	d="$TMP/w-$w-$g"
	rm -rf "$d" && mkdir -p "$d"
	case $w in
	creates)
		t0=$(now_ms)
		run "$g" "$d" python3 -c "
for i in range($FILES):
    open('f%d' % i, 'w').close()"
		;;
	mkdirs)
		t0=$(now_ms)
		run "$g" "$d" python3 -c "
import os
for i in range($FILES):
    os.mkdir('d%d' % i)"
		;;
	git)
		# the files exist first; git works below the top (repo/), as
		# lnk-sandbox(1) says a repository it makes there is its own
		mkdir -p "$d/repo"
		python3 -c "
import os
for i in range($GITFILES):
    sub = 'd%d' % (i % 50)
    os.makedirs(os.path.join('$d/repo', sub), exist_ok=True)
    with open(os.path.join('$d/repo', sub, 'f%d.txt' % i), 'w') as f:
        f.write('line %d\n' % i * 20)"
		t0=$(now_ms)
		run "$g" "$d" sh -c 'cd repo && git init -q && git add -A &&
			git -c user.name=bench -c user.email=bench@example.invalid \
				commit -qm bench'
		;;
	esac
	t1=$(now_ms)
	echo $((t1 - t0))
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

echo "dot-file guard, via $VIA, median of $RUNS runs (ms, whole sandbox run)"
printf '%-34s %10s %10s %7s\n' workload unguarded guarded ratio
for w in creates mkdirs git; do
	: >"$TMP/u" && : >"$TMP/g"
	i=0
	while [ $i -lt "$RUNS" ]; do
		time_ms 0 $w >>"$TMP/u"
		time_ms 1 $w >>"$TMP/g"
		i=$((i + 1))
	done
	u=$(median <"$TMP/u") gd=$(median <"$TMP/g")
	case $w in
	creates) label="$FILES x open(O_CREAT) (python)" ;;
	mkdirs) label="$FILES x mkdir (python)" ;;
	git) label="git init+add+commit, $GITFILES files" ;;
	esac
	printf '%-34s %10s %10s %6sx\n' "$label" "$u" "$gd" \
		"$(awk -v a="$gd" -v b="$u" 'BEGIN {printf "%.2f", a / b}')"
done
echo "target: at most 1.5x"
