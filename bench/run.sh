#!/usr/bin/env bash
# tilefit's benchmarks in one command (see bench/README.md):
#
#   bench/run.sh [--quick] [--tilefit PATH] [--out DIR] [--clang clang++-19] [--nvcc PATH]
#
# Builds tilefit first when there is no build/bin/tilefit (scripts/setup.sh, then CMake), installs
# hyperfine and GNU time with apt-get when they are missing, then runs bench/bench.py,
# which times tilefit, Clang's own parse and nvcc on the same inputs and prints a summary
# (also written to OUT/summary.md, with every figure in OUT/results.json; OUT defaults to
# ${TMPDIR:-/tmp}/tilefit-bench). --quick is a smoke run of the whole harness (about 2 minutes);
# the full run takes about 20 minutes on a 2-core machine.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here/.."

need=()
command -v hyperfine >/dev/null 2>&1 || need+=(hyperfine)
[ -x /usr/bin/time ] || need+=(time)
if [ ${#need[@]} -gt 0 ]; then
  echo "bench/run.sh: installing ${need[*]} with apt-get" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq || true
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y "${need[@]}"
fi

# From a fresh clone: the project's own set-up and build when no tilefit is given or built.
if [[ " $* " != *" --tilefit "* && " $* " != *" --render "* && ! -x build/bin/tilefit ]]; then
  echo "bench/run.sh: no build/bin/tilefit; installing what is missing and building it" >&2
  scripts/setup.sh
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
  cmake --build build -j "$(nproc 2>/dev/null || echo 2)" --target tilefit tilefit-share
fi

# nvcc where CMake and the harness look for it.
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi

exec python3 "$here/bench.py" "$@"
