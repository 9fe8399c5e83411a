#!/usr/bin/env bash
# LogGOPSim's own inputs, side by side: LogGOPSim against `ppsim run --goal` (text, and LogGOPSim's
# binary form) and against ppsim's built-in algorithm, on the dissemination barrier that
# LogGOPSim's generator writes (schedgen -p dissemination -d 8), without noise and with a 1 kHz
# detour of 25 µs (independent phases, and co-scheduled). Every command runs alone, one at a time,
# under /usr/bin/time -v: wall is "Elapsed (wall clock) time", peak "Maximum resident set size".
#
# usage: bench/goal_vs_loggopsim.sh PPSIM_BUILD [LGS_DIR] [P ...]
#   PPSIM_BUILD  ppsim's build folder (its ppsim and bench/ppsim_bench_goal_read)
#   LGS_DIR      a folder with the LogGOPSim build of tests/data/goal/README.md (schedgen, txt2bin,
#                LogGOPSim); "-" or none: LogGOPSim is not run, and its figures are the stored ones
#                below (measured on the machine and at the commit they name)
#   P ...        ranks (default: 65536 262144)
# environment: WORKDIR (default a new folder under /tmp, removed at the end unless KEEP=1),
#   TIMEOUT (seconds a command may take, default 1800), THREADS (the built-in algorithm's
#   --threads, default 1: one core each, as LogGOPSim has; a GOAL file is read and timed on one),
#   REPEAT (runs of each command, LogGOPSim's too, default 1: with more, the median wall and the
#   largest peak)
#
# LogGOPSim draws each process's noise phase from the clock, so its noisy times differ from run to
# run (and from ppsim's, whose phases come from --seed); its wall and memory are comparable all
# the same. Without noise both give the same time, which the table shows. On one thread a noisy
# ppsim run is timed once, as LogGOPSim's is (its noiseless time, for the slowdown, would be a
# second timing: --noise-slowdown).
set -u
if [ $# -lt 1 ]; then
  sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
BUILD=$1
LGS=${2:--}
shift $(( $# >= 2 ? 2 : 1 ))
SIZES=${*:-65536 262144}
PPSIM=$BUILD/ppsim
WRITER=$BUILD/bench/ppsim_bench_goal_read
TIMEOUT=${TIMEOUT:-1800}
THREADS=${THREADS:-1}
for tool in "$PPSIM" "$WRITER"; do
  [ -x "$tool" ] || { echo "goal_vs_loggopsim.sh: $tool is not built" >&2; exit 2; }
done
if [ "$LGS" != "-" ]; then
  for tool in schedgen txt2bin LogGOPSim; do
    [ -x "$LGS/$tool" ] || { echo "goal_vs_loggopsim.sh: $LGS/$tool is not there (see tests/data/goal/README.md)" >&2; exit 2; }
  done
fi
WORK=${WORKDIR:-$(mktemp -d /tmp/goal_vs_lgs.XXXXXX)}
mkdir -p "$WORK"
cleanup() { [ "${KEEP:-0}" = 1 ] || rm -f "$WORK"/d*.goal "$WORK"/d*.bin "$WORK"/noise.txt "$WORK"/*.log; [ -n "${WORKDIR:-}" ] || [ "${KEEP:-0}" = 1 ] || rmdir "$WORK" 2>/dev/null; }
trap cleanup EXIT

# LogGOPSim at 76451de, g++ -O2, measured with this script on a 2-core machine with no GPU
# (2026-11-28; bench/RESULTS.md): "wall_s peak_MB" for P and noise.
stored() {
  case "$1 $2" in
    "65536 none") echo "2.24 445" ;;
    "65536 independent") echo "3.16 446" ;;
    "65536 cosched") echo "2.22 446" ;;
    "262144 none") echo "14.61 1830" ;;
    "262144 independent") echo "19.89 1832" ;;
    "262144 cosched") echo "13.82 1832" ;;
    *) echo "- -" ;;
  esac
}

# 1 kHz, 25 µs: a second of detours in LogGOPSim's trace format (start<TAB>duration, ns).
awk 'BEGIN { for (i = 0; i < 1000; i++) printf "%d\t25000\n", i * 1000000 }' > "$WORK/noise.txt"

# run NAME CMD...: wall seconds and peak MB into $wall $peak, the output into $WORK/NAME.log.
# With REPEAT=N, each command runs N times in a row: wall is the median, peak the largest.
run() {
  local name=$1
  shift
  local walls=() peaks=() k rc
  for ((k = 0; k < ${REPEAT:-1}; ++k)); do
    /usr/bin/time -v timeout "$TIMEOUT" "$@" > "$WORK/$name.log" 2> "$WORK/$name.time"
    rc=$?
    if [ $rc -ne 0 ]; then
      wall="failed($rc)"
      peak=-
      return
    fi
    walls+=("$(awk -F': ' '/Elapsed/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; printf "%.2f", s }' "$WORK/$name.time")")
    peaks+=("$(awk -F': ' '/Maximum resident/ { printf "%.0f", $2 / 1024 }' "$WORK/$name.time")")
  done
  wall=$(printf '%s\n' "${walls[@]}" | sort -n | sed -n "$(( (${#walls[@]} + 1) / 2 ))p")
  peak=$(printf '%s\n' "${peaks[@]}" | sort -n | tail -1)
}

ppsim_time() { sed -n 's/.*time \([0-9]*\) ns.*/\1/p' "$WORK/$1.log" | head -1; }
lgs_time() { sed -n 's/^Maximum finishing time at host [0-9]*: \([0-9]*\) .*/\1/p' "$WORK/$1.log" | head -1; }

echo "| P | noise | LogGOPSim: wall, peak | ppsim --goal text | ppsim --goal .bin | ppsim built-in | text ÷ LogGOPSim | times (LogGOPSim / ppsim) |"
echo "|---|---|---|---|---|---|---|---|"
for P in $SIZES; do
  goal=$WORK/d$P.goal
  bin=$WORK/d$P.bin
  if [ "$LGS" != "-" ]; then
    (cd "$WORK" && "$LGS/schedgen" -p dissemination -s "$P" -d 8 -o "$goal" > /dev/null) || exit 1
    run txt2bin_$P "$LGS/txt2bin" -i "$goal" -o "$bin"
    echo "(txt2bin $P: ${wall} s, ${peak} MB)" >&2
  else
    "$WRITER" --p "$P" --write "$goal" || exit 1
  fi
  for noise in none independent cosched; do
    args=()
    lgs_args=()
    case $noise in
      independent) args=(--noise-trace "$WORK/noise.txt" --noise-phases loggopsim --seed 1); lgs_args=(--noise-trace "$WORK/noise.txt") ;;
      cosched) args=(--noise-trace "$WORK/noise.txt" --noise-cosched); lgs_args=(--noise-trace "$WORK/noise.txt" --noise-cosched) ;;
    esac
    if [ "$LGS" != "-" ]; then
      run lgs_${P}_$noise "$LGS/LogGOPSim" -f "$bin" -b "${lgs_args[@]}"
      lgs="$wall s, $peak MB"
      lgs_wall=$wall
      lt=$(lgs_time lgs_${P}_$noise)
    else
      read -r lgs_wall lgs_peak <<< "$(stored "$P" "$noise")"
      lgs="$lgs_wall s, $lgs_peak MB (stored)"
      lt=-
    fi
    run text_$noise "$PPSIM" run --goal "$goal" --threads 1 "${args[@]}"
    text="$wall s, $peak MB"
    text_wall=$wall
    pt=$(ppsim_time text_$noise)
    if [ -f "$bin" ]; then
      run bin_$noise "$PPSIM" run --goal "$bin" --threads 1 "${args[@]}"
      binary="$wall s, $peak MB"
    else
      binary="(no txt2bin)"
    fi
    run algo_$noise "$PPSIM" run --topology full --p "$P" --op barrier --algo barrier_dissemination --model loggp --backend cpu \
      --threads "$THREADS" "${args[@]}"
    algo="$wall s, $peak MB"
    ratio=$(awk -v a="$lgs_wall" -v b="$text_wall" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.1f×", a / b; else print "-" }')
    echo "| $P | $noise | $lgs | $text | $binary | $algo | $ratio | $lt / $pt |"
  done
done
