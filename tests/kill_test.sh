#!/usr/bin/env bash
# Nothing half-written: kills `blobsim run` at moments spread over a large run and checks the output
# directory after each kill.
#   tests/kill_test.sh BLOBSIM TESTS_RUN_DIR [SEED]
#
# The run: tests/run/tiny.json with ~320,000 particles and 5 steps (scene.pov ~130 MB, so the
# scene write takes most of the run). Two reference runs (seed 7 = "new", seed 8 = "old") give the
# only acceptable contents of each output file.
#  1. SIGKILL, 11 times: 10 at delays spread over the reference run's wall time (before the simulation,
#     during it, 5 points inside the write phase, 3 around the end: the PLY, summary and renames;
#     a run that finished first is checked the same way), alternately into a fresh
#     directory and into one holding the "old" outputs. Afterwards every final-named file must be
#     complete and valid (scene.pov: header and closing brace of the last blob; particles.ply: the
#     byte count its header implies; summary.json: valid JSON agreeing with the PLY) and, byte for
#     byte, either the old or the new reference (summary.json: equal but for its timings). Temporary files (*.tmp.*) may remain: SIGKILL
#     cannot be handled. The 11th kill waits until a temporary file appears, so at least one kill
#     lands while a temporary file exists, however the load shifts the timed ones.
#  2. SIGINT and SIGTERM, each twice (mid-simulation and mid-write, into the old outputs): exit 130
#     and 143 with blobsim's own message, no temporary file left, old files untouched.
#  3. SIGTERM while more than 64 frames wait as temporary files for the end of the run: all removed.
#  4. Over an earlier set with outputs the new run does not write (frames) and a user's own file:
#     SIGTERM leaves it as it was, SIGKILL leaves every output listed in outputs.txt, and the next
#     run leaves the new set and the user's file only.
# Prints the seed of its random jitter; pass it back as SEED to repeat a run.
set -euo pipefail
bin=$1
src=$2
seed=${3:-$RANDOM}
RANDOM=$seed
echo "jitter seed $seed"
work=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
cp "$src/tiny.json" "$src/tiny.obj" "$work/"
args=(--quiet --threads 2 --set 'particles.emitters.0.count=[320,2,500]' --set motion.steps=5
	--set output.frame_every=0 --set render.blob.max_components=4096)

now() { date +%s.%N; }

# References.
t0=$(now)
"$bin" run "$work/tiny.json" -o "$work/ref-new" "${args[@]}"
t1=$(now)
"$bin" run "$work/tiny.json" -o "$work/ref-old" "${args[@]}" --set seed=8
t2=$(now)
# The faster of the two (the first may pay for a cold cache).
read -r wall write_start < <(python3 - "$work/ref-new/summary.json" "$work/ref-old/summary.json" "$t0" "$t1" "$t2" <<'PY'
import json, sys
runs = []
for path, a, b in ((sys.argv[1], sys.argv[3], sys.argv[4]), (sys.argv[2], sys.argv[4], sys.argv[5])):
    s = json.load(open(path))["seconds"]
    wall = float(b) - float(a)
    runs.append((wall, max(0.0, wall - s["write"] - s["render"] - 0.01)))
wall, start = min(runs)
print(f"{wall:.3f} {start:.3f}")
PY
)
echo "reference run: ${wall} s wall, the write phase from ~${write_start} s; scene.pov $(stat -c %s "$work/ref-new/scene.pov") bytes"

# check.py DIR REF_NEW [REF_OLD]: every final-named output complete, valid and equal to a reference.
cat > "$work/check.py" <<'PY'
import json, os, sys
d, refs = sys.argv[1], sys.argv[2:]
problems = []
def comparable(name, data):
    """summary.json holds timings: compare it without them."""
    if name != "summary.json":
        return data
    try:
        s = json.loads(data)
    except ValueError:
        return data
    s.pop("seconds", None)
    return s
def same(name, data):
    return any(os.path.exists(os.path.join(r, name)) and
               comparable(name, open(os.path.join(r, name), "rb").read()) == comparable(name, data)
               for r in refs)
def listed(path):
    """outputs.txt's names (output_set.h), or None when it is not a list."""
    lines = open(path, encoding="utf-8").read().splitlines()
    if not lines or lines[0] != "# blobsim outputs":
        return None
    return {l for l in lines[1:] if l and not l.startswith("#")}
