#!/usr/bin/env bash
# Predicted against measured busbw over size for each published nccl-tests table of tests/data/nccl:
# runs `ppsim nccl-tests --compare --json` on each (its preset, and NCCL's own choice where the
# table measured it and it predicts better) and draws the four panels with gnuplot.
#
# usage: bench/nccl_tables_plot.sh [BUILD] [OUT.svg]   (default: build, docs/nccl-tables.svg)
set -eu
BUILD=${1:-build}
OUT=${2:-docs/nccl-tables.svg}
PPSIM=$BUILD/ppsim
DATA=tests/data/nccl
[ -x "$PPSIM" ] || { echo "nccl_tables_plot.sh: $PPSIM is not built" >&2; exit 2; }
command -v gnuplot >/dev/null || { echo "nccl_tables_plot.sh: needs gnuplot (scripts/setup.sh installs it)" >&2; exit 2; }
WORK=$(mktemp -d /tmp/nccl_plot.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

# name | table | ppsim options | title
TABLES=(
  "ring|nccl-tests-309-h100-2node-ib400-allreduce-ring.txt|--preset hgx-h100 --nodes 2 --channels 24|2 x HGX H100, ring forced (24 channels)"
  "h100x8|nccl-tests-309-h100-8node-ib400-allreduce-default.txt|--preset hgx-h100 --nodes 8 --algo nccl|8 x HGX H100, NCCL's choice (--algo nccl)"
  "a100|oci-bm-gpu4.8-1node-a100-allreduce-default.txt|--preset oci-bm-gpu4.8|1 x OCI BM.GPU4.8 (8 A100), NCCL's choice; ppsim's ring"
  "p4d|aws-p4d-2node-a100-efa-allreduce-default.txt|--preset aws-p4d --nodes 2|2 x AWS p4d (EFA), NCCL 2.8.3's choice; ppsim's ring"
)
PLOTS=""
for spec in "${TABLES[@]}"; do
  IFS='|' read -r name table options title <<<"$spec"
  # shellcheck disable=SC2086
  "$PPSIM" nccl-tests all_reduce $options --compare "$DATA/$table" --json "$WORK/$name.json" >/dev/null
  python3 - "$WORK/$name.json" "$WORK/$name.dat" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
with open(sys.argv[2], "w") as out:
    for r in doc["compare"]["rows"]:
        out.write(f'{r["bytes"]} {r["predicted_busbw_GBps"]} {r["measured_busbw_GBps"]}\n')
    out.write(f'# error {doc["compare"]["error_all"] * 100:.1f} {(doc["compare"]["error_64MiB"] or 0) * 100:.1f}\n')
PY
  error=$(sed -n 's/^# error //p' "$WORK/$name.dat")
  set -- $error
  PLOTS+="set title \"$title: error $1 % (all rows), $2 % (64 MiB and more)\"
plot '$WORK/$name.dat' using 1:3 with linespoints pt 7 ps 0.5 title 'measured', '' using 1:2 with linespoints pt 6 ps 0.5 title 'ppsim'
"
done
tmp="$OUT.tmp"
gnuplot <<EOF
set terminal svg size 1200,860 font 'sans,11'
set output '$tmp'
set multiplot layout 2,2
set logscale x 2
set format x '%.0b%B'
set xlabel 'size (bytes)'
set ylabel 'busbw (GB/s)'
set key left top
set grid
$PLOTS
unset multiplot
EOF
mv "$tmp" "$OUT"
echo "wrote $OUT"
