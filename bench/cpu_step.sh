#!/usr/bin/env bash
# The CPU backend's step, side by side with an older build: allreduce (recursive doubling) at
# p = 2^20 on the fully connected machine, m = 1 and 256 words, on 1 and 2 threads, and at 2^18 on
# the hypercube (routed: link loads counted), each point run REPS times alternating the two
# programs. Prints the median of each run's own wall time (buffers, steps and verification; not
# the process start), messages and words per second, and the ratio new/old of the rates. The
# older program is OLD: a commit of this repository (built here in a fresh clone, without CUDA)
# or the path of a ppsim program built from one. The machine should be otherwise quiet.
#
#   bash bench/cpu_step.sh [OLD] [REPS]     (defaults: cf69c22, 3; CPU_STEP_POINTS picks the points)
set -euo pipefail
top=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
old=${1:-cf69c22}
reps=${2:-3}
[[ "$reps" =~ ^[1-9][0-9]*$ ]] || { echo "cpu_step: REPS must be a positive whole number (got $reps)" >&2; exit 2; }
old_binary=
label=$old
if [[ -f "$old" && -x "$old" ]]; then
  old_binary=$old
  label=$(basename "$old")
fi
new_binary=$top/build/ppsim
[[ -x "$new_binary" ]] || { echo "cpu_step: build this checkout first (cmake --build build): no $new_binary" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [[ -z "$old_binary" ]]; then
  git -C "$top" rev-parse --verify -q "$old^{commit}" >/dev/null || { echo "cpu_step: no commit $old in $top" >&2; exit 2; }
  git clone -q "$top" "$work/old"
  git -C "$work/old" checkout -q "$old"
  cmake -S "$work/old" -B "$work/old/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPPSIM_ENABLE_CUDA=OFF >"$work/old.log" 2>&1 &&
    cmake --build "$work/old/build" --target ppsim >>"$work/old.log" 2>&1 || { cat "$work/old.log" >&2; echo "cpu_step: the build of $old failed" >&2; exit 1; }
  old_binary=$work/old/build/ppsim
fi
[[ -x "$old_binary" ]] || { echo "cpu_step: no program at $old_binary" >&2; exit 2; }

# wall BINARY ARGS...: the run's own wall seconds, from its report's last line.
wall() {
  local out
  out=$("$@" 2>&1) || { echo "$out" >&2; echo "cpu_step: a run failed: $*" >&2; exit 1; }
  grep -o 'wall [0-9.e+-]*' <<<"$out" | tail -1 | cut -d' ' -f2
}
median() { sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

echo "| topology | p | m | threads | before ($label), s | now ($(git -C "$top" rev-parse --short HEAD)), s | messages/s before | messages/s now | words/s before | words/s now | ratio |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
# CPU_STEP_POINTS="TOPOLOGY LOG2P M THREADS;..." runs those points instead.
IFS=';' read -r -a points <<<"${CPU_STEP_POINTS:-full 20 1 1;full 20 256 1;full 20 1 2;full 20 256 2;hypercube 18 1 1;hypercube 18 256 1}"
for point in "${points[@]}"; do
  read -r topo k m threads <<<"$point"
  args=(run --topology "$topo" --p "2^$k" --op allreduce --m "$m" --threads "$threads" --backend cpu)
  : >"$work/a"
  : >"$work/b"
  for ((i = 0; i < reps; ++i)); do
    wall "$old_binary" "${args[@]}" >>"$work/a"
    wall "$new_binary" "${args[@]}" >>"$work/b"
  done
  a=$(median <"$work/a")
  b=$(median <"$work/b")
  messages=$((k * (1 << k)))  # recursive doubling: every processor sends once in each of the k steps
  awk -v topo="$topo" -v k="$k" -v m="$m" -v th="$threads" -v a="$a" -v b="$b" -v n="$messages" 'BEGIN {
    printf "| %s | 2^%d | %d | %d | %.3f | %.3f | %.3g | %.3g | %.3g | %.3g | %.2f |\n", topo, k, m, th, a, b, n / a, n / b, n * m / a, n * m / b, a / b }'
done
