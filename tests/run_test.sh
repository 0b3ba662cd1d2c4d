#!/usr/bin/env bash
# End-to-end tests of `blobsim run` and `blobsim check` on the tiny scene in tests/run/.
#   tests/run_test.sh BLOBSIM TESTS_RUN_DIR MODE
# MODE: determinism | golden | summary | chain | check | surface | render | cull | bless
# `bless` rewrites the golden files from the current build (review the diff before committing).
# Exit 77 means skipped (meson's convention), e.g. render without POV-Ray.
set -euo pipefail
bin=$(realpath "$1")
src=$2
mode=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() {
	echo "FAIL: $*" >&2
	exit 1
}

run() {  # output dir, extra args...
	local out=$1
	shift
	"$bin" run "$src/tiny.json" -o "$out" --quiet "$@"
}

# Runs at 1, 2 and 3 threads into DIR1, DIR2, DIR3; scene.pov and particles.ply must not differ.
same_at_threads() {  # what (for the message), DIR, extra args...
	local what=$1 dir=$2
	shift 2
	for t in 1 2 3; do
		run "$dir$t" --threads "$t" "$@"
	done
	for t in 2 3; do
		for f in scene.pov particles.ply; do
			cmp -s "${dir}1/$f" "$dir$t/$f" || fail "$f with $what differs between 1 and $t threads"
		done
	done
}

case "$mode" in
determinism)
	# Same config and seed: byte-identical outputs whatever the thread count.
	run "$work/a" --threads 1
	run "$work/b" --threads 2
	run "$work/c" --threads 3
	for f in scene.pov particles.ply frame_0000.pov frame_0001.pov frame_0002.pov animation.ini animation.pov; do
		cmp -s "$work/a/$f" "$work/b/$f" || fail "$f differs between 1 and 2 threads"
		cmp -s "$work/a/$f" "$work/c/$f" || fail "$f differs between 1 and 3 threads"
	done
	# The exact sweep four triangles at a time (x86-64 builds) gives the scalar test's bytes
	# (BLOBSIM_SCALAR_SWEEP=1 forces the scalar test; docs/config.md).
	BLOBSIM_SCALAR_SWEEP=1 run "$work/scalar" --threads 2
	for f in scene.pov particles.ply frame_0001.pov; do
		cmp -s "$work/a/$f" "$work/scalar/$f" || fail "$f differs with BLOBSIM_SCALAR_SWEEP=1"
	done
	# Emission over time (a nozzle, the grid and a surface by rate, a lifetime): the same particles whatever the
	# thread count or the frames written.
	rate=(--set 'particles.emitters.2={"type": "nozzle", "center": [0, 1.5, 0], "disk_radius": 0.1,
		"cone_angle": 25, "speed": [0.5, 1.5], "start": 0.05, "rate": 700, "stop": 0.5}'
		--set particles.emitters.0.rate=2000 --set particles.emitters.0.stop=0.4 --set particles.lifetime=0.35
		--set 'particles.emitters.3={"type": "surface", "group": "box", "cone_angle": 30, "speed": [0.2, 0.6],
		"gap": 0.001, "start": 0.1, "rate": 300, "stop": 0.4}')
	run "$work/ra" --threads 1 "${rate[@]}"
	run "$work/rb" --threads 2 "${rate[@]}"
	run "$work/rc" --threads 3 "${rate[@]}" --set output.frame_every=1
	run "$work/rd" --threads 2 "${rate[@]}" --set output.frame_every=0
	for d in rb rc rd; do
		for f in scene.pov particles.ply; do
			cmp -s "$work/ra/$f" "$work/$d/$f" || fail "$f with emission over time differs ($d)"
		done
	done
	# 315 + 800 + 100 + 90 particles; some expired.
	count=$(grep -a -m1 '^element vertex' "$work/ra/particles.ply" | cut -d' ' -f3)
		[ "$count" = 1305 ] || fail "$count particles with emission over time, expected 1305"
	# The summary counts the expired among the escaped, and every particle born.
	python3 -c 'import json, sys; p = json.load(open(sys.argv[1]))["particles"]
