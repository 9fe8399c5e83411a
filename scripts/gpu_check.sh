#!/usr/bin/env bash
# The GPU checks of issue 3, for a machine with a GPU that cannot build the project itself (no
# GoogleTest, CLI11 or nlohmann-json there). Two halves:
#
#   here (the build machine):  bash scripts/gpu_check.sh pack
#       builds the CUDA test suites, the CLI and the benchmark for sm_90 (H100/H200) into
#       build-gpu/ (ignored by git), with the one shared library they need besides libc/libstdc++
#       (libgomp) beside them;
#   there (the GPU machine):   bash scripts/gpu_check.sh run [OUTDIR]
#       runs test_cuda, the CUDA instantiation of the algorithm suite, a CUDA sweep and the
#       benchmark (allreduce and broadcast, m = 1 and 256: p = 2^10..2^20 with the CPU backend on
#       the same points (one thread, as in bench/RESULTS.md), then p = 2^21..2^24 on the GPU alone),
#       then every row of issue 11's target table, printed at the end as a Markdown table beside
#       its targets (also in OUTDIR/targets.md); each log goes to OUTDIR (default: $OUT, else
#       build-gpu/logs).
#   anywhere with a build:     bash scripts/gpu_check.sh targets [OUTDIR] [BUILDDIR]
#       the target table alone.
set -uo pipefail
dir=build-gpu

# Wall seconds of a whole command (its output kept in a log); "failed" when it does not exit 0.
wall() {
  local log=$1; shift
  local t0 t1
  t0=$(date +%s.%N)
  if "$@" >"$log" 2>&1; then t1=$(date +%s.%N); awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }'; else echo failed; fi
}

# A column of ppsim_bench's Markdown row for p = 2^k (columns: | op | algorithm | p | m | steps |
# wall s | s/step | msgs/s | words/s | peak MiB | verified | copy bw GB/s | bytes/s / copy bw | ...).
bench_column() {
  awk -F'|' -v p="2^$2" -v col="$3" '{ gsub(/ /, "", $4) } $4 == p { gsub(/ /, "", $(col + 1)); print $(col + 1); exit }' "$1"
}

# One row: point, target, measured, met? (the comparison in awk: le = at most, ge = at least).
row() {
  local met="no"
  case "$3" in failed|"") met="no (run failed)" ;; *) awk -v x="$3" -v t="$5" -v op="$4" 'BEGIN { exit !((op == "le") ? x <= t : x >= t) }' && met="yes" ;; esac
  echo "| $1 | $2 | ${3:-—} | $met |"
}

