#!/usr/bin/env bash
# Under mpirun, bad input and a failure on one rank give one line on stderr
# (from rank 0 alone) and a non-zero exit on every rank, within a time limit (nothing hangs); a
# good run prints its report once. Usage: test_split_errors.sh PPSIM MPIRUN
set -u
ppsim=$1
mpirun=$2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
failed=0 passed=0
err=$(mktemp) out=$(mktemp)
trap 'rm -f "$err" "$out"' EXIT

# expect NAME RANKS WANT_RC PATTERN ARGS...: exit status WANT_RC (nonzero: any), exactly one line on
# stderr matching PATTERN (or none when PATTERN is empty), in 60 s at most.
expect() {
  local name=$1 ranks=$2 want=$3 pattern=$4
  shift 4
  timeout 60 "$mpirun" -q -np "$ranks" --oversubscribe "$ppsim" "$@" >"$out" 2>"$err"
  local rc=$? lines
  lines=$(wc -l <"$err")
  local ok=1
  if [ "$rc" -eq 124 ]; then ok=0; echo "HUNG: $name"; fi
  if [ "$want" = nonzero ] && [ "$rc" -eq 0 ]; then ok=0; fi
  if [ "$want" != nonzero ] && [ "$rc" -ne "$want" ]; then ok=0; fi
  if [ -n "$pattern" ]; then
    [ "$lines" -eq 1 ] && grep -q -- "$pattern" "$err" || ok=0
  else
    [ "$lines" -eq 0 ] || ok=0
  fi
  if [ $ok -eq 1 ]; then passed=$((passed + 1)); else
    failed=$((failed + 1)); echo "FAILED: $name (exit $rc, $lines lines on stderr)"; cat "$err"
  fi
}

expect "a bad option" 2 2 "^ppsim: error: --p must be at least 1" run --p 0
expect "an unknown algorithm" 3 2 "^ppsim: error: " run --p 16 --algo no_such_algorithm
expect "--trace under mpirun" 2 2 "run it without mpirun" run --p 16 --trace
expect "a run too large for memory" 3 2 "^ppsim: error: " run --p 2^31 --m 1000
expect "a broken port rule, as one process words it" 3 2 \
  "^ppsim: schedule error: step 1: processor 0 both sends (to 1) and receives (from 15), which the half-duplex model forbids" \
  run --topology ring --p 16 --op allgather --algo allgather_ring --ports half-duplex
PPSIM_TEST_FAIL_RANK=1 expect "rank 1 out of memory" 3 2 "^ppsim: error: rank 1 ran out of memory" run --p 64
PPSIM_TEST_FAIL_RANK=2 expect "rank 2 out of memory, the last" 3 2 "^ppsim: error: rank 2 ran out of memory" run --p 64 --op scan
# --backend cuda: a device per rank where the machine has one, else one line from every rank's refusal.
if "$ppsim" run --p 2 --backend cuda >/dev/null 2>&1; then
  expect "a device per rank" 2 0 "" run --topology hypercube --p 64 --op allreduce --backend cuda
else
  expect "--backend cuda without a device" 2 2 "^ppsim: error: " run --p 16 --backend cuda
fi
# Ranks started with different command lines (mpirun's ':' between two programs): rank 0 compares
# them before anything else is collective and ends every rank with one line, instead of a hang
# (run against sweep) or a misleading schedule error (different --p or --algo), and writes nothing.
same="every rank must run the same command line"
json=$(mktemp -u)
expect "run and sweep on different ranks" 1 2 "^ppsim: error: rank 1 runs .ppsim sweep.*$same" \
  run --topology ring --p 8 --op allgather --json "$json" : -np 1 "$ppsim" sweep --topology ring --p 8 --op allgather --jsonl -
expect "another --p on one rank" 2 2 "^ppsim: error: rank 2 runs .*--p 16.*$same" \
  run --topology ring --p 8 --op allgather --json "$json" : -np 1 "$ppsim" run --topology ring --p 16 --op allgather --json "$json"
expect "another --algo on one rank" 1 2 "$same" \
  run --topology ring --p 8 --op allgather --algo allgather_ring : -np 1 "$ppsim" run --topology ring --p 8 --op allgather --algo allgather_bruck
if [ -e "$json" ]; then failed=$((failed + 1)); echo "FAILED: a refused launch wrote --json"; rm -f "$json"; else passed=$((passed + 1)); fi
expect "a good run" 3 0 "" run --topology torus --dims 4x4 --op alltoall --m 2
if [ "$(grep -c '^  verified: yes' "$out")" -ne 1 ]; then failed=$((failed + 1)); echo "FAILED: the good run's report is not printed once"; cat "$out"; else passed=$((passed + 1)); fi
expect "--help, once" 2 0 "" --help
if [ "$(grep -c '^Usage' "$out")" -ne 1 ]; then failed=$((failed + 1)); echo "FAILED: --help is not printed once"; else passed=$((passed + 1)); fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
