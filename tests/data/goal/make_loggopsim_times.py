#!/usr/bin/env python3
"""Runs LogGOPSim (spcl/LogGOPSim, commit 76451de) on the GOAL files of this folder and
writes loggopsim_times.json: what LogGOPSim printed, per file and parameter set.

Usage: make_loggopsim_times.py LGS_BIN_DIR [INSTR_BINARY]
LGS_BIN_DIR holds txt2bin and LogGOPSim. INSTR_BINARY, if given, is LogGOPSim built with
counters (see README.md); its counts go to loggopsim_paths.json, never into the times.
"""
import json, os, re, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT = {"L": 2500, "o": 1500, "g": 1000, "G": 6, "O": 0, "S": 65535}
SETS = {
    "default": {},
    "L0": {"L": 0},
    "o0g0": {"o": 0, "g": 0},
    "G0": {"G": 0},
    "O25": {"O": 25},
    "S512": {"S": 512},
    "mix": {"L": 10000, "o": 100, "g": 3000, "G": 1, "O": 3, "S": 100},
    "S0": {"S": 0},
    "gbig": {"g": 4000, "G": 20},
}
ALL = list(SETS)
TIMEOUT = 20

# (a) the 11 files of shared/goal and (b) the hand-written and random ones: every set
A = ["allreduce_recdoub-p16-d1024.goal", "allreduce_ring-p8-d4096.goal",
     "binarytreebcast-p15-d100000.goal", "binomialtreebcast-p13-d1024.goal",
     "binomialtreebcast-p8-d8.goal", "binomialtreereduce-p13-d1024.goal",
     "dissemination-p16-d8.goal", "gather-p9-d256.goal", "linear_alltoall-p8-d64.goal",
     "pipelinedring-p8-d4096.goal", "scatter-p9-d256.goal"]
B = sorted(f for f in os.listdir(HERE) if f.startswith(("hw_", "rand_")) and f.endswith(".goal"))
# (c) larger schedgen outputs: default and two others, rotating
C = ["nwaydissemination-nway2-p17-d64.goal", "nwaydissemination-nway3-p31-d1024.goal",
     "nwaydissemination-nway2-p64-d8.goal", "doublering-p31-d4096.goal", "doublering-p100-d8.goal",
     "linbarrier-p17.goal", "linbarrier-p100.goal", "chained_dissem-p17-marker_calc0.goal",
     "pipelinedringdep-p17-d65536-seg8192-root5.goal", "pipelinedringdep-p31-d100000-seg30000.goal",
     "random_bisect-p64-d1024.goal", "linear_alltoallv-p17-d4096-root3.goal",
     "linear_alltoallv-p24-d100000-skew4.goal", "linear_alltoall-p17-d64.goal",
     "linear_alltoall-p31-d8.goal", "binomialtreereduce-p31-d2048-root5.goal",
     "binomialtreereduce-p100-d64-root37.goal", "gather-p17-d1000-root3.goal",
     "gather-p64-d100-root63.goal", "scatter-p31-d70000-root7.goal", "scatter-p100-d8-root1.goal",
     "binomialtreebcast-p100-d1024-root42.goal", "binarytreebcast-p64-d100000.goal",
     "binarytreebcast-p64-d100000-root9.goal", "dissemination-p100-d8.goal",
     "allreduce_recdoub-p64-d65536.goal", "allreduce_ring-p17-d4096.goal",
     "pipelinedring-p31-d8192-seg1024-root4.goal", "binomialtreebcast-nb-p17-d8-nb20000-cpu1.goal"]
# (d) and the other schedules LogGOPSim cannot run: default set only
D = ["allreduce_recdoub-p12-d1024.goal", "chained_dissem-p17.goal"]


def plan():
    out = []
    for f in A + B:
        out += [(f, s) for s in ALL]
    alt = [s for s in ALL if s != "default"]
    for i, f in enumerate(C):
        out += [(f, "default"), (f, alt[(2 * i) % len(alt)]), (f, alt[(2 * i + 1) % len(alt)])]
    out += [(f, "default") for f in D]
    return out


