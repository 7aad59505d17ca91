#!/usr/bin/env bash
# Installs the Debian packages named that are missing (apt-get, with sudo when not root); used
# by tools/setup.sh and the test stages in tools/test.d.
# Usage: tools/install-packages.sh [--no-install-recommends] PACKAGE...
set -euo pipefail
options=()
if [ "${1:-}" = "--no-install-recommends" ]; then
    options+=("$1")
    shift
fi
missing=()
for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if ((${#missing[@]})); then
    echo "== installing ${missing[*]}"
    sudo_cmd=""; [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${options[@]}" \
        "${missing[@]}" >/dev/null
fi
