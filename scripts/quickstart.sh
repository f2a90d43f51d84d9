#!/usr/bin/env bash
# tilefit's quick start. On a fresh machine:
#   scripts/quickstart.sh example   install what is missing, build, run tilefit on the example
#   scripts/quickstart.sh test      install what is missing, build, run the whole test suite
set -euo pipefail
cd "$(dirname "$0")/.."

what=${1:-}
case "$what" in
  example|test) ;;
  *) echo "usage: $0 example|test" >&2; exit 2 ;;
esac

scripts/setup.sh
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "$jobs"

if [ "$what" = test ]; then
  exec ctest --test-dir build -j "$jobs" --output-on-failure
fi

# The example is a real CMake CUDA project: configuring it with nvcc writes its
# compile_commands.json, which tilefit reads like clang-tidy does.
nvcc=$(command -v nvcc || true)
[ -n "$nvcc" ] || [ ! -x /usr/local/cuda/bin/nvcc ] || nvcc=/usr/local/cuda/bin/nvcc
if [ -z "$nvcc" ]; then
  echo "quickstart: nvcc not found; CMake needs it to configure compile_commands_example/" >&2
  exit 1
fi
cmake -S compile_commands_example -B compile_commands_example/build \
  -DCMAKE_CUDA_COMPILER="$nvcc" > /dev/null
exec build/bin/tilefit -p compile_commands_example/build
