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
  status=0
  ctest --test-dir build -j "$jobs" --output-on-failure || status=$?
  # The fast tiers again, built with AddressSanitizer and UndefinedBehaviorSanitizer (and
  # assertions, ours and those in LLVM's headers) in build-asan: the model, reporter, front-end
  # and language-server unit tests, the fixtures and the fuzz targets' replays (ctest labels
  # unit, lsp, fixture, fuzz-replay). The first report fails the test. -O0 builds in two thirds
  # of -O1's time, and the parses run in Debian's optimized Clang either way. The fixtures'
  # precompiled-header, preamble and body-slicing twins, the standard-library twin and the
  # fast-path crash test (a deliberate crash, contained by LLVM's crash recovery, which
  # AddressSanitizer's handlers would report) are left to the normal build (the preambles' and
  # the slicing's own unit tests run here, and every fixture's expectations are checked with
  # slicing on).
  cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG= \
    -DTILEFIT_SANITIZE=ON > /dev/null
  cmake --build build-asan -j "$jobs" --target tilefit tilefit-share tilefit_unit_tests \
    tilefit_frontend_tests tilefit_lsp_tests tilefit_fixture_tests tilefit-fuzzers
  ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:detect_leaks=1:strict_string_checks=1 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    ctest --test-dir build-asan -j "$jobs" --output-on-failure \
    -L '^(unit|lsp|fixture|fuzz-replay)$' -E 'PrecompiledHeadersChangeNoFact|PreamblesChangeNoFact|BodySlicingChangesNoFigure|StandardLibrary|FastPath' || status=$?
  exit "$status"
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
