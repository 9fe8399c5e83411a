#!/usr/bin/env python3
"""The crossover map of issue 24: NCCL's algorithms on a 1024-accelerator cluster (128 nodes of 8).

Runs `ppsim run --json` for every algorithm and size, every run verified against the sequential
reference, and writes a Markdown table (bench/RESULTS.md takes it) and a gnuplot picture
(docs/crossover-128x8.svg).

Machine: cluster-fattree 128x8x8x4 (8 NICs a node at the leaves of a 4-ary 5-tree: a SHARP switch
folds at most 8 messages a step). Costs in microseconds per word of 8 bytes: NVLink 450 GB/s,
PCIe 64 GB/s, the network 50 GB/s (400 Gb/s NICs); NCCL's Simple protocol adds its latencies.

Sizes are nccl-tests' n: m words for all-reduce, p m for all-gather. A run holds every processor's
buffers (and, for the switch algorithms, every switch's), so past a size the machine's memory ends:
there the time is the affine extension T(m) = a + b m of the two largest simulated sizes. Under the
linear model a schedule whose messages all scale with m (same steps, routes and loads, sizes
divisible) has a time affine in m; the script checks this at a third size before it extends.

Usage: bench/cluster_crossover.py [path/to/ppsim] [--quick]
"""
import json
import os
import subprocess
import sys
import time

PPSIM = next((a for a in sys.argv[1:] if not a.startswith("--")), "build/ppsim")
QUICK = "--quick" in sys.argv
P, DIMS = 1024, "128x8x8x4"
COSTS = ["--ts", "0", "--tw", "1.6e-4", "--protocol", "simple",
         "--tw-class", "nvlink=1.78e-5,pcie=1.25e-4,level1=1.6e-4,level2=1.6e-4,level3=1.6e-4,level4=1.6e-4,level5=1.6e-4"]


