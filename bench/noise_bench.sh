#!/usr/bin/env bash
# OS noise at scale: recursive-doubling all-reduce (allreduce_hypercube on the fully
# connected machine, LogGOPSim's default parameters) under a periodic detour, independent against
# co-scheduled, p = 2^FROM .. 2^TO. For each p: the noiseless time, the noisy time and slowdown of
# each, and the wall seconds of the noisy runs against the noiseless one (whole process; the
# noisy runs also time the run without noise, for the report's slowdown: --noise-slowdown).
#
#   bash bench/noise_bench.sh [PPSIM] [FROM] [TO] [HZ] [DETOUR_NS] [REPS]
#   (defaults: build/ppsim 10 16 1000 25000 1; with REPS > 1 each wall is the best of REPS runs)
set -euo pipefail
ppsim=${1:-build/ppsim}
from=${2:-10}
to=${3:-16}
hz=${4:-1000}
detour=${5:-25000}
reps=${6:-1}
[ -x "$ppsim" ] || { echo "noise_bench: $ppsim is not an executable (build first)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One run (the best of $reps): its JSON report in $tmp/$1.json, its whole-process wall seconds on stdout.
run() {
  local name=$1; shift
  local t0 t1 best=""
  for _ in $(seq "$reps"); do
    t0=$(date +%s.%N)
    "$ppsim" run --topology full --op allreduce --algo allreduce_hypercube --model loggp "$@" --json "$tmp/$name.json" >/dev/null
    t1=$(date +%s.%N)
    best=$(awk -v a="$t0" -v b="$t1" -v c="$best" 'BEGIN { w = b - a; if (c != "" && c + 0 < w) w = c; printf "%.3f", w }')
  done
  echo "$best"
}
field() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); v=d
for k in sys.argv[2].split("."): v=v[k]
print(v)' "$tmp/$1.json" "$2"; }

echo "noise: periodic ${hz} Hz x ${detour} ns; best of $reps; commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown); $(nproc) cores"
echo
echo "| p | noiseless ns | independent ns | slowdown | co-scheduled ns | slowdown | wall noiseless s | wall independent s (timing) | wall co-scheduled s (timing) | independent ÷ noiseless | co-scheduled ÷ noiseless |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for k in $(seq "$from" "$to"); do
  p=$((1 << k))
  w0=$(run quiet --p "$p")
  wi=$(run indep --p "$p" --noise "periodic:$hz:$detour" --noise-slowdown)
  wc=$(run cosched --p "$p" --noise "periodic:$hz:$detour" --noise-cosched --noise-slowdown)
  t0=$(field quiet time)
  ti=$(field indep time)
  tc=$(field cosched time)
  si=$(field indep loggp.noise.slowdown)
  sc=$(field cosched loggp.noise.slowdown)
  for run_name in indep cosched; do
    [ "$(field "$run_name" loggp.noise.noiseless_time)" = "$(printf '%.0f' "$t0")" ] ||
      { echo "noise_bench: the noiseless time of the $run_name run differs from the noiseless run's at p = 2^$k" >&2; exit 1; }
  done
  printf '| 2^%d | %.0f | %.0f | %.3f | %.0f | %.3f | %s | %s (%s) | %s (%s) | %.2f | %.2f |\n' "$k" "$t0" "$ti" "$si" "$tc" "$sc" "$w0" \
    "$wi" "$(field indep loggp.timing)" "$wc" "$(field cosched loggp.timing)" "$(awk -v a="$wi" -v b="$w0" 'BEGIN { print a / b }')" \
    "$(awk -v a="$wc" -v b="$w0" 'BEGIN { print a / b }')"
done
