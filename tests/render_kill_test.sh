#!/usr/bin/env bash
# SIGINT and SIGTERM while POV-Ray renders: `blobsim run --render` must stop its POV-Ray child (no
# povray whose parent was the run survives it), remove its temporary files (the image POV-Ray was
# writing, its log) and leave the previous complete output folder as it was, render.log and scene.png
# included. The same through `blobsim batch --render`, which passes SIGTERM on to its runs.
#   tests/render_kill_test.sh BLOBSIM TESTS_RUN_DIR
# The render is tests/run/tiny.json at 4000x3000 (half a minute of POV-Ray): the signal comes as soon
# as POV-Ray is rendering. Exit 77 (skipped) when POV-Ray is not installed.
set -euo pipefail
bin=$1
src=$2
if ! command -v povray >/dev/null 2>&1; then
	echo "skipped: POV-Ray is not installed (apt-get install povray)"
	exit 77
fi
work=$(mktemp -d)
seen=()  # "pid starttime" of every povray this test saw, killed at the end if still running
cleanup() {
	for s in "${seen[@]}"; do
		read -r p t <<<"$s"
		[ "$(starttime "$p")" = "$t" ] && kill -9 "$p" 2>/dev/null || true
	done
	rm -rf "$work"
}
trap cleanup EXIT
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
cp "$src/tiny.json" "$src/tiny.obj" "$work/"
big=(--set render.width=4000 --set render.height=3000)

