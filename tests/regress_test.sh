#!/usr/bin/env bash
# `blobsim regress` end to end: the shipped suite (tests/regress/) passes on an unchanged tree and fails
# when a case's particle radius changes; a missing reference fails until --update blesses it; a broken
# case fails alone; a bad suite file is refused with its JSON path; blob tiles render seamlessly.
# Skipped (77) without POV-Ray.
#   tests/regress_test.sh BLOBSIM TESTS_DIR MODE      MODE: suite | changed | cases | tiles | bad-suite
set -euo pipefail
bin=$1
tests=$2
mode=$3
if ! command -v povray >/dev/null 2>&1; then
	echo "SKIP: POV-Ray is not installed (apt-get install povray); the regression suite needs it"
	exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
# report.json query: python3 expression over `r` (the report), printed.
report() {
	python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print($2)" "$1"
}
expect_status() {  # expected exit status, command...
	local want=$1
	shift
	local got=0
	"$@" >"$work/stdout" 2>"$work/stderr" || got=$?
	if [ "$got" -ne "$want" ]; then
		cat "$work/stdout" "$work/stderr" >&2
		fail "'$*' exited $got, expected $want"
	fi
}

case "$mode" in
suite)
	# An unchanged tree reproduces every reference.
	expect_status 0 "$bin" regress "$tests/regress" -o "$work/out"
	[ "$(report "$work/out/report.json" 'r["passed"], r["failed"]')" = "18 0" ] || fail "expected 18 passed, 0 failed"
	[ "$(report "$work/out/report.json" 'sorted(set(c["status"] for c in r["cases"]))')" = "['pass']" ] ||
		fail "a case did not pass"
	for c in fig8a-room fig8b-room-karabassi fig8c-room-ray fig9-slime fig10-snow fig10-snow-mesh snow-accumulate slime-pour sand-pile slime-fluid-pour mud-slope ball-sand slime-sweep crate-water species-sand-slime; do
		for f in scene.png ref.png diff.png; do
			[ -s "$work/out/$c/$f" ] || fail "$c/$f missing"
			grep -q "src=\"$c/$f\"" "$work/out/report.html" || fail "report.html does not show $c/$f"
		done
	done
	# The report's ref.png is the reference, byte for byte.
	cmp -s "$work/out/fig10-snow/ref.png" "$tests/regress/ref/fig10-snow.png" || fail "ref.png is not the reference"
	;;
changed)
	# A larger radius in the snow case: the image changes, the case fails, the others are skipped.
	expect_status 1 "$bin" regress "$tests/regress" -o "$work/out" --only fig10-snow --set particles.radius=0.03
	[ "$(report "$work/out/report.json" '[c["status"] for c in r["cases"] if c["name"] == "fig10-snow"][0]')" = fail ] ||
		fail "fig10-snow did not fail"
	[ "$(report "$work/out/report.json" 'sum(c["status"] == "skipped" for c in r["cases"])')" = 17 ] ||
		fail "the other cases were not skipped"
	psnr=$(report "$work/out/report.json" '[c["metrics"]["psnr"] for c in r["cases"] if c["name"] == "fig10-snow"][0]')
	python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < 40 else 1)" "$psnr" || fail "psnr $psnr not below 40"
	grep -q "fig10-snow.*fail" "$work/stdout" || fail "the table does not show the failure"
	grep -q "psnr .* is below" "$work/out/report.html" || fail "report.html does not say which limit broke"
	[ -s "$work/out/fig10-snow/diff.png" ] || fail "no heatmap"
	;;
