#!/usr/bin/env bash
# A run replaces the folder's whole set of outputs, and only its outputs (io/output_set.h):
#   tests/outputs_test.sh BLOBSIM TESTS_RUN_DIR
#  1. a shorter second run (fewer frames) leaves no frame of the first: the folder holds exactly
#     what a run into an empty folder writes, byte for byte (summary.json but for its timings);
#  2. a run without --render after one with it leaves no scene.png and no render.log;
#  3. the user's own files (one named like a frame, a folder) survive every run;
#  4. a run that fails before its commit (a frame's name taken by a folder) leaves the earlier set
#     exactly as it was, outputs.txt included;
#  5. a run that fails in the middle of its commit (a frame image's name taken by a folder when the
#     renames start) leaves whole files, every one listed in outputs.txt, and the next run leaves the
#     clean new set;
#  6. a user's own outputs.txt (not a list) is never replaced: the run refuses, naming it;
#  7. the temporary files a SIGKILLed run left (named "*.tmp.<pid>.*", the pid gone) are removed by the
#     next run into the folder, which says so on stderr; those of a live pid, of the old pid-less form
#     and the user's look-alikes stay;
#  8. a failed render's render.log (renamed in at once) is listed in outputs.txt, so the next run
#     without --render removes it;
#  9. a file at an output's name that no list names and whose content is not blobsim's is the user's:
#     `run` refuses before renaming anything, `blobsim render` fails that image (and renders the
#     others), each naming it; the file stays as it was.
# POV-Ray is a stand-in script on PATH (writes a small image, prints progress), so no POV-Ray is needed.
set -euo pipefail
bin=$(realpath "$1")
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
mkdir "$work/bin"
cp "$(dirname "$0")/povray_stand_in.sh" "$work/bin/povray"
chmod +x "$work/bin/povray"
export PATH="$work/bin:$PATH"

run() {  # output dir, extra args...
	local out=$1
	shift
	"$bin" run "$src/tiny.json" -o "$out" --quiet --threads 2 "$@"
}

# listing DIR: its files and folders, one line.
listing() {
	ls -A "$1" | tr '\n' ' '
}

