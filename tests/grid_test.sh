#!/usr/bin/env bash
# blobsim grid build and info end to end: the same file at 1, 2 and 3 threads (both methods, plain
# and compressed, from an OBJ and from a config), and info reads every one of them back.
#   tests/grid_test.sh BLOBSIM RUN_DIR
set -euo pipefail
blobsim=$1
run=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for input in "$run/tiny.obj" "$run/tiny.json"; do
	for method in blur potential; do
		for compress in "" --compress; do
			for threads in 1 2 3; do
				"$blobsim" grid build "$input" -o "$work/g$threads.dng" --resolution 20 --method $method \
					$compress --threads $threads --quiet
			done
			cmp "$work/g1.dng" "$work/g2.dng"
			cmp "$work/g1.dng" "$work/g3.dng"
			"$blobsim" grid info "$work/g1.dng" > "$work/info.txt"
			grep -q "^method: $method, band 3" "$work/info.txt"
			grep -q "^cells: .* = " "$work/info.txt"
		done
	done
done
echo "grid files identical at 1, 2 and 3 threads"
# A file at -o that is not a grid (the user's own) is refused before the build and left as it is; a
# grid (the loop's) is replaced.
echo "my notes" >"$work/notes.dng"
if "$blobsim" grid build "$run/tiny.obj" -o "$work/notes.dng" --resolution 20 --quiet 2>"$work/err.txt"; then
	echo "FAIL: grid build replaced a file that is not a grid" >&2
	exit 1
fi
grep -qF "notes.dng: not a file blobsim wrote" "$work/err.txt"
[ "$(cat "$work/notes.dng")" = "my notes" ]
"$blobsim" grid build "$run/tiny.obj" -o "$work/g1.dng" --resolution 20 --quiet
echo "a file that is not a grid is never replaced"