cases)
	# A suite of its own: a case with no reference, a broken config, a good one.
	mkdir -p "$work/suite/ref"
	cp "$tests/run/tiny.obj" "$tests/run/tiny.json" "$work/suite/"
	printf '{ "nope": 1 }\n' >"$work/suite/broken.json"
	cat >"$work/suite/suite.json" <<'EOF'
{
  "render": { "width": 48, "height": 36, "antialias": 0 },
  "cases": [
    { "name": "a", "config": "tiny.json" },
    { "name": "broken", "config": "broken.json" },
    { "name": "b", "config": "tiny.json", "set": { "particles.radius": 0.05 }, "limits": { "min_psnr": 20 } }
  ]
}
EOF
	expect_status 1 "$bin" regress "$work/suite" -o "$work/out"
	[ "$(report "$work/out/report.json" '[c["status"] for c in r["cases"]]')" = "['no-reference', 'error', 'no-reference']" ] ||
		fail "statuses: $(report "$work/out/report.json" '[c["status"] for c in r["cases"]]')"
	grep -q "nope: unknown key" "$work/stdout" || fail "the broken case's message is not the run's error"
	# Bless: references appear for the cases that ran; the broken one still fails.
	expect_status 1 "$bin" regress "$work/suite" -o "$work/out" --update
	[ -s "$work/suite/ref/a.png" ] && [ -s "$work/suite/ref/b.png" ] || fail "--update wrote no reference"
	[ ! -e "$work/suite/ref/broken.png" ] || fail "a failed case got a reference"
	# Blessing again keeps the references (same pixels), byte for byte.
	cp "$work/suite/ref/a.png" "$work/a-before.png"
	expect_status 1 "$bin" regress "$work/suite" -o "$work/out" --update
	[ "$(report "$work/out/report.json" '[c["status"] for c in r["cases"]]')" = "['kept', 'error', 'kept']" ] ||
		fail "a second --update did not keep the references"
	cmp -s "$work/a-before.png" "$work/suite/ref/a.png" || fail "a kept reference changed"
	# Without the broken case the suite passes.
	expect_status 0 "$bin" regress "$work/suite" -o "$work/out" --only a --only b
	# Swapping the references: a and b differ (radius 0.03 against 0.05), b's own limit is looser.
	cp "$work/suite/ref/a.png" "$work/t.png"
	cp "$work/suite/ref/b.png" "$work/suite/ref/a.png"
	cp "$work/t.png" "$work/suite/ref/b.png"
	expect_status 1 "$bin" regress "$work/suite" -o "$work/out" --only a --only b
	[ "$(report "$work/out/report.json" '[c["limits"]["min_psnr"] for c in r["cases"]]')" = "[40, 40, 20]" ] ||
		fail "per-case limits not applied"
	[ "$(report "$work/out/report.json" '[c["status"] for c in r["cases"]][0]')" = fail ] || fail "a passed with b's image"
	# A folder of configs without suite.json: each config is a case.
	mkdir -p "$work/plain"
	cp "$tests/run/tiny.obj" "$tests/run/tiny.json" "$work/plain/"
	expect_status 0 "$bin" regress "$work/plain" -o "$work/plain-out" --update
	[ -s "$work/plain/ref/tiny.png" ] || fail "folder suite: no reference for tiny"
	expect_status 0 "$bin" regress "$work/plain" -o "$work/plain-out"
	# A line as each case starts (on stderr), not only as it ends.
	grep -qF "blobsim regress: case 1 of 1: tiny (tiny.json)..." "$work/stderr" || fail "no start line: $(cat "$work/stderr")"
	# The user's own report.html in OUT is refused before any case runs (exit 3) and left as it was.
	mkdir -p "$work/mine"
	echo '<p>my notes</p>' >"$work/mine/report.html"
	expect_status 3 "$bin" regress "$work/plain" -o "$work/mine"
	grep -qF "mine/report.html: not a file blobsim wrote" "$work/stderr" || fail "user's report.html: $(cat "$work/stderr")"
	[ "$(cat "$work/mine/report.html")" = '<p>my notes</p>' ] && [ ! -e "$work/mine/tiny" ] ||
		fail "the user's report.html was replaced, or a case ran"
	# --quiet still names each failing case and why (a broken config, a corrupt reference): exit 1.
	printf 'not a png\n' >"$work/suite/ref/a.png"
	expect_status 1 "$bin" regress "$work/suite" -o "$work/out" --quiet --only a --only broken
	[ ! -s "$work/stdout" ] || fail "--quiet printed on stdout: $(cat "$work/stdout")"
	grep -q "^blobsim regress: broken .*error.*nope: unknown key" "$work/stderr" || fail "--quiet, broken config: $(cat "$work/stderr")"
	grep -qF "ref/a.png: not a PNG file" "$work/stderr" || fail "--quiet, corrupt reference: $(cat "$work/stderr")"
	# A reference that cannot be read (a FIFO: refused at once, for root as for any user) is the suite's
	# fault: exit 3 (docs/regress.md), with the file named.
	rm "$work/suite/ref/a.png"
	mkfifo "$work/suite/ref/a.png"
	expect_status 3 timeout 120 "$bin" regress "$work/suite" -o "$work/out" --quiet --only a
	grep -qF "ref/a.png: not a regular file (the reference cannot be read)" "$work/stderr" ||
		fail "unreadable reference: $(cat "$work/stderr")"
	;;
