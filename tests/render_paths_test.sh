#!/usr/bin/env bash
# `blobsim run --render` and `blobsim batch --render` into output folders whose names POV-Ray would
# read as options if they reached its command line: spaces, '=', '+', a leading '-', quotes, UTF-8.
#   tests/render_paths_test.sh BLOBSIM TESTS_RUN_DIR
# Each render must leave DIR/scene.png, a whole PNG of the configured size (every chunk's CRC, the
# image data inflating to exactly height rows). Exit 77 (skipped) when POV-Ray is not installed.
set -euo pipefail
bin=$(realpath "$1")
src=$(realpath "$2")
if ! command -v povray >/dev/null 2>&1; then
	echo "skipped: POV-Ray is not installed (apt-get install povray)"
	exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
cp "$src/tiny.json" "$src/tiny.obj" "$work/"
small=(--set render.width=48 --set render.height=36)

# check_png FILE: a complete PNG of 48x36.
check_png() {
	python3 - "$1" <<'PY' || fail "$1 is not a valid 48x36 PNG"
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "no PNG signature"
pos, idat, kinds = 8, b"", []
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 4:pos + 8 + n]
    (crc,) = struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])
    assert zlib.crc32(body) == crc, f"bad CRC in {kind}"
    kinds.append(kind)
    if kind == b"IHDR":
        w, h, depth, color = struct.unpack(">IIBB", body[4:14])
    elif kind == b"IDAT":
        idat += body[4:]
    pos += 12 + n
assert kinds[0] == b"IHDR" and kinds[-1] == b"IEND", kinds
assert (w, h) == (48, 36), (w, h)
channels = {0: 1, 2: 3, 4: 2, 6: 4}[color]
assert len(zlib.decompress(idat)) == h * (1 + w * channels * depth // 8), "wrong image data size"
PY
}

cd "$work"
names=("a=b" "a b" "+W1" "-D" "q'uo\"te" "snow ❄ Ünïcode" "x=1 +O-y -I\"z'")
for name in "${names[@]}"; do
	for out in "out/$name" "$name"; do
		"$bin" run tiny.json -o "$out" --quiet --render "${small[@]}" || fail "run --render -o '$out' failed"
		check_png "$out/scene.png"
		ls "$out" | grep -q '\.tmp\.' && fail "temporary file left in '$out'"
	done
done
# An absolute path, with the working directory elsewhere.
(cd / && "$bin" run "$work/tiny.json" -o "$work/abs/a=b c" --quiet --render "${small[@]}") ||
	fail "run --render into an absolute path failed"
check_png "$work/abs/a=b c/scene.png"

# batch names its folders KEY=VALUE: a sweep whose values hold '=' and spaces too.
cat >batch.json <<'JSON'
{
  "output": "bat=ch out",
  "set": {"render.width": 48, "render.height": 36},
  "runs": [{"config": "tiny.json", "name": "t=1+x,-y", "set": {"seed": [1, 2]}}]
}
JSON
"$bin" batch batch.json --render --quiet || fail "batch --render failed"
count=0
while IFS= read -r -d '' png; do
	case "$png" in *=*) ;; *) fail "batch folder without '=': $png" ;; esac
	check_png "$png"
	count=$((count + 1))
done < <(find "bat=ch out" -name scene.png -print0)
[ "$count" -eq 2 ] || fail "batch rendered $count images, expected 2"
echo "ok: ${#names[@]} names, in out/ and at the top, an absolute path, and batch"
