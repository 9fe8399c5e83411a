#!/usr/bin/env bash
# Where the device rounds' time goes, on a machine with a GPU (after scripts/gpu_check.sh pack):
#
#   bash bench/device_profile.sh [OUTDIR]
#
# 1. Before and after, where build-gpu-old holds the same pack of an earlier commit: ppsim_bench's
#    wall on allreduce 2^20 at m = 1 and m = 256, and the CLI's ring all-gather, E-cube
#    all-to-all and three ring all-reduces at 2^12, each build in turn, on the same card.
# 2. The relocatable build (the default; REL_BUILD, default build-gpu) against the whole-program
#    build, where build-gpu-norel holds a build with -DPPSIM_CUDA_RELOCATABLE=OFF: the same points.
# 3. The run in one cooperative launch against a launch a step: runs on the pull step whose rounds
#    move one lane a processor take one launch for all their steps (step_grid_run) up to
#    PPSIM_GRID_MAX_P processors; PPSIM_GRID_MAX_P=0 sends them through a launch a step instead.
#    Allreduce m = 1 over p = 2^10..2^20, the ring all-gather at 2^10..2^14 and the E-cube
#    all-to-all at 2^10 and 2^12, both ways.
# 4. Nsight Compute on the one-block kernel (step_whole_run, ring all-gather 2^10, with
#    PPSIM_ONE_BLOCK_MAX_P letting it run): warp stalls, local-memory sectors and instructions.
# 5. Nsight Compute on every kernel of allreduce 2^20 at m = 1 and m = 256: DRAM and L2 bytes,
#    instructions and time, summed by kernel.
# 6. A plain run's kernels (the default: rules::PlainUnit, no call and no frame) against the
#    listed units' other kernels (PPSIM_PLAIN=0): allreduce 2^20 and 2^26 at m = 1, 2^20 at
#    m = 256, the ring all-gather and the E-cube all-to-all at 2^12.
# Each command is cut off after DEVICE_PROFILE_S seconds (default 90); PARTS (default "1 2 3 4 5 6")
# picks the parts; logs and CSVs go to OUTDIR (default: $OUT, else build-gpu/profile).
set -uo pipefail
out=${1:-${OUT:-build-gpu/profile}}
mkdir -p "$out"
limit=${DEVICE_PROFILE_S:-90}
parts=" ${PARTS:-1 2 3 4 5 6} "
export LD_LIBRARY_PATH="$PWD/build-gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -n 1)

