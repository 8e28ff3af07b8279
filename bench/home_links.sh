#!/bin/bash
# Start time on a large home (rule P's walk, src/guard/homelinks.c): two
# lnk builds side by side, round robin (bench/start_time.c), each with a
# home of its own of the same shape (each keeps its own link cache,
# ~/.lnk/sandbox/home-links, whose format may differ between them).
#
#   bench/home_links.sh LNK_A LNK_B      (RUNS=N, default 100)
#
# The home: DOTS dot folders (300; every third with 4 subfolders), CFG
# entries of ~/.config (60) and DATA of ~/.local/share (40) with 2
# subfolders each, a few files in each, 30 stow links into ~/dotfiles at
# one and two folders down (fewer when the home has fewer folders). The
# run: lnk sandbox run --write ~/project -- true, after warm-up runs that
# fill the cache (a folder is kept once unchanged for 2 s). Prints figures
# and never fails on a time.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
A=$(readlink -f "$1")
B=$(readlink -f "$2")
RUNS=${RUNS:-100}
DOTS=${DOTS:-300}
CFG=${CFG:-60}
DATA=${DATA:-40}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

make_home() {
	h=$1
	mkdir -p "$h/project" "$h/dotfiles" "$h/.config" "$h/.local/share"
	for i in $(seq -f %03g 0 $((DOTS - 1))); do
		d=$h/.d$i
		mkdir -p "$d"
		touch "$d/a" "$d/b" "$d/c"
		if [ $((10#$i % 3)) = 0 ]; then
			for s in 0 1 2 3; do
				mkdir "$d/sub$s"
				touch "$d/sub$s/x" "$d/sub$s/y" "$d/sub$s/z"
			done
		fi
	done
	for p in .config .local/share; do
		n=$CFG
		[ "$p" = .local/share ] && n=$DATA
		for i in $(seq -f %02g 1 "$n"); do
			d=$h/$p/e$i
			mkdir -p "$d/s0" "$d/s1"
			touch "$d/f" "$d/s0/f" "$d/s1/f"
		done
	done
	for i in $(seq 0 14); do
		touch "$h/dotfiles/one$i" "$h/dotfiles/two$i"
		if [ $i -lt "$CFG" ]; then
			ln -s "$h/dotfiles/one$i" \
				"$h/.config/e$(printf %02d $((i + 1)))/link"
		fi
		if [ $((i * 3)) -lt "$DOTS" ]; then
			ln -s "$h/dotfiles/two$i" \
				"$h/.d$(printf %03d $((i * 3)))/sub0/link"
		fi
	done
}

make_home "$T/ha"
make_home "$T/hb"
cc -O2 -o "$T/start_time" "$ROOT/bench/start_time.c"
sleep 3
for h in ha hb; do
	L=$A
	[ $h = hb ] && L=$B
	for _ in 1 2 3; do
		env HOME="$T/$h" "$L" sandbox run --write "$T/$h/project" -- true
	done
done
echo "folders: $(find "$T/ha" -type d | wc -l) in each home"
"$T/start_time" "$RUNS" \
	"A $A" env HOME="$T/ha" "$A" sandbox run --write "$T/ha/project" \
	-- true ';;' \
	"B $B" env HOME="$T/hb" "$B" sandbox run --write "$T/hb/project" \
	-- true
