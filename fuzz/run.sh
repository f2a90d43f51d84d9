#!/usr/bin/env bash
# Runs one fuzz target of the libFuzzer build (fuzz/README.md) for a while:
#   fuzz/run.sh [--cpu] <target> [seconds] [build-folder]     e.g. fuzz/run.sh fuzz_config 300
# Without --cpu the run lasts <seconds> of wall time; with --cpu it lasts until the fuzzer has
# used <seconds> of CPU time (user + system), however busy the machine is, and is then
# interrupted (libFuzzer prints its final statistics on the interruption).
# The growing corpus and any crash, leak or timeout input go to <build-folder>/runs/<target>/;
# the seed corpus and the regressions are read, never written. log.txt holds libFuzzer's output
# (executions, cov:, ft:); the ledger beside the runs gets one line per run.
set -euo pipefail
cpu=false
if [[ ${1:-} == --cpu ]]; then cpu=true; shift; fi
root=$(cd "$(dirname "$0")/.." && pwd)
target=${1:?usage: fuzz/run.sh [--cpu] <target> [seconds] [build-folder]}
seconds=${2:-300}
build=$(cd "${3:-$root/build-fuzz/obj}" && pwd)
out=$(dirname "$build")/runs/$target
mkdir -p "$out/corpus" "$out/artifacts"
cd "$out"
wall=$seconds
# A CPU budget ends by interruption; the wall limit is only a backstop.
$cpu && wall=$((seconds * 10))
# One process (the machine is shared); inputs up to 64 KiB; a run over 10 s, or over 2 GiB, is
# a finding.
"$build/bin/$target" -max_total_time="$wall" -timeout=10 \
  -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
  -artifact_prefix="$out/artifacts/" "$out/corpus" "$root/fuzz/corpus/$target" \
  "$root/fuzz/regressions/$target" > "$out/log.txt" 2>&1 &
pid=$!
ticks=$(getconf CLK_TCK)
used=0
while kill -0 "$pid" 2> /dev/null; do
  sleep 5
  # Fields 14 and 15 of /proc/<pid>/stat: user and system time in clock ticks.
  if stat=$(cat "/proc/$pid/stat" 2> /dev/null); then
    read -r utime stime <<< "$(echo "${stat##*) }" | awk '{print $12, $13}')"
    used=$(((utime + stime) / ticks))
    if $cpu && ((used >= seconds)); then kill -INT "$pid" 2> /dev/null || true; fi
  fi
done
wait "$pid" || true
last=$(grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE)' "$out/log.txt" | tail -1 || true)
execs=$(grep -E '^stat::number_of_executed_units:' "$out/log.txt" | awk '{print $2}' || true)
echo "$last"
# Every run, for the record in fuzz/README.md.
mode=wall; $cpu && mode=cpu
echo "$(date -u +%FT%TZ) $target ${seconds}s-$mode cpu=${used}s execs=${execs:-?} $last" \
  >> "$(dirname "$out")/ledger.txt"
ls "$out/artifacts"
