#!/usr/bin/env bash
# Installs what blobsim needs to build and test, from Debian's packages, when it is missing.
# Sourced by tools/test and tools/snow; safe to run twice.
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
	if [ ${#need[@]} -gt 0 ]; then
		echo "installing: ${need[*]}" >&2
		local sudo=""
		[ "$(id -u)" -eq 0 ] || sudo="sudo"
		$sudo apt-get update -qq
		DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
	fi
}
