#!/usr/bin/env bash
# Animations: `run --render` renders every frame (frame 0 = the initial state) named like its scene,
# keeps what is up to date, `blobsim render DIR` renders an existing output folder (a frame range,
# --force, errors for a folder that is not an output), and --movie encodes the frames with ffmpeg.
#   tests/render_frames_test.sh BLOBSIM TESTS_RUN_DIR MODE
# MODE: frames | movie. Exit 77 (skipped) when POV-Ray is not installed; the movie mode also when
# ffmpeg is not (apt-get install ffmpeg), and then it checks the message that names the package.
set -euo pipefail
bin=$(realpath "$1")
src=$(realpath "$2")
mode=$3
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
cd "$work"
# 5 steps with a frame after each: frames 0 (before the first step) to 5. Tiny images keep it fast.
anim=(--set render.width=32 --set render.height=24 --set output.frame_every=1 --set motion.steps=5)

# mtimes DIR: "name mtime_ns" of every PNG in DIR, sorted.
mtimes() {
	find "$1" -maxdepth 1 -name '*.png' -printf '%f %T@\n' | sort
}
# changed BEFORE DIR: the PNGs of DIR whose mtime differs from the listing BEFORE (from mtimes).
changed() {
	diff <(echo "$1") <(mtimes "$2") | sed -n 's/^> \([^ ]*\) .*/\1/p' | tr '\n' ' ' || true
}
# pngs DIR: the PNG names in DIR on one line.
pngs() {
	find "$1" -maxdepth 1 -name '*.png' -printf '%f\n' | sort | tr '\n' ' '
}
# record PNG: the blobsim-render record in a PNG (empty when none).
record() {
	python3 - "$1" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
pos = 8
while pos < len(d):
    n, kind = struct.unpack(">I4s", d[pos:pos + 8])
    body = d[pos + 8:pos + 8 + n]
    if kind == b"tEXt" and body.startswith(b"blobsim-render\0"):
        print(body.split(b"\0", 1)[1].decode())
    pos += 12 + n
PY
}

