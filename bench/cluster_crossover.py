#!/usr/bin/env python3
"""The AI-cluster crossover map: NCCL's algorithms on a 1024-accelerator cluster (128 nodes of 8).

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

Usage: bench/cluster_crossover.py [path/to/ppsim] [--quick | --plot]   (from the repository root)
"""
import json
import os
import subprocess
import sys
import time

PPSIM = next((a for a in sys.argv[1:] if not a.startswith("--")), "build/ppsim")
QUICK = "--quick" in sys.argv  # a 16 x 8 machine and small sizes: checks the script, not the figures in bench/RESULTS.md
P, DIMS = (128, "16x8x8x2") if QUICK else (1024, "128x8x8x4")
COSTS = ["--ts", "0", "--tw", "1.6e-4",
         "--tw-class", "nvlink=1.78e-5,pcie=1.25e-4"]  # the network's levels keep --tw


def pipeline(m):  # segments of the pipelined units: one a 4096 words (32 KiB), 64 at most
    return max(1, min(64, m // 4096))


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
        ("CollNet", "allgather_collnet", lambda m: ["--segments", str(nvls_gather(m)), "--ports", "8"]),
    ],
}
# The largest m (words a rank) simulated; above, the affine extension of the last two.
LIMIT = {"allreduce": 2 ** (14 if QUICK else 18), "allgather": 2 ** (5 if QUICK else 7)}
# The sizes in bytes, 8 B .. 1 GiB, of nccl-tests' n (all-gather: from 8 KiB, one word a rank).
SIZES = {"allreduce": [2 ** e for e in range(3, 31)], "allgather": [2 ** e for e in range(3 + P.bit_length() - 1, 31)]}


PROTOCOLS = ["ll", "ll128", "simple"]


def run(op, algo, extra, m, protocol):
    args = [PPSIM, "run", "--topology", "cluster-fattree", "--dims", DIMS, "--op", op, "--algo", algo, "--m", str(m),
            "--protocol", protocol, "--threads", "1", "--json", "-"] + COSTS + extra
    start = time.time()
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode != 0:
        return {"error": out.stderr.strip()}
    j = json.loads(out.stdout)
    if not j.get("verified"):
        sys.exit(f"{algo} m={m} {protocol}: not verified")
    return {"time": j["time"], "steps": j["steps"], "wall": time.time() - start}


def words(op, size):
    return size // 8 // (P if op == "allgather" else 1)


def measure(op, label, algo, extra, protocol):
    """Simulated times up to LIMIT, then the affine extension (m -> time), and the extension's m."""
    times, ext = {}, {}
    simulated = [words(op, s) for s in SIZES[op] if words(op, s) <= LIMIT[op]]
    for m in simulated:
        r = run(op, algo, extra(m), m, protocol)
        if "error" in r:
            print(f"{op} {label} m={m} {protocol}: {r['error']}", file=sys.stderr)
            break
        times[m] = r["time"]
        print(f"{op} {label:13} {protocol:6} m={m:>9} time {r['time']:.6g} us, {r['steps']} steps, wall {r['wall']:.1f} s", flush=True)
    if len(times) < len(simulated) or not any(words(op, s) > LIMIT[op] for s in SIZES[op]):
        return times, ext
    # The line through the largest size and half of it, both on the largest size's schedule (its
    # segments), checked at a quarter of it.
    m2 = max(times)
    m1, m0 = m2 // 2, m2 // 4
    t1, t0 = (run(op, algo, extra(m2), x, protocol) for x in (m1, m0))
    if "error" in t1 or "error" in t0:
        return times, ext
    b = (times[m2] - t1["time"]) / (m2 - m1)
    a = times[m2] - b * m2
    if abs(t0["time"] - (a + b * m0)) > 1e-6 * max(1.0, t0["time"]):
        print(f"{op} {label} {protocol}: not affine at m={m0} ({t0['time']} vs {a + b * m0}); no extension", file=sys.stderr)
        return times, ext
    for s in SIZES[op]:
        if words(op, s) > LIMIT[op]:
            ext[words(op, s)] = a + b * words(op, s)
    return times, ext


