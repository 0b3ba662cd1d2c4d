#!/usr/bin/env bash
# render.surface "mesh" end to end on the tiny scene (tests/run/): the scene includes its surface file
# per scene and per frame, OBJ and PLY copies on request, byte-identical at 1, 2 and 3 threads; the OBJ
# read back here is closed (every edge in exactly two faces, once each way) and matches the PLY's
# counts; `run --render` renders the pending scene with its pending surface and leaves no wrapper.
#   tests/surface_test.sh BLOBSIM TESTS_RUN_DIR
set -euo pipefail
bin=$(realpath "$1")
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
run() {  # output dir, extra args...
	local out=$1
	shift
	"$bin" run "$src/tiny.json" -o "$out" --quiet --set render.surface='"mesh"' \
		--set 'render.surface_files=["obj", "ply"]' "$@"
}

run "$work/a" --threads 1
run "$work/b" --threads 2
run "$work/c" --threads 3
for f in scene.pov scene_surface.inc scene_surface.obj scene_surface.ply frame_0001.pov frame_0001_surface.inc \
	frame_0002_surface.inc frame_0002_surface.obj; do
	[ -s "$work/a/$f" ] || fail "$f missing"
	cmp -s "$work/a/$f" "$work/b/$f" || fail "$f differs between 1 and 2 threads"
	cmp -s "$work/a/$f" "$work/c/$f" || fail "$f differs between 1 and 3 threads"
done
grep -q '^blob$' "$work/a/scene.pov" && fail "scene.pov still has blobs in mesh mode"
grep -q '#declare BlobsimSurface = "scene_surface.inc";' "$work/a/scene.pov" || fail "scene.pov does not include its surface"
grep -q '#declare BlobsimSurface = "frame_0002_surface.inc";' "$work/a/frame_0002.pov" || fail "frame 2 does not include its own surface"
grep -q '^mesh2$' "$work/a/scene_surface.inc" || fail "no mesh2 in scene_surface.inc"
grep -q 'normal_vectors' "$work/a/scene_surface.inc" || fail "no normals in scene_surface.inc"
python3 -c "import json,sys; s=json.load(open(sys.argv[1]))['surface']; assert s['triangles'] > 100 and s['scenes'] == 3, s" \
	"$work/a/summary.json" || fail "summary.json has no surface statistics"

python3 - "$work/a/scene_surface.obj" "$work/a/scene_surface.ply" <<'PY' || fail "the OBJ surface is not a closed mesh"
import collections, sys
v = vn = 0
edges = collections.Counter()
for line in open(sys.argv[1]):
    t = line.split()
    if not t:
        continue
    if t[0] == "v":
        v += 1
    elif t[0] == "vn":
        vn += 1
    elif t[0] == "f":
        i = [int(x.split("//")[0]) for x in t[1:]]
        assert len(i) == 3 and min(i) >= 1 and max(i) <= v, line
        for a, b in ((i[0], i[1]), (i[1], i[2]), (i[2], i[0])):
            edges[a, b] += 1
assert v == vn and v > 0
for (a, b), n in edges.items():
    assert n == 1 and edges[b, a] == 1, (a, b)
header = open(sys.argv[2], "rb").read(400).split(b"end_header")[0].decode()
assert f"element vertex {v}\n" in header, header
assert f"element face {sum(edges.values()) // 3}\n" in header, header
PY

# Blobs stay the default and write no surface files.
"$bin" run "$src/tiny.json" -o "$work/blob" --quiet
ls "$work/blob" | grep -q surface && fail "a blob run wrote surface files"

if command -v povray >/dev/null 2>&1; then
	run "$work/r" --render --set output.frame_every=0
	[ -s "$work/r/scene.png" ] || fail "no scene.png in mesh mode"
	ls -a "$work/r" | grep -q 'tmp' && fail "temporary files left: $(ls -a "$work/r")"
	grep -q "Parse Error\|Possible Parse Error" "$work/r/render.log" && fail "POV-Ray complained: $(grep -A3 Parse "$work/r/render.log")"
fi
echo "ok"
