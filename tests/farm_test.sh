#!/usr/bin/env bash
# `blobsim render DIR` on a render farm's shared folder, and in a folder others may write in:
#   tests/farm_test.sh BLOBSIM TESTS_RUN_DIR
#  1. two renderers on one folder, one in a second pid namespace (`unshare --pid --fork --mount-proc`,
#     standing in for a second node: neither sees the other's pids): every frame rendered exactly
#     once, both succeed, every image and log listed, no temporary left (another node's live files
#     were once removed as a dead run's);
#  2. 12 renderers commit at the same moment: outputs.txt lists every image and log (it once kept
#     7 or 8 of 12);
#  3. a task keeps rendering its range after bad frames, keeps every frame's log in logs/ (listed),
#     and exits 1 naming every failed frame (it once stopped at the first);
#  4. links planted at every name a render writes by (its temporaries for the next pids, render.log,
#     the images, logs/): no file outside the folder changes (POV-Ray's log once overwrote the link's
#     target);
#  5. a SIGKILLed render leaves no POV-Ray running, and the next render removes its private folder;
#  6. --shard K/N: every frame in one of N ranges; K >= N refused (an array counted from 1 once
#     skipped frames silently);
#  7. frame claims: a live renderer's skipped, a dead one's (this node's pid gone, or another node's
#     untouched for 30 minutes) taken over, a link in the way never followed or removed.
# The renders use a stand-in POV-Ray (tests/povray_stand_in.sh: tiny PNGs, a count of the frames it
# renders); case 1 is skipped without unshare (or without the right to use it), the others need
# nothing.
set -euo pipefail
bin=$(realpath "$1")
src=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/bin"
cp "$(dirname "$0")/povray_stand_in.sh" "$work/bin/povray"  # executable: cp keeps the mode
export PATH="$work/bin:$PATH"
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
export FARM_COUNT="$work/count"

# A tiny run with frames 0-11, no render.
"$bin" run "$src/tiny.json" -o "$work/base" --quiet --threads 1 --set output.frame_every=1 --set motion.steps=11
fresh() {  # a copy of the base folder at $1
	rm -rf "$1"
	cp -a "$work/base" "$1"
	: >"$FARM_COUNT"
}
# listed DIR NAME...: each NAME is in DIR/outputs.txt.
listed() {
	local d=$1 f
	shift
	for f in "$@"; do
		grep -qx "$f" "$d/outputs.txt" || fail "$f is not listed in $d/outputs.txt: $(grep -v '^#' "$d/outputs.txt" | tr '\n' ' ')"
	done
}
frames() {  # the names of frames 0-11 with suffix $1
	local k
	for k in $(seq 0 11); do printf 'frame_%04d%s\n' "$k" "$1"; done
}
no_temps() {
	[ -z "$(find "$1" -name '*.tmp.*' -o -name '*.claim')" ] || fail "$2: temporaries left: $(find "$1" -name '*.tmp.*' -o -name '*.claim')"
}

# 1. Two nodes: one renderer in a second pid namespace.
d="$work/two"
fresh "$d"
if unshare --pid --fork --mount-proc true 2>/dev/null; then
	FARM_SLEEP=0.3 unshare --pid --fork --mount-proc "$bin" render "$d" --jobs 2 --threads 2 --quiet 2>"$work/a.err" &
	a=$!
	sleep 0.4
	set +e
	FARM_SLEEP=0.3 "$bin" render "$d" --jobs 2 --threads 2 --quiet 2>"$work/b.err"
	rb=$?
	wait "$a"
	ra=$?
	set -e
	[ "$ra" -eq 0 ] && [ "$rb" -eq 0 ] || fail "two nodes: exits $ra and $rb: $(cat "$work/a.err" "$work/b.err")"
	! grep -q "removed" "$work/a.err" "$work/b.err" || fail "two nodes: a live node's file removed: $(cat "$work/a.err" "$work/b.err")"
	dup=$(sort "$FARM_COUNT" | uniq -d | tr '\n' ' ')
	[ -z "$dup" ] || fail "two nodes: rendered twice: $dup"
	# frame_0011.png, the last frame, may be a copy of scene.png (the same scene): not rendered.
	[ "$(grep -vx frame_0011 "$FARM_COUNT" | sort | tr '\n' ' ')" = "$(frames "" | grep -vx frame_0011 | tr '\n' ' ')scene " ] ||
		fail "two nodes: rendered $(sort "$FARM_COUNT" | tr '\n' ' ')"
	listed "$d" scene.png render.log $(frames .png) $(grep -x 'frame_[0-9]*' "$FARM_COUNT" | sed 's|^|logs/|; s|$|.log|')
	no_temps "$d" "two nodes"
	echo "1: two renderers in two pid namespaces rendered every image once ($(cat "$work/a.err" "$work/b.err" | grep -c skipped) skips of a claimed image)"
else
	echo "1: skipped: unshare --pid --fork --mount-proc is not available here"
fi

