#!/usr/bin/env bash
# `blobsim run --resume DIR` and output.cache, end to end.
#   tests/resume_test.sh BLOBSIM TESTS_DIR
#
# The run: tests/resume/resume.json, granular particles with tangential springs poured over time (with a
# lifetime) onto planes and a keyframed, deforming paddle that carries the ones stuck to it, stuck
# particles colliders (accumulation); with --set collision.response=slide they slide and fall asleep
# instead. A checkpoint every frame (output.checkpoint 1), a cache every frame.
#  1. Stopped after frames 1, 6 and 14 (--stop-after-frame, as a kill right after the frame) at 1 or 2
#     threads and resumed at the other count or the same: every output (frames, caches, particles.ply,
#     the last checkpoint; outputs.txt as a set; summary.json but for its times) byte-identical to the
#     uninterrupted run. Resumed twice in a row, and with CONFIG and --set given again; and a run of
#     18,000 particles (a checkpoint of more than a MiB, streamed). With rotation (epsd2: spins, rolling
#     springs beside the tangential ones), stopped after frames 4 and 11: the same outputs. A moving
#     emitter with a rate curve, stopped after frames 5 and 12, and a surface emitter on the paddle,
#     stopped after frame 7: the same outputs.
#     An attractor that follows the paddle (motion.radial.body), stopped after frame 6: the same outputs.
#  2. Killed (SIGKILL) once its first checkpoint is there, then resumed: the same outputs.
#  3. Refused, with the file named: a checkpoint cut short, one with a byte changed, none at all, another
#     config or --set, a changed input file, a run whose state a checkpoint cannot hold yet (dynamic
#     bodies, the fluid), a spin or a rolling spring made NaN (the hash made right: the section's own
#     check). Nothing of the folder changes.
#  4. The cache folder: a file or a link of that name, a user's file at a cache's name, output.cache
#     without frames: clear errors naming the path; a shorter run removes the caches it does not write
#     again, and keeps a user's own file in the folder.
set -euo pipefail
bin=$1
tests=$2
config=$tests/resume/resume.json
work=$(mktemp -d)
pid=
cleanup() {
	[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# Every output of $1 and $2 the same (outputs.txt as a set of names, summary.json but for its times).
same() {
	local a=$1 b=$2 f
	diff <(cd "$a" && find . -type f ! -name summary.json ! -name outputs.txt ! -name .outputs.lock | sort) \
		<(cd "$b" && find . -type f ! -name summary.json ! -name outputs.txt ! -name .outputs.lock | sort) >/dev/null ||
		fail "$b: other files than $a"
	while read -r f; do
		cmp -s "$a/$f" "$b/$f" || fail "$b/$f differs from $a/$f"
	done < <(cd "$a" && find . -type f ! -name summary.json ! -name outputs.txt ! -name .outputs.lock)
	diff <(grep -v '^#' "$a/outputs.txt" | sort) <(grep -v '^#' "$b/outputs.txt" | sort) >/dev/null ||
		fail "$b/outputs.txt lists other files than $a's"
	local times='"(load|build|simulate|write|render|total|emit|plan|interaction|forces|colliders|move|sleep|expire|threads)":\s*[0-9.e+-]+,?$'
	diff <(grep -Ev "$times" "$a/summary.json") <(grep -Ev "$times" "$b/summary.json") >/dev/null ||
		fail "$b/summary.json's counts differ from $a's"
}

# Runs expected to fail: exit 1 and a message with each of the other arguments.
refused() {
	local out=$1
	shift
	[ "$(cat "$out.status")" = 1 ] || fail "expected exit 1, got $(cat "$out.status"): $(cat "$out")"
	for want in "$@"; do
		grep -qF -- "$want" "$out" || fail "expected '$want' in: $(cat "$out")"
	done
}

run() {
	local out=$1
	shift
	set +e
	"$bin" run "$@" >"$out" 2>&1
	echo $? >"$out.status"
	set -e
}

# Stopped after frame $2 at $3 threads and resumed at $4: the same outputs as the full run $1; the other
# arguments are the runs' --set.
stopped_resumed() {
	local full=$1 stop=$2 threads=$3 again=$4 dir
	shift 4
	dir=$full-$stop-$threads-$again
	run "$work/log" "$config" "$@" -o "$dir" --threads "$threads" --stop-after-frame "$stop"
	refused "$work/log" "stopped after frame $stop"
	[ -f "$dir/frame_$(printf %04d "$stop").pov" ] && [ -f "$dir/cache/frame_$(printf %04d "$stop").ply" ] ||
		fail "$dir: frame $stop is not in place after the stop"
	[ ! -e "$dir/frame_$(printf %04d $((stop + 1))).pov" ] || fail "$dir: a frame after the stop is there"
	"$bin" run --resume "$dir" --threads "$again" --quiet
	same "$full" "$dir"
}

# --- 1. stopped and resumed ---
for variant in stick slide; do
	sets=()
	[ "$variant" = slide ] && sets=(--set collision.response=slide)
	full=$work/full-$variant
	"$bin" run "$config" "${sets[@]}" -o "$full" --threads 1 --quiet
	for case in "1 1 2" "6 2 1" "6 2 2" "14 1 1" "14 2 1"; do
		read -r stop threads again <<<"$case"
		stopped_resumed "$full" "$stop" "$threads" "$again" "${sets[@]}"
	done
	echo "$variant: stopped after frames 1, 6, 14 at 1 or 2 threads, resumed at 1 or 2: the same outputs"
done
# With rotation: the spins and epsd2's rolling springs are in the checkpoint (the caches have wx wy wz).
spin=(--set particles.interaction.rotation=true --set particles.interaction.rolling_friction=0.1
	--set particles.interaction.rolling_model=epsd2)
"$bin" run "$config" "${spin[@]}" -o "$work/full-spin" --threads 2 --quiet
grep -q "property double wx" "$work/full-spin/cache/frame_0004.ply" || fail "the rotation run's cache has no wx"
stopped_resumed "$work/full-spin" 4 1 2 "${spin[@]}"
stopped_resumed "$work/full-spin" 11 2 1 "${spin[@]}"
echo "rotation (epsd2): stopped after frames 4 and 11, resumed at the other thread count: the same outputs"
# An attractor that follows the paddle (motion.radial.body): its centre comes from the bodies' time and
# poses, which the checkpoint holds.
follow=(--set collision.response=slide
	--set 'motion.radial={"body":0,"center":[0,0.1,0],"strength":-20,"falloff":"inverse_square","softening":0.1}')
"$bin" run "$config" "${follow[@]}" -o "$work/full-follow" --threads 1 --quiet
cmp -s "$work/full-follow/particles.ply" "$work/full-slide/particles.ply" && fail "the followed attractor changed nothing"
stopped_resumed "$work/full-follow" 6 2 1 "${follow[@]}"
echo "an attractor following the paddle: stopped after frame 6, resumed: the same outputs"
# Twice in a row, the second time with CONFIG and --set given again.
dir=$work/twice
run "$work/log" "$config" --set collision.response=slide -o "$dir" --stop-after-frame 3
run "$work/log" --resume "$dir" --stop-after-frame 9 --threads 2
refused "$work/log" "stopped after frame 9"
"$bin" run "$config" --set collision.response=slide --resume "$dir" --quiet
same "$work/full-slide" "$dir"
echo "resumed twice (the second time with CONFIG and --set): the same outputs"

# A moving emitter with a rate curve (a nozzle swept and turned over the box): its particles are born
# at the frame's pose at their birth times after a resume as before it (the motion is the config's).
moving=(--set 'particles.emitters=[{"type":"nozzle","center":[0,0,0],"direction":[0,-1,0],"disk_radius":0.03,"speed":0.5,"rate":[{"time":0,"value":500},{"time":0.3,"value":2000}],"stop":0.4,"motion":{"translate":[{"time":0,"value":[-0.2,0.4,0]},{"time":0.4,"value":[0.2,0.4,0.1]}],"rotate":[{"time":0,"value":[0,0,-30]},{"time":0.4,"value":[0,0,30]}]}}]')
"$bin" run "$config" "${moving[@]}" -o "$work/full-moving" --threads 1 --quiet
stopped_resumed "$work/full-moving" 5 1 2 "${moving[@]}"
stopped_resumed "$work/full-moving" 12 2 1 "${moving[@]}"
echo "moving emitter with a rate curve: stopped after frames 5 and 12, resumed: the same outputs"
# A surface emitter on the keyed, deforming paddle: born on its posed surface, with its velocity.
onbody=(--set 'particles.emitters=[{"type":"surface","body":0,"speed":0.2,"cone_angle":30,"rate":800,"stop":0.4}]')
"$bin" run "$config" "${onbody[@]}" -o "$work/full-onbody" --threads 2 --quiet
stopped_resumed "$work/full-onbody" 7 2 1 "${onbody[@]}"
echo "surface emitter on a moving, deforming body: stopped after frame 7, resumed: the same outputs"

# 18,000 particles: a checkpoint of more than a MiB, streamed into its file; many stuck to the paddle by
# two workers (their records' order is the workers').
big=(--set 'particles.emitters=[{"type":"grid","min":[-0.25,0.02,-0.25],"max":[0.25,0.4,0.25],"count":[30,20,30]}]'
	--set particles.interaction=none --set motion.steps=10 --set output.cache=false)
"$bin" run "$config" "${big[@]}" -o "$work/full-big" --quiet --threads 2
[ "$(stat -c %s "$work/full-big/checkpoint.blobsim")" -gt 1048576 ] || fail "the large checkpoint is not large"
run "$work/log" "$config" "${big[@]}" -o "$work/big" --threads 1 --stop-after-frame 3
"$bin" run --resume "$work/big" --quiet --threads 2
same "$work/full-big" "$work/big"
echo "a checkpoint of $(stat -c %s "$work/full-big/checkpoint.blobsim") bytes: resumed, the same outputs"

# --- 2. killed ---
long=(--set motion.steps=90 --set particles.lifetime=2)
"$bin" run "$config" "${long[@]}" -o "$work/full-long" --quiet
dir=$work/killed
"$bin" run "$config" "${long[@]}" -o "$dir" --quiet --threads 2 &
pid=$!
for _ in $(seq 1 2000); do
	[ -f "$dir/checkpoint.blobsim" ] && break
	sleep 0.005
done
kill -9 "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
pid=
[ -f "$dir/checkpoint.blobsim" ] || fail "no checkpoint before the kill"
killed=$(ls "$dir"/frame_*.pov | wc -l)
"$bin" run --resume "$dir" --quiet
same "$work/full-long" "$dir"
echo "killed with $killed frames in place, resumed: the same outputs"
# A run killed while it wrote a cache file leaves that file's temporary in cache/: the resume removes it
# as it removes those in the folder itself. Planted here, named as blobsim names its temporaries, by a
# process known to be dead (a kill lands in a cache write only now and then).
dir=$work/planted
run "$work/log" "$config" --set collision.response=slide -o "$dir" --stop-after-frame 5
host=$(hostname | cut -c1-64 | tr -c 'a-zA-Z0-9\n-' '-')
[ -n "$host" ] || host=localhost
dead=$(sh -c 'echo $$')
planted=$dir/cache/frame_0006.ply.tmp.${host}_p$(stat -L -c %i /proc/self/ns/pid).$dead.bsAb12Cd
: >"$planted"
"$bin" run --resume "$dir" --quiet 2>"$work/planted.err"
[ ! -e "$planted" ] || fail "a dead run's temporary in cache/ was left: $(cat "$work/planted.err")"
grep -qF "removed $dir/cache/frame_0006.ply.tmp." "$work/planted.err" || fail "no notice of the removal: $(cat "$work/planted.err")"
same "$work/full-slide" "$dir"
echo "a dead run's temporary in cache/: removed on resume, the same outputs"

# --- 3. refused ---
dir=$work/damaged
run "$work/log" "$config" --set collision.response=slide -o "$dir" --stop-after-frame 4
cp -r "$dir" "$work/damaged-copy"
ck=$dir/checkpoint.blobsim
cp "$ck" "$work/ck"
head -c 5000 "$work/ck" >"$ck"
run "$work/log" --resume "$dir"
refused "$work/log" "$ck: cut short or altered"
cp "$work/ck" "$ck"
printf '\x7f' | dd of="$ck" bs=1 seek=3000 conv=notrunc status=none
run "$work/log" --resume "$dir"
refused "$work/log" "$ck: altered or damaged"
cp "$work/ck" "$ck"
run "$work/log" "$config" --set collision.response=slide --set motion.dt=0.021 --resume "$dir"
refused "$work/log" "$ck: written by a run of other settings"
run "$work/log" "$config" --resume "$dir"  # without the --set
refused "$work/log" "$ck: written by a run of other settings"
diff -r "$work/damaged-copy" "$dir" >/dev/null || fail "$dir changed in a refused resume"
run "$work/log" --resume "$work/nothing-here"
refused "$work/log" "$work/nothing-here/checkpoint.blobsim" "no checkpoint to resume from"
# An input file changed since.
mkdir "$work/moved"
cp "$config" "$tests/resume/paddle.obj" "$work/moved/"
run "$work/log" "$work/moved/resume.json" -o "$work/moved/out" --stop-after-frame 2
echo "# changed" >>"$work/moved/paddle.obj"
run "$work/log" --resume "$work/moved/out"
refused "$work/log" "written by a run of other settings" "an input file"
# State a checkpoint cannot hold yet: refused before anything is written.
run "$work/log" "$tests/run/dynamic.json" -o "$work/dynamic" --set output.frame_every=1 --set output.checkpoint=1
refused "$work/log" "output.checkpoint: a checkpoint cannot hold the dynamic bodies' rigid states"
[ ! -e "$work/dynamic" ] || fail "$work/dynamic was made for a run refused at once"
run "$work/log" "$tests/../configs/dam-break.json" -o "$work/fluid" --set output.frame_every=1 --set output.checkpoint=1
refused "$work/log" "output.checkpoint: a checkpoint cannot hold the fluid solver's state"
[ ! -e "$work/fluid" ] || fail "$work/fluid was made for a run refused at once"
# A spin or a rolling spring made NaN, the hash made right: refused by the section's own check.
dir=$work/spin-damaged
run "$work/log" "$config" "${spin[@]}" -o "$dir" --stop-after-frame 4
cp -r "$dir" "$work/spin-damaged-copy"
ck=$dir/checkpoint.blobsim
cp "$ck" "$work/ck"
damage() {  # $1: the section's tag, $2: the offset in its payload, $3: the struct format of a NaN there
	/usr/bin/python3 - "$ck" "$1" "$2" "$3" <<'PY'
import struct, sys
path, tag, offset, fmt = sys.argv[1], sys.argv[2].encode(), int(sys.argv[3]), sys.argv[4]
data = bytearray(open(path, "rb").read())
at = len(b"blobsim checkpoint\n") + 16
while data[at:at + 4] != tag:
    at += 12 + struct.unpack_from("<Q", data, at + 4)[0]
struct.pack_into(fmt, data, at + 12 + offset, float("nan"))
h = 0xcbf29ce484222325
for b in data[:-20]:
    h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
struct.pack_into("<Q", data, len(data) - 8, h)
open(path, "wb").write(data)
PY
}
damage SPIN $((8 + 2 * 24 + 16)) "<d"
run "$work/log" --resume "$dir"
refused "$work/log" "$ck: section 'SPIN': particle 2: spin (" "is not finite"
cp "$work/ck" "$ck"
damage ROLL $((8 + 7 * 96 + 12 + 8)) "<f"
run "$work/log" --resume "$dir"
refused "$work/log" "$ck: section 'ROLL': particle 7's rolling spring 1 is not finite"
cp "$work/ck" "$ck"
diff -r "$work/spin-damaged-copy" "$dir" >/dev/null || fail "$dir changed in a refused resume"
echo "refused: a checkpoint cut short, altered, missing, of other settings or inputs, of dynamic bodies or a fluid,"
echo "  with a spin or a rolling spring that is not finite"

# --- 4. the cache folder ---
mkdir -p "$work/cache-file"
echo "mine" >"$work/cache-file/cache"
run "$work/log" "$config" -o "$work/cache-file"
refused "$work/log" "$work/cache-file/cache: cannot use as the cache folder (output.cache)"
[ "$(cat "$work/cache-file/cache")" = mine ] || fail "the user's file named cache was touched"
mkdir -p "$work/cache-link" "$work/elsewhere"
ln -s "$work/elsewhere" "$work/cache-link/cache"
run "$work/log" "$config" -o "$work/cache-link"
refused "$work/log" "$work/cache-link/cache: cannot use as the cache folder (output.cache): it is a symbolic link"
[ -z "$(ls "$work/elsewhere")" ] || fail "a cache was written through the link"
mkdir -p "$work/foreign/cache"
echo "a user's notes" >"$work/foreign/cache/frame_0003.ply"
run "$work/log" "$config" -o "$work/foreign"
refused "$work/log" "$work/foreign/cache/frame_0003.ply: not a file blobsim wrote"
[ "$(cat "$work/foreign/cache/frame_0003.ply")" = "a user's notes" ] || fail "the user's file was replaced"
run "$work/log" "$config" -o "$work/noframes" --set output.frame_every=0
refused "$work/log" "output.cache: the per-frame cache is written with the frames"
if [ "$(id -u)" != 0 ]; then
	mkdir -p "$work/locked/cache"
	chmod 555 "$work/locked/cache"
	run "$work/log" "$config" -o "$work/locked"
	refused "$work/log" "$work/locked/cache: cannot write in the cache folder"
	chmod 755 "$work/locked/cache"
fi
# A shorter run removes the caches it does not write again, and only those.
dir=$work/shorter
"$bin" run "$config" -o "$dir" --quiet
echo "mine" >"$dir/cache/notes.txt"
"$bin" run "$config" -o "$dir" --quiet --set motion.steps=10
[ -f "$dir/cache/frame_0005.ply" ] && [ ! -e "$dir/cache/frame_0006.ply" ] && [ -f "$dir/cache/notes.txt" ] ||
	fail "$dir/cache: $(ls "$dir/cache")"
"$bin" run "$config" -o "$dir" --quiet --set output.cache=false
[ -f "$dir/cache/notes.txt" ] && [ ! -e "$dir/cache/frame_0000.ply" ] || fail "$dir/cache: $(ls "$dir/cache")"
echo "the cache folder: a file, a link, a user's file, no frames refused; stale caches removed, the user's kept"
