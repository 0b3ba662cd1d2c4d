#!/usr/bin/env bash
# render.surface "mesh" (and "auto") end to end on the tiny scene (tests/run/): the scene includes its surface file
# per scene and per frame, OBJ and PLY copies on request, byte-identical at 1, 2 and 3 threads; the OBJ
# read back here is closed (every edge in exactly two faces, once each way) and matches the PLY's
# counts; `run --render` renders every pending scene with its pending surface and leaves no wrapper, and
# `blobsim render DIR` keeps those images until a surface changes.
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
python3 -c "import json,sys; s=json.load(open(sys.argv[1]))['surface']; assert s['triangles'] > 100 and s['scenes'] == 4, s" \
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

# Auto: each scene's choice is recorded; a scene includes its surface file exactly when it has one,
# the same bytes at 1 and 2 threads; `run --render` renders them and `render DIR` finds them up to date.
# Zoomed in on transparent slime, the scenes with particles are meshes and frame 0 (none) is blobs.
auto=(--set render.surface='"auto"' --set render.particle_material='"slime"' --set render.camera.angle=10)
"$bin" run "$src/tiny.json" -o "$work/auto1" --quiet --threads 1 "${auto[@]}"
"$bin" run "$src/tiny.json" -o "$work/auto2" --quiet --threads 2 "${auto[@]}"
python3 - "$work/auto1" <<'PY' || fail "auto mode's choices are not what its scenes hold"
import json, os, sys
d = sys.argv[1]
a = json.load(open(d + "/summary.json"))["surface_auto"]
names = ("scene", "frame_0000", "frame_0001", "frame_0002")
assert a["scenes"] == 4 and a["choice"] in ("blob", "mesh") and a["predicted"]["blob"] > 0, a
assert set(a["inputs"]) >= {"components", "pixels", "coverage", "transparent"}, a
meshes = 0
for n in names:
    has = os.path.exists(f"{d}/{n}_surface.inc")
    assert has == ("BlobsimSurface" in open(f"{d}/{n}.pov").read()), n
    meshes += has
assert meshes == a["mesh_scenes"] == 3 and a["choice"] == "mesh", (meshes, a)
PY
for f in scene.pov frame_0001.pov frame_0002.pov; do
	cmp -s "$work/auto1/$f" "$work/auto2/$f" || fail "auto: $f differs between 1 and 2 threads"
done

if command -v povray >/dev/null 2>&1; then
	# Every frame's render reads its own pending surface (through a wrapper), then `render DIR` reads
	# the files in place; the image records hash the include, so a changed surface re-renders its frame.
	run "$work/r" --render --set render.width=48 --set render.height=32
	for f in scene frame_0000 frame_0001 frame_0002; do
		[ -s "$work/r/$f.png" ] || fail "no $f.png in mesh mode"
		grep -aq "blobsim-render.pov=[0-9a-f]* inc=[0-9a-f]\{16\} size=48x32" "$work/r/$f.png" ||
			fail "$f.png's record does not hash its surface"
	done
	ls -a "$work/r" | grep -q 'tmp' && fail "temporary files left: $(ls -a "$work/r")"
	grep -q "Parse Error\|Possible Parse Error" "$work/r/render.log" && fail "POV-Ray complained: $(grep -A3 Parse "$work/r/render.log")"
	# No warning either (a declaration before the first #version made POV-Ray 3.7 warn).
	grep -q "Warning:" "$work/r/render.log" && fail "POV-Ray warned: $(grep -A3 "Warning:" "$work/r/render.log")"
	"$bin" render "$work/r" | grep -q '^blobsim: 0 images rendered, 4 up to date' || fail "render DIR re-rendered up-to-date images"
	echo '// changed' >>"$work/r/frame_0001_surface.inc"
	"$bin" render "$work/r" | grep -q '^blobsim: 1 image rendered, 3 up to date' || fail "a changed surface did not re-render exactly its frame"
	"$bin" render "$work/r" --force --frames 1 >/dev/null
	grep -aq "inc=" "$work/r/frame_0001.png" || fail "render DIR's image does not hash its surface"
	rm "$work/r/frame_0002_surface.inc"
	if message=$("$bin" render "$work/r" --frames 2 2>&1); then
		fail "render DIR rendered a frame without its surface"
	fi
	grep -q "frame_0002_surface.inc is missing" <<<"$message" || fail "render DIR does not name a missing surface: $message"
	"$bin" run "$src/tiny.json" -o "$work/autor" --quiet --render "${auto[@]}"
	[ -s "$work/autor/frame_0002.png" ] || fail "auto: no frame_0002.png"
	grep -aq "inc=" "$work/autor/frame_0002.png" || fail "auto: a mesh frame's record does not hash its surface"
	grep -aq "inc=" "$work/autor/frame_0000.png" && fail "auto: a blob frame's record hashes a surface"
	"$bin" render "$work/autor" | grep -q '^blobsim: 0 images rendered, 4 up to date' || fail "auto: render DIR re-rendered up-to-date images"
	# The same folder again, every scene blobs now: no earlier include is taken, and none is left.
	"$bin" run "$src/tiny.json" -o "$work/autor" --quiet --render --set render.surface='"auto"'
	ls "$work/autor" | grep -q surface && fail "auto: an earlier run's surface files were left"
	grep -aq "inc=" "$work/autor/frame_0002.png" && fail "auto: a blob frame's record hashes an earlier surface"
	"$bin" render "$work/autor" | grep -q '^blobsim: 0 images rendered, 4 up to date' || fail "auto: render DIR re-rendered up-to-date blob images"
fi
echo "ok"
