#!/usr/bin/env bash
# tools/deps.sh when a package is missing, with fake apt-get and sudo (nothing is installed):
#   root              runs apt-get update and apt-get install itself;
#   not root, sudo    runs both through sudo;
#   not root, no sudo runs nothing, prints the exact apt-get line to run as root, fails (exit 1).
#   tests/deps_test.sh TOOLS_DIR
set -euo pipefail
tools=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
missing=blobsim-test-no-such-package
# The tools deps.sh looks for or uses (its apt log), from the real PATH; apt-get and sudo only as fakes
# that log.
mkdir "$work/bin"
for t in cc meson ninja pkg-config python3 dpkg mktemp rm tail sed; do
	p=$(command -v "$t") || continue
	ln -s "$p" "$work/bin/$t"
done
# With APT_FAIL set, the fake's install fails with a message of apt's.
printf '#!/bin/sh\necho "apt-get $*" >>"%s/log"\n[ -n "$APT_FAIL" ] && [ "$1" = install ] && { echo "E: Unable to locate package $APT_FAIL"; exit 100; }\nexit 0\n' "$work" >"$work/apt-get"
printf '#!/bin/sh\necho "sudo" >>"%s/log"\nexec "$@"\n' "$work" >"$work/sudo"
chmod +x "$work/apt-get" "$work/sudo"
ln -s "$work/apt-get" "$work/bin/apt-get"

# deps UID [sudo|optional]: sources deps.sh as user UID (id is a shell function) and installs the
# missing package (optional: as an optional one), the log and stderr in $work.
deps() {
	local uid=$1 path=$work/bin fn=blobsim_install_deps
	[ "${2:-}" = optional ] && fn=blobsim_install_optional
	if [ "${2:-}" = sudo ]; then
		mkdir -p "$work/sudobin"
		ln -sf "$work/sudo" "$work/sudobin/sudo"
		path=$work/sudobin:$path
	fi
	rm -f "$work/log"
	PATH=$path /bin/bash -c 'id() { echo '"$uid"'; }; . "$1"; '"$fn"' "$2"' deps \
		"$tools/deps.sh" "$missing" 2>"$work/err"
}

deps 0 || fail "as root: exit $?"
grep -qx "apt-get install -y -qq --no-install-recommends $missing" "$work/log" || fail "as root: $(cat "$work/log")"
grep -q sudo "$work/log" && fail "as root: used sudo"
grep -q "^installing 1 packages: $missing" "$work/err" || fail "as root: no 'installing' line: $(cat "$work/err")"

deps 1000 sudo || fail "with sudo: exit $?"
[ "$(cat "$work/log")" = "sudo
apt-get update -qq
sudo
apt-get install -y -qq --no-install-recommends $missing" ] || fail "with sudo: $(cat "$work/log")"

set +e
deps 1000
rc=$?
set -e
[ $rc -eq 1 ] || fail "without root or sudo: exit $rc, expected 1: $(cat "$work/err")"
[ ! -e "$work/log" ] || fail "without root or sudo: ran $(cat "$work/log")"
grep -q "^    apt-get update && apt-get install -y --no-install-recommends $missing\$" "$work/err" ||
	fail "without root or sudo, no apt-get line: $(cat "$work/err")"
grep -q "not root and there is no sudo" "$work/err" || fail "no reason given: $(cat "$work/err")"
grep -q "command not found" "$work/err" && fail "a missing command: $(cat "$work/err")"

# Each step says what it does; apt's own output is kept in a log, shown when a step fails.
set +e
APT_FAIL=$missing deps 0
rc=$?
set -e
[ $rc -eq 1 ] || fail "a failing apt-get install: exit $rc, expected 1: $(cat "$work/err")"
grep -q "^apt-get install failed; the end of its log" "$work/err" || fail "apt failure not said: $(cat "$work/err")"
grep -q "E: Unable to locate package $missing" "$work/err" || fail "apt's log not shown: $(cat "$work/err")"

# An optional package: installed as root; without root or sudo only named, and no failure.
deps 0 optional || fail "optional as root: exit $?"
grep -qx "apt-get install -y -qq --no-install-recommends $missing" "$work/log" || fail "optional as root: $(cat "$work/log")"
deps 1000 optional || fail "optional without root or sudo: exit $?"
[ ! -e "$work/log" ] || fail "optional without root or sudo: ran $(cat "$work/log")"
grep -q "optional, not installed: $missing" "$work/err" || fail "optional: not named: $(cat "$work/err")"
echo "ok: root, sudo, neither; apt failing; an optional package as root and without root"