# same_set DIR REF: DIR holds REF's files (and the user's: user-*, frame_0009.pov), with REF's contents.
same_set() {
	[ "$(ls -A "$1" | grep -v '^user-\|^frame_0009.pov$' | tr '\n' ' ')" = "$(listing "$2")" ] ||
		fail "$1 holds $(listing "$1"), a run into an empty folder writes $(listing "$2")"
	for f in "$2"/*; do
		name=$(basename "$f")
		[ "$name" = summary.json ] && continue
		cmp -s "$f" "$1/$name" || fail "$1/$name differs from a run into an empty folder"
	done
}

# listed DIR: the names in DIR/outputs.txt.
listed() {
	grep -v '^#' "$1/outputs.txt" | grep -v '^$' | sort | tr '\n' ' '
}

# 1. Six frames, then two.
run "$work/ref2" --set output.frame_every=3
d="$work/a"
mkdir -p "$d"
echo "notes" >"$d/user-notes.txt"
echo "my own frame" >"$d/frame_0009.pov"  # named like an output, but no run wrote it
mkdir "$d/user-folder"
run "$d" --set output.frame_every=1
[ -f "$d/frame_0006.pov" ] || fail "the first run wrote no frame_0006.pov"
run "$d" --set output.frame_every=3
[ ! -e "$d/frame_0003.pov" ] && [ ! -e "$d/frame_0006.pov" ] || fail "frames of the first run left: $(listing "$d")"
same_set "$d" "$work/ref2"
echo "1: a shorter run leaves $(listing "$d")"

# 2. With --render, then without.
run "$d" --set output.frame_every=3 --render
[ -f "$d/scene.png" ] && [ -f "$d/render.log" ] || fail "--render wrote no scene.png or render.log"
grep -q "Rendered 2 of 2 pixels" "$d/render.log" || fail "render.log lacks POV-Ray's output"
run "$d" --set output.frame_every=3
[ ! -e "$d/scene.png" ] && [ ! -e "$d/render.log" ] || fail "a run without --render left $(listing "$d")"
echo "2: a run without --render leaves $(listing "$d")"

# 3. The user's files, through all of the above.
[ "$(cat "$d/user-notes.txt")" = notes ] && [ -d "$d/user-folder" ] || fail "the user's files changed"
[ "$(cat "$d/frame_0009.pov")" = "my own frame" ] || fail "the user's frame_0009.pov changed"
echo "3: the user's files survive"

# 4. A run that fails before its commit: frame_0004.pov is a folder.
run "$d" --set output.frame_every=3 --render
cp -a "$d" "$work/before"
mkdir "$d/frame_0004.pov"
set +e
msg=$(run "$d" --set output.frame_every=1 2>&1)
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "a run whose frame is a folder: exit $rc: $msg"
rmdir "$d/frame_0004.pov"
diff -r "$work/before" "$d" >/dev/null || fail "a failed run changed the earlier set: $(listing "$d")"
echo "4: a failed run ($msg) leaves the earlier set as it was"

# 5. A run that fails in the middle of its commit: the frames, scene and particles are renamed, then
#    frame_0001.png's rename fails (frame 1 is new: every 2 steps, not 3); summary.json stays the
#    earlier run's.
set +e
msg=$(FAKE_POVRAY_BLOCK=frame_0001.png run "$d" --set output.frame_every=2 --render 2>&1)
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "a run failing mid-commit: exit $rc: $msg"
case "$msg" in *"frame_0001.png: cannot replace"*) ;; *) fail "a run failing mid-commit said: $msg" ;; esac
grep -q '^# state: replacing' "$d/outputs.txt" || fail "outputs.txt after a failed commit: $(cat "$d/outputs.txt")"
for f in $(ls "$d" | grep -v '^user-\|^frame_0009.pov$\|^outputs.txt$\|^frame_0001.png$\|^logs$') $(cd "$d" && ls logs/*); do
	grep -qx "$f" "$d/outputs.txt" || fail "$f is not listed after a failed commit: $(cat "$d/outputs.txt")"
done
[ -f "$d/frame_0003.pov" ] || fail "the failed commit renamed no frame"
rm -rf "$d/frame_0001.png"
run "$d" --set output.frame_every=3
same_set "$d" "$work/ref2"
grep -q '^# state: complete' "$d/outputs.txt" || fail "outputs.txt after a clean run: $(cat "$d/outputs.txt")"
[ "$(listed "$d")" = "$(listed "$work/ref2")" ] || fail "outputs.txt lists $(listed "$d")"
echo "5: a commit failing midway ($msg) leaves every file listed; the next run tidies: $(listing "$d")"

# 6. A user's own outputs.txt.
e="$work/b"
mkdir "$e"
echo "my list of things" >"$e/outputs.txt"
set +e
msg=$(run "$e" 2>&1)
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "a user's outputs.txt: exit $rc"
case "$msg" in *"$e/outputs.txt:1: not a list of blobsim's outputs"*) ;; *) fail "a user's outputs.txt: $msg" ;; esac
[ "$(cat "$e/outputs.txt")" = "my list of things" ] && [ "$(listing "$e")" = "outputs.txt " ] ||
	fail "a user's outputs.txt: the folder changed: $(listing "$e")"
echo "6: $msg"

# 7. Leftovers of a SIGKILLed run: a pid that has ended (a child reaped), and this shell's (live).
sh -c 'exit 0' &
dead=$!
wait "$dead"
kill -0 "$dead" 2>/dev/null && fail "pid $dead is still running"
live=$$
g="$work/c"
run "$g"
# This node's name in temporary files: the host ([A-Za-z0-9-]) and its pid namespace. Another node's
# files (or an older blobsim's, with no node) are dead only when a day old.
node="$(printf '%s' "$(hostname | cut -c1-64)" | tr -c 'A-Za-z0-9-' '-')_p$(stat -L -c %i /proc/self/ns/pid)"
gone=("scene.pov.tmp.$node.$dead.bsAbC123" "frame_0002.tmp.$node.$dead.png" "render.tmp.$node.$dead.log"
	"scene.tmp.$node.$dead.pov-state" "frame_0003.tmp.$node.$dead.bsQw3rt9" "scene.pov.tmp.$dead.bsOlD123"
	"scene.pov.tmp.othernode_p1.$live.bsOlD456")
kept=("scene.pov.tmp.$node.$live.bsXyZ789" "scene.pov.tmp.Qr5St6" "user-notes.tmp.$dead.txt" "user-x.tmp.$dead.bsAbC12"
	"user-b.tmp.$dead.backup" "scene.pov.tmp.$dead.AbC123" "user-y.tmp.0$dead.AbC123"
	"scene.pov.tmp.$dead.bsNeW123" "scene.pov.tmp.othernode_p1.$dead.bsNeW456")
for f in "${gone[@]}" "${kept[@]}"; do
	case "$f" in *bsQw3rt9) mkdir "$g/$f" && echo "partial" >"$g/$f/frame_0003.log" ;; *) echo "partial" >"$g/$f" ;; esac
done
# Another node's (or an older blobsim's) leftovers: gone when untouched for a day, kept when fresh.
touch -d '2 days ago' "$g/scene.pov.tmp.$dead.bsOlD123" "$g/scene.pov.tmp.othernode_p1.$live.bsOlD456"
mkdir "$g/user-dir.tmp.$dead.log"
ln -s user-target "$g/user-link.tmp.$dead.png"
msg=$(run "$g" 2>&1) || fail "a run over leftovers failed: $msg"
for f in "${gone[@]}"; do
	[ ! -e "$g/$f" ] || fail "the leftover $f of ended run $dead is still there: $(listing "$g")"
	case "$msg" in *"removed $g/$f, a temporary file left by run "*) ;; *) fail "no notice for $f: $msg" ;; esac
done
for f in "${kept[@]}"; do
	[ "$(cat "$g/$f")" = partial ] || fail "$f was removed or changed: $(listing "$g")"
done
[ -d "$g/user-dir.tmp.$dead.log" ] && [ -L "$g/user-link.tmp.$dead.png" ] || fail "a folder or link was removed"
[ "$(echo "$msg" | grep -c removed)" -eq "${#gone[@]}" ] || fail "notices: $msg"
echo "7: removed ${#gone[@]} leftovers of run $dead, kept $(( ${#kept[@]} + 2 )) other files"

# 8. A failed render's render.log: listed, so a later run tidies it.
h="$work/d"
run "$work/ref"
run "$h"
set +e
msg=$(FAKE_POVRAY_FAIL=1 run "$h" --render 2>&1)
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "a failing render: exit $rc: $msg"
case "$msg" in *"see $h/render.log"*) ;; *) fail "a failing render said: $msg" ;; esac
grep -q "stand-in failure" "$h/render.log" || fail "render.log lacks POV-Ray's output"
grep -qx render.log "$h/outputs.txt" || fail "the failed render's render.log is not listed: $(cat "$h/outputs.txt")"
[ ! -e "$h/scene.png" ] || fail "a failed render left scene.png"
run "$h"
[ ! -e "$h/render.log" ] || fail "the next run left the failed render's render.log: $(listing "$h")"
same_set "$h" "$work/ref"
echo "8: a failed render's render.log is listed, and the next run removes it"

# 9. The user's file at an output's name.
u="$work/u"
mkdir -p "$u"
echo "my own scene" >"$u/scene.pov"
set +e
msg=$(run "$u" 2>&1)
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "a run over the user's scene.pov: exit $rc: $msg"
case "$msg" in *"$u/scene.pov: not a file blobsim wrote"*) ;; *) fail "a run over the user's scene.pov said: $msg" ;; esac
[ "$(cat "$u/scene.pov")" = "my own scene" ] || fail "the user's scene.pov was replaced"
[ "$(ls "$u")" = "scene.pov" ] || fail "the refused run left $(listing "$u")"  # and the folder's lock, .outputs.lock
v="$work/v"
run "$v" --set output.frame_every=3
echo "my notes, not a picture" >"$v/frame_0001.png"
set +e
msg=$("$bin" render "$v" --quiet 2>&1)
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "a render over the user's frame_0001.png: exit $rc: $msg"
case "$msg" in *"$v/frame_0001.png: not a file blobsim wrote"*) ;; *) fail "a render over the user's frame_0001.png said: $msg" ;; esac
[ "$(cat "$v/frame_0001.png")" = "my notes, not a picture" ] || fail "the user's frame_0001.png was replaced"
[ -s "$v/frame_0000.png" ] && [ -s "$v/scene.png" ] || fail "the other images were not rendered: $(listing "$v")"
echo "9: the user's scene.pov and frame_0001.png stay: run refuses, render fails that image alone"
echo "ok: outputs test"