def pipeline(m):  # segments of the pipelined units: one a 4096 words (32 KiB), 32 at most
    return max(1, min(32, m // 4096))


def nvls_gather(m):
    return min(8, m)


ALGOS = {
    "allreduce": [
        ("ring", "allreduce_nccl_ring", lambda m: ["--channels", "8", "--ports", "8"]),
        ("tree", "allreduce_nccl_tree", lambda m: ["--segments", str(pipeline(m)), "--ports", "8"]),
        ("NVLS", "allreduce_nvls", lambda m: ["--segments", str(pipeline(m)), "--ports", "3"]),
        ("NVLS-tree", "allreduce_nvls_tree", lambda m: ["--segments", str(pipeline(m)), "--ports", "5"]),
        ("CollNet", "allreduce_collnet", lambda m: ["--segments", str(pipeline(m)), "--ports", "15"]),
        ("hierarchical", "allreduce_hierarchical", lambda m: ["--inter", "allreduce_nccl_tree", "--segments", str(pipeline(m)), "--ports", "8"]),
    ],
    "allgather": [
        ("ring", "allgather_nccl_ring", lambda m: ["--channels", "8", "--ports", "8"]),
        ("PAT", "allgather_pat", lambda m: []),
        ("NVLS", "allgather_nvls", lambda m: ["--segments", str(nvls_gather(m)), "--ports", "2"]),
    ],
}
# The largest m (words a rank) simulated; above, the affine extension of the last two.
LIMIT = {"allreduce": 2 ** (12 if QUICK else 18), "allgather": 2 ** (4 if QUICK else 7)}
# The sizes in bytes, 8 B .. 1 GiB, of nccl-tests' n (all-gather: from 8 KiB, one word a rank).
SIZES = {"allreduce": [2 ** e for e in range(3, 31)], "allgather": [2 ** e for e in range(13, 31)]}


def run(op, algo, extra, m):
    args = [PPSIM, "run", "--topology", "cluster-fattree", "--dims", DIMS, "--op", op, "--algo", algo, "--m", str(m),
            "--json", "-"] + COSTS + extra
    start = time.time()
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode != 0:
        return {"error": out.stderr.strip()}
    j = json.loads(out.stdout)
    if not j.get("verified"):
        sys.exit(f"{algo} m={m}: not verified")
    return {"time": j["time"], "steps": j["steps"], "wall": time.time() - start}


def words(op, size):
    return size // 8 // (P if op == "allgather" else 1)


def main():
    table = {}
    for op, algos in ALGOS.items():
        for label, algo, extra in algos:
            times, ext = {}, {}
            simulated = [words(op, s) for s in SIZES[op] if words(op, s) <= LIMIT[op]]
            for m in simulated:
                r = run(op, algo, extra(m), m)
                if "error" in r:
                    print(f"{op} {label} m={m}: {r['error']}", file=sys.stderr)
                    break
                times[m] = r["time"]
                print(f"{op} {label:13} m={m:>9} time {r['time']:.6g} us, {r['steps']} steps, wall {r['wall']:.1f} s", flush=True)
            if len(times) >= 3 and any(words(op, s) > LIMIT[op] for s in SIZES[op]):
                m1, m2 = sorted(times)[-2:]
                b = (times[m2] - times[m1]) / (m2 - m1)
                a = times[m2] - b * m2
                # The check: a third size on the same schedule (the extension's parameters) lies on the line.
                m0 = m1 // 2
                r = run(op, algo, extra(m2), m0)
                if "error" not in r and abs(r["time"] - (a + b * m0)) > 1e-6 * max(1.0, r["time"]):
                    print(f"{op} {label}: not affine at m={m0} ({r['time']} vs {a + b * m0}); no extension", file=sys.stderr)
                else:
                    for s in SIZES[op]:
                        m = words(op, s)
                        if m > LIMIT[op]:
                            ext[m] = a + b * m
            table[(op, label)] = (times, ext)
    write_outputs(table)


def size_text(b):
    for unit, k in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if b >= 2 ** k:
            return f"{b // 2 ** k} {unit}"
    return f"{b} B"


def write_outputs(table):
    os.makedirs("bench/out", exist_ok=True)
    lines = []
    for op, algos in ALGOS.items():
        labels = [l for l, _, _ in algos if table.get((op, l), ({}, {}))[0]]
        lines.append(f"\n{op} on cluster-fattree {DIMS} (p = {P}), time in us; * the fastest; † affine extension\n")
        lines.append("| n | " + " | ".join(labels) + " | fastest |")
        lines.append("|---" * (len(labels) + 2) + "|")
        dat = open(f"bench/out/crossover_{op}.dat", "w")
        dat.write("# bytes " + " ".join(labels) + "\n")
        for s in SIZES[op]:
            m = words(op, s)
            row, vals = [], []
            for l in labels:
                times, ext = table[(op, l)]
                t = times.get(m, ext.get(m))
                vals.append(t)
            best = min((v for v in vals if v is not None), default=None)
            for l, v in zip(labels, vals):
                ext = m not in table[(op, l)][0]
                cell = "–" if v is None else f"{v:.4g}{'†' if ext else ''}{' *' if v == best else ''}"
                row.append(cell)
            winner = labels[vals.index(best)] if best is not None else "–"
            lines.append(f"| {size_text(s)} | " + " | ".join(row) + f" | {winner} |")
            dat.write(f"{s} " + " ".join("nan" if v is None else f"{s / v / 1e3:.6g}" for v in vals) + "\n")
        dat.close()
    open("bench/out/crossover.md", "w").write("\n".join(lines) + "\n")
    print("\n".join(lines))
    plot = """set terminal svg size 900,420 font 'sans,11'
set output 'docs/crossover-128x8.svg'
set multiplot layout 1,2 title 'NCCL algorithms on 128 nodes x 8 (cluster-fattree 128x8x8x4), ppsim, every run verified'
set logscale x 2
set logscale y 10
set xlabel 'n (bytes, nccl-tests)'
set ylabel 'algbw (GB/s, model)'
set key top left
set format x '2^{%L}'
"""
    for op in ALGOS:
        labels = [l for l, _, _ in ALGOS[op] if table.get((op, l), ({}, {}))[0]]
        plot += f"set title '{op}'\nplot " + ", ".join(
            f"'bench/out/crossover_{op}.dat' using 1:{i + 2} with linespoints title '{l}'" for i, l in enumerate(labels)) + "\n"
    plot += "unset multiplot\n"
    open("bench/out/crossover.gp", "w").write(plot)
    subprocess.run(["gnuplot", "bench/out/crossover.gp"], check=True)


if __name__ == "__main__":
    main()