# user-*: the user's own files, which no run lists (the caller checks them).
present = {n for n in os.listdir(d) if ".tmp." not in n and n not in ("outputs.txt", ".outputs.lock") and not n.startswith("user-")}
if os.path.exists(os.path.join(d, "outputs.txt")):
    # Whichever moment the kill hit, the list names every output present (so the next run can
    # tidy them) and only files one of the reference runs wrote.
    names = listed(os.path.join(d, "outputs.txt"))
    allowed = set()
    for r in refs:
        allowed |= listed(os.path.join(r, "outputs.txt"))
    if names is None:
        problems.append("outputs.txt: not a list")
    elif not present <= names or not names <= allowed:
        problems.append(f"outputs.txt lists {sorted(names)}, present {sorted(present)}")
elif present:
    problems.append("outputs.txt: missing, though outputs are present")
for name in sorted(present):
    path = os.path.join(d, name)
    data = open(path, "rb").read()
    if name == "scene.pov":
        text = data.decode("utf-8", "replace")
        if not text.startswith("#version 3.7;"):
            problems.append("scene.pov: bad header")
        last = text.rfind("\nblob\n{\n")
        if not text.endswith("\n}\n") or last < 0 or "\n}\n" in text[last:-3] \
                or text.count("{") != text.count("}"):
            problems.append(f"scene.pov: does not end with the closing brace of the last blob: {text[-80:]!r}")
    elif name == "particles.ply":
        head, sep, body = data.partition(b"end_header\n")
        if not sep or not head.startswith(b"ply\nformat binary_little_endian 1.0\n"):
            problems.append("particles.ply: bad header")
        else:
            n = int([l for l in head.decode().splitlines() if l.startswith("element vertex")][0].split()[2])
            if len(body) != 33 * n:
                problems.append(f"particles.ply: {len(body)} body bytes, the header implies {33 * n}")
    elif name == "summary.json":
        try:
            json.loads(data)
        except ValueError as e:
            problems.append(f"summary.json: not valid JSON: {e}")
    elif not any(os.path.exists(os.path.join(r, name)) for r in refs):
        problems.append(f"unexpected file {name}")
    if not same(name, data):
        problems.append(f"{name}: equals no reference run's file ({len(data)} bytes)")
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
PY

prepare() {  # DIR MODE(fresh|old)
	rm -rf "$1"
	if [ "$2" = old ]; then cp -r "$work/ref-old" "$1"; fi
}

# start DIR: runs blobsim in the background; sets pid.
start() {
	"$bin" run "$work/tiny.json" -o "$1" "${args[@]}" 2>"$1.stderr" &
	pid=$!
	pids+=("$pid")
}

# kill_after DIR DELAY: runs blobsim into DIR, SIGKILLs it after DELAY seconds; sets rc.
kill_after() {
	start "$1"
	sleep "$2"
	kill -KILL "$pid" 2>/dev/null || true
	set +e
	wait "$pid"
	rc=$?
	set -e
}

# wait_handlers PID: until blobsim has installed its SIGINT and SIGTERM handlers (SigCgt in
# /proc/PID/status), so a signal sent early on a slow machine still tests the handler.
wait_handlers() {
	for _ in $(seq 400); do
		local mask
		mask=$(awk '/^SigCgt:/ { print $2 }' "/proc/$1/status" 2>/dev/null || true)
		[ -z "$mask" ] && return 0  # gone already: the exit status check reports it
		(( (0x$mask & 0x4002) == 0x4002 )) && return 0
		sleep 0.005
	done
}

jitter() {  # BASE: BASE +- 5 %
	python3 -c "import sys; print(f'{float(sys.argv[1]) * (0.95 + 0.1 * int(sys.argv[2]) / 32767):.3f}')" "$1" "$RANDOM"
}

# 1. SIGKILL.
pre=$write_start
write=$(python3 -c "print(${wall} - ${write_start})")
delays=()
for f in 0.1 0.6; do delays+=("$(python3 -c "print(${pre} * $f)")"); done
for f in 0.1 0.3 0.5 0.7 0.9; do delays+=("$(python3 -c "print(${pre} + ${write} * $f)")"); done
for f in 0.99 1.1 1.25; do delays+=("$(python3 -c "print(${wall} * $f)")"); done
caught=0
k=0
for base in "${delays[@]}"; do
	k=$((k + 1))
	mode=$([ $((k % 2)) -eq 0 ] && echo old || echo fresh)
	d="$work/kill$k"
	prepare "$d" "$mode"
	delay=$(jitter "$base")
	kill_after "$d" "$delay"
	tmps=0
	[ -d "$d" ] && tmps=$(find "$d" -name '*.tmp.*' | wc -l)
	[ "$tmps" -gt 0 ] && caught=$((caught + 1))
	files=$([ -d "$d" ] && ls "$d" | tr '\n' ' ' || echo "(no directory)")
	echo "SIGKILL $k ($mode dir) after ${delay} s: exit $rc; left: $files"
	if [ -d "$d" ]; then
		if [ "$mode" = old ]; then
			python3 "$work/check.py" "$d" "$work/ref-new" "$work/ref-old" || fail "SIGKILL $k: a partial or foreign file"
		else
			python3 "$work/check.py" "$d" "$work/ref-new" || fail "SIGKILL $k: a partial or foreign file"
		fi
	fi
	rm -rf "$d"
