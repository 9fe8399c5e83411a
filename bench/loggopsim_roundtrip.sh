#!/usr/bin/env bash
# Every registered algorithm, exported by `ppsim goal` and timed by LogGOPSim itself (txt2bin, then
# LogGOPSim), against ppsim's own LogGP time of the same file: the per-host finishing times must be
# the same. LogGOPSim is not needed by the tests (tests/data/goal holds what it printed); this
# script is how the export was checked against it.
#
# usage: bench/loggopsim_roundtrip.sh LGS_DIR PPSIM_BIN [LOGGOPSIM_OPTIONS...]
#   LGS_DIR    folder holding LogGOPSim's txt2bin and LogGOPSim (spcl/LogGOPSim 76451de)
#   PPSIM_BIN  the ppsim executable
#   options    passed to both (default: -S 64, so that most messages use the rendezvous protocol);
#              LogGOPSim's short options -L -o -g -G -O -S become ppsim's --L ... --S
# Each algorithm runs on the first of a few small machines (p <= 8: LogGOPSim prints every host's
# time only up to 16) that it accepts with m = 12 words, or 24 where m must divide among p.
set -u
if [ $# -lt 2 ]; then
  sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
LGS=$1
PPSIM=$2
shift 2
opts=("$@")
[ ${#opts[@]} -eq 0 ] && opts=(-S 64)
ppsim_opts=()
for ((i = 0; i < ${#opts[@]}; i += 2)); do ppsim_opts+=("-${opts[i]}" "${opts[i + 1]}"); done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
machines=("full --p 6" "hypercube --p 8" "ring --p 7" "mesh --dims 2x3" "full --p 8" "linear --p 5" "star --p 5"
  "bintree --p 7" "binomial --p 8" "hypercube --p 8 --logical linear --map gray")
same=0 differ=0 skipped=0
while read -r name op; do
  found=0
  for m in 12 24; do
    for machine in "${machines[@]}"; do
      for ports in "" "--ports 2" "--ports 4" "--ports all"; do
        # shellcheck disable=SC2086
        if "$PPSIM" goal --op "$op" --algo "$name" --topology $machine --m "$m" $ports --out "$work/x.goal" 2>/dev/null; then
          found=1
          break 3
        fi
      done
    done
  done
  if [ $found = 0 ]; then
    echo "skipped $name (no small machine accepts it)"
    skipped=$((skipped + 1))
    continue
  fi
  "$LGS/txt2bin" -i "$work/x.goal" -o "$work/x.bin" >/dev/null 2>&1
  theirs=$(timeout 60 "$LGS/LogGOPSim" -f "$work/x.bin" "${opts[@]}" 2>&1 | awk '/^Host/ { printf "%s ", $3 }')
  ours=$("$PPSIM" run --goal "$work/x.goal" "${ppsim_opts[@]}" --json - |
    python3 -c 'import json, sys; print(" ".join(map(str, json.load(sys.stdin)["finish"])) + " ")')
  if [ "$theirs" = "$ours" ]; then
    same=$((same + 1))
  else
    differ=$((differ + 1))
    echo "DIFFERENT $name: LogGOPSim [$theirs] ppsim [$ours]"
  fi
done < <("$PPSIM" list | sed -n 's/^  \([a-z0-9_]*\)  \[\([a-z_-]*\);.*/\1 \2/p' | grep -v '^pram_')
echo "algorithms with the same times in LogGOPSim and ppsim: $same; different: $differ; skipped: $skipped"
[ $differ = 0 ]
