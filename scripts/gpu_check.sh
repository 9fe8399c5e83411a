#!/usr/bin/env bash
# The GPU checks of the CUDA backend, for a machine with a GPU that cannot build the project itself (no
# GoogleTest, CLI11 or nlohmann-json there). Two halves:
#
#   here (the build machine):  bash scripts/gpu_check.sh pack
#       builds the CUDA test suites, the CLI and the benchmark for sm_90 (H100/H200) into
#       build-gpu/ (ignored by git), with the shared libraries they need besides libc/libstdc++
#       (libgomp, pugixml, Open MPI's) in build-gpu/lib, and the same, stripped, in
#       build-gpu/carry.tgz (about 22 MB, where build-gpu/ is some 240 MB): what to send to a GPU
#       machine that takes a limited upload;
#   there (the GPU machine):   bash scripts/gpu_check.sh run [OUTDIR]
#       (unpacks build-gpu/carry.tgz first where the binaries are not there)
#       runs test_cuda, the CUDA instantiation of the algorithm suite, a CUDA sweep and the
#       benchmark (allreduce and broadcast, m = 1 and 256: p = 2^10..2^20 with the CPU backend on
#       the same points (one thread, as in bench/RESULTS.md), then p = 2^21..2^24 on the GPU alone),
#       then every row of the device rounds' target table, printed at the end as a Markdown table beside
#       its targets (also in OUTDIR/targets.md), and the cost of --fail on the card
#       (fail_cuda.log); each log goes to OUTDIR (default: $OUT, else build-gpu/logs).
#   anywhere with a build:     bash scripts/gpu_check.sh targets [OUTDIR] [BUILDDIR]
#       the target table alone.
set -uo pipefail
dir="build-gpu"

# Wall seconds of a whole command (its output kept in a log); "failed" when it does not exit 0 or
# runs past GPU_CHECK_POINT_S seconds (default 120).
wall() {
  local log=$1; shift
  local t0 t1
  t0=$(date +%s.%N)
  if timeout "${GPU_CHECK_POINT_S:-120}" "$@" >"$log" 2>&1; then t1=$(date +%s.%N); awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }'; else echo failed; fi
}

# A column of ppsim_bench's Markdown row for p = 2^k (columns: | op | algorithm | p | m | steps |
# wall s | s/step | msgs/s | words/s | peak MiB | verified | copy bw GB/s | bytes/s ÷ copy bw | ...);
# "failed" when the point has no row (refused, child failed) and "unverified" when it did not verify,
# so a fast wrong run never meets a target.
bench_column() {
  awk -F'|' -v p="2^$2" -v col="$3" '
    { gsub(/ /, "", $4) }
    $4 == p { v = $12; gsub(/ /, "", v); if (v != "yes") { print "unverified"; found = 1; exit }
              gsub(/ /, "", $(col + 1)); print $(col + 1); found = 1; exit }
    END { if (!found) print "failed" }' "$1"
}

# A whole CLI run (`ppsim run ... --backend B --json -`, its JSON report in the log): its wall
# seconds around the whole process, then in brackets the run's own wall (without process start and
# CUDA context creation, which the whole-process figure includes); "failed" unless it exited 0,
# verified and ran on the backend its command line names.
cli_wall() {
  local log=$1; shift
  local t backend=cuda
  case " $* " in *" --backend cpu "*) backend=cpu ;; esac
  t=$(wall "$log" "$@")
  [ "$t" = failed ] && { echo failed; return; }
  python3 - "$log" "$t" "$backend" <<'PY' || echo failed
import json, re, sys
text = open(sys.argv[1]).read()
start = re.search(r"^\{", text, re.M)  # the report, after any note on stderr
d = json.JSONDecoder().raw_decode(text, start.start())[0] if start else {}
if d.get("verified") is not True or d.get("backend_used") != sys.argv[3]:
    sys.exit(1)
print("%s (run %.4f)" % (sys.argv[2], d["wall_seconds"]))
PY
}

