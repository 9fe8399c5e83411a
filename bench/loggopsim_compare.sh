#!/usr/bin/env bash
# Side-by-side: LogGOPSim (spcl/LogGOPSim, commit 76451de) against `ppsim run --goal` on the
# recursive-doubling allreduce schedule that LogGOPSim's own generator (schedgen) writes.
#
# usage: bench/loggopsim_compare.sh LGS_DIR PPSIM_BIN [P ...]
#   LGS_DIR    folder holding the LogGOPSim build: schedgen, txt2bin and LogGOPSim
#   PPSIM_BIN  the ppsim executable (run as: PPSIM_BIN run --goal FILE $PPSIM_ARGS)
#   P ...      processor counts (default: 65536 262144); powers of two only, since schedgen's
#              allreduce_recdoub is only correct for those
# environment:
#   DATASIZE   bytes of the allreduce (schedgen -d; default 1048576 = 1 MiB: the smallest
#              message, DATASIZE/P bytes, stays above 0 up to P = 2^20; a smaller size gives
#              zero-byte messages, which LogGOPSim charges with an unsigned (size-1))
#   WORKDIR    where the schedules go (default: a new folder under /tmp; about 2.3 KB of
#              text and 2.6 KB of binary per rank, so 0.6 + 0.7 GB at P = 2^18)
#   KEEP=1     keep the schedules and logs (a WORKDIR you name is never removed, only the
#              schedules in it, unless KEEP=1)
#   TAGS       "step" (default): the k-th send and the k-th receive of every rank get tag k
#              instead of schedgen's tag 0 (the exchange partners of step k are the same at
#              both ends, so this changes no match); "schedgen": keep schedgen's tags.
#              Why: a rank of allreduce_recdoub has 2 log2(P) receives ready at the start;
#              LogGOPSim orders such a batch with std::sort, which reorders equal elements
#              once there are more than 16, so the receives are posted out of order and,
#              all having tag 0, match the wrong messages: from P = 256 on LogGOPSim stops
#              with non-empty receive queues. With per-step tags it finishes, and with the
#              times a stable-sort build gives for the original schedule.
#   PPSIM_ARGS extra arguments for ppsim (LogGOPSim runs with its defaults L=2500 o=1500
#              g=1000 G=6 O=0 S=65535)
#   TIMEOUT    seconds allowed for each measured command (default 1800)
# Each program runs alone under /usr/bin/time -v: wall is "Elapsed (wall clock) time", peak is
# "Maximum resident set size". txt2bin and LogGOPSim are timed separately (LogGOPSim needs the
# binary form txt2bin writes); ppsim reads the text schedule itself.
set -u
if [ $# -lt 2 ]; then
  sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
LGS=$1
PPSIM=$2
shift 2
PS=${*:-65536 262144}
D=${DATASIZE:-1048576}
TIMEOUT=${TIMEOUT:-1800}
if [ -n "${WORKDIR:-}" ]; then WORK=$WORKDIR; mkdir -p "$WORK"; OWNWORK=0
else WORK=$(mktemp -d /tmp/lgs_compare.XXXXXX); OWNWORK=1; fi
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (Debian package 'time')" >&2; exit 2; }
for b in schedgen txt2bin LogGOPSim; do
  [ -x "$LGS/$b" ] || { echo "missing $LGS/$b" >&2; exit 2; }
done

# measure NAME LOG CMD...: runs CMD under /usr/bin/time -v; stdout+stderr of CMD go to LOG.out
measure() {
  local log=$1
  shift
  /usr/bin/time -v -o "$log.time" timeout "$TIMEOUT" "$@" >"$log.out" 2>&1
  local rc=$?
  local wall rss
  wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$log.time" |
    awk -F: '{ if (NF == 3) print $1*3600 + $2*60 + $3; else print $1*60 + $2 }')
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$log.time")
  printf '%s %s %s\n' "$rc" "${wall:-?}" "$(awk -v k="${rss:-0}" 'BEGIN { printf "%.1f", k / 1024 }')"
}

row() { printf '| %-9s | %8s | %-9s | %8s | %9s | %s\n' "$@"; }

echo "LogGOPSim build: $LGS; ppsim: $PPSIM; schedule: schedgen -p allreduce_recdoub -d $D, tags: ${TAGS:-step}; work: $WORK"
declare -a TABLE
for P in $PS; do
  g="$WORK/allreduce_recdoub-p$P-d$D.goal"
  b="$WORK/allreduce_recdoub-p$P-d$D.bin"
  read -r rc wall rss < <(measure "$WORK/schedgen-$P" "$LGS/schedgen" -p allreduce_recdoub -s "$P" -d "$D" -o "$g")
  if [ "$rc" != 0 ]; then echo "schedgen failed for P=$P (see $WORK/schedgen-$P.out)" >&2; continue; fi
  if [ "${TAGS:-step}" = step ]; then
    awk '/^rank [0-9]+ \{/ { s = 0; r = 0 }
         / send [0-9]+b to [0-9]+ tag 0$/ { sub(/ tag 0$/, " tag " s++) }
         / recv [0-9]+b from [0-9]+ tag 0$/ { sub(/ tag 0$/, " tag " r++) }
         { print }' "$g" >"$g.tmp" && mv "$g.tmp" "$g"
  fi
  size=$(stat -c %s "$g")
  nops=$(grep -cE '^[A-Za-z][A-Za-z0-9_]*: (send|recv|calc) ' "$g")
  nreq=$(grep -cE ' i?requires ' "$g")
  echo "P=$P: $g: $size bytes, $nops operations, $nreq dependencies (schedgen: ${wall}s, ${rss} MB)"
  TABLE+=("$(row "P=$P" schedgen "$rc" "$wall" "$rss" "text $size B, $nops ops")")

  read -r rc wall rss < <(measure "$WORK/txt2bin-$P" "$LGS/txt2bin" -i "$g" -o "$b")
  bsize=$(stat -c %s "$b" 2>/dev/null || echo 0)
  TABLE+=("$(row "P=$P" txt2bin "$rc" "$wall" "$rss" "binary $bsize B")")

  read -r rc wall rss < <(measure "$WORK/loggopsim-$P" "$LGS/LogGOPSim" -f "$b")
  res=$(grep -E '^Maximum finishing time|^Host [0-9]+:|queue on host' "$WORK/loggopsim-$P.out" | head -3 | tr '\n' ' ')
  ev=$(sed -n 's/.*Events: \([0-9]*\).*/\1/p' "$WORK/loggopsim-$P.out")
  [ -n "$ev" ] && res="$res[$ev events]"
  TABLE+=("$(row "P=$P" LogGOPSim "$rc" "$wall" "$rss" "${res:-see $WORK/loggopsim-$P.out}")")
  rm -f "$b"

  # shellcheck disable=SC2086
  read -r rc wall rss < <(measure "$WORK/ppsim-$P" "$PPSIM" run --goal "$g" ${PPSIM_ARGS:-})
  res=$(tail -n 3 "$WORK/ppsim-$P.out" | tr '\n' ' ' | cut -c1-160)
  TABLE+=("$(row "P=$P" ppsim "$rc" "$wall" "$rss" "$res")")
  [ "${KEEP:-0}" = 1 ] || rm -f "$g"
done

echo
row "size" "program" "exit" "wall s" "max RSS MB" "result"
row "---" "---" "---" "---:" "---:" "---"
printf '%s\n' "${TABLE[@]}"
[ "${KEEP:-0}" = 1 ] || [ "$OWNWORK" = 0 ] || rm -rf "$WORK"