assert p["emitted"] == 1305 and 0 < p["expired"] <= p["escaped"], p' "$work/ra/summary.json" ||
		fail "summary.json: emitted or expired wrong"
	# Enough particles that the scene's blobs are formatted in several pieces a tile on the threads
	# (2,048 components a piece): 19,300 particles in tiles of at most 5,000, frames included.
	big=(--set 'particles.emitters.0.count=[120,4,40]' --set render.blob.max_components=5000)
	same_at_threads "the blobs in pieces" "$work/big" "${big[@]}"
	for f in frame_0000.pov frame_0002.pov; do
		cmp -s "$work/big1/$f" "$work/big2/$f" || fail "$f with the blobs in pieces differs between 1 and 2 threads"
	done
	[ "$(grep -c '^blob' "$work/big1/scene.pov")" -ge 4 ] || fail "the big run's scene has fewer than 4 tiles"
	# Every interaction mode (with cohesion, viscosity, a stiffness): the same bytes at 1, 2 and 3
	# threads, and the particles did interact (the run differs from one without).
	k=0
	for inter in '"repulsion"' '{"type": "granular", "cohesion": 3, "viscosity": 5}' \
		'{"type": "repulsion", "cohesion": 2, "cohesion_range": 1.5, "viscosity": 2}' \
		'{"type": "granular", "stiffness": 20, "friction": 0.8}'; do
		k=$((k + 1))
		set_inter=(--set "particles.interaction=$inter" --set motion.steps=2 --set output.frame_every=0)
		run "$work/i$k-1" --threads 1 "${set_inter[@]}"
		run "$work/i$k-2" --threads 2 "${set_inter[@]}"
		run "$work/i$k-3" --threads 3 "${set_inter[@]}"
		for f in scene.pov particles.ply; do
			cmp -s "$work/i$k-1/$f" "$work/i$k-2/$f" || fail "$f with interaction $inter differs between 1 and 2 threads"
			cmp -s "$work/i$k-1/$f" "$work/i$k-3/$f" || fail "$f with interaction $inter differs between 1 and 3 threads"
		done
	done
	run "$work/i0" --threads 2 --set motion.steps=2 --set output.frame_every=0
	cmp -s "$work/i0/particles.ply" "$work/i1-1/particles.ply" && fail "repulsion changed nothing"
	# Accumulation and rest (particles on stuck and sleeping particles, waking): the same at 1, 2, 3
	# threads, and the summary counts sleepers.
	pile=("${rate[@]}" --set particles.lifetime=100 --set particles.accumulate=true
		--set 'motion.sleep={"steps": 2, "speed": 0.2, "acceleration": 20}' --set motion.steps=12)
	same_at_threads "accumulation and rest" "$work/pile" "${pile[@]}"
	# Something to compare: sleepers, woken ones and contacts with particles (1055, 210, 1242 today).
	python3 - "$work/pile1/summary.json" <<'PY' || fail "accumulation and rest did nothing"
import json, sys
s = json.load(open(sys.argv[1]))
p, c = s["particles"], s["contacts"]
sys.exit(0 if p["sleeping"] > 100 and p["woken"] > 10 and c.get("sphere/face", 0) > 100 else 1)
PY
	# Granular interaction with accumulation and rest: sleepers and stuck particles are fixed
	# neighbours of the interaction phase, which wakes the sleepers it hits; the same bytes at 1, 2 and 3
	# threads, and the particles did interact (the run differs from the pile without interaction).
	grain=("${pile[@]}" --set 'particles.interaction={"type": "granular", "contact_time": 0.05, "cohesion": 1}'
		--set output.frame_every=0)
	same_at_threads "interaction, accumulation and rest" "$work/grain" "${grain[@]}"
	cmp -s "$work/grain1/particles.ply" "$work/pile1/particles.ply" && fail "the interaction changed nothing in the pile"
	# Sleepers, woken ones, particle contacts (747, 1471, 2672493 contact pairs today).
	python3 - "$work/grain1/summary.json" <<'PY' || fail "interaction with accumulation and rest did nothing"