# 2. 12 renderers committing at the same moment.
d="$work/twelve"
fresh "$d"
mkdir "$work/barrier"
pids=()
for k in $(seq 0 11); do
	FARM_BARRIER="$work/barrier:12" "$bin" render "$d" --frames "$k" --threads 1 --quiet &
	pids+=($!)
done
for p in "${pids[@]}"; do
	wait "$p" || fail "12 committers: a render failed"
done
listed "$d" $(frames .png) $(frames .log | sed 's|^|logs/|')
grep -q '^# state: complete' "$d/outputs.txt" || fail "12 committers: $(head -4 "$d/outputs.txt")"
no_temps "$d" "12 committers"
echo "2: 12 renders committing at once: outputs.txt lists all 24 images and logs"

# 3. Bad frames in a task's range.
d="$work/bad"
fresh "$d"
set +e
msg=$(FARM_FAIL="frame_0002 frame_0005" "$bin" render "$d" --frames 1-6 --threads 1 --quiet 2>&1)
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "bad frames: exit $rc: $msg"
case "$msg" in *"2 images of 6 failed (frame_0002.png, frame_0005.png)"*"$d/logs"*) ;; *) fail "bad frames said: $msg" ;; esac
for k in 1 3 4 6; do
	[ -f "$d/frame_000$k.png" ] || fail "bad frames: frame $k was not rendered after the failure: $(ls "$d")"
done
[ ! -e "$d/frame_0002.png" ] && [ ! -e "$d/frame_0005.png" ] || fail "bad frames: a failed frame has an image"
for k in 1 2 3 4 5 6; do
	[ -f "$d/logs/frame_000$k.log" ] || fail "bad frames: no logs/frame_000$k.log"
	listed "$d" "logs/frame_000$k.log"
done
grep -q "stand-in failure for frame_0005" "$d/logs/frame_0005.log" || fail "bad frames: logs/frame_0005.log is not its log"
no_temps "$d" "bad frames"
: >"$FARM_COUNT"
"$bin" render "$d" --frames 1-6 --threads 1 --quiet || fail "bad frames: the re-run failed"
[ "$(sort "$FARM_COUNT" | tr '\n' ' ')" = "frame_0002 frame_0005 " ] || fail "the re-run rendered $(cat "$FARM_COUNT")"
echo "3: a task renders its whole range past bad frames and names them: $msg"

# 4. Links at every predictable name.
d="$work/links"
fresh "$d"
mkdir "$work/victim"
echo "precious" >"$work/victim/v.txt"
mkdir "$work/victim/dir"
echo "precious" >"$work/victim/dir/frame_0000.log"
victims() {
	find "$work/victim" -type f -printf '%p %s %T@\n' | sort
	cat "$work/victim/v.txt" "$work/victim/dir/frame_0000.log"
}
before=$(victims)
for name in render.log scene.png frame_0000.png frame_0001.png logs/frame_0001.log; do
	mkdir -p "$(dirname "$d/$name")"
	ln -s "$work/victim/v.txt" "$d/$name"
done
set +e
# The next pids' old names (the shell's pid is the render's: exec), and the names the old render used.
sh -c 'for p in $(seq $$ $(( $$ + 50 ))); do for n in scene frame_0000 frame_0001; do
	for e in log png pov-state pov; do ln -s "$1" "$2/$n.tmp.$p.$e" 2>/dev/null; done; done; done
	exec "$3" render "$2" --force --frames 0-1 --scene --threads 1 --quiet' sh "$work/victim/v.txt" "$d" "$bin" 2>"$work/links.err"
rc=$?
set -e
[ "$(victims)" = "$before" ] || fail "links: a file outside the folder changed (exit $rc): $(cat "$work/links.err")"
[ "$rc" -eq 0 ] || fail "links: exit $rc: $(cat "$work/links.err")"
for name in scene.png frame_0000.png frame_0001.png render.log; do
	[ -f "$d/$name" ] && [ ! -L "$d/$name" ] || fail "links: $name is not a file of the render"
done
# refused NAME WHAT: a render of frame 0 in $e, with a link out of the folder at NAME, fails naming
# WHAT and changes no file outside the folder.
refused() {
	ln -s "$work/victim/$1" "$e/$2"
	set +e
	msg=$("$bin" render "$e" --frames 0 --threads 1 --quiet 2>&1)
	rc=$?
	set -e
	rm "$e/$2"
	[ "$(victims)" = "$before" ] || fail "links: $2 as a link: a file outside the folder changed: $msg"
	case "$rc $msg" in "1 "*"$3"*) ;; *) fail "links: $2 as a link: exit $rc: $msg" ;; esac
}
e="$work/links2"
fresh "$e"
refused dir logs "$e/logs: cannot use as the logs' folder"  # logs/ itself a link out of the folder
rm "$e/.outputs.lock"
refused v.txt .outputs.lock ".outputs.lock: cannot use as the folder's lock"
echo "4: links at every name a render writes by: nothing outside the folder changed"

