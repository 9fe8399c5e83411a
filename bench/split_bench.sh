#!/usr/bin/env bash
# The figures for a run split across MPI ranks (bench/RESULTS.md, "Past one machine"):
#   memory    allreduce p = 2^24, m = 1 and 16, on 1, 2 and 4 ranks: every rank's peak resident
#             memory against 1/N of one process's peak + the words one step moves across ranks
#             (sent and received) + 32 MiB;
#   overhead  allreduce p = 2^22, m = 1 and 64: 2 ranks of one thread against one process of 2
#             threads, medians of 3 (the report's wall time: the simulation, not mpirun's start);
#   traffic   the words each step sent to other ranks against 6 record words and the payload per
#             crossing message plus the counts (PPSIM_SPLIT_TRAFFIC);
#   scale     allreduce p = 2^26, m = 1 on 4 ranks;
#   device    (a machine with a GPU; not in the default sections) --backend cuda in one process
#             against 1 rank and 2 ranks sharing the device: the reports equal (wall times aside)
#             and the wall times, medians of 3 (the exchange path's overhead).
# Usage: bench/split_bench.sh [build/ppsim] [section...]   (sections: memory overhead traffic scale device)
set -euo pipefail
ppsim=${1:-build/ppsim}
shift || true
sections=${*:-memory overhead traffic scale}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
mpi() { mpirun -q -np "$1" --oversubscribe "${@:2}"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# peak KiB of every rank of: ranks ARGS... (one process when ranks = 1)
peaks() {
  local n=$1
  shift
  if [ "$n" -eq 1 ]; then
    /usr/bin/time -f "%M" -o "$tmp/t0" "$ppsim" "$@" >/dev/null
  else
    mpi "$n" sh -c '/usr/bin/time -f "%M" -o "$0/t$OMPI_COMM_WORLD_RANK" "$@" >/dev/null' "$tmp" "$ppsim" "$@"
  fi
  for ((r = 0; r < n; r++)); do tail -1 "$tmp/t$r"; done | tr '\n' ' '
  rm -f "$tmp"/t*
}

# the largest words one rank sent others in one step (PPSIM_SPLIT_TRAFFIC), and whether every step
# carried exactly what it should
traffic() {
  local n=$1
  shift
  PPSIM_SPLIT_TRAFFIC=1 mpi "$n" "$ppsim" "$@" 2>"$tmp/traffic" >/dev/null
  awk '/ppsim traffic/ { w = $16 + 0; if (w > max) max = w; if ($0 ~ /DIFFERENT/) bad++; steps++ }
       END { printf "%d %d %d\n", max, steps, bad }' "$tmp/traffic"
}

if [[ $sections == *memory* ]]; then
  echo "## memory: allreduce_hypercube on a hypercube, --threads 1, peak resident KiB per rank"
  for m in 1 16; do
    args=(run --topology hypercube --p 2^24 --op allreduce --m "$m" --threads 1)
    one=$(peaks 1 "${args[@]}")
    echo "m = $m, 1 process: $one"
    for n in 2 4; do
      read -r most _ _ <<<"$(traffic "$n" "${args[@]}")"
      bound=$(( one / n + 2 * most * 8 / 1024 + 32 * 1024 ))
      echo "m = $m, $n ranks: $(peaks "$n" "${args[@]}")(bound $bound KiB: 1/$n of $one + 2 x $most words of one step + 32 MiB)"
    done
  done
fi

wall() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["wall_seconds"])' "$1"; }
median() { tr ' ' '\n' | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

if [[ $sections == *overhead* ]]; then
  echo "## overhead: allreduce_hypercube p = 2^22, 2 ranks x 1 thread against 1 process x 2 threads (medians of 3, s)"
  for m in 1 64; do
    args=(run --topology hypercube --p 2^22 --op allreduce --m "$m")
    one="" two=""
    for i in 1 2 3; do
      "$ppsim" "${args[@]}" --threads 2 --json "$tmp/one.json" >/dev/null
      one+="$(wall "$tmp/one.json") "
      mpi 2 "$ppsim" "${args[@]}" --threads 1 --json "$tmp/two.json" >/dev/null
      two+="$(wall "$tmp/two.json") "
    done
    o=$(echo "$one" | median) t=$(echo "$two" | median)
    echo "m = $m: one process $o s ($one), 2 ranks $t s ($two): $(python3 -c "print(round($t / $o, 3))")x"
  done
fi

if [[ $sections == *traffic* ]]; then
  echo "## traffic: words each rank sent the others per step, against 6 + payload per crossing message + counts"
  for args in "run --topology hypercube --p 2^16 --op allreduce --m 4" "run --topology torus --dims 64x64 --op allgather --m 2" \
              "run --topology ring --p 1000 --op allreduce --algo allreduce_ring --m 3000"; do
    for n in 2 3 4; do
      read -r most steps bad <<<"$(traffic "$n" $args)"
      echo "$args, $n ranks: $steps rank-steps, $bad different from the expected count, the largest $most words"
    done
  done
fi

if [[ $sections == *scale* ]]; then
  echo "## scale: allreduce p = 2^26, m = 1, 4 ranks"
  args=(run --topology full --p 2^26 --op allreduce --algo allreduce_hypercube --m 1 --threads 1)
  start=$(date +%s.%N)
  mpi 4 sh -c '/usr/bin/time -f "%M" -o "$0/t$OMPI_COMM_WORLD_RANK" "$@"' "$tmp" "$ppsim" "${args[@]}" | tail -3
  echo "peak KiB per rank: $(cat "$tmp"/t* | tr '\n' ' ') ($(python3 -c "print(round($(date +%s.%N) - $start, 1))") s in all)"
fi

if [[ $sections == *device* ]]; then
  echo "## device: --backend cuda, one process against mpirun -np 1 and -np 2 on the same device (medians of 3, s)"
  same() { python3 -c 'import json,sys
def strip(d):
    if isinstance(d, dict): return {k: strip(v) for k, v in d.items() if "seconds" not in k}
    if isinstance(d, list): return [strip(x) for x in d]
    return d
print("same" if strip(json.load(open(sys.argv[1]))) == strip(json.load(open(sys.argv[2]))) else "DIFFERENT")' "$1" "$2"; }
  for args in "run --topology hypercube --p 2^22 --op allreduce --m 1" "run --topology hypercube --p 2^20 --op allreduce --m 64" \
              "run --topology torus --dims 1024x1024 --op allreduce --m 4"; do
    one="" n1="" n2=""
    for i in 1 2 3; do
      "$ppsim" $args --backend cuda --json "$tmp/one.json" >/dev/null
      one+="$(wall "$tmp/one.json") "
      mpi 1 "$ppsim" $args --backend cuda --json "$tmp/n1.json" >/dev/null
      n1+="$(wall "$tmp/n1.json") "
      mpi 2 "$ppsim" $args --backend cuda --json "$tmp/n2.json" >/dev/null
      n2+="$(wall "$tmp/n2.json") "
    done
    echo "$args: one process $(echo "$one" | median) s; 1 rank $(echo "$n1" | median) s ($(same "$tmp/one.json" "$tmp/n1.json")); 2 ranks $(echo "$n2" | median) s ($(same "$tmp/one.json" "$tmp/n2.json"))"
  done
fi
