"""Allgather on a ring and on a hypercube, p = 4 .. 256: simulated time against p, the closed form
dashed beside it. Writes sweep_plot.png into the folder given (default: a new temporary folder)."""

import os
import sys
import tempfile

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

import ppsim


def main(out_dir):
    rows = ppsim.sweep(op="allgather", topology=["ring", "hypercube"], p="2^2..2^8", m=16,
                       algo=["allgather_ring", "allgather_hypercube"], ts=10, tw=1)
    curves = {}
    for row in rows:
        if row["status"] == "ok":
            curves.setdefault((row["topology"], row["algo"]), []).append((row["p"], row["time"], row["formula_time"]))
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for (topology, algo), points in sorted(curves.items()):
        p, time, formula = zip(*points)
        line, = ax.plot(p, time, marker="o", label=f"{algo} on {topology}")
        ax.plot(p, formula, linestyle="--", color=line.get_color())
    ax.set(xscale="log", yscale="log", xlabel="p (processors)", ylabel="time (t_s = 10, t_w = 1, m = 16 words)",
           title="allgather: simulated (solid) and closed form (dashed)")
    ax.legend()
    path = os.path.join(out_dir, "sweep_plot.png")
    fig.savefig(path, dpi=100)
    print(path)
    return path


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="ppsim-"))