# ppsim_bench's wall seconds for one point: bench BUILD OP M LOG2P [ENV...]
bench() {
  local build=$1 op=$2 m=$3 k=$4; shift 4
  env "$@" timeout "$limit" "$build/bench/ppsim_bench" --backend cuda --ops "$op" --m "$m" --p-from "$k" --p-to "$k" --markdown 2>&1 |
    awk -F'|' -v p="2^$k" '{ q = $4; gsub(/ /, "", q) } q == p { w = $7; v = $12; gsub(/ /, "", w); gsub(/ /, "", v); print (v == "yes" ? w : "unverified"); found = 1 }
                           END { if (!found) print "failed" }'
}
# A whole CLI run: "process s (run s)", or failed unless it exited 0 and verified: cli BUILD ARGS... [-- ENV...]
cli() {
  local build=$1; shift
  local args=() envs=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do args+=("$1"); shift; done
  [ $# -gt 0 ] && { shift; envs=("$@"); }
  local t0 t1 rc
  t0=$(date +%s.%N)
  env "${envs[@]}" timeout "$limit" "$build/ppsim" run "${args[@]}" --backend cuda --json - >"$out/cli.json" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  python3 - "$out/cli.json" "$rc" "$t0" "$t1" <<'PY'
import json, re, sys
text = open(sys.argv[1]).read(); m = re.search(r"^\{", text, re.M)
d = json.JSONDecoder().raw_decode(text, m.start())[0] if m else {}
if sys.argv[2] != "0" or d.get("verified") is not True:
    print("failed"); sys.exit(0)
print("%.3f (run %.4f)" % (float(sys.argv[4]) - float(sys.argv[3]), d["wall_seconds"]))
PY
}
# The same points on two builds: compare NAME_A BUILD_A NAME_B BUILD_B
compare() {
  echo "| point | $1 | $3 |"
  echo "|---|---:|---:|"
  for m in 1 256; do
    echo "| allreduce 2^20, m = $m (ppsim_bench wall s) | $(bench "$2" allreduce $m 20) | $(bench "$4" allreduce $m 20) |"
  done
  echo "| allreduce 2^26, m = 1 (ppsim_bench wall s) | $(bench "$2" allreduce 1 26) | $(bench "$4" allreduce 1 26) |"
  for rep in 1 2; do
    echo "| ring all-gather 2^12 (CLI s) | $(cli "$2" --topology ring --op allgather --p 2^12) | $(cli "$4" --topology ring --op allgather --p 2^12) |"
  done
  echo "| E-cube all-to-all 2^12 (CLI s) | $(cli "$2" --topology hypercube --op alltoall --algo alltoall_xor_ecube --p 2^12) | $(cli "$4" --topology hypercube --op alltoall --algo alltoall_xor_ecube --p 2^12) |"
  # the ring all-reduces that took most of the card's sweep (bench/RESULTS.md)
  for a in "allreduce_ring_combining 64" "allreduce_ring 1" "allreduce_ring_allgather 64"; do
    set -- "$1" "$2" "$3" "$4" ${a}
    echo "| $5 2^12, m = $6, hypercube (CLI s) | $(cli "$2" --topology hypercube --op allreduce --algo "$5" --p 2^12 --m "$6") | $(cli "$4" --topology hypercube --op allreduce --algo "$5" --p 2^12 --m "$6") |"
  done
}

if [[ $parts == *" 1 "* ]] && [ -x build-gpu-old/bench/ppsim_bench ]; then
  echo "== 1. before (build-gpu-old) and after (build-gpu)"
  compare before build-gpu-old after build-gpu
fi
if [[ $parts == *" 2 "* ]] && [ -x build-gpu-norel/bench/ppsim_bench ]; then
  echo "== 2. relocatable (${REL_BUILD:-build-gpu}) against whole-program (build-gpu-norel)"
  compare relocatable "${REL_BUILD:-build-gpu}" whole-program build-gpu-norel
fi
if [[ $parts == *" 3 "* ]]; then
  all=PPSIM_GRID_MAX_P=1073741824 none=PPSIM_GRID_MAX_P=0
  echo "== 3. the run in one cooperative launch ($all) against a launch a step ($none)"
  echo "| point | one launch | a launch a step |"
  echo "|---|---:|---:|"
  for k in 10 12 14 16 18 20; do
    echo "| allreduce 2^$k, m = 1 (ppsim_bench wall s) | $(bench build-gpu allreduce 1 $k $all) | $(bench build-gpu allreduce 1 $k $none) |"
  done
  for k in 10 12 14; do
    echo "| ring all-gather 2^$k (CLI s) | $(cli build-gpu --topology ring --op allgather --p 2^$k -- $all) | $(cli build-gpu --topology ring --op allgather --p 2^$k -- $none) |"
  done
  for k in 10 12; do
    echo "| E-cube all-to-all 2^$k (CLI s) | $(cli build-gpu --topology hypercube --op alltoall --algo alltoall_xor_ecube --p 2^$k -- $all) | $(cli build-gpu --topology hypercube --op alltoall --algo alltoall_xor_ecube --p 2^$k -- $none) |"
  done
fi
if [[ $parts == *" 6 "* ]]; then
  one=PPSIM_PLAIN=0 two=PPSIM_PLAIN=1
  echo "== 6. a plain run on the units' other kernels ($one) against their plain kernels ($two)"
  echo "| point | other kernels | plain kernels |"
  echo "|---|---:|---:|"
  for k in 20 26; do
    echo "| allreduce 2^$k, m = 1 (ppsim_bench wall s) | $(bench build-gpu allreduce 1 $k $one) | $(bench build-gpu allreduce 1 $k $two) |"
  done
  echo "| allreduce 2^20, m = 256 (ppsim_bench wall s) | $(bench build-gpu allreduce 256 20 $one) | $(bench build-gpu allreduce 256 20 $two) |"
  echo "| ring all-gather 2^12 (CLI s) | $(cli build-gpu --topology ring --op allgather --p 2^12 -- $one) | $(cli build-gpu --topology ring --op allgather --p 2^12 -- $two) |"
  echo "| E-cube all-to-all 2^12 (CLI s) | $(cli build-gpu --topology hypercube --op alltoall --algo alltoall_xor_ecube --p 2^12 -- $one) | $(cli build-gpu --topology hypercube --op alltoall --algo alltoall_xor_ecube --p 2^12 -- $two) |"
fi

[ -n "$ncu" ] || { echo "no ncu on this machine"; exit 0; }
if [[ $parts == *" 4 "* ]]; then
  echo "== 4. $ncu on step_whole_run (ring all-gather 2^10)"
  PPSIM_ONE_BLOCK_MAX_P=16384 timeout "$limit" "$ncu" --clock-control none --kernel-name regex:step_whole_run --launch-count 1 \
    --section WarpStateStats \
    --metrics l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum,smsp__inst_executed.sum,gpu__time_duration.sum \
    build-gpu/ppsim run --topology ring --op allgather --p 2^10 --backend cuda >"$out/ncu_whole_run.txt" 2>&1
  echo "rc=$?"
  grep -E "local_op|inst_executed|time_duration|Warp Cycles|stalled" "$out/ncu_whole_run.txt" | head -n 20
fi
if [[ $parts == *" 5 "* ]]; then
  echo "== 5. $ncu on every kernel of allreduce 2^20"
  for m in 1 256; do
    timeout "$limit" "$ncu" --clock-control none --csv --page raw --print-units base \
      --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,smsp__inst_executed.sum,gpu__time_duration.sum \
      build-gpu/ppsim run --topology hypercube --op allreduce --p 2^20 --m "$m" --backend cuda >"$out/ncu_allreduce_m$m.csv" 2>"$out/ncu_allreduce_m$m.err"
    echo "m=$m rc=$?"
    python3 - "$out/ncu_allreduce_m$m.csv" <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if r]
head = next((i for i, r in enumerate(rows) if "Kernel Name" in r), None)
if head is None:
    print("no kernel rows"); sys.exit(0)
names = rows[head]; col = {n: i for i, n in enumerate(names)}
metrics = ["dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_bytes.sum", "smsp__inst_executed.sum", "gpu__time_duration.sum"]
def num(r, n):
    try: return float(r[col[n]].replace(",", ""))
    except (KeyError, ValueError, IndexError): return 0.0
agg = collections.OrderedDict()
for r in rows[head + 2:]:
    if len(r) < len(names): continue
    a = agg.setdefault(r[col["Kernel Name"]][:70], [0] + [0.0] * len(metrics))
    a[0] += 1
    for j, n in enumerate(metrics): a[j + 1] += num(r, n)
print("| kernel | launches | DRAM read B | DRAM written B | L2 B | instructions | time ns |")
print("|---|---:|---:|---:|---:|---:|---:|")
for k, a in agg.items():
    print("| `%s` | %d | %.3g | %.3g | %.3g | %.4g | %.4g |" % (k, a[0], a[1], a[2], a[3], a[4], a[5]))
PY
  done
fi
