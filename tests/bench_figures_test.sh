#!/usr/bin/env bash
# tools/bench_figures --dry-run: the plan names every figure twice (A and B) and `blobsim check` accepts
# each figure's two configs (so a renamed config or key breaks this test, not the next measurement); a
# wrong B setting, an unknown figure and a bad --size fail. No POV-Ray, a few seconds.
#   tests/bench_figures_test.sh TOOLS_DIR BLOBSIM
set -euo pipefail
tools=$(realpath "$1")
blobsim=$(realpath "$2")
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
plan=$("$tools/bench_figures" --dry-run --blobsim "$blobsim") || fail "the dry run failed: $plan"
for figure in room room-empty slime snow snow-accumulate sand-pile slime-pour ball-snow; do
	for mode in A B; do
		grep -q "^$figure $mode: blobsim run configs/$figure.json " <<<"$plan" || fail "no '$figure $mode' in the plan:
$plan"
	done
done
grep -q "^A: render.surface=\"blob\" render.blob.cull=false; B: render.surface=\"auto\" render.blob.cull=true;" <<<"$plan" ||
	fail "A and B are not today's blobs and the candidate default:
$plan"
if got=$("$tools/bench_figures" --dry-run --blobsim "$blobsim" --only snow --b 'render.surface="nope"' 2>&1); then
	fail "a B setting blobsim refuses passed the dry run: $got"
fi
grep -q 'render.surface' <<<"$got" || fail "the refused B setting is not named: $got"
for bad in "--only no-such-figure" "--size 800" "--runs 0"; do
	# shellcheck disable=SC2086
	if got=$("$tools/bench_figures" --dry-run --blobsim "$blobsim" $bad 2>&1); then
		fail "'$bad' was accepted: $got"
	fi
done
echo "ok: the plan of $(grep -c ': blobsim run ' <<<"$plan") runs checked"