import json, sys
s = json.load(open(sys.argv[1]))
p, i = s["particles"], s["interaction"]
sys.exit(0 if p["sleeping"] > 100 and p["woken"] > 10 and i["contact_pairs"] > 1000 else 1)
PY
	# The distance/normal field (every effect, trilinear), its grid built from the meshes and cached in
	# $BLOBSIM_CACHE: the same bytes at 1, 2 and 3 threads and from the cache; the cached file is the
	# one `blobsim grid build` writes; the same grid named by field.grid gives the same run.
	field='"lookup": "trilinear", "impact": {"beta": 0.7, "threshold": 0.05}, "drag": {"delta": 2, "theta": 0.1},
		"surface_flow": {"rho_in": 12, "rho_out": 3, "distance": 0.2}, "spring": {"strength": 30, "distance": 0.1}'
	export BLOBSIM_CACHE="$work/cache"
	set_field=(--set "field={\"build\": {\"resolution\": 40}, $field}" --set output.frame_every=0)
	run "$work/f1" --threads 1 "${set_field[@]}"
	[ "$(ls "$work/cache")" != "" ] || fail "no grid cached in \$BLOBSIM_CACHE"
	run "$work/f2" --threads 2 "${set_field[@]}"
	run "$work/f3" --threads 3 "${set_field[@]}"
	rm -rf "$work/cache"
	run "$work/f4" --threads 2 "${set_field[@]}"
	for d in f2 f3 f4; do
		for f in scene.pov particles.ply; do
			cmp -s "$work/f1/$f" "$work/$d/$f" || fail "$f with the field differs ($d)"
		done
	done
	"$bin" grid build "$src/tiny.json" -o "$work/tiny.dng" --resolution 40 --compress >/dev/null
	cmp -s "$work/tiny.dng" "$work"/cache/field-*.dng || fail "the cached grid is not the one grid build writes"
	run "$work/f5" --threads 2 --set "field={\"grid\": \"$work/tiny.dng\", $field}" --set output.frame_every=0
	cmp -s "$work/f1/particles.ply" "$work/f5/particles.ply" || fail "field.grid and field.build differ"
	# summary.json says where each run's grid came from, with the same grid hash every time: built
	# (f1, f4: no cache yet), from the cache (f2, f3), from the file (f5); the runs without a field
	# have no "field" key.
	python3 - "$work" "$work/tiny.dng" <<'PY' || fail "summary.json's field: wrong source or hash"
import json, sys
work, dng = sys.argv[1], sys.argv[2]
f = {d: json.load(open(f"{work}/{d}/summary.json"))["field"] for d in ("f1", "f2", "f3", "f4", "f5")}
want = {"f1": "built", "f2": "cache", "f3": "cache", "f4": "built", "f5": "file"}
for d, source in want.items():
    assert f[d]["source"] == source, (d, f[d])
    assert f[d]["grid_hash"] == f["f1"]["grid_hash"] and f[d]["mesh_hash"] == f["f1"]["mesh_hash"], (d, f[d])
    assert f[d]["cells"] == f["f1"]["cells"] and len(f[d]["grid_hash"]) == 16, (d, f[d])
assert f["f1"]["path"].startswith(f"{work}/cache/field-") and f["f2"]["path"] == f["f1"]["path"], f
assert f["f5"]["path"] == dng, f
PY
	# `blobsim check` says the same without simulating: the cached grid, the file it would load, the
	# grid it would build once the cache is gone.
	"$bin" check "$src/tiny.json" "${set_field[@]}" | grep -q "^field: grid from the cache $work/cache/field-" ||
		fail "check does not find the cached grid"
	"$bin" check "$src/tiny.json" --set "field={\"grid\": \"$work/tiny.dng\", $field}" |
		grep -q "^field: grid $work/tiny.dng: .* cells of .* (mesh hash [0-9a-f]*, the config's meshes)" ||
		fail "check does not load field.grid"
	BLOBSIM_CACHE="$work/nocache" "$bin" check "$src/tiny.json" "${set_field[@]}" |
		grep -q "^field: the grid would be built from [0-9]* triangles (blur, band 3) and cached as $work/nocache/field-" ||
		fail "check does not say the grid would be built"
	[ ! -e "$work/nocache" ] || fail "check wrote to the cache"
	run "$work/f0" --threads 2 --set output.frame_every=0
	cmp -s "$work/f0/particles.ply" "$work/f1/particles.ply" && fail "the field changed nothing"
	# A corrupt cache file is rebuilt, not used (the same run, the file restored); a changed mesh
	# transform is another grid, another file.
	cached=$(ls "$work"/cache/field-*.dng)
	printf 'garbage' | dd of="$cached" bs=1 seek=200 conv=notrunc status=none
	run "$work/f6" --threads 2 "${set_field[@]}"
	cmp -s "$work/f1/particles.ply" "$work/f6/particles.ply" || fail "a corrupt cache file changed the run"
	cmp -s "$work/tiny.dng" "$cached" || fail "a corrupt cache file was not rebuilt"
	run "$work/f7" --threads 2 "${set_field[@]}" --set environment.meshes.0.scale=1.1
	[ "$(ls "$work"/cache/field-*.dng | wc -l)" = 2 ] || fail "a scaled mesh did not get its own cached grid"
	cmp -s "$work/f1/particles.ply" "$work/f7/particles.ply" && fail "a scaled mesh gave the same run"
	# The compressed grid (field.compress): the same bytes at 1 and 2 threads.
	set_tree=(--set "field={\"build\": {\"resolution\": 40}, \"compress\": {\"block\": 2}, $field}"
		--set output.frame_every=0)
	run "$work/t1" --threads 1 "${set_tree[@]}"
	run "$work/t2" --threads 2 "${set_tree[@]}"
	for f in scene.pov particles.ply; do
		cmp -s "$work/t1/$f" "$work/t2/$f" || fail "$f with the compressed field differs at 2 threads"
	done
	unset BLOBSIM_CACHE
	;;
