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
#       writing each log to OUTDIR (default: $OUT, else build-gpu/logs).
set -uo pipefail
dir=build-gpu
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
    ;;
  *)
    echo "usage: bash scripts/gpu_check.sh pack | run [OUTDIR]" >&2
    exit 2
    ;;
esac
