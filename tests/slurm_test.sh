#!/usr/bin/env bash
# A real single-node Slurm cluster, started by the test (munged, slurmctld and slurmd with a generated
# slurm.conf in a temporary folder, no systemd), runs what the docs say to submit:
#  1. docs/rendering.md's render-frames.sbatch (a job array of `blobsim render DIR --shard`) and its
#     finishing job (afterany), while a second renderer in another pid namespace (`unshare --pid
#     --fork --mount-proc`, standing in for a second node) renders the same folder: every image
#     rendered exactly once, both succeed, every output listed, no temporary or claim left, and the
#     images equal, pixel for pixel, a render of a copy of the folder on its own;
#  2. docs/batch.md's sharded batch as a job array: the same folders, byte-identical scenes and
#     particles, as the batch run unsharded.
#   tests/slurm_test.sh BLOBSIM TESTS_RUN_DIR DOCS_DIR
# Exit 77 (skipped) without Debian's slurm-wlm and munge (apt-get install slurm-wlm munge), without
# POV-Ray, or when not root (slurmd runs jobs as their user). Tiny images: about half a minute.
set -euo pipefail
bin=$(realpath "$1")
src=$(realpath "$2")
docs=$(realpath "$3")
for tool in munged munge slurmctld slurmd sbatch squeue sinfo scontrol povray unshare; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "skipped: $tool is not installed (apt-get install slurm-wlm munge povray)"
		exit 77
	fi
done
if [ "$(id -u)" -ne 0 ]; then
	echo "skipped: a test cluster's slurmd must run as root"
	exit 77
fi
work=$(mktemp -d)
chmod 700 "$work"
daemons=()
cleanup() {
	local p
	for p in "${daemons[@]}"; do
		[ -f "$p" ] && kill "$(cat "$p")" 2>/dev/null || true
	done
	sleep 0.2
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 143' TERM INT  # through the EXIT trap: no daemon outlives a test stopped by its timeout
fail() {
	echo "FAIL: $*" >&2
	for log in "$work"/slurm/*.log; do
		[ -f "$log" ] && { echo "--- $log" >&2; tail -5 "$log" >&2; }
	done
	exit 1
}

# --- The cluster: one node, this host, its cores; ports of our own so another cluster does not mind.
s="$work/slurm"
mkdir -p "$s/state" "$s/spool"
head -c 1024 /dev/urandom >"$s/munge.key"
chmod 400 "$s/munge.key"
munged -f --key-file="$s/munge.key" --socket="$s/munge.sock" --pid-file="$s/munged.pid" \
	--log-file="$s/munged.log" --seed-file="$s/munged.seed"
daemons+=("$s/munged.pid")
host=$(hostname -s)
port=$((20000 + RANDOM % 20000))
cat >"$s/slurm.conf" <<EOF
ClusterName=blobsimtest
SlurmctldHost=$host
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$s/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$s/state
SlurmdSpoolDir=$s/spool
SlurmctldPidFile=$s/slurmctld.pid
SlurmdPidFile=$s/slurmd.pid
SlurmctldLogFile=$s/slurmctld.log
SlurmdLogFile=$s/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$s/slurm.conf"
slurmctld -i
daemons+=("$s/slurmctld.pid")
slurmd
daemons+=("$s/slurmd.pid")
for _ in $(seq 1 100); do
	sinfo -h -o %t 2>/dev/null | grep -q idle && break
	sleep 0.1
done
sinfo -h -o %t | grep -q idle || fail "the test cluster's node never became idle: $(sinfo 2>&1)"

# wait_jobs ID...: until none is queued or running; fails after a minute.
wait_jobs() {
	local ids
	ids=$(IFS=,; echo "$*")
	for _ in $(seq 1 600); do
		[ -z "$(squeue -h -j "$ids" 2>/dev/null)" ] && return 0
		sleep 0.1
	done
	fail "jobs $ids still queued after a minute: $(squeue)"
}
# states ID: each task's state and exit code ("COMPLETED 0:0"), from slurmctld (no accounting).
states() {
	scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p; s/.*ExitCode=\([0-9:]*\).*/\1/p' | paste - - | sort -u
}
# doc_block FILE FIRST_LINE: the indented code block of FILE that starts with FIRST_LINE, unindented.
doc_block() {
	awk -v first="$2" '
		index($0, "    " first) == 1 { on = 1 }
		on && !/^    / && !/^$/ { exit }
		on { sub(/^    /, ""); print }' "$1"
}

# --- 1. The render array, its finishing job, and a second node.
mkdir -p "$work/bin" "$work/shared"
cat >"$work/bin/povray" <<EOF
#!/bin/sh
# POV-Ray, counted: each render appends its image's name.
for a in "\$@"; do case "\$a" in +O*) echo "\${a#+O}" >>"$work/count" ;; esac; done
exec $(command -v povray) "\$@"
EOF
chmod +x "$work/bin/povray"
export PATH="$work/bin:$PATH"
: >"$work/count"
d="$work/shared/slime"
"$bin" run "$src/tiny.json" -o "$d" --quiet --set render.width=32 --set render.height=24 \
	--set output.frame_every=1 --set motion.steps=11
cp -a "$d" "$work/alone"