golden)
	run "$work/a"
	for f in scene.pov particles.ply; do
		if ! cmp -s "$work/a/$f" "$src/golden/tiny.$f"; then
			diff <(head -c 4000 "$work/a/$f" | strings) <(head -c 4000 "$src/golden/tiny.$f" | strings) | head -20 >&2 || true
			fail "$f differs from tests/run/golden/tiny.$f (if the change is intended: tests/run_test.sh BLOBSIM tests/run bless)"
		fi
	done
	;;
bless)
	run "$work/a"
	cp "$work/a/scene.pov" "$src/golden/tiny.scene.pov"
	cp "$work/a/particles.ply" "$src/golden/tiny.particles.ply"
	echo "blessed tests/run/golden/tiny.scene.pov and tiny.particles.ply"
	;;
summary)
	# Every emitted particle is in the PLY, the summary's counts match it, no temporary file is left.
	run "$work/a"
	python3 - "$work/a" "$src" <<'PY' || exit 1
import json, struct, sys
d = sys.argv[1]
data = open(d + "/particles.ply", "rb").read()
head, body = data.split(b"end_header\n", 1)
count = int([l for l in head.decode().splitlines() if l.startswith("element vertex")][0].split()[2])
assert count == 12 * 2 * 12 + 100, f"{count} particles in the PLY, expected 388"
row = 7 * 4 + 1 + 4
assert len(body) == count * row, "PLY body size"
ids = [struct.unpack_from("<I", body, i * row + 29)[0] for i in range(count)]
assert ids == list(range(count)), "ids: birth order, 0 .. count - 1"
states = [body[i * row + 28] for i in range(count)]
radii = [struct.unpack_from("<f", body, i * row + 12)[0] for i in range(count)]
assert all(0.03 * 0.8 - 1e-6 <= r <= 0.03 * 1.2 + 1e-6 for r in radii), "radius spread"
s = json.load(open(d + "/summary.json"))
p = s["particles"]
assert p["total"] == count
for name, code in (("free", 0), ("stuck", 1), ("escaped", 2)):
    assert p[name] == states.count(code), (name, p[name], states.count(code))
assert p["emitted"] == count and p["expired"] == 0, (p["emitted"], p["expired"])
assert s["contacts"]["total"] == sum(v for k, v in s["contacts"].items() if k != "total")
assert s["contacts"]["total"] > 0 and s["queries"]["count"] >= count
# Frames after steps 3 and 6, and frame 0 (the initial state).
assert s["method"] == "exact" and s["steps"] == 6 and s["frames"] == 3
# What `blobsim render DIR` renders with: the config's render settings.
assert s["render"] == {"width": 96, "height": 72, "antialias": 0, "jitter": 1, "movie": False, "fps": 25}, s["render"]
assert s["environment"]["triangles"] == 14 and s["environment"]["planes"] == 1
# What the run read (for blobsim batch): no overrides, one input file, its size and FNV-1a 64.
def fnv1a64(path):
    h = 0xcbf29ce484222325
    for byte in open(path, "rb").read():
        h = ((h ^ byte) * 0x100000001b3) & 0xffffffffffffffff
    return "%016x" % h