# A sweep's CSV in two numbers: its rows that ran ("ok"; points an algorithm refuses, such as
# allreduce_rs_ag with m < p, are refused on both backends alike) and, of those, the rows that did
# not verify or ran on another backend than the one named.
sweep_rows() {
  awk -F, -v backend="$2" '
    NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
    $col["status"] == "ok" { ++ok; if ($col["verified"] != "true" || $col["backend"] != backend) ++bad }
    END { print ok + 0, bad + 0 }' "$1"
}

# The sweep row: CPU (16 jobs) seconds ÷ GPU seconds, both around the whole process; "failed"
# when either sweep failed, when a point did not verify or ran elsewhere, or when the GPU ran fewer
# points (refused for device memory): the two sweeps would not have done the same work.
sweep_ratio() {
  local gpu=$1 cpu=$2 out=$3
  case "$gpu$cpu" in *failed*) echo failed; return ;; esac
  local rows_gpu rows_cpu
  rows_gpu=$(sweep_rows "$out/t_sweep_cuda.csv" cuda)
  rows_cpu=$(sweep_rows "$out/t_sweep_cpu.csv" cpu)
  if [ "${rows_gpu#* }${rows_cpu#* }" != 00 ] || [ "${rows_gpu% *}" != "${rows_cpu% *}" ]; then echo failed; return; fi
  awk -v g="$gpu" -v c="$cpu" 'BEGIN { printf "%.1f", c / g }'
}

# One row: point, target, measured, met? (the comparison in awk on the measured figure's first
# number: le = at most, ge = at least; anything not a number is a failed run).
row() {
  local met="no" x=${3%% *}
  case "$x" in
    ''|*[!0-9.]*) met="no (run failed or did not verify; see the logs)" ;;
    *) awk -v x="$x" -v t="$5" -v op="$4" 'BEGIN { exit !((op == "le") ? x <= t : x >= t) }' && met="yes" ;;
  esac
  echo "| $1 | $2 | ${3:-—} | $met |"
}