def run(binary, txt2bin, goal, params, td):
    b = os.path.join(td, "s.bin")
    r = subprocess.run([txt2bin, "-i", goal, "-o", b], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"txt2bin failed on {goal}: {r.stderr}")
    cmd = ["timeout", str(TIMEOUT), binary, "-f", b]
    for k in ["L", "o", "g", "G", "O", "S"]:
        cmd += ["-" + k, str(params[k])]
    return subprocess.run(cmd, capture_output=True, text=True)


def parse(r, f, params):
    out = r.stdout
    e = {"file": f, "params": params}
    if r.returncode == 124:
        e["does_not_finish"] = True
        e["timeout_s"] = TIMEOUT
        return e
    if r.returncode != 0:
        e["crashed"] = True
        how = f"killed by signal {-r.returncode}" if r.returncode < 0 else f"exit status {r.returncode}"
        e["error"] = f"LogGOPSim {how}; it printed {out.strip()!r}"
        return e
    hdr = re.search(r"^LogGP network backend; size: (\d+) \((\d+) CPUs, (\d+) NICs\); "
                    r"L=(\d+), o=(\d+) g=(\d+), G=(\d+), O=(\d+), P=\d+, S=(\d+)$", out, re.M)
    p, ncpus, nnics = int(hdr.group(1)), int(hdr.group(2)), int(hdr.group(3))
    assert [int(x) for x in hdr.groups()[3:]] == [params[k] for k in "LogGOS"], (f, params)
    e["p"], e["ncpus"], e["nnics"] = p, ncpus, nnics
    e["events"] = int(re.search(r"^PERFORMANCE: .*Events: (\d+)", out, re.M).group(1))
    q = [l for l in out.splitlines() if " queue on host " in l or l.startswith(" src: ")]
    if q:
        e["error"] = "\n".join(q)
        return e
    hosts = re.findall(r"^Host (\d+): (\d+)$", out, re.M)
    if hosts:
        assert p <= 16 and [int(h) for h, _ in hosts] == list(range(p))
        e["hosts"] = [int(t) for _, t in hosts]
        e["max"] = max(e["hosts"])
        e["max_host"] = e["hosts"].index(e["max"])
    else:
        m = re.search(r"^Maximum finishing time at host (\d+): (\d+) \(", out, re.M)
        assert p > 16 and m
        e["max"], e["max_host"] = int(m.group(2)), int(m.group(1))
    return e


def main():
    bindir = sys.argv[1]
    instr = sys.argv[2] if len(sys.argv) > 2 else None
    txt2bin, lgs = os.path.join(bindir, "txt2bin"), os.path.join(bindir, "LogGOPSim")
    times, paths = {}, {}
    with tempfile.TemporaryDirectory() as td:
        for f, s in plan():
            params = dict(DEFAULT, **SETS[s])
            goal = os.path.join(HERE, f)
            key = f"{f} {s}"
            times[key] = parse(run(lgs, txt2bin, goal, params, td), f, params)
            if instr and "does_not_finish" not in times[key] and "crashed" not in times[key]:
                r = run(instr, txt2bin, goal, params, td)
                m = re.search(r"INSTR wrap=(\d+) past=(\d+) unstable=(\d+)", r.stderr)
                w, pa, un = map(int, m.groups())
                if w or pa or un:
                    paths[key] = {"wraps": w, "past_events": pa, "unstable_batches": un}
    with open(os.path.join(HERE, "loggopsim_times.json"), "w") as fh:
        json.dump(times, fh, indent=1)
        fh.write("\n")
    if instr:
        with open(os.path.join(HERE, "loggopsim_paths.json"), "w") as fh:
            json.dump(paths, fh, indent=1)
            fh.write("\n")
    print(len(times), "entries")


if __name__ == "__main__":
    main()