def main():
    table = {}
    for op, algos in ALGOS.items():
        for label, algo, extra in algos:
            best = {}  # m -> (time, protocol, extended)
            for protocol in PROTOCOLS:
                times, ext = measure(op, label, algo, extra, protocol)
                for m, t in list(times.items()) + list(ext.items()):
                    if m not in best or t < best[m][0]:
                        best[m] = (t, protocol, m in ext)
            table[(op, label)] = best
    write_outputs(table)


def size_text(b):
    for unit, k in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if b >= 2 ** k:
            return f"{b // 2 ** k} {unit}"
    return f"{b} B"


def write_outputs(table):
    os.makedirs("bench/out", exist_ok=True)
    short = {"ll": "LL", "ll128": "LL128", "simple": "S"}
    lines = []
    for op, algos in ALGOS.items():
        labels = [l for l, _, _ in algos if table.get((op, l))]
        lines.append(f"\n{op} on cluster-fattree {DIMS} (p = {P}): time in us under the fastest protocol (LL, LL128, S = Simple); "
                     "* the fastest; † affine extension\n")
        lines.append("| n | " + " | ".join(labels) + " | fastest |")
        lines.append("|---" * (len(labels) + 2) + "|")
        dat = open(f"bench/out/crossover_{op}.dat", "w")
        dat.write("# bytes " + " ".join(labels) + "\n")
        for s in SIZES[op]:
            m = words(op, s)
            cells = [table[(op, l)].get(m) for l in labels]
            best = min((c[0] for c in cells if c), default=None)
            row = ["–" if c is None else f"{c[0]:.4g} {short[c[1]]}{'†' if c[2] else ''}{' *' if c[0] == best else ''}" for c in cells]
            winner = next((l for l, c in zip(labels, cells) if c and c[0] == best), "–")
            lines.append(f"| {size_text(s)} | " + " | ".join(row) + f" | {winner} |")
            dat.write(f"{s} " + " ".join("nan" if c is None else f"{s / c[0] / 1e3:.6g}" for c in cells) + "\n")
        dat.close()
    open("bench/out/crossover.md", "w").write("\n".join(lines) + "\n")
    print("\n".join(lines))
    plot_svg()


def plot_svg():
    """docs/crossover-128x8.svg from bench/out/crossover_*.dat (`--plot`: again, without running)."""
    plot = f"""set terminal svg size 960,440 font 'sans,11'
set output 'docs/crossover-128x8.svg'
set multiplot layout 1,2 title 'NCCL algorithms on {P // 8} nodes x 8 (cluster-fattree {DIMS}), ppsim, every run verified; right of the dashed line: affine extension'
set logscale x 2
set logscale y 10
set format x '%L'
set format y '%g'
set xlabel 'log2 n (bytes, nccl-tests)'
set ylabel 'algbw (GB/s, model)'
set key top left
"""
    for op in ALGOS:
        with open(f"bench/out/crossover_{op}.dat") as f:
            labels = f.readline().split()[2:]
        edge = LIMIT[op] * 8 * (P if op == "allgather" else 1)
        plot += f"set title '{op}'\nset arrow 1 from {edge}, graph 0 to {edge}, graph 1 nohead dt 2\nplot " + ", ".join(
            f"'bench/out/crossover_{op}.dat' using 1:{i + 2} with linespoints pt {i + 1} ps 0.5 title '{l}'"
            for i, l in enumerate(labels)) + "\n"
    plot += "unset multiplot\n"
    open("bench/out/crossover.gp", "w").write(plot)
    subprocess.run(["gnuplot", "bench/out/crossover.gp"], check=True)


if __name__ == "__main__":
    plot_svg() if "--plot" in sys.argv else main()