done
# One more kill on sight of the first temporary file, whatever the machine's load does to the timed
# delays above (a loaded machine can shift every one of them out of the write phase).
k=$((k + 1))
d="$work/kill$k"
prepare "$d" old
start "$d"
for _ in $(seq 6000); do
	[ -n "$(find "$d" -name '*.tmp.*' 2>/dev/null | head -1)" ] && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.01
done
kill -KILL "$pid" 2>/dev/null || true
set +e
wait "$pid"
rc=$?
set -e
tmps=$(find "$d" -name '*.tmp.*' | wc -l)
[ "$tmps" -gt 0 ] && caught=$((caught + 1))
echo "SIGKILL $k (old dir) on sight of a temporary file: exit $rc; left: $(ls "$d" | tr '\n' ' ')"
python3 "$work/check.py" "$d" "$work/ref-new" "$work/ref-old" || fail "SIGKILL $k: a partial or foreign file"
rm -rf "$d"
[ "$caught" -gt 0 ] || fail "no SIGKILL landed while a temporary file was open: the delays miss the write phase"
echo "SIGKILL: $caught of $k kills landed while a temporary file existed; no final-named file was partial"

# 2. SIGINT and SIGTERM: the handler removes the temporary files and exits 128 + signal.
for sig in INT TERM; do
	want=$([ $sig = INT ] && echo 130 || echo 143)
	text=$([ $sig = INT ] && echo "blobsim: interrupted (SIGINT); temporary files removed" ||
		echo "blobsim: terminated (SIGTERM); temporary files removed")
	for base in "$(python3 -c "print(${pre} * 0.6)")" "$(python3 -c "print(${pre} + ${write} * 0.5)")"; do
		d="$work/sig$sig"
		# The delays come from the reference runs' timing; when the machine is less loaded now, the run
		# can finish before the signal. That is a missed sample, not a failure: try again, earlier.
		for attempt in 1 2 3 4; do
			prepare "$d" old
			delay=$(jitter "$base")
			start "$d"
			wait_handlers "$pid"
			sleep "$delay"
			kill -$sig "$pid" 2>/dev/null || true
			set +e
			wait "$pid"
			rc=$?
			set -e
			[ "$rc" -ne 0 ] && break
			echo "SIG$sig after ${delay} s: the run had finished (exit 0); again with half the delay"
			base=$(python3 -c "print(${base} / 2)")
		done
		echo "SIG$sig after ${delay} s: exit $rc; left: $(ls "$d" | tr '\n' ' ')"
		[ "$rc" -eq "$want" ] || fail "SIG$sig: exit $rc, expected $want"
		[ "$(cat "$d.stderr")" = "$text" ] || fail "SIG$sig: stderr '$(cat "$d.stderr")', expected '$text'"
		[ -z "$(find "$d" -name '*.tmp.*')" ] || fail "SIG$sig: temporary files left: $(ls "$d")"
		# The outputs are the previous run's, or, when the signal came while the commit held signals
		# blocked (bsOutputSet_Commit renames the whole set before it lets one in), all of the new
		# run's: a complete set either way, never a mix.
		set_of=old
		cmp -s "$d/scene.pov" "$work/ref-old/scene.pov" || set_of=new
		# check.py compares summary.json without its timings: a new run's set is the reference run's
		# but for those.
		python3 "$work/check.py" "$d" "$work/ref-$set_of" ||
			fail "SIG$sig: the outputs are not all the $set_of run's (a mixed or partial set)"
		[ "$set_of" = old ] || echo "SIG$sig: the signal came during the commit: the new run's complete set"
		rm -rf "$d" "$d.stderr"
	done
done
# 3. SIGTERM with more pending files than the open-file registry's 64 slots: 400 frames, each kept as
#    a temporary file until the run ends; the signal must remove every one of them.
d="$work/frames"
prepare "$d" old
"$bin" run "$work/tiny.json" -o "$d" --quiet --threads 2 --set 'particles.emitters.0.count=[50,2,50]' \
	--set motion.steps=400 --set output.frame_every=1 2>"$d.stderr" &