obj = sys.argv[2] + "/tiny.obj"
assert s["overrides"] == [], s["overrides"]
assert s["inputs"] == [{"path": obj, "size": len(open(obj, "rb").read()), "fnv1a64": fnv1a64(obj)}], s["inputs"]
assert len(s["config_hash"]) == 16
# The step's phases, timed one after another inside each step: all there, none negative, the move
# phase (every particle's sweeps) took time, and together they fit in the simulate time.
t = s["seconds"]
step = t["step"]
assert list(step) == ["emit", "plan", "interaction", "forces", "colliders", "move", "sleep", "expire"], step
assert all(v >= 0.0 for v in step.values()) and step["move"] > 0.0, step
assert sum(step.values()) <= t["simulate"] + 1e-9, (sum(step.values()), t["simulate"])
pov = open(d + "/scene.pov").read()
assert pov.startswith("#version 3.7;") and "hierarchy off" not in pov
components = {l for l in pov.splitlines() if l.startswith("\tsphere { ")}  # tiles repeat their neighbours'
left_out = s.get("blob_cull", {}).get("left_out", 0)  # the buried ones are left out
assert len(components) == count - p["escaped"] - left_out, "one blob component per particle still in the scene"
PY
	if ls "$work/a" | grep -q '\.tmp'; then
		fail "temporary files left: $(ls "$work/a")"
	fi
	# The fluid's solver statistics are in the interaction object of a fluid run only (with a material,
	# its name too); a granular run's object keeps its four keys.
	short=(--set motion.steps=2 --set motion.dt=0.01 --set output.frame_every=0)
	run "$work/fluid" "${short[@]}" --set particles.material=mud
	run "$work/grain" "${short[@]}" --set particles.interaction=granular
	python3 - "$work/fluid/summary.json" "$work/grain/summary.json" <<'PY' || fail "summary.json: the fluid's statistics"
import json, sys
f = json.load(open(sys.argv[1]))["interaction"]
g = json.load(open(sys.argv[2]))["interaction"]
assert list(g) == ["type", "substeps", "neighbour_pairs", "contact_pairs"], g
solves = ["divergence", "density", "viscosity"]
keys = ["type", "substeps", "neighbour_pairs", "contact_pairs", "material", "fluid_substeps"]
keys += [k for s in solves for k in (s + "_iterations", s + "_iterations_per_substep")]
keys += ["unconverged", "density_error_mean", "density_error_max", "last_step"]
assert list(f) == keys, list(f)
n = f["fluid_substeps"]
assert f["type"] == "fluid" and f["material"] == "mud", f
for s in solves:
    total = f[s + "_iterations"]
    assert total >= 0 and f[s + "_iterations_per_substep"] == (total / n if n > 0 else 0), f
assert 0 <= f["unconverged"] and 0 <= f["density_error_mean"] <= f["density_error_max"], f
# The last step alone: its own keys, within the run's totals and maxima.
last = f["last_step"]
assert list(last) == ["fluid_substeps", "density_iterations", "unconverged", "density_error_mean",
                      "density_error_max"], last
assert 0 < last["fluid_substeps"] < n and 0 < last["density_iterations"] < f["density_iterations"], (last, f)
assert last["unconverged"] <= f["unconverged"], (last, f)
assert 0 <= last["density_error_mean"] <= f["density_error_mean"], (last, f)
assert last["density_error_max"] <= f["density_error_max"], (last, f)
PY
	;;
chain)
	# A run's particles.ply feeds the next run (the `file` emitter).
	run "$work/a"
	run "$work/b" --set "particles.emitters=[{\"type\": \"file\", \"file\": \"$work/a/particles.ply\"}]" \
		--set motion.steps=1 --set output.frame_every=0
	python3 - "$work/a/particles.ply" "$work/b/particles.ply" "$work/b/summary.json" "$src/tiny.obj" <<'PY' || exit 1
import json, os, struct, sys
# The second run read the mesh and the first run's PLY, with the overrides as given.
s = json.load(open(sys.argv[3]))
assert [f["path"] for f in s["inputs"]] == [sys.argv[4], sys.argv[1]], s["inputs"]
assert s["inputs"][1]["size"] == os.path.getsize(sys.argv[1])
assert len(s["overrides"]) == 3 and s["overrides"][1:] == ["motion.steps=1", "output.frame_every=0"], s["overrides"]
def read(p):
    data = open(p, "rb").read()
    head, body = data.split(b"end_header\n", 1)
    n = int([l for l in head.decode().splitlines() if l.startswith("element vertex")][0].split()[2])
    return [struct.unpack_from("<7fBI", body, i * 33) for i in range(n)]
