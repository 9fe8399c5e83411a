#!/usr/bin/env bash
# A newcomer's first run, side by side with an older build: `make demo` from a fresh clone of this
# checkout's HEAD (configure, build, the demonstration's runs), alternating with the no-CUDA
# `ppsim` target of an older commit (configured beforehand, then built from nothing), each in a
# fresh clone, PAIRS times. Prints one row per pair and the ratio; the Debian packages must be
# installed (scripts/setup.sh) and the machine otherwise quiet.
#
#   bash bench/first_build.sh [OLD_COMMIT] [PAIRS]      (defaults: 2bfde7b, 3)
set -euo pipefail
top=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
old=${1:-2bfde7b}
pairs=${2:-3}
git -C "$top" rev-parse --verify -q "$old^{commit}" >/dev/null || { echo "first_build: no commit $old in $top" >&2; exit 2; }
[[ "$pairs" =~ ^[1-9][0-9]*$ ]] || { echo "first_build: PAIRS must be a positive whole number (got $pairs)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# seconds LOG COMMAND...: runs the command with its output in LOG and prints its wall seconds.
seconds() { local log=$1 s e; shift; s=$(date +%s.%N); "$@" >"$log" 2>&1 || return 1; e=$(date +%s.%N); echo "$e - $s" | bc; }

echo "| pair | make demo at $(git -C "$top" rev-parse --short HEAD), s | ppsim target at $old, s | ratio |"
echo "|---:|---:|---:|---:|"
for ((i = 1; i <= pairs; ++i)); do
  rm -rf "$work/new" "$work/old"
  git clone -q "$top" "$work/new"
  new=$(seconds "$work/demo.log" make -C "$work/new" demo) || { cat "$work/demo.log" >&2; echo "first_build: make demo failed" >&2; exit 1; }
  git clone -q "$top" "$work/old"
  git -C "$work/old" checkout -q "$old"
  cmake -S "$work/old" -B "$work/old/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPPSIM_ENABLE_CUDA=OFF >/dev/null
  before=$(seconds "$work/old.log" cmake --build "$work/old/build" -j "$(nproc)" --target ppsim) ||
    { cat "$work/old.log" >&2; echo "first_build: the build of $old failed" >&2; exit 1; }
  printf '| %d | %.1f | %.1f | %.3f |\n' "$i" "$new" "$before" "$(echo "$new / $before" | bc -l)"
done
