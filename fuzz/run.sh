#!/usr/bin/env bash
# Runs one fuzz target of the libFuzzer build (fuzz/README.md) for a while:
#   fuzz/run.sh <target> [seconds] [build-folder]        e.g. fuzz/run.sh fuzz_config 300
# The growing corpus and any crash, leak or timeout input go to <build-folder>/runs/<target>/;
# the seed corpus and the regressions are read, never written. The last line of log.txt holds
# libFuzzer's figures (executions, cov:, ft:).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
target=${1:?usage: fuzz/run.sh <target> [seconds] [build-folder]}
seconds=${2:-300}
build=$(cd "${3:-$root/build-fuzz/obj}" && pwd)
out=$(dirname "$build")/runs/$target
mkdir -p "$out/corpus" "$out/artifacts"
cd "$out" # -jobs writes fuzz-0.log into the current folder.
# One process (the machine is shared); inputs up to 64 KiB; a run over 10 s, or over 2 GiB, is
# a finding.
"$build/bin/$target" -jobs=1 -workers=1 -max_total_time="$seconds" -timeout=10 \
  -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
  -artifact_prefix="$out/artifacts/" "$out/corpus" "$root/fuzz/corpus/$target" \
  "$root/fuzz/regressions/$target" > "$out/log.txt" 2>&1 || true
last=$(grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE)' "$out/log.txt" | tail -1 || true)
echo "$last"
# Every run, for the record in fuzz/README.md.
echo "$(date -u +%FT%TZ) $target ${seconds}s $last" >> "$(dirname "$out")/ledger.txt"
ls "$out/artifacts"