tiles)
	# Blob tiles are seamless: the snow figure split into 64 tiles (each clipped to its k-d cell, with every
	# component that reaches it) renders as one blob does, to within one level on a few pixels.
	for chunk in 1000000 4096; do
		"$bin" run "$tests/../configs/snow.json" -o "$work/$chunk" --quiet --render --set render.width=200 \
			--set render.height=150 --set render.blob.max_components=$chunk
	done
	[ "$(grep -c '^blob$' "$work/4096/scene.pov")" -ge 32 ] || fail "the scene was not split into tiles"
	expect_status 0 "$bin" compare "$work/1000000/scene.png" "$work/4096/scene.png" --max-diff 2 --max-fraction 0.0005 --threshold 1
	;;
bad-suite)
	mkdir -p "$work/s"
	check() {  # suite.json text, expected message
		printf '%s\n' "$1" >"$work/s/suite.json"
		expect_status 3 "$bin" regress "$work/s" -o "$work/out"
		grep -qF -- "$2" "$work/stderr" || fail "expected '$2', got: $(cat "$work/stderr")"
	}
	check '{ "cases": [ { "config": "x.json" } ], "extra": 1 }' \
		"suite.json: (root): unknown key 'extra' (expected one of: render, limits, references, cases)"
	check '{ "cases": [] }' "suite.json: cases: expected a non-empty array of cases, got an array"
	check '{ "cases": [ { "name": "a b", "config": "x.json" } ] }' \
		"suite.json: cases[0].name: case name 'a b' is not a valid file name"
	check '{ "cases": [ { "config": "x.json" }, { "config": "y/x.json" } ] }' \
		"suite.json: cases[1].name: case name 'x' is used twice"
	check '{ "cases": [ { "config": 3 } ] }' "suite.json: cases[0].config: expected the path of a config, got a number"
	check '{ "limits": { "min_ssim": 2 }, "cases": [ { "config": "x.json" } ] }' \
		"suite.json: limits.min_ssim: expected a number in [-1, 1], got 2"
	check '{ "render": { "width": 10.5 }, "cases": [ { "config": "x.json" } ] }' \
		"suite.json: render.width: expected an integer in [16, 4096], got 10.5"
	check '{ "cases": [ { "config": "x.json", "limits": { "max_diff": "big" } } ] }' \
		"suite.json: cases[0].limits.max_diff: expected a number, got a string"
	check '{ "cases": [ { "config": "x.json", "set": [1] } ] }' \
		"suite.json: cases[0].set: expected an object of \"key.path\": value, got an array"
	check '{ "cases": [ ' "suite.json:2:1: unexpected end of file"
	expect_status 3 "$bin" regress "$work/nothing-here" -o "$work/out"
	grep -qF "nothing-here: no such suite folder or file" "$work/stderr" || fail "missing suite: $(cat "$work/stderr")"
	expect_status 2 "$bin" regress "$tests/regress" --only no-such-case -o "$work/out"
	grep -qF "has no such case" "$work/stderr" || fail "--only: $(cat "$work/stderr")"
	expect_status 2 "$bin" regress
	expect_status 2 "$bin" regress "$tests/regress" --frobnicate
	# An unwritable stdout is an error (3) for compare, not "the images differ" (1).
	rc=0
	"$bin" compare "$tests/regress/ref/tiny-slide.png" "$tests/regress/ref/tiny-slide.png" >/dev/full 2>"$work/stderr" || rc=$?
	[ "$rc" -eq 3 ] || fail "compare into /dev/full exited $rc, expected 3"
	grep -qF "blobsim: error writing the output" "$work/stderr" || fail "compare into /dev/full: $(cat "$work/stderr")"
	;;
*)
	fail "unknown mode $mode"
	;;
esac
echo "ok: regress $mode"
