#!/usr/bin/env bash
# Installs what lineup needs to build and test on Debian 12, if it is missing.
set -euo pipefail
pkgs=(build-essential cmake clang clang-format uthash-dev libpfm4-dev binutils python3)
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi
echo "lineup: installing ${missing[*]}" >&2
if [ "$(id -u)" -eq 0 ]; then
    SUDO=
elif command -v sudo >/dev/null; then
    SUDO=sudo
else
    echo "lineup: need root (or sudo) to install: ${missing[*]}" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
