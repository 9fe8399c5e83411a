#!/usr/bin/env bash
# Where the device rounds' time goes, on a machine with a GPU (after scripts/gpu_check.sh pack, and a
# second build with -DPPSIM_CUDA_RELOCATABLE=OFF in build-gpu-norel for the first part):
#
#   bash bench/device_profile.sh [OUTDIR]
#
# 1. The relocatable build (the default) against the whole-program build, side by side on the same
#    card: ppsim_bench's wall on allreduce 2^20 at m = 1 and m = 256, and the CLI's ring all-gather
#    2^12 (the one-block path), each twice.
# 2. Nsight Compute on the one-block kernel (step_whole_run, ring all-gather 2^10): warp stalls,
#    local-memory sectors and instructions executed.
# 3. Nsight Compute on every kernel of allreduce 2^20 at m = 1 and m = 256: DRAM and L2 bytes,
#    instructions and time, one CSV row per kernel launch.
# Each part is cut off after DEVICE_PROFILE_S seconds (default 90); logs and CSVs go to OUTDIR
# (default: $OUT, else build-gpu/profile).
set -uo pipefail
out=${1:-${OUT:-build-gpu/profile}}
mkdir -p "$out"
limit=${DEVICE_PROFILE_S:-90}
export LD_LIBRARY_PATH="$PWD/build-gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -n 1)

echo "== 1. relocatable (build-gpu) against whole-program (build-gpu-norel)"
for build in build-gpu build-gpu-norel; do
  [ -x "$build/bench/ppsim_bench" ] || { echo "$build: no ppsim_bench"; continue; }
  for m in 1 256; do
    for rep in 1 2; do
      timeout "$limit" "$build/bench/ppsim_bench" --backend cuda --ops allreduce --m "$m" --p-from 20 --p-to 20 --markdown 2>&1 |
        awk -v b="$build" -v m="$m" -F'|' '$4 ~ /2\^20/ { printf "%s allreduce 2^20 m=%s wall %s s, verified %s\n", b, m, $7, $12 }'
    done
  done
  for rep in 1 2; do
    t0=$(date +%s.%N)
    timeout "$limit" "$build/ppsim" run --topology ring --op allgather --p 2^12 --backend cuda --json - >"$out/ring_$build.json" 2>&1
    rc=$?; t1=$(date +%s.%N)
    python3 - "$out/ring_$build.json" "$build" "$rc" "$t0" "$t1" <<'PY'
import json, re, sys
text = open(sys.argv[1]).read(); m = re.search(r"^\{", text, re.M)
d = json.JSONDecoder().raw_decode(text, m.start())[0] if m else {}
print("%s ring all-gather 2^12: process %.3f s, run %s s, verified %s, rc %s" % (sys.argv[2], float(sys.argv[5]) - float(sys.argv[4]), d.get("wall_seconds"), d.get("verified"), sys.argv[3]))
PY
  done
done

[ -n "$ncu" ] || { echo "no ncu on this machine"; exit 0; }
echo "== 2. $ncu on step_whole_run (ring all-gather 2^10)"
timeout "$limit" "$ncu" --clock-control none --kernel-name regex:step_whole_run --launch-count 1 \
  --section WarpStateStats \
  --metrics l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum,smsp__inst_executed.sum,gpu__time_duration.sum \
  build-gpu/ppsim run --topology ring --op allgather --p 2^10 --backend cuda >"$out/ncu_whole_run.txt" 2>&1
echo "rc=$?"; grep -E "Stall|stall|local_op|inst_executed|time_duration|Warp Cycles" "$out/ncu_whole_run.txt" | head -n 40

echo "== 3. $ncu on every kernel of allreduce 2^20"
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
def num(r, n):
    try: return float(r[col[n]].replace(",", ""))
    except (KeyError, ValueError, IndexError): return 0.0
agg = collections.OrderedDict()
for r in rows[head + 2:]:
    if len(r) < len(names): continue
    k = r[col["Kernel Name"]][:60]
    a = agg.setdefault(k, [0, 0.0, 0.0, 0.0, 0.0, 0.0])
    a[0] += 1
    for j, n in enumerate(["dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_bytes.sum", "smsp__inst_executed.sum", "gpu__time_duration.sum"]):
        a[j + 1] += num(r, n)
print("%-60s %5s %10s %10s %10s %12s %10s" % ("kernel", "n", "dram rd", "dram wr", "L2 bytes", "inst", "time"))
for k, a in agg.items():
    print("%-60s %5d %10.3g %10.3g %10.3g %12.4g %10.4g" % (k, a[0], a[1], a[2], a[3], a[4], a[5]))
PY
done
