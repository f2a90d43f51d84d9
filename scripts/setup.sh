#!/usr/bin/env bash
# Installs what tilefit needs to build and test (Debian packages only), if it is missing.
# Safe to run again: packages already present are not touched.
set -euo pipefail

# Build: cmake, g++, LLVM/Clang 19, nlohmann-json, GoogleTest.
# Tests: make and bear (a compilation database from a plain Makefile), python3 (fixture tools).
packages=(cmake make g++ clang-19 libclang-19-dev libclang-cpp19-dev llvm-19-dev
          nlohmann-json3-dev libgtest-dev libgmock-dev bear python3)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all packages present"
  exit 0
fi

echo "setup: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