# Issue 11's targets on this machine's GPU (ppsim_bench and CLI wall, verification included).
targets() {
  local out=$1 build=$2 bench="$2/bench/ppsim_bench" cli="$2/ppsim"
  "$bench" --backend cuda --ops allreduce --m 1 --p-from 20 --p-to 20 --markdown >"$out/t_allreduce_20_m1.md" 2>&1
  "$bench" --backend cuda --ops allreduce --m 1 --p-from 26 --p-to 26 --markdown >"$out/t_allreduce_26_m1.md" 2>&1
  "$bench" --backend cuda --ops allreduce --m 256 --p-from 20 --p-to 20 --markdown >"$out/t_allreduce_20_m256.md" 2>&1
  local a20 a26 bw ring ecube gpu cpu ratio
  a20=$(bench_column "$out/t_allreduce_20_m1.md" 20 6)
  a26=$(bench_column "$out/t_allreduce_26_m1.md" 26 6)
  bw=$(bench_column "$out/t_allreduce_20_m256.md" 20 13)
  ring=$(wall "$out/t_ring_allgather.log" "$cli" run --topology ring --op allgather --p 2^12 --backend cuda)
  ecube=$(wall "$out/t_ecube_alltoall.log" "$cli" run --topology hypercube --op alltoall --algo alltoall_xor_ecube --p 2^12 --backend cuda)
  gpu=$(wall "$out/t_sweep_cuda.log" "$cli" sweep --backend cuda --op allreduce --topology hypercube --p 2^4..2^14 --m 1,64 --quiet --csv "$out/t_sweep_cuda.csv")
  cpu=$(wall "$out/t_sweep_cpu.log" "$cli" sweep --backend cpu --jobs 16 --op allreduce --topology hypercube --p 2^4..2^14 --m 1,64 --quiet --csv "$out/t_sweep_cpu.csv")
  ratio=failed
  case "$gpu$cpu" in *failed*) ;; *) ratio=$(awk -v g="$gpu" -v c="$cpu" 'BEGIN { printf "%.1f", c / g }') ;; esac
  {
    echo "| point (H100 targets of issue 11) | target | measured | met? |"
    echo "|---|---:|---:|---|"
    row "allreduce 2^20, m = 1 (ppsim_bench wall s)" "≤ 0.005" "$a20" le 0.005
    row "allreduce 2^26, m = 1 (ppsim_bench wall s)" "≤ 0.3" "$a26" le 0.3
    row "allreduce 2^20, m = 256 (bytes/s ÷ copy bw)" "≥ 0.75" "$bw" ge 0.75
    row "ring all-gather p = 2^12 (CLI wall s)" "≤ 0.05" "$ring" le 0.05
    row "E-cube all-to-all p = 2^12 (CLI wall s)" "≤ 0.05" "$ecube" le 0.05
    row "sweep allreduce × hypercube 2^4..2^14 × m = 1, 64 (CPU 16 jobs s ÷ GPU s; $cpu s / $gpu s)" "≥ 20" "$ratio" ge 20
  } | tee "$out/targets.md"
}

case "${1:-}" in
  pack)
    set -e
    cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null
    cmake --build "$dir" -j "$(nproc)" --target test_cuda test_algorithms ppsim ppsim_bench
    mkdir -p "$dir/lib"
    cp -L "$(g++ -print-file-name=libgomp.so.1)" "$dir/lib/"
    du -sh "$dir/tests/test_cuda" "$dir/tests/test_algorithms" "$dir/ppsim" "$dir/bench/ppsim_bench" "$dir/lib"
    ;;
  run)
    out=${2:-${OUT:-$dir/logs}}
    mkdir -p "$out"
    export LD_LIBRARY_PATH="$PWD/$dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    step() { local name=$1; shift; echo "== $name: $*"; "$@" >"$out/$name.log" 2>&1; local rc=$?; tail -n 4 "$out/$name.log"; echo "rc=$rc"; }
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out/device.txt"
    git rev-parse --short HEAD 2>/dev/null | tee -a "$out/device.txt"
    date -u | tee -a "$out/device.txt"
    step test_cuda "$dir/tests/test_cuda"
    step test_algorithms_cuda "$dir/tests/test_algorithms" --gtest_brief=1 --gtest_filter='Cuda/*'
    step sweep_cuda "$dir/ppsim" sweep --backend cuda --op allreduce --algo allreduce_hypercube --topology hypercube --p 2^10..2^20 --m 1,256 --jsonl "$out/sweep.jsonl"
    step bench_cuda "$dir/bench/ppsim_bench" --backend cuda --p-from 10 --p-to 20 --compare-cpu --markdown
    step bench_cuda_large "$dir/bench/ppsim_bench" --backend cuda --p-from 21 --p-to 24 --markdown
    targets "$out" "$dir"
    ;;
  targets)
    out=${2:-${OUT:-$dir/logs}}
    mkdir -p "$out"
    export LD_LIBRARY_PATH="$PWD/${3:-$dir}/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    targets "$out" "${3:-$dir}"
    ;;
  *)
    echo "usage: bash scripts/gpu_check.sh pack | run [OUTDIR] | targets [OUTDIR] [BUILDDIR]" >&2
    exit 2
    ;;
esac
