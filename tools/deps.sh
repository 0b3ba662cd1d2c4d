#!/usr/bin/env bash
# Installs what blobsim needs to build and test, from Debian's packages, when it is missing.
# Sourced by tools/test, tools/snow and the other tools; safe to run twice. As root it runs apt-get;
# otherwise through sudo when there is one; without either it prints the apt-get line to run as root
# and fails (exit 1), so the calling tool stops with that message instead of a missing command.
set -euo pipefail

blobsim_install_deps() {
	local need=()
	command -v cc >/dev/null 2>&1 || need+=(gcc)
	command -v meson >/dev/null 2>&1 || need+=(meson)
	command -v ninja >/dev/null 2>&1 || need+=(ninja-build)
	command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
	command -v python3 >/dev/null 2>&1 || need+=(python3)
	local pkg
	for pkg in "$@"; do
		dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
	done
	[ ${#need[@]} -gt 0 ] || return 0
	local line="apt-get install -y --no-install-recommends ${need[*]}"
	local sudo=""
	if [ "$(id -u)" -ne 0 ]; then
		if ! command -v sudo >/dev/null 2>&1; then
			{
				echo "blobsim needs these packages, which are not installed: ${need[*]}"
				echo "You are not root and there is no sudo: run as root (e.g. su -c '...'):"
				echo "    apt-get update && $line"
				echo "then run this command again."
			} >&2
			return 1
		fi
		sudo="sudo"
	fi
	# apt's output goes to a log file, shown when a step fails; each step says what it does.
	local log start=$SECONDS
	log=$(mktemp "${TMPDIR:-/tmp}/blobsim-apt.XXXXXX")
	echo "installing ${#need[@]} packages${sudo:+ (through sudo)}: ${need[*]}" >&2
	echo "  apt-get update (log: $log)" >&2
	if ! $sudo apt-get update -qq >>"$log" 2>&1; then
		blobsim_apt_failed "apt-get update" "$log"
		return 1
	fi
	echo "  apt-get install: ${#need[@]} packages and what they need (a minute or more on a fresh machine)" >&2
	if ! DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >>"$log" 2>&1; then
		blobsim_apt_failed "apt-get install" "$log"
		return 1
	fi
	echo "  installed in $((SECONDS - start)) s" >&2
	rm -f "$log"
}

blobsim_apt_failed() {  # step, log
	{
		echo "$1 failed; the end of its log, $2:"
		tail -n 30 "$2" | sed 's/^/    /'
	} >&2
}

# Optional packages (the tests that need them are skipped without them, e.g. ffmpeg for the movie
# tests): installed like the others when this user can, otherwise only named. Never a failure, so a
# tool that sources this goes on without them.
blobsim_install_optional() {
	local pkg need=()
	for pkg in "$@"; do
		dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
	done
	[ ${#need[@]} -gt 0 ] || return 0
	if [ "$(id -u)" -ne 0 ] && ! command -v sudo >/dev/null 2>&1; then
		echo "optional, not installed: ${need[*]} (their tests are skipped; as root: apt-get install ${need[*]})" >&2
		return 0
	fi
	blobsim_install_deps "${need[@]}" ||
		echo "optional, not installed: ${need[*]} (their tests are skipped)" >&2
}
