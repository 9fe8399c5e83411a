#!/usr/bin/env bash
# The default demonstration: a few collectives on simulated machines of thousands to a million
# processors, each verified against the sequential reference.
set -euo pipefail
ppsim=${1:-build/ppsim}
run() { echo "\$ ppsim $*"; "$ppsim" "$@"; echo; }
run run --topology hypercube --p 2^16 --op allreduce --m 8 --ts 10 --tw 1
run run --topology torus --dims 64x64 --op allgather --m 1 --ts 10 --tw 1
run run --topology ring --p 8 --op allgather --algo allgather_hypercube   # Fig. 4-12: 4 messages on one link
run run --topology full --p 2^20 --op allreduce --threads 1
# Lin–Yeh's first example: the k-port postal prefix, every processor after every step (C_0 .. C_6)
run run --topology full --p 10 --op scan --algo scan_postal_a --ports 2 --lambda 3 --combine interval --trace
run bounds --n 1000000 --k 2 --lambda 3
run run --machine pram-erew --op scan --p 2^16 --combine interval
# A broadcast replayed step by step in the browser: open build/broadcast.html (it loads nothing else)
run view --topology hypercube --p 16 --op broadcast --html "$(dirname "$ppsim")/broadcast.html"