# The device targets on this machine's GPU (ppsim_bench and CLI wall, verification included).
targets() {
  local out=$1 bench="$2/bench/ppsim_bench" cli="$2/ppsim"
  local sweep_args=(sweep --op allreduce --algo all --topology hypercube --p 2^4..2^14 --m "1,64" --quiet)
  timeout "${GPU_CHECK_POINT_S:-120}" "$bench" --backend cuda --ops allreduce --m 1 --p-from 20 --p-to 20 --markdown >"$out/t_allreduce_20_m1.md" 2>&1
  timeout "${GPU_CHECK_POINT_S:-120}" "$bench" --backend cuda --ops allreduce --m 1 --p-from 26 --p-to 26 --markdown >"$out/t_allreduce_26_m1.md" 2>&1
  timeout "${GPU_CHECK_POINT_S:-120}" "$bench" --backend cuda --ops allreduce --m 256 --p-from 20 --p-to 20 --markdown >"$out/t_allreduce_20_m256.md" 2>&1
  timeout "${GPU_CHECK_POINT_S:-120}" "$bench" --backend cuda --ops allreduce --m 1 --p-from 27 --p-to 27 --markdown >"$out/t_allreduce_27_m1.md" 2>&1
  local a20 a26 a27 a256 bw ring ecube gpu cpu ratio big_gpu big_cpu big_ratio
  a20=$(bench_column "$out/t_allreduce_20_m1.md" 20 6)
  a26=$(bench_column "$out/t_allreduce_26_m1.md" 26 6)
  a27=$(bench_column "$out/t_allreduce_27_m1.md" 27 6)
  a256=$(bench_column "$out/t_allreduce_20_m256.md" 20 6)
  bw=$(bench_column "$out/t_allreduce_20_m256.md" 20 13)
  # a run at 2^24, whole processes: the card against the CPU backend on 16 threads
  big_gpu=$(cli_wall "$out/t_allreduce_24_cuda.json" "$cli" run --topology full --op allreduce --p 2^24 --backend cuda --json -)
  big_cpu=$(cli_wall "$out/t_allreduce_24_cpu.json" "$cli" run --topology full --op allreduce --p 2^24 --backend cpu --threads 16 --json -)
  big_ratio=$(awk -v g="${big_gpu%% *}" -v c="${big_cpu%% *}" 'BEGIN { if (g + 0 > 0 && c + 0 > 0) printf "%.1f", c / g; else print "failed" }')
  # (the many-step targets are the run's own wall: "RUN (whole process PROCESS)", the run first)
  ring=$(cli_wall "$out/t_ring_allgather.json" "$cli" run --topology ring --op allgather --p 2^12 --backend cuda --json - | sed -E 's/^([0-9.]+) \(run ([0-9.]+)\)$/\2 (whole process \1)/')
  ecube=$(cli_wall "$out/t_ecube_alltoall.json" "$cli" run --topology hypercube --op alltoall --algo alltoall_xor_ecube --p 2^12 --backend cuda --json - | sed -E 's/^([0-9.]+) \(run ([0-9.]+)\)$/\2 (whole process \1)/')
  # (the sweeps get GPU_CHECK_SWEEP_S seconds each, default 300: on an H200 the CUDA sweep of
  # 2^4..2^10 took 4.6 s and that of 2^11..2^14 more than 80 s)
  gpu=$(GPU_CHECK_POINT_S=${GPU_CHECK_SWEEP_S:-300} wall "$out/t_sweep_cuda.log" "$cli" "${sweep_args[@]}" --backend cuda --csv "$out/t_sweep_cuda.csv")
  cpu=$(GPU_CHECK_POINT_S=${GPU_CHECK_SWEEP_S:-300} wall "$out/t_sweep_cpu.log" "$cli" "${sweep_args[@]}" --backend cpu --jobs 16 --csv "$out/t_sweep_cpu.csv")
  ratio=$(sweep_ratio "$gpu" "$cpu" "$out")
  # LogGP timing: the clocks of allreduce at p = 2^20 beside the data moved on the GPU, and on
  # the CPU backend (the clocks and the data sharing the cores).
  local lin lgp lratio clin clgp cratio
  lin=$(cli_wall "$out/t_allreduce_linear.json" "$cli" run --topology full --op allreduce --algo allreduce_hypercube --p 2^20 --backend cuda --json -)
  lgp=$(cli_wall "$out/t_allreduce_loggp.json" "$cli" run --topology full --op allreduce --algo allreduce_hypercube --p 2^20 --backend cuda --model loggp --json -)
  lratio=$(awk -v a="$lgp" -v b="$lin" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.2f", a / b; else print "failed" }')
  clin=$(cli_wall "$out/t_allreduce_linear_cpu.json" "$cli" run --topology full --op allreduce --algo allreduce_hypercube --p 2^20 --backend cpu --json -)
  clgp=$(cli_wall "$out/t_allreduce_loggp_cpu.json" "$cli" run --topology full --op allreduce --algo allreduce_hypercube --p 2^20 --backend cpu --model loggp --json -)
  cratio=$(awk -v a="$clgp" -v b="$clin" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.2f", a / b; else print "failed" }')
  {
    echo "| point (targets of the one-pass step, H100 or H200) | target | measured | met? |"
    echo "|---|---:|---:|---|"
    row "allreduce 2^20, m = 1 (ppsim_bench wall s)" "≤ 0.001" "$a20" le 0.001
    row "allreduce 2^26, m = 1 (ppsim_bench wall s)" "≤ 0.06" "$a26" le 0.06
    row "allreduce 2^27, m = 1, every word verified (ppsim_bench wall s; H200)" "runs" "$a27" ge 0
    row "allreduce 2^20, m = 256 (ppsim_bench wall s)" "≤ 0.062" "$a256" le 0.062
    row "allreduce 2^20, m = 256 (bytes/s ÷ copy bw, 24 B a word)" "≥ 0.5" "$bw" ge 0.5
    row "ring all-gather p = 2^12 (the run's wall s)" "≤ 0.02" "$ring" le 0.02
    row "E-cube all-to-all p = 2^12 (the run's wall s)" "≤ 0.05" "$ecube" le 0.05
    row "sweep allreduce × hypercube 2^4..2^14 × m = 1, 64 (CPU 16 jobs s ÷ GPU s; $cpu s / $gpu s)" "≥ 20" "$ratio" ge 20
    row "run allreduce p = 2^24, whole process (cpu 16 threads s ÷ cuda s; $big_cpu / $big_gpu)" "≥ 10" "$big_ratio" ge 10
    row "allreduce 2^20 --model loggp ÷ linear, cuda (CLI wall; $lgp s / $lin s)" "≤ 2" "$lratio" le 2
    row "allreduce 2^20 --model loggp ÷ linear, cpu (CLI wall; $clgp s / $clin s)" "≤ 2" "$cratio" le 2
  } | tee "$out/targets.md"
}

case "${1:-}" in
  pack)
    set -e
    cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null
    cmake --build "$dir" -j "$(nproc)" --target test_cuda test_algorithms ppsim ppsim_bench ppsim_bench_loggp
    # The shared libraries they need besides the C and C++ runtimes (libgomp; the CLI's pugixml and
    # Open MPI, which it loads but starts only under mpirun), which the GPU machine lacks.
    mkdir -p "$dir/lib"
    for bin in "$dir/tests/test_cuda" "$dir/tests/test_algorithms" "$dir/ppsim" "$dir/bench/ppsim_bench" "$dir/bench/ppsim_bench_loggp"; do
      ldd "$bin" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }'
    done | sort -u | grep -v -E '/(libc|libm|libstdc\+\+|libgcc_s|libpthread|libdl|librt|ld-linux[^/]*)\.so' |
      while read -r lib; do cp -L "$lib" "$dir/lib/"; done
    du -sh "$dir/tests/test_cuda" "$dir/tests/test_algorithms" "$dir/ppsim" "$dir/bench/ppsim_bench" "$dir/lib"
    # The same binaries stripped, with the libraries, in one archive of build-gpu/ paths.
    stage=$(mktemp -d)
    trap 'rm -rf "$stage"' EXIT
    mkdir -p "$stage/$dir/tests" "$stage/$dir/bench" "$stage/$dir/lib"
    for bin in tests/test_cuda tests/test_algorithms ppsim bench/ppsim_bench bench/ppsim_bench_loggp; do
      strip -o "$stage/$dir/$bin" "$dir/$bin"
    done
    cp -L "$dir"/lib/* "$stage/$dir/lib/"
    tar -czf "$dir/carry.tgz" -C "$stage" "$dir"
    du -sh "$dir/carry.tgz"
    ;;
  run)
    out=${2:-${OUT:-$dir/logs}}
    mkdir -p "$out"
    if [ ! -x "$dir/tests/test_cuda" ] && [ -f "$dir/carry.tgz" ]; then tar -xzf "$dir/carry.tgz" || exit 1; fi
    export LD_LIBRARY_PATH="$PWD/$dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    # Each step is cut off after GPU_CHECK_STEP_S seconds (default 240), so that one hung or slow
    # step leaves the lease to the others; the target table comes right after the device's own
    # suite, since it is what the run is for.
    step() {
      local name=$1; shift; echo "== $name: $*"
      timeout "${GPU_CHECK_STEP_S:-240}" "$@" >"$out/$name.log" 2>&1; local rc=$?
      tail -n 4 "$out/$name.log"; echo "rc=$rc$( [ $rc = 124 ] && echo ' (cut off)')"
    }
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out/device.txt"
    git rev-parse --short HEAD 2>/dev/null | tee -a "$out/device.txt"
    date -u | tee -a "$out/device.txt"
    step test_cuda "$dir/tests/test_cuda"
    targets "$out" "$dir"
    step test_algorithms_cuda "$dir/tests/test_algorithms" --gtest_brief=1 --gtest_filter='Cuda/*'
    # Failures: a run with --fail against one without on the card (target <= 1.1x), the table in
    # the log.
    step fail_cuda bash bench/fail_bench.sh "$dir/ppsim" 20 21 1 cuda 3
    step sweep_cuda "$dir/ppsim" sweep --backend cuda --op allreduce --algo allreduce_hypercube --topology hypercube --p 2^10..2^20 --m 1,256 --jsonl "$out/sweep.jsonl"
    step bench_cuda "$dir/bench/ppsim_bench" --backend cuda --p-from 10 --p-to 20 --compare-cpu --markdown
    step bench_cuda_large "$dir/bench/ppsim_bench" --backend cuda --p-from 21 --p-to 24 --markdown
    step bench_loggp "$dir/bench/ppsim_bench_loggp" --p-from 16 --p-to 22 --markdown
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