case "$mode" in
frames)
	"$bin" run tiny.json -o a --render "${anim[@]}" --quiet || fail "run --render failed"
	want="frame_0000.png frame_0001.png frame_0002.png frame_0003.png frame_0004.png frame_0005.png scene.png "
	[ "$(pngs a)" = "$want" ] || fail "images: $(pngs a), expected $want"
	for k in 0 1 2 3 4 5; do
		[ -f "a/frame_000$k.pov" ] || fail "frame_000$k.pov missing"
	done
	[ ! -f a/frame_0006.pov ] || fail "a frame beyond the 5 steps"
	# Frame 0 is the state before any step, not a copy of frame 1; the last frame is the final scene.
	cmp -s a/frame_0000.pov a/frame_0001.pov && fail "frame 0 equals frame 1"
	cmp -s a/frame_0005.pov a/scene.pov || fail "frame 5 differs from scene.pov"
	# The record names the hash of the frame's own .pov (FNV-1a 64, computed here independently).
	hash=$(python3 -c '
import sys
h = 0xcbf29ce484222325
for b in open(sys.argv[1], "rb").read():
    h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
print("%016x" % h)' a/frame_0003.pov)
	[ "$(record a/frame_0003.png)" = "pov=$hash size=32x24 antialias=0 jitter=1" ] ||
		fail "frame_0003.png records '$(record a/frame_0003.png)', expected pov=$hash"
	before=$(mtimes a)
	sleep 0.05
	out=$("$bin" run tiny.json -o a --render "${anim[@]}") || fail "second run failed"
	[ -z "$(changed "$before" a)" ] || fail "the second run re-rendered $(changed "$before" a)"
	grep -q "0 images rendered, 7 up to date" <<<"$out" || fail "second run said: $out"
	# A changed setting re-renders everything.
	"$bin" run tiny.json -o a --render "${anim[@]}" --quiet --set render.width=40 || fail "run at 40x24 failed"
	[ "$(record a/frame_0000.png)" != "$(record a/frame_0001.png)" ] || fail "two frames with one record"
	python3 -c 'import struct,sys; assert struct.unpack(">II", open(sys.argv[1],"rb").read()[16:24]) == (40, 24)' \
		a/frame_0004.png || fail "frame 4 not re-rendered at 40x24"

	# blobsim render DIR on a run that did not render; then a frame range; then --force.
	"$bin" run tiny.json -o b "${anim[@]}" --quiet || fail "run without --render failed"
	[ -z "$(pngs b)" ] || fail "a run without --render made images: $(pngs b)"
	"$bin" render b --frames 2-3 --quiet || fail "render --frames 2-3 failed"
	[ "$(pngs b)" = "frame_0002.png frame_0003.png " ] || fail "--frames 2-3 made: $(pngs b)"
	out=$("$bin" render b) || fail "render b failed"
	grep -q "5 images rendered, 2 up to date" <<<"$out" || fail "render b said: $out"
	[ "$(pngs b)" = "$want" ] || fail "render b made: $(pngs b)"
	# The images join the folder's outputs: listed, so a later run that does not render removes them.
	for f in $(pngs b); do
		grep -qx "$f" b/outputs.txt || fail "render b did not list $f in outputs.txt"
	done
	for f in a/frame_0002.png b/frame_0002.png; do
		[ -n "$(record "$f")" ] || fail "$f has no record"
	done
	before=$(mtimes b)
	sleep 0.05
	"$bin" render b --frames 2-3 --force --jobs 2 --quiet || fail "render --frames 2-3 --force failed"
	changed=$(changed "$before" b)
	[ "$changed" = "frame_0002.png frame_0003.png " ] || fail "--force --frames 2-3 re-rendered: $changed"
	# A frame whose scene changed is rendered again; the others are kept.
	echo "// changed" >>b/frame_0004.pov
	before=$(mtimes b)
	sleep 0.05
	"$bin" render b --quiet || fail "render after a change failed"
	changed=$(changed "$before" b)
	[ "$changed" = "frame_0004.png " ] || fail "after changing frame 4, re-rendered: $changed"
	[ -z "$(find a b -name '*.tmp.*')" ] || fail "temporary files left: $(find a b -name '*.tmp.*')"

	# animation.ini alone with POV-Ray: frames named like the scenes, +SF/+EF for a range.
	(cd b && rm -f frame_*.png && povray animation.ini +SF4 +EF5 >/dev/null 2>&1) || fail "povray animation.ini"
	[ "$(pngs b)" = "frame_0004.png frame_0005.png scene.png " ] || fail "povray animation.ini +SF4 +EF5: $(pngs b)"
	# Its images carry no record: newer than their scenes and of the right size, they count as up to date.
	out=$("$bin" render b --frames 4-5) || fail "render after POV-Ray failed"
	grep -q "0 images rendered, 2 up to date" <<<"$out" || fail "POV-Ray's own frames not kept: $out"

	# Not an output folder; frames that do not exist; an output without frames.
	set +e
	msg=$("$bin" render "$work/none" 2>&1); rc1=$?
	mkdir -p plain
	msg2=$("$bin" render plain 2>&1); rc2=$?
	msg3=$("$bin" render b --frames 4-9 2>&1); rc3=$?
	set -e
	[ $rc1 -eq 1 ] && grep -q "none: no such folder" <<<"$msg" || fail "missing folder: $rc1 $msg"
	[ $rc2 -eq 1 ] && grep -q "plain is not a blobsim output folder: it has no summary.json" <<<"$msg2" ||
		fail "plain folder: $rc2 $msg2"
	[ $rc3 -eq 1 ] && grep -q "b has frames 0-5" <<<"$msg3" || fail "frames beyond: $rc3 $msg3"
	echo "ok: 6 frames and scene.png, a second run re-rendered none, --frames 2-3, render DIR, animation.ini"
	;;
movie)
	if ! command -v ffmpeg >/dev/null 2>&1; then
		set +e
		msg=$(PATH=/usr/bin:/bin "$bin" run tiny.json -o m --movie "${anim[@]}" 2>&1); rc=$?
		set -e
		[ $rc -eq 1 ] && grep -q "apt-get install ffmpeg" <<<"$msg" || fail "--movie without ffmpeg: $rc $msg"
		echo "skipped: ffmpeg is not installed (apt-get install ffmpeg); the movie checks did not run"
		exit 77
	fi
	"$bin" run tiny.json -o m --movie "${anim[@]}" --quiet --set render.width=33 || fail "run --movie failed"
	frames=$(ffprobe -v error -count_frames -select_streams v:0 \
		-show_entries stream=codec_name,pix_fmt,width,height,nb_read_frames -of csv=p=0 m/animation.mp4)
	[ "$frames" = "h264,34,24,yuv420p,6" ] || fail "animation.mp4: $frames, expected h264,34,24,yuv420p,6"
	gif=$(ffprobe -v error -count_frames -show_entries stream=codec_name,nb_read_frames -of csv=p=0 m/preview.gif)
	[ "$gif" = "gif,6" ] || fail "preview.gif: $gif"
	# Up to date: a second run encodes nothing.
	before=$(find m -maxdepth 1 -name 'animation.mp4' -printf '%T@')
	sleep 0.05
	"$bin" run tiny.json -o m --movie "${anim[@]}" --quiet --set render.width=33 || fail "second run --movie failed"
	[ "$(find m -maxdepth 1 -name 'animation.mp4' -printf '%T@')" = "$before" ] || fail "movie encoded again"
	# render.movie in the config, through blobsim render.
	"$bin" run tiny.json -o n "${anim[@]}" --quiet --set render.movie=true --set render.fps=10 || fail "run failed"
	"$bin" render n --quiet || fail "render n failed"
	rate=$(ffprobe -v error -select_streams v:0 -show_entries stream=r_frame_rate,nb_frames -of csv=p=0 n/animation.mp4)
	[ "$rate" = "10/1,6" ] || fail "render.fps 10: $rate"
	# Without ffmpeg: --movie fails naming the package, render.movie only warns.
	mkdir -p nobin
	ln -s "$(command -v povray)" nobin/povray
	set +e
	msg=$(PATH="$work/nobin" "$bin" run tiny.json -o x --movie "${anim[@]}" 2>&1); rc=$?
	msg2=$(PATH="$work/nobin" "$bin" run tiny.json -o y --render "${anim[@]}" --set render.movie=true 2>&1); rc2=$?
	set -e
	[ $rc -eq 1 ] && grep -q "ffmpeg is not installed.*apt-get install ffmpeg" <<<"$msg" || fail "--movie: $rc $msg"
	[ ! -e x ] || fail "--movie without ffmpeg still simulated"
	[ $rc2 -eq 0 ] && grep -q "warning: render.movie: ffmpeg is not installed" <<<"$msg2" || fail "render.movie: $rc2 $msg2"
	[ -f y/frame_0005.png ] && [ ! -e y/animation.mp4 ] || fail "render.movie without ffmpeg: $(ls y)"
	[ -z "$(find . -name '*.tmp.*')" ] || fail "temporary files left: $(find . -name '*.tmp.*')"
	echo "ok: animation.mp4 (h264, yuv420p, even width, 6 frames), preview.gif, up to date, render.fps, no ffmpeg"
	;;
*)
	fail "unknown mode $mode"
	;;
esac