a, b = read(sys.argv[1]), read(sys.argv[2])
assert len(a) == len(b), (len(a), len(b))
for pa, pb in zip(a, b):
    assert pa[3] == pb[3], "radius kept"
    assert pa[8] == pb[8], "ids kept: the file's particles are born in file order"
    if pa[7] != 0:
        assert pa == pb, "stuck and escaped particles stay as they were"
PY
	;;
surface)
	# Surface emitters on OBJ groups of tiny.obj, at rest with nothing moving them: every particle of
	# the group 'bar' (by its base name; its key is bar:stone) lies radius + gap above the bar's top
	# face (y = 0.3, facing +y), within the face; those of 'wood' (the floor, by its material) above
	# the floor; the summary counts both.
	run "$work/a" --set motion.gravity=[0,0,0] --set motion.steps=1 --set output.frame_every=0 \
		--set 'particles.emitters=[{"type": "surface", "group": "bar", "gap": 0.005, "count": 400},
		{"type": "surface", "group": "wood", "count": 600}]'
	python3 - "$work/a" <<'PY' || exit 1
import json, struct, sys
d = sys.argv[1]
data = open(d + "/particles.ply", "rb").read()
head, body = data.split(b"end_header\n", 1)
n = len(body) // 33
p = [struct.unpack_from("<7fBI", body, i * 33) for i in range(n)]
assert n == 1000 and json.load(open(d + "/summary.json"))["particles"]["emitted"] == 1000
F = 1e-6  # float rounding
for x, y, z, r, vx, vy, vz, state, pid in p[:400]:
    assert abs(y - (0.3 + r + 0.005)) <= F and 0.58 - F <= x <= 0.62 + F and -0.8 - F <= z <= 0.8 + F, (x, y, z, r)
for x, y, z, r, vx, vy, vz, state, pid in p[400:]:
    assert abs(y - r) <= F and -1 - F <= x <= 1 + F and -1 - F <= z <= 1 + F, (x, y, z, r)
assert [q[8] for q in p] == list(range(n)), "ids in birth order"
PY
	;;
check)
	"$bin" check "$src/tiny.json" >/dev/null || fail "check rejects a valid config"
	# Counts against the files (tiny.obj: 14 'f' lines in 3 'g' groups), singular for one.
	msg=$("$bin" check "$src/tiny.json")
	# and the mesh's edges: the box's sides are wound against its top (the scene's quads as drawn), and
	# the floor and the bar are open.
	[ "$msg" = "$src/tiny.json: ok: 388 particles, 14 triangles in 3 groups (0 degenerate dropped), 1 plane; 6 steps of 0.1 s, exact, slide
$src/tiny.obj: 4 edges wound inconsistently (their two faces run them the same way, e.g. the edge of vertices 9 and 12), 12 boundary edges (open, e.g. the edge of vertices 1 and 4)" ] ||
		fail "check: unexpected summary: $msg"
	printf 'v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 3\n' >"$work/one.obj"
	sed 's|"tiny.obj", "materials": { "bar": "metal" }|"one.obj"|' "$src/tiny.json" >"$work/one.json"
	msg=$("$bin" check "$work/one.json" --set motion.steps=1)
	[ "$msg" = "$work/one.json: ok: 388 particles, 1 triangle in 1 group (0 degenerate dropped), 1 plane; 1 step of 0.1 s, exact, slide
$work/one.obj: 0 edges wound inconsistently, 3 boundary edges (open, e.g. the edge of vertices 1 and 2)" ] ||
		fail "check: unexpected summary for one triangle: $msg"
	# Paths relative to a config in a subfolder print without "configs/..": output.directory
	# "../out/x" of configs/c.json is out/x.
	mkdir -p "$work/configs"
	sed 's|"tiny.obj", "materials": { "bar": "metal" }|"../one.obj"|' "$src/tiny.json" |
		python3 -c 'import json, sys; c = json.load(sys.stdin); c.setdefault("output", {})["directory"] = "../out/x"; print(json.dumps(c))' \
		>"$work/configs/c.json"
	msg=$(cd "$work" && "$bin" run configs/c.json)
	case "$msg" in
	*" -> out/x/scene.pov") ;;
	*) fail "run: unexpected output path: $msg" ;;
	esac
	[ -f "$work/out/x/scene.pov" ] || fail "run: no out/x/scene.pov"
	# Through a symbolic link, "link/.." is not the link's folder: kept as it is.
	mkdir -p "$work/elsewhere/deep"
	cp "$work/configs/c.json" "$work/one.obj" "$work/elsewhere/deep/"
	sed -i 's|"../one.obj"|"one.obj"|' "$work/elsewhere/deep/c.json"
	ln -s elsewhere/deep "$work/link"
	msg=$(cd "$work" && "$bin" run link/c.json)
	case "$msg" in
	*" -> link/../out/x/scene.pov") ;;
	*) fail "run through a link: unexpected output path: $msg" ;;
	esac
	[ -f "$work/elsewhere/out/x/scene.pov" ] || fail "run through a link: no elsewhere/out/x/scene.pov"
	set +e
	msg=$("$bin" check "$src/tiny.json" --set collision.mehtod=exact 2>&1)
	rc=$?
	set -e
	[ $rc -eq 1 ] || fail "check: a bad override exits $rc, expected 1"
	case "$msg" in
	*"did you mean 'method'"*) ;;
	*) fail "check: unexpected message: $msg" ;;
	esac
	set +e
	msg=$("$bin" check "$src/tiny.json" --set 'environment.meshes.0.materials={"nosuch": "wood"}' 2>&1)
	rc=$?
	set -e
	[ $rc -eq 1 ] || fail "check: an unknown group exits $rc, expected 1"
	case "$msg" in
	*"no group 'nosuch' in"*"tiny.obj (groups: floor:wood, box:stone, bar:stone)"*) ;;
	*) fail "check: unexpected message: $msg" ;;
	esac
	set +e
	"$bin" run "$src/tiny.json" -o /dev/null/x --quiet 2>/dev/null
	rc=$?
	set -e
	[ $rc -eq 1 ] || fail "run into an impossible directory exits $rc, expected 1"
	set +e
	"$bin" run 2>/dev/null
	rc=$?
	set -e
	[ $rc -eq 2 ] || fail "run without a config exits $rc, expected 2"
	;;