# 5. SIGKILL: POV-Ray dies with blobsim; the next render removes the private folder.
d="$work/killed"
fresh "$d"
: >"$work/pids"
FARM_HANG=1 FARM_PIDS="$work/pids" "$bin" render "$d" --frames 0-1 --jobs 2 --threads 2 --quiet &
r=$!
for _ in $(seq 1 200); do
	[ "$(wc -l <"$work/pids")" -ge 2 ] && break
	sleep 0.05
done
[ "$(wc -l <"$work/pids")" -ge 2 ] || fail "killed: POV-Ray never started"
kill -KILL "$r"
wait "$r" 2>/dev/null || true
for _ in $(seq 1 40); do
	alive=""
	for p in $(cat "$work/pids"); do kill -0 "$p" 2>/dev/null && alive="$alive $p"; done
	[ -z "$alive" ] && break
	sleep 0.05
done
[ -z "$alive" ] || { kill $alive 2>/dev/null; fail "killed: POV-Ray still running after blobsim's SIGKILL:$alive"; }
[ -n "$(find "$d" -maxdepth 1 -name '*.tmp.*')" ] || fail "killed: no private folder to clean (the test is wrong)"
msg=$("$bin" render "$d" --frames 0-1 --threads 1 --quiet 2>&1) || fail "killed: the next render failed: $msg"
case "$msg" in *"removed $d/frame_000"*".tmp."*"which was killed before it finished"*) ;; *) fail "killed: the next render said: $msg" ;; esac
no_temps "$d" "after a SIGKILL"
echo "5: a SIGKILLed render left no POV-Ray running, and the next render removed its leftovers"
# 6. Shards: N equal ranges computed by blobsim; K >= N (a job array counted from 1) refused.
d="$work/shards"
fresh "$d"
for k in 0 1 2 3 4; do
	"$bin" render "$d" --shard "$k/5" --threads 1 --quiet || fail "shard $k/5 failed"
done
[ "$(sort "$FARM_COUNT" | tr '\n' ' ')" = "$(frames "" | tr '\n' ' ')" ] || fail "5 shards rendered $(sort "$FARM_COUNT" | tr '\n' ' ')"
set +e
msg=$("$bin" render "$d" --shard 5/5 2>&1)
rc=$?
set -e
[ "$rc" -eq 2 ] || fail "--shard 5/5: exit $rc: $msg"
case "$msg" in *"SLURM_ARRAY_TASK_MIN"*) ;; *) fail "--shard 5/5 said: $msg" ;; esac
echo "6: 5 shards rendered the 12 frames once; --shard 5/5 is refused: $msg"
# 7. Claims: a live renderer's is respected, a dead one's taken over (or tidied when its image is
#    done), and a file in the way that is not a claim is left alone, its frame failing.
d="$work/claims"
fresh "$d"
sh -c 'exit 0' &
dead=$!
wait "$dead"
node="$(printf '%s' "$(hostname | cut -c1-64)" | tr -c 'A-Za-z0-9-' '-')_p$(stat -L -c %i /proc/self/ns/pid)"
echo "blobsim claim: node $node pid $$ since 0" >"$d/frame_0001.png.claim"
echo "blobsim claim: node $node pid $dead since 0" >"$d/frame_0002.png.claim"
echo "blobsim claim: node elsewhere_p1 pid $$ since 0" >"$d/frame_0003.png.claim"
echo "blobsim claim: node elsewhere_p1 pid $$ since 0" >"$d/frame_0004.png.claim"
touch -d '2 hours ago' "$d/frame_0004.png.claim"
ln -s "$work/victim/v.txt" "$d/frame_0005.png.claim"
set +e
msg=$("$bin" render "$d" --frames 0-5 --threads 1 --quiet 2>&1)
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "claims: exit $rc: $msg"
[ "$(sort "$FARM_COUNT" | tr '\n' ' ')" = "frame_0000 frame_0002 frame_0004 " ] || fail "claims: rendered $(sort "$FARM_COUNT" | tr '\n' ' ')"
case "$msg" in *"frame_0001.png: skipped, claimed by run $$ on $node"*"frame_0003.png: skipped"*) ;; *) fail "claims said: $msg" ;; esac
case "$msg" in *"1 image of 4 failed (frame_0005.png)"*"frame_0005.png.claim is in the way"*) ;; *) fail "claims said: $msg" ;; esac
[ -L "$d/frame_0005.png.claim" ] && [ "$(victims)" = "$before" ] || fail "claims: the link in the way was touched"
[ -f "$d/frame_0001.png.claim" ] && [ -f "$d/frame_0003.png.claim" ] || fail "claims: a live claim was removed"
[ ! -e "$d/frame_0002.png.claim" ] && [ ! -e "$d/frame_0004.png.claim" ] || fail "claims: a dead claim is left"
# A dead claim of an image already in place (its renderer killed between the two): tidied.
echo "blobsim claim: node $node pid $dead since 0" >"$d/frame_0000.png.claim"
"$bin" render "$d" --frames 0 --threads 1 --quiet
[ ! -e "$d/frame_0000.png.claim" ] || fail "claims: a dead claim of an image in place is left"
echo "7: claims: live ones respected, dead ones taken over or tidied, a link in the way left alone"
echo "ok: farm test"
