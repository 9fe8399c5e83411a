#!/usr/bin/env bash
# The cost of failures (--fail): recursive-doubling all-reduce (allreduce_hypercube on the
# hypercube) at p = 2^FROM .. 2^TO, without failures against four failure sets:
#   late proc   processor 1 down from the last step (every check made, little dropped);
#   proc        processor 1 down from step 1;
#   link        the link 0-1 down from step 1 (every message's route is checked);
#   reroute     the same with --reroute (the messages 0 <-> 1 take a detour).
# Each cell is the best of REPS runs' simulation seconds (the report's wall_seconds: the run and
# its verification, not the process start or the report), and its ratio to the run without
# failures. BACKEND cpu runs on one thread; cuda runs on the device (scripts/gpu_check.sh run).
#
#   bash bench/fail_bench.sh [PPSIM] [FROM] [TO] [M] [BACKEND] [REPS]
#   (defaults: build/ppsim 16 20 1 cpu 5)
set -euo pipefail
ppsim=${1:-build/ppsim}
from=${2:-16}
to=${3:-20}
m=${4:-1}
backend=${5:-cpu}
reps=${6:-5}
case "$backend" in cpu | cuda) ;; *) echo "fail_bench: backend $backend is not cpu or cuda" >&2; exit 2 ;; esac
[ -x "$ppsim" ] || { echo "fail_bench: $ppsim is not an executable (build first)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The best wall_seconds of $reps runs (exits when a run fails or ran on another backend).
best() {
  local b="" w
  for _ in $(seq "$reps"); do
    "$ppsim" run --topology hypercube --op allreduce --algo allreduce_hypercube --backend "$backend" --threads 1 --m "$m" "$@" --json "$tmp/r.json" >/dev/null ||
      { echo "fail_bench: the run $* failed" >&2; exit 1; }
    w=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["wall_seconds"] if d["backend_used"] == sys.argv[2] else "elsewhere")' "$tmp/r.json" "$backend")
    [ "$w" != elsewhere ] || { echo "fail_bench: the run $* did not run on $backend" >&2; exit 1; }
    b=$(python3 -c 'import sys; a,b=sys.argv[1],sys.argv[2]; print(b if a=="" else min(float(a),float(b)))' "$b" "$w")
  done
  printf "%.4f" "$b"
}
ratio() { python3 -c 'import sys; print("%.2f" % (float(sys.argv[1]) / float(sys.argv[2])))' "$1" "$2"; }

echo "failures: allreduce_hypercube on the hypercube, m = $m, backend $backend (host: one thread), best of $reps; commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown); $(nproc) cores"
echo
echo "| p | none s | late proc s | ratio | proc s | ratio | link s | ratio | reroute s | ratio |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for k in $(seq "$from" "$to"); do
  p=$((1 << k))
  w0=$(best --p "$p")
  wl=$(best --p "$p" --fail "proc:1@$k")
  wp=$(best --p "$p" --fail "proc:1@1")
  wk=$(best --p "$p" --fail "link:0-1@1")
  wr=$(best --p "$p" --fail "link:0-1@1" --reroute)
  echo "| 2^$k | $w0 | $wl | $(ratio "$wl" "$w0") | $wp | $(ratio "$wp" "$w0") | $wk | $(ratio "$wk" "$w0") | $wr | $(ratio "$wr" "$w0") |"
done
