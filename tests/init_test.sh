#!/usr/bin/env bash
# `blobsim init MODEL.obj`: on every model of the shared corpus (MODELS_DIR, skipped with a message when
# absent) and on scenes/house.obj, with every material, the config it writes passes `check` and a short
# run; one renders (when POV-Ray is present). A Z-up copy of a model (its vertices turned by hand) is
# guessed Z-up and gives the Y-up model's config but for the mesh's rotate. An existing config is kept
# without --force; the model's path is relative to the config's folder.
#   tests/init_test.sh BLOBSIM SCENES_DIR MODELS_DIR
set -euo pipefail
bin=$(realpath "$1")
scenes=$(realpath "$2")
models=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
cd "$work"

# A short run of a config: a few steps, few particles (the emitters keep their place and kind).
short_run() {  # config, output dir
	"$bin" run "$1" -o "$2" --quiet --threads 2 --set motion.steps=3 --set particles.emitters.0.count=[4,2,4] \
		>/dev/null 2>"$2.err" || { cat "$2.err" >&2; fail "$1: the short run failed"; }
}
short_snow() {  # config, output dir (a rate emitter: fewer particles by a lower rate)
	"$bin" run "$1" -o "$2" --quiet --threads 2 --set motion.steps=3 --set particles.emitters.0.rate=2000 \
		>/dev/null 2>"$2.err" || { cat "$2.err" >&2; fail "$1: the short run failed"; }
}

# Every material on one model (the scene's house), checked and run briefly.
mkdir house
for material in snow sand water oil honey slime mud; do
	"$bin" init "$scenes/house.obj" --material "$material" -o "house/$material.json" >"house/$material.txt" ||
		fail "init --material $material failed"
	grep -q "^house/$material.json: $material on" "house/$material.txt" || fail "init's message: $(cat "house/$material.txt")"
	"$bin" check "house/$material.json" >/dev/null || fail "house/$material.json does not pass check"
	case $material in
	snow) short_snow "house/$material.json" "out-$material" ;;
	sand) "$bin" run "house/$material.json" -o "out-$material" --quiet --set motion.steps=3 >/dev/null ||
		fail "the sand config does not run" ;;
	*) short_run "house/$material.json" "out-$material" ;;
	esac
done
# The model's path is relative to the config's folder when they share more than the root.
mkdir models
cp "$scenes/house.obj" models/
"$bin" init models/house.obj -o house/relative.json >/dev/null || fail "init models/house.obj failed"
grep -q '"file": "../models/house.obj"' house/relative.json || fail "the model's path: $(grep '"file"' house/relative.json)"
(cd / && "$bin" check "$work/house/relative.json" >/dev/null) || fail "the config does not load from another folder"
grep -q "up axis: Y, guessed" house/snow.txt || fail "the house is not guessed Y-up: $(cat house/snow.txt)"
for key in "particles.radius" "particles.emitters\[0\]" "motion.steps" "render.camera" "environment.planes\[0\]" \
	"--scale" "--up z" "blobsim run house/snow.json --render"; do
	grep -q -- "$key" house/snow.txt || fail "the message does not name $key: $(cat house/snow.txt)"
done

# A model at survey coordinates is brought to the origin by a round translate: the same config as the
# model at the origin, but for the translate.
awk '$1 == "v" { printf "v %.6f %s %.6f\n", $2 + 583000, $3, $4 + 5812000; next } { print }' models/house.obj >models/survey.obj
"$bin" init models/survey.obj --material mud -o house/survey.json >survey.txt || fail "init of the shifted house failed"
grep -q "translate \[-583000, 0, -5812000\]" survey.txt || fail "the shifted house's message: $(cat survey.txt)"
python3 - house/mud.json house/survey.json <<'PY' || fail "the shifted house's config is not the house's with a translate"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert b["environment"]["meshes"][0].pop("translate") == [-583000, 0, -5812000], b
for c in (a, b):
    c["environment"]["meshes"][0].pop("file")
    c.pop("output")
assert a == b, (a, b)
PY