doc_block "$docs/rendering.md" "#!/bin/bash" >"$work/render-frames.sbatch"
grep -q -- '--shard' "$work/render-frames.sbatch" || fail "docs/rendering.md has no render-frames.sbatch with --shard"
# Our paths; an array counted from 1; tiny images need little memory or time.
sed -i "s|^blobsim=.*|blobsim=$bin|; s|^dir=.*|dir=$d|; s|^#SBATCH --array=.*|#SBATCH --array=1-4|; /^#SBATCH --mem=/d" \
	"$work/render-frames.sbatch"
submit=$(doc_block "$docs/rendering.md" 'job=$(sbatch')
[ -n "$submit" ] || fail "docs/rendering.md has no submission lines"
command -v ffmpeg >/dev/null 2>&1 || submit=${submit// --movie/}  # the movie needs ffmpeg (optional)
cd "$work"
blobsim=$bin
dir=$d
FARM_NODE2_LOG="$work/node2.err"
unshare --pid --fork --mount-proc "$bin" render "$d" --quiet 2>"$FARM_NODE2_LOG" &
node2=$!
eval "$submit" >/dev/null
[ -n "${job:-}" ] || fail "the documented submission set no \$job"
wait "$node2" || fail "the second node's render failed: $(cat "$FARM_NODE2_LOG")"
wait_jobs "$job"
for _ in $(seq 1 600); do
	[ -z "$(squeue -h)" ] && break
	sleep 0.1
done
[ -z "$(squeue -h)" ] || fail "jobs still queued: $(squeue)"
[ "$(states "$job" | cut -f1 | sort -u)" = COMPLETED ] || fail "the render array: $(states "$job")"
dup=$(sort "$work/count" | uniq -d | tr '\n' ' ')
[ -z "$dup" ] || fail "rendered twice: $dup (by the array and the second node)"
# frame_0011.png (the last frame) may be a copy of scene.png, which has the same scene.
want="$(printf 'frame_%04d.png\n' $(seq 0 10); echo scene.png)"
[ "$(grep -v '^frame_0011.png$' "$work/count" | sort)" = "$(echo "$want" | sort)" ] ||
	fail "rendered $(sort "$work/count" | tr '\n' ' ')"
for k in $(seq 0 11); do
	f=$(printf 'frame_%04d.png' "$k")
	grep -qx "$f" "$d/outputs.txt" || fail "$f is not listed"
	log="logs/frame_$(printf %04d "$k").log"
	! grep -qx "$f" "$work/count" || grep -qx "$log" "$d/outputs.txt" || fail "$log is not listed"
done
grep -qx scene.png "$d/outputs.txt" || fail "scene.png is not listed (the finishing job)"
if command -v ffmpeg >/dev/null 2>&1; then
	grep -qx animation.mp4 "$d/outputs.txt" || fail "animation.mp4 is not listed (the finishing job)"
fi
[ -z "$(find "$d" -name '*.tmp.*' -o -name '*.claim')" ] || fail "left: $(find "$d" -name '*.tmp.*' -o -name '*.claim')"
"$bin" render "$work/alone" --quiet
for f in scene.png $(cd "$d" && ls frame_*.png); do
	# Pixel for pixel (the PNGs hold POV-Ray's render time).
	"$bin" compare "$d/$f" "$work/alone/$f" | grep -q '^max_diff *0$' || fail "$f differs from a render of the folder alone"
done
echo "1: a Slurm array of 4 tasks (--array=1-4), its finishing job and a second pid namespace rendered every image once"

# --- 2. The sharded batch as a job array.
mkdir -p "$work/batch"
cp "$src/tiny.json" "$src/tiny.obj" "$work/batch/"
cat >"$work/batch/b.json" <<'EOF'
{ "output": "out", "runs": [ { "config": "tiny.json", "set": { "seed": [1, 2, 3, 4, 5] } } ] }
EOF
cat >"$work/batch.sbatch" <<EOF
#!/bin/bash
#SBATCH --array=0-2
cd "$work/batch"
"$bin" batch b.json --quiet --shard \$((SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN))/\$SLURM_ARRAY_TASK_COUNT --threads 1
EOF
bjob=$(sbatch --parsable -o "$work/batch-%a.out" "$work/batch.sbatch")
wait_jobs "$bjob"
[ "$(states "$bjob" | cut -f1 | sort -u)" = COMPLETED ] || fail "the batch array: $(states "$bjob"): $(cat "$work"/batch-*.out)"
cp -a "$work/batch" "$work/batch-alone"
rm -rf "$work/batch-alone/out"
(cd "$work/batch-alone" && "$bin" batch b.json --quiet --threads 1)
files=$(cd "$work/batch-alone/out" && find . -name scene.pov -o -name particles.ply | sort)
[ "$(echo "$files" | wc -l)" -eq 10 ] || fail "batch: the unsharded batch wrote $files"
[ "$(cd "$work/batch/out" && find . -name scene.pov -o -name particles.ply | sort)" = "$files" ] ||
	fail "batch: the shards wrote $(cd "$work/batch/out" && find . -name scene.pov -o -name particles.ply | sort)"
for f in $files; do
	cmp -s "$work/batch/out/$f" "$work/batch-alone/out/$f" || fail "batch: $f differs from the unsharded batch"
done
echo "2: a batch sharded over a Slurm array of 3 equals the batch run alone"
echo "ok: slurm test"
