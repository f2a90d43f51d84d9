#!/usr/bin/env bash
# Installs what tilefit needs to build and test (Debian packages only), if it is missing.
# Safe to run again: packages already present are not touched.
set -euo pipefail

# Build: cmake, g++, LLVM/Clang 19, nlohmann-json, GoogleTest; libomp-19-dev for Clang's own
# omp.h (CUDA units that include it parse with Clang's, as nvcc's host compiler has GCC's);
# zlib1g-dev and libzstd-dev, which LLVM's static Support library links (CMakeLists.txt:
# TILEFIT_STATIC_LLVM).
# Tests: make and bear (a compilation database from a plain Makefile), pre-commit (the hook
# recipe), neovim (a real editor's LSP client), python3 (fixture tools), dpkg-dev (the Debian
# package's test: dpkg-shlibdeps).
packages=(cmake make g++ clang-19 libclang-19-dev libclang-cpp19-dev llvm-19-dev libomp-19-dev
          zlib1g-dev libzstd-dev nlohmann-json3-dev libgtest-dev libgmock-dev bear pre-commit neovim python3 dpkg-dev)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all packages present"
else
  echo "setup: installing ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Microsoft's SARIF validator for the SARIF test (npm; skipped, visibly, where npm is absent).
cd "$(dirname "$0")/.."
tool=.cache/sarif/node_modules/.bin/sarif-multitool
if [ ! -x "$tool" ] && command -v npm >/dev/null 2>&1; then
  echo "setup: installing @microsoft/sarif-multitool under .cache/sarif"
  npm install --silent --no-audit --no-fund --prefix .cache/sarif @microsoft/sarif-multitool@5 \
    || echo "setup: could not install the SARIF validator; its test will be skipped"
fi
