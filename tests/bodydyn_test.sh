#!/usr/bin/env bash
# Dynamic bodies end to end (docs/bodies.md): tests/run/dynamic.json (two dynamic spheres meeting
# over snow through the sensor particles, bouncing on the floor, pushing the snow) run at 1 and 2
# threads gives byte-identical scenes, frames and particles; the sensor particles are drawn; with
# POV-Ray, `run --render` into a new folder renders every frame (the bodies' includes are in place
# before the renders) and a second run keeps the same include files.
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
if command -v povray >/dev/null 2>&1; then
	"$bin" run "$src/tests/run/dynamic.json" -o "$work/r" --quiet --render --set render.width=32 \
		--set render.height=24 || fail "run --render into a new folder"
	[ -f "$work/r/scene.png" ] && [ -f "$work/r/frame_0004.png" ] || fail "run --render wrote no images"
	incs=$(cd "$work/r" && ls body_*.inc | tr '\n' ' ')
	[ -n "$incs" ] || fail "no body include"
	for f in $incs; do grep -qx "$f" "$work/r/outputs.txt" || fail "$f is not in outputs.txt"; done
	"$bin" run "$src/tests/run/dynamic.json" -o "$work/r" --quiet --render --set render.width=32 \
		--set render.height=24 || fail "a second run --render"
	[ "$(cd "$work/r" && ls body_*.inc | tr '\n' ' ')" = "$incs" ] || fail "the second run changed the includes"
	echo "ok: rendered into a new folder with $incs"
else
	echo "POV-Ray not installed: the render part skipped"
fi
echo "ok: $count files identical at 1 and 2 threads, 6 sensor particles drawn"
