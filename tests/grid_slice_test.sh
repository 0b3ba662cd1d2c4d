#!/usr/bin/env bash
# blobsim grid slice end to end: a PNG from a mesh, a grid file and a config, written whole (no
# temporary left beside it, an old picture kept when the command fails); bad arguments named.
#   tests/grid_slice_test.sh BLOBSIM RUN_DIR
set -euo pipefail
blobsim=$1
run=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
is_png() { [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ]; }

# From a mesh, a grid file and a config; the folder holds the picture alone afterwards.
mkdir "$work/out"
"$blobsim" grid slice "$run/tiny.obj" -o "$work/out/mesh.png" --resolution 20 --axis y --at 0.3 --size 64 \
	--quiet
"$blobsim" grid build "$run/tiny.obj" -o "$work/g.dng" --resolution 20 --quiet
"$blobsim" grid slice "$work/g.dng" -o "$work/out/dng.png" --size 64 --nearest >"$work/log.txt"
grep -q "^$work/g.dng: grid .* slice z = .* 64 x .* pixels" "$work/log.txt" || fail "no summary line"
"$blobsim" grid slice "$run/tiny.json" -o "$work/out/config.png" --resolution 20 --axis x --size 64 --quiet
for f in mesh dng config; do is_png "$work/out/$f.png" || fail "$f.png is not a PNG"; done
[ "$(ls -A "$work/out" | wc -l)" = 3 ] || fail "files left beside the pictures: $(ls -A "$work/out")"
echo "pictures written from a mesh, a grid file and a config"

# A failure leaves the old picture as it was; a file that is not a PNG is never replaced.
cp "$work/out/dng.png" "$work/keep.png"
if "$blobsim" grid slice "$work/missing.dng" -o "$work/out/dng.png" 2>"$work/err.txt"; then
	fail "a missing grid file succeeded"
fi
grep -qF "missing.dng" "$work/err.txt" || fail "the error does not name the missing file: $(cat "$work/err.txt")"
cmp "$work/keep.png" "$work/out/dng.png" || fail "a failed slice changed the old picture"
echo "my notes" >"$work/notes.png"
if "$blobsim" grid slice "$work/g.dng" -o "$work/notes.png" 2>"$work/err.txt"; then
	fail "grid slice replaced a file that is not a PNG"
fi
grep -qF "notes.png: not a file blobsim wrote" "$work/err.txt" || fail "$(cat "$work/err.txt")"
[ "$(cat "$work/notes.png")" = "my notes" ] || fail "the user's file changed"
touch "$work/afile"
if "$blobsim" grid slice "$work/g.dng" -o "$work/afile/x.png" 2>"$work/err.txt"; then
	fail "a picture under a regular file succeeded"
fi
grep -qF "afile/x.png" "$work/err.txt" || fail "the error does not name the output: $(cat "$work/err.txt")"
echo "failures leave the old files as they were"

# Bad arguments: usage errors (exit 2) naming what is wrong.
check_usage() {
	local words=$1
	shift
	set +e
	"$blobsim" grid slice "$@" 2>"$work/err.txt"
	local status=$?
	set -e
	[ "$status" = 2 ] || fail "grid slice $*: exit $status, expected 2"
	grep -qF -- "$words" "$work/err.txt" || fail "grid slice $*: '$words' not in: $(cat "$work/err.txt")"
}
check_usage "--axis: expected x, y or z" "$work/g.dng" -o "$work/a.png" --axis w
check_usage "--at" "$work/g.dng" -o "$work/a.png" --at 1.5
check_usage "--at" "$work/g.dng" -o "$work/a.png" --at nan
check_usage "--size" "$work/g.dng" -o "$work/a.png" --size 8
check_usage "--range" "$work/g.dng" -o "$work/a.png" --range 0
check_usage "--resolution" "$work/g.dng" -o "$work/a.png" --resolution 2
check_usage "missing -o FILE.png" "$work/g.dng"
check_usage "missing the grid, config or mesh" -o "$work/a.png"
check_usage "unknown option" "$work/g.dng" -o "$work/a.png" --bogus
check_usage "unexpected argument" "$work/g.dng" "$work/g.dng" -o "$work/a.png"
[ ! -e "$work/a.png" ] || fail "a usage error wrote a picture"
echo "bad arguments named"