# starttime PID: the process's start time (field 22 of /proc/PID/stat), empty when it is gone. With
# the pid it names one process, even after the pid is reused.
starttime() {
	local stat
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
	stat=${stat##*) }  # the fields after the command name
	awk '{ print $20 }' <<<"$stat"
}

# cputicks PID: the CPU time the process has used (user + system, in clock ticks of 1/100 s), 0 when
# it is gone.
cputicks() {
	local stat
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || { echo 0; return 0; }
	stat=${stat##*) }
	awk '{ print $12 + $13 }' <<<"$stat"
}

# descendants PID: PID's children, grandchildren, ... (one per line).
descendants() {
	local c
	for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
		echo "$c"
		descendants "$c"
	done
}

# wait_povray PID WHAT: until a povray below PID renders (half a second of CPU time: parsing the tiny
# scene takes a few milliseconds, and a run stopped before POV-Ray read its scene tests less) and sets
# povray and povrayStart (appended to seen); fails when PID ends first.
wait_povray() {
	povray=
	while kill -0 "$1" 2>/dev/null; do
		local d
		for d in $(descendants "$1"); do
			if [ "$(cat "/proc/$d/comm" 2>/dev/null)" = povray ] && [ "$(cputicks "$d")" -ge 50 ]; then
				povray=$d
				povrayStart=$(starttime "$d")
				seen+=("$d $povrayStart")
				return 0
			fi
		done
		sleep 0.02
	done
	fail "$2: ended before POV-Ray started"
}

# gone PID STARTTIME WHAT: that process no longer runs (a zombie waiting for init counts as gone).
gone() {
	local t state
	for _ in $(seq 100); do
		t=$(starttime "$1")
		[ "$t" != "$2" ] && return 0
		state=$(sed -n 's/^State:\s*\(.\).*/\1/p' "/proc/$1/status" 2>/dev/null || true)
		[ "$state" = Z ] && return 0
		sleep 0.05  # init reaps orphans promptly; a live povray stays
	done
	fail "$3: POV-Ray (pid $1) still runs after its run ended"
}

# The previous complete output, rendered small.
"$bin" run "$work/tiny.json" -o "$work/old" --quiet --render
[ -s "$work/old/render.log" ] && [ -s "$work/old/scene.png" ] || fail "the reference run wrote no render"

# 1. blobsim run --render, interrupted into a folder holding the old outputs.
for sig in TERM INT; do
	want=$([ $sig = INT ] && echo 130 || echo 143)
	d="$work/run$sig"
	rm -rf "$d"
	cp -r "$work/old" "$d"
	"$bin" run "$work/tiny.json" -o "$d" --quiet --render "${big[@]}" 2>"$d.stderr" &
	pid=$!
	wait_povray "$pid" "run SIG$sig"
	kill -$sig "$pid"
	set +e
	wait "$pid"
	rc=$?
	set -e
	echo "run SIG$sig while POV-Ray (pid $povray) rendered: exit $rc; left: $(ls "$d" | tr '\n' ' ')"
	[ "$rc" -eq "$want" ] || fail "run SIG$sig: exit $rc, expected $want: $(cat "$d.stderr")"
	gone "$povray" "$povrayStart" "run SIG$sig"
	[ -z "$(find "$d" -name '*.tmp.*')" ] || fail "run SIG$sig: temporary files left: $(ls "$d")"
	for name in $(cd "$work/old" && find . -type f); do
		cmp -s "$work/old/$name" "$d/$name" || fail "run SIG$sig: $name changed by the interrupted run"
	done
	[ "$(ls "$d" | wc -l)" -eq "$(ls "$work/old" | wc -l)" ] || fail "run SIG$sig: new files: $(ls "$d")"
done

# 2. blobsim batch --render: SIGTERM to the batch reaches the run, which stops its POV-Ray.
mkdir -p "$work/cfg"
cp "$work/tiny.json" "$work/tiny.obj" "$work/cfg/"
cat >"$work/cfg/b.json" <<'EOF'
{ "set": { "render.width": 4000, "render.height": 3000 }, "runs": [ { "config": "tiny.json" } ] }
EOF
"$bin" batch "$work/cfg/b.json" -o "$work/batch" --render --quiet --threads 1 2>"$work/batch.stderr" &
pid=$!
wait_povray "$pid" "batch SIGTERM"
kill -TERM "$pid"
set +e
wait "$pid"
rc=$?
set -e
echo "batch SIGTERM while POV-Ray (pid $povray) rendered: exit $rc; left: $(find "$work/batch" -type f | tr '\n' ' ')"
[ "$rc" -eq 143 ] || fail "batch SIGTERM: exit $rc, expected 143: $(cat "$work/batch.stderr")"
gone "$povray" "$povrayStart" "batch SIGTERM"
[ -z "$(find "$work/batch" -name '*.tmp.*')" ] || fail "batch SIGTERM: temporary files left: $(find "$work/batch")"
[ -z "$(find "$work/batch" -name 'render.log')" ] || fail "batch SIGTERM: render.log left: $(find "$work/batch")"

# 3. An animation: SIGTERM while several POV-Rays render frames (run --render --jobs 2, then blobsim
# render DIR): every POV-Ray stopped, no temporary file. run leaves the previous outputs as they were;
# render keeps the images it finished (each whole: renamed into place only when complete).
anim=(--set output.frame_every=1 --set motion.steps=3 --set render.width=1600 --set render.height=1200)
d="$work/anim"
rm -rf "$d"
cp -r "$work/old" "$d"
# wait_povrays PID WHAT: until two povray below PID render (both in seen), like wait_povray.
wait_povrays() {
	local found=()
	while kill -0 "$1" 2>/dev/null && [ ${#found[@]} -lt 2 ]; do
		found=()
		local x
		for x in $(descendants "$1"); do
			[ "$(cat "/proc/$x/comm" 2>/dev/null)" = povray ] && [ "$(cputicks "$x")" -ge 20 ] && found+=("$x")
		done
		sleep 0.02
	done
	[ ${#found[@]} -ge 2 ] || fail "$2: ended before two POV-Rays rendered"
	povrays=()
	for x in "${found[@]}"; do
		povrays+=("$x $(starttime "$x")")
		seen+=("$x $(starttime "$x")")
	done
}
"$bin" run "$work/tiny.json" -o "$d" --quiet --render --jobs 2 "${anim[@]}" 2>"$d.stderr" &
pid=$!
wait_povrays "$pid" "animation run SIGTERM"
kill -TERM "$pid"
set +e
wait "$pid"
rc=$?
set -e
echo "animation run SIGTERM while ${#povrays[@]} POV-Rays rendered: exit $rc; left: $(ls "$d" | tr '\n' ' ')"
[ "$rc" -eq 143 ] || fail "animation run SIGTERM: exit $rc, expected 143: $(cat "$d.stderr")"
for s in "${povrays[@]}"; do
	read -r p t <<<"$s"
	gone "$p" "$t" "animation run SIGTERM"
done
[ -z "$(find "$d" -name '*.tmp.*')" ] || fail "animation run SIGTERM: temporary files left: $(ls "$d")"
[ "$(ls "$d" | wc -l)" -eq "$(ls "$work/old" | wc -l)" ] || fail "animation run SIGTERM: new files: $(ls "$d")"

"$bin" run "$work/tiny.json" -o "$d" --quiet "${anim[@]}"  # the scenes, not rendered
"$bin" render "$d" --quiet --jobs 2 2>"$d.stderr" &
pid=$!
wait_povrays "$pid" "render DIR SIGTERM"
kill -TERM "$pid"
set +e
wait "$pid"
rc=$?
set -e
echo "render DIR SIGTERM while ${#povrays[@]} POV-Rays rendered: exit $rc; left: $(ls "$d" | tr '\n' ' ')"
[ "$rc" -eq 143 ] || fail "render DIR SIGTERM: exit $rc, expected 143: $(cat "$d.stderr")"
for s in "${povrays[@]}"; do
	read -r p t <<<"$s"
	gone "$p" "$t" "render DIR SIGTERM"
done
[ -z "$(find "$d" -name '*.tmp.*')" ] || fail "render DIR SIGTERM: temporary files left: $(ls "$d")"
for png in "$d"/*.png; do
	[ -e "$png" ] || continue
	python3 -c 'import sys; d = open(sys.argv[1], "rb").read(); assert d.endswith(b"IEND\xaeB`\x82")' "$png" ||
		fail "render DIR SIGTERM: $png is not a whole PNG"
done
echo "ok: render kill test"