cull)
	# A dense block of overlapping particles: the buried components are left out of scene.pov (the
	# same ones at 1, 2 and 3 threads), counted in summary.json, and kept with render.blob.cull false;
	# with POV-Ray both scenes render to the same image.
	dense=(--set 'particles.emitters=[{"type": "grid", "min": [-0.2, 0.4, -0.2], "max": [0.2, 0.8, 0.2], "count": [10, 10, 10]}]'
		--set motion.steps=1 --set motion.dt=0.001 --set output.frame_every=0)
	same_at_threads "render.blob.cull" "$work/c" "${dense[@]}" --set render.blob.cull=true
	run "$work/full" "${dense[@]}" --set render.blob.cull=false
	python3 - "$work/c1" "$work/full" <<'PY' || exit 1
import json, sys
cull, full = sys.argv[1], sys.argv[2]
def spheres(d):
    return {l for l in open(d + "/scene.pov").read().splitlines() if l.startswith("\tsphere { ")}
c = json.load(open(cull + "/summary.json"))["blob_cull"]
assert c["components"] == 1000 and 100 <= c["left_out"] < 1000 and c["scenes"] == 1, c
assert len(spheres(cull)) == 1000 - c["left_out"], (len(spheres(cull)), c)
assert spheres(cull) < spheres(full) and len(spheres(full)) == 1000
assert "blob_cull" not in json.load(open(full + "/summary.json"))
PY
	if command -v povray >/dev/null 2>&1; then
		"$bin" render "$work/c1" --scene --quiet
		"$bin" render "$work/full" --scene --quiet
		"$bin" compare "$work/c1/scene.png" "$work/full/scene.png" --min-ssim 0.999 >/dev/null ||
			fail "the scene without its buried components renders differently"
	fi
	;;
render)
	if ! command -v povray >/dev/null 2>&1; then
		echo "skipped: POV-Ray is not installed (apt-get install povray)"
		exit 77
	fi
	run "$work/a" --render
	[ -s "$work/a/scene.png" ] || fail "no scene.png"
	python3 - "$work/a/scene.png" <<'PY' || exit 1
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, w, h = 8, b"", 0, 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    chunk = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h = struct.unpack(">II", chunk[:8])
    elif kind == b"IDAT":
        idat += chunk
    pos += 12 + n
assert (w, h) == (96, 72), (w, h)
raw = zlib.decompress(idat)
assert len(set(raw)) > 16, "the image is (nearly) uniform"
PY
	;;
*)
	fail "unknown mode $mode"
	;;
esac
echo "ok: $mode"
