#!/usr/bin/env python3
"""`ppsim sweep` and `ppsim best` under mpirun: the points spread over
the ranks, and rank 0 writes what one process writes.

    dist_sweep.py PPSIM MPIRUN

Runs a small sweep (with refused points) and a small crossover map with `--emit ompi-rules` alone,
then under `mpirun -np 2` and `-np 3 --oversubscribe`, and compares every output byte for byte,
the wall_seconds column aside. Then bad input under `mpirun -q -np 2`: exactly one line on stderr,
from one rank, a non-zero exit, and no hang. (mpirun -q keeps Open MPI's own notes off stderr; with
-q it adds nothing to ppsim's line. Without -q, Open MPI 4.1 adds a few lines saying that a process
returned a non-zero exit code.)
"""
import csv
import io
import os
import re
import subprocess
import sys
import tempfile

PPSIM, MPIRUN = sys.argv[1], sys.argv[2]
TIMEOUT = 60
failures = []


def run(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        failures.append("timed out (a hang?): " + " ".join(cmd))
        return None


def mpi(np_, args):
    extra = ["--oversubscribe"] if np_ > 2 else []
    return [MPIRUN, "-q", "-np", str(np_)] + extra + [PPSIM] + args


def check(cond, what):
    if not cond:
        failures.append(what)


def csv_without_wall(text):
    rows = list(csv.reader(io.StringIO(text)))
    col = rows[0].index("wall_seconds")
    return [r[:col] + r[col + 1:] for r in rows]


def jsonl_without_wall(text):
    return re.sub(r'"wall_seconds":[^,}]*,?', "", text)


work = tempfile.mkdtemp(prefix="ppsim_dist_sweep_")

# A sweep: a ring and a hypercube of 4, 6 and 8 processors (the hypercube refuses 6), two
# algorithms, three sizes: 36 points, 6 of them refused.
SWEEP = ["sweep", "--op", "allgather", "--topology", "ring,hypercube", "--p", "4,6,8",
         "--algo", "allgather_ring,allgather_hypercube", "--m", "1,16,256", "--quiet"]
# A crossover map of all-reduce on a ring, with Open MPI's tuning rules.
BEST = ["best", "--op", "allreduce", "--topology", "ring", "--p", "4,8,16", "--m", "1..4096", "--quiet"]


def outputs(tag, launch):
    """Every output of the sweep and the map, run through `launch` (args -> command)."""
    out = {}
    c, j, r = (os.path.join(work, f"{tag}.{x}") for x in ("csv", "jsonl", "rules"))
    p = run(launch(SWEEP + ["--csv", c, "--jsonl", j]))
    if p is None:
        return None
    check(p.returncode == 0, f"{tag}: sweep exit {p.returncode}: {p.stderr}")
    out["csv"] = csv_without_wall(open(c).read()) if os.path.exists(c) else None
    out["jsonl"] = jsonl_without_wall(open(j).read()) if os.path.exists(j) else None
    p = run(launch(SWEEP))  # the table on stdout
    if p is None:
        return None
    out["table"] = p.stdout
    p = run(launch(BEST + ["--emit", "ompi-rules", r]))
    if p is None:
        return None
    check(p.returncode == 0, f"{tag}: best exit {p.returncode}: {p.stderr}")
    out["best"] = p.stdout.replace(r, "RULES")
    out["rules"] = open(r).read() if os.path.exists(r) else None
    p = run(launch(["best", "--op", "allreduce", "--topology", "ring", "--p", "8", "--m", "1..1024", "--json", "--quiet"]))
    if p is None:
        return None
    out["best_json"] = p.stdout
    return out


alone = outputs("alone", lambda args: [PPSIM] + args)
check(alone is not None and alone["csv"] is not None and len(alone["csv"]) == 37, "one process: 36 rows expected")
check(alone is not None and any("refused" in row for row in (alone["csv"] or [])), "one process: refused rows expected")
for np_ in (2, 3):
    spread = outputs(f"np{np_}", lambda args, n=np_: mpi(n, args))
    if alone is None or spread is None:
        continue
    for k in alone:
        check(alone[k] == spread[k], f"mpirun -np {np_}: {k} differs from one process's")

# Bad input under mpirun: one line from one rank, exit 2, no hang.
for args in (["sweep", "--op", "allgather", "--topology", "nosuch", "--p", "4"],
             ["sweep", "--op", "allgather", "--topology", "ring", "--p", "4", "--m", "0"],
             ["best", "--op", "allreduce", "--topology", "ring", "--p", "4,8", "--emit", "nosuch", os.path.join(work, "x")]):
    p = run(mpi(2, args))
    if p is None:
        continue
    lines = p.stderr.splitlines()
    check(p.returncode != 0, f"bad input {args}: exit 0")
    check(len(lines) == 1 and lines[0].startswith("ppsim: error: "), f"bad input {args}: stderr {p.stderr!r}")
    alone_p = run([PPSIM] + args)
    check(alone_p is not None and alone_p.stderr == p.stderr, f"bad input {args}: not one process's line")

# A rank that fails during the sweep (rank 1 held to 250 MB of address space, each point needing
# about 140 MB): every rank stops, rank 0 prints one line, the exit is non-zero, nothing hangs.
LIMITED = "if [ \"$OMPI_COMM_WORLD_RANK\" = 1 ]; then ulimit -v 250000; fi; exec \"$0\" \"$@\""
p = run([MPIRUN, "-q", "-np", "2", "bash", "-c", LIMITED, PPSIM, "sweep", "--op", "allgather", "--topology", "ring",
         "--p", "64", "--m", "4096,4097,4098,4099", "--algo", "allgather_ring", "--csv", os.path.join(work, "oom.csv")])
if p is not None:
    check(p.returncode != 0, "a rank out of memory: exit 0")
    check(p.stderr == "ppsim: error: sweep stopped: out of memory (rank 1)\n", f"a rank out of memory: stderr {p.stderr!r}")
    check(not os.path.exists(os.path.join(work, "oom.csv")), "a rank out of memory: the CSV was written")

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("ok")
