#!/usr/bin/env bash
# Dynamic bodies end to end (docs/bodies.md): tests/run/dynamic.json (two dynamic spheres meeting
# over snow through the sensor particles, bouncing on the floor, pushing the snow) run at 1 and 2
# threads gives byte-identical scenes, frames and particles; the sensor particles are drawn.
#   usage: bodydyn_test.sh BLOBSIM SRCDIR
set -euo pipefail
bin=$(realpath "$1")
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
for t in 1 2; do
	"$bin" run "$src/tests/run/dynamic.json" -o "$work/t$t" --quiet --threads "$t"
done
count=0
for f in "$work"/t1/*; do
	name=$(basename "$f")
	[ "$name" = summary.json ] && continue  # holds the thread count and timings
	cmp -s "$f" "$work/t2/$name" || fail "$name differs between 1 and 2 threads"
	count=$((count + 1))
done
[ "$count" -ge 6 ] || fail "only $count output files"
# The spheres met: the last frame draws the sensor particles (3 on each).
spheres=$(grep -c '^sphere {' "$work/t1/frame_0004.pov" || true)
[ "$spheres" -eq 6 ] || fail "frame_0004.pov draws $spheres sensor particles, not 6"
# The bodies moved: their matrices differ between the first and the last frame.
a=$(grep -m1 'matrix' "$work/t1/frame_0000.pov")
b=$(grep -m1 'matrix' "$work/t1/frame_0004.pov")
[ "$a" != "$b" ] || fail "the first body did not move"
echo "ok: $count files identical at 1 and 2 threads, 6 sensor particles drawn"
