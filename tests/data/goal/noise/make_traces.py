#!/usr/bin/env python3
"""Writes the two OS-noise traces of this folder in LogGOPSim's --noise-trace format
(one event a line: `start<TAB>duration`, in ns; lines starting with `#` are comments).

- periodic_10us_2us.trace: a 2000 ns detour every 10000 ns, at 0, 10000, ..., 1000000.
- random.trace: 300 events from random.Random(20240601): gaps between starts 500..20000 ns,
  durations 50..5000 ns (so an event can overlap the next), starts strictly increasing; a
  comment line at the top and one after the 150th event.
- edges.trace: a few events placed for LogGOPSim's edge cases, last start 1000000 so that with
  --noise-cosched and LGS_NOISE_SEED=1 every rank's phase is 417021 = the first event's start:
  operations at t = 0 start exactly on the first event (not counted), rank 0's calc at t = 1000 in
  hw_calc_cpu.goal starts exactly on the second (counted), 420000 lies inside the long event at
  419500 (an operation that starts in the long one after 420100 gets nothing from it).

Usage: make_traces.py   (rewrites both files, byte for byte the same each time)
"""
import os, random

HERE = os.path.dirname(os.path.abspath(__file__))


def periodic():
    lines = ["# periodic OS noise: a 2000 ns detour every 10000 ns, starts 0..1000000 ns (101 events)"]
    lines += [f"{t}\t2000" for t in range(0, 1000001, 10000)]
    return lines


def rand():
    rng = random.Random(20240601)
    lines = ["# random OS noise: 300 events, gaps 500..20000 ns, durations 50..5000 ns "
             "(make_traces.py, seed 20240601)"]
    t = 0
    for i in range(300):
        t += rng.randint(500, 20000)
        lines.append(f"{t}\t{rng.randint(50, 5000)}")
        if i == 149:
            lines.append("# a comment in the middle of the trace (after the 150th event)")
    return lines


def edges():
    return ["# edge cases of LogGOPSim's get_noise; aligned for --noise-cosched, LGS_NOISE_SEED=1 "
            "(phase 417021 = int(mt19937(1)() / 2^32-1 * 1000000))",
            "417021\t300", "418021\t700", "419500\t5000", "420000\t100", "423000\t200",
            "430000\t1000", "500000\t50", "1000000\t10"]


def main():
    for name, lines in [("periodic_10us_2us.trace", periodic()), ("random.trace", rand()),
                        ("edges.trace", edges())]:
        with open(os.path.join(HERE, name), "w") as fh:
            fh.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