# A missing folder for the config is made; the outputs go to the folder named like the config.
"$bin" init "$scenes/house.obj" -o new/folder/first.json >first.txt || fail "init into a new folder failed"
grep -q '"directory": "first"' new/folder/first.json || fail "the output folder: $(grep directory new/folder/first.json)"
grep -q "writes new/folder/first/scene.png" first.txt || fail "the message's output folder: $(cat first.txt)"

# Never replaces a config without --force.
echo '{}' >keep.json
if "$bin" init "$scenes/house.obj" -o keep.json 2>err.txt; then
	fail "init replaced an existing config"
fi
grep -q "keep.json exists: --force replaces it" err.txt || fail "the refusal: $(cat err.txt)"
[ "$(cat keep.json)" = '{}' ] || fail "keep.json changed"
"$bin" init "$scenes/house.obj" -o keep.json --force >/dev/null || fail "--force did not replace"
"$bin" check keep.json >/dev/null || fail "the replaced config does not pass check"
status=0
"$bin" init "$work/no-such.obj" -o none.json 2>err.txt || status=$?
"$bin" init "$work/no-such.obj" -o made/none.json 2>/dev/null && fail "init of a missing model succeeded"
[ ! -e made ] || fail "a failed init left the folder it would have made"
[ "$status" = 1 ] && grep -q "no-such.obj: cannot open" err.txt && [ ! -e none.json ] ||
	fail "a missing model: status $status, $(cat err.txt)"
status=0
"$bin" init "$scenes/house.obj" --material snwo 2>err.txt || status=$?
[ "$status" = 2 ] && grep -q "expected snow, sand" err.txt || fail "an unknown material: status $status, $(cat err.txt)"

# The shared corpus: every model, snow, checked and run; the Z-up copy of each.
if [ ! -d "$models" ] || ! ls "$models"/*.obj >/dev/null 2>&1; then
	echo "skipped: no models in $models (the corpus of real models; the Z-up guess is not tested)"
	echo "ok"
	exit 0
fi
for model in "$models"/*.obj; do
	name=$(basename "$model" .obj)
	"$bin" init "$model" -o "$name.json" >"$name.txt" || fail "init $model failed"
	grep -q "up axis: Y, guessed" "$name.txt" || fail "$name is not guessed Y-up: $(cat "$name.txt")"
	"$bin" check "$name.json" >/dev/null || fail "$name.json does not pass check"
	short_snow "$name.json" "out-$name"
	# Z-up: (x, y, z) -> (x, -z, y) takes +y to +z.
	awk '$1 == "v" { printf "v %s %.9g %s\n", $2, -$4, $3; next } { print }' "$model" >"${name}-z.obj"
	"$bin" init "${name}-z.obj" -o "${name}-z.json" >"${name}-z.txt" || fail "init of the Z-up $name failed"
	grep -q "up axis: Z, guessed" "${name}-z.txt" || fail "the Z-up $name is not guessed Z-up: $(cat "${name}-z.txt")"
	grep -q '"rotate": \[-90, 0, 0\]' "${name}-z.json" || fail "the Z-up $name is not turned Y-up"
	python3 - "$name.json" "${name}-z.json" <<'PY' || fail "the Z-up $name's config differs from the Y-up one's"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for c in (a, b):
    c["environment"]["meshes"][0].pop("file")
    c["environment"]["meshes"][0].pop("rotate", None)
    c.pop("output")
assert a == b, (a, b)
PY
done

# One small render: the config renders as written (but for its size).
if command -v povray >/dev/null 2>&1; then
	first=$(basename "$(ls "$models"/*.obj | head -1)" .obj)
	"$bin" run "$first.json" -o render --quiet --render --set render.width=64 --set render.height=48 \
		--set particles.emitters.0.rate=4000 >/dev/null || fail "$first.json does not render"
	[ -s render/scene.png ] || fail "no scene.png"
	grep -q "Warning:" render/render.log && fail "POV-Ray warned: $(grep -A2 Warning: render/render.log)"
else
	echo "skipped: the render (no povray)"
fi
echo "ok"