pid=$!
pids+=("$pid")
wait_handlers "$pid"
for _ in $(seq 300); do
	[ "$(find "$d" -name 'frame_*.tmp.*' | wc -l)" -gt 80 ] && break
	sleep 0.05
done
pending=$(find "$d" -name 'frame_*.tmp.*' | wc -l)
kill -TERM "$pid"
set +e
wait "$pid"
rc=$?
set -e
echo "SIGTERM with $pending pending frames: exit $rc; left: $(ls "$d" | tr '\n' ' ')"
[ "$pending" -gt 64 ] || fail "only $pending frames pending at the signal, wanted more than 64"
[ "$rc" -eq 143 ] || fail "SIGTERM with many frames: exit $rc, expected 143"
[ -z "$(find "$d" -name '*.tmp.*')" ] || fail "SIGTERM with many frames: temporary files left"
[ -z "$(find "$d" -name 'frame_*')" ] || fail "SIGTERM with many frames: frames renamed into place"
# 4. The earlier set has outputs the new run does not write (6 frames and animation files; the new run
#    writes none): SIGTERM before the commit leaves the earlier set exactly (outputs.txt included)
#    and the user's own file; SIGKILL at any moment leaves whole files of either run, every one of
#    them listed in outputs.txt (so a later run can tidy them), and the user's file; a run that ends
#    leaves the new set and the user's file only.
#    The new run is smaller than the one above (20,000 particles: a slow machine gets through it
#    quickly); its own reference run gives the delays.
"$bin" run "$work/tiny.json" -o "$work/ref-frames" --quiet --threads 2 --set output.frame_every=1
echo "the user's notes" >"$work/ref-frames/user-notes.txt"
args=(--quiet --threads 2 --set 'particles.emitters.0.count=[100,2,100]' --set motion.steps=5
	--set output.frame_every=0 --set render.blob.max_components=4096)
t0=$(now)
"$bin" run "$work/tiny.json" -o "$work/ref-small" "${args[@]}"
wall=$(python3 -c "print($(now) - ${t0})")
prepare_frames() {
	rm -rf "$1"
	cp -r "$work/ref-frames" "$1"
}
d="$work/frames-term"
for attempt in 1 2 3 4; do
	# As soon as the handlers are in: the run is short, and part 2 covers signals mid-write.
	prepare_frames "$d"
	start "$d"
	wait_handlers "$pid"
	kill -TERM "$pid" 2>/dev/null || true
	set +e
	wait "$pid"
	rc=$?
	set -e
	[ "$rc" -ne 0 ] && break
done
[ "$rc" -eq 143 ] || fail "SIGTERM over an earlier set with frames: exit $rc, expected 143"
diff -r "$work/ref-frames" "$d" >/dev/null || fail "SIGTERM over an earlier set with frames: it changed: $(ls "$d")"
echo "SIGTERM over an earlier set with frames: exit 143, the earlier set and the user's file intact"
k=0
for f in 0.5 0.9 0.99 1.1; do
	base=$(python3 -c "print(${wall} * $f)")
	k=$((k + 1))
	d="$work/frames-kill$k"
	prepare_frames "$d"
	delay=$(jitter "$base")
	kill_after "$d" "$delay"
	echo "SIGKILL $k over an earlier set with frames after ${delay} s: exit $rc; left: $(ls "$d" | tr '\n' ' ')"
	python3 "$work/check.py" "$d" "$work/ref-small" "$work/ref-frames" || fail "SIGKILL $k over frames: see above"
	cmp -s "$d/user-notes.txt" "$work/ref-frames/user-notes.txt" || fail "SIGKILL $k over frames: the user's file"
	# The next run tidies whatever the kill left: the new set and the user's file only (and the
	# temporary file SIGKILL left, which no list names).
	"$bin" run "$work/tiny.json" -o "$d" "${args[@]}"
	[ "$(ls "$d" | grep -v '^user-\|\.tmp\.' | tr '\n' ' ')" = "$(ls "$work/ref-small" | tr '\n' ' ')" ] ||
		fail "SIGKILL $k over frames, then a run: $(ls "$d" | tr '\n' ' ') instead of ref-small's set"
	cmp -s "$d/user-notes.txt" "$work/ref-frames/user-notes.txt" || fail "SIGKILL $k over frames, then a run: the user's file"
	rm -rf "$d"
done
echo "ok: kill test"
