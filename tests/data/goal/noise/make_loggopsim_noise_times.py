#!/usr/bin/env python3
"""Runs LogGOPSim (spcl/LogGOPSim at 76451de, with loggopsim_seed.patch: the noise phases are
drawn from std::mt19937 seeded with $LGS_NOISE_SEED) on GOAL schedules of the folder above with
the OS-noise traces of this folder, and writes loggopsim_noise_times.json.

Usage: make_loggopsim_noise_times.py LGS_BIN TXT2BIN
LGS_BIN is the patched LogGOPSim binary, TXT2BIN its txt2bin. See README.md.
"""
import json, os, re, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
GOAL = os.path.dirname(HERE)
DEFAULT = {"L": 2500, "o": 1500, "g": 1000, "G": 6, "O": 0, "S": 65535}
SETS = {
    "default": {},
    "mix": {"L": 10000, "o": 100, "g": 3000, "G": 1, "O": 3, "S": 100},
}
FILES = ["allreduce_recdoub-p16-d1024.goal", "binomialtreebcast-p13-d1024.goal",
         "dissemination-p16-d8.goal", "allreduce_ring-p8-d4096.goal", "hw_calc_cpu.goal"]
TRACES = ["periodic_10us_2us.trace", "random.trace", "edges.trace"]
SEEDS = [1, 42]
TIMEOUT = 20


def plan():
    out = []
    for f in FILES:
        for s in ["default"] + (["mix"] if f.startswith("allreduce_recdoub") else []):
            for t in TRACES:
                for cosched in (False, True):
                    for seed in SEEDS:
                        out.append((f, t, cosched, seed, s))
    return out


class MT19937:
    """std::mt19937 with a 32-bit seed (the constructor's seeding), for the phases only."""
    def __init__(self, seed):
        self.mt = [seed & 0xffffffff]
        for i in range(1, 624):
            self.mt.append((1812433253 * (self.mt[-1] ^ (self.mt[-1] >> 30)) + i) & 0xffffffff)
        self.i = 624

    def __call__(self):
        if self.i >= 624:
            mt = self.mt
            for k in range(624):
                y = (mt[k] & 0x80000000) | (mt[(k + 1) % 624] & 0x7fffffff)
                mt[k] = mt[(k + 397) % 624] ^ (y >> 1) ^ (0x9908b0df if y & 1 else 0)
            self.i = 0
        y = self.mt[self.i]
        self.i += 1
        y ^= y >> 11
        y ^= (y << 7) & 0x9d2c5680
        y ^= (y << 15) & 0xefc60000
        return y ^ (y >> 18)


def phases(seed, trctime, p, cosched):
    """ranktime[] as Noise.hpp computes it (the first draw is always the cosched one)."""
    r = MT19937(seed)
    co = int(r() / 4294967295.0 * float(trctime))
    return [co if cosched else int(r() / 4294967295.0 * float(trctime)) for _ in range(p)]


def run(lgs, txt2bin, goal, params, td, trace=None, cosched=False, seed=None):
    b = os.path.join(td, "s.bin")
    r = subprocess.run([txt2bin, "-i", goal, "-o", b], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"txt2bin failed on {goal}: {r.stderr}")
    cmd = ["timeout", str(TIMEOUT), lgs, "-f", b]
    for k in ["L", "o", "g", "G", "O", "S"]:
        cmd += ["-" + k, str(params[k])]
    env = dict(os.environ)
    env.pop("LGS_NOISE_SEED", None)
    if trace:
        cmd += ["--noise-trace", os.path.join(HERE, trace)] + (["--noise-cosched"] if cosched else [])
        env["LGS_NOISE_SEED"] = str(seed)
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise SystemExit(f"LogGOPSim failed ({r.returncode}) on {cmd}: {r.stdout[-2000:]}")
    return r.stdout


def parse(out, params):
    hdr = re.search(r"^LogGP network backend; size: (\d+) \((\d+) CPUs, (\d+) NICs\); "
                    r"L=(\d+), o=(\d+) g=(\d+), G=(\d+), O=(\d+), P=\d+, S=(\d+)$", out, re.M)
    assert [int(x) for x in hdr.groups()[3:]] == [params[k] for k in "LogGOS"]
    p = int(hdr.group(1))
    assert not re.search(r" queue on host ", out), out
    hosts = re.findall(r"^Host (\d+): (\d+)$", out, re.M)
    assert p <= 16 and [int(h) for h, _ in hosts] == list(range(p))
    hosts = [int(t) for _, t in hosts]
    events = int(re.search(r"^PERFORMANCE: .*Events: (\d+)", out, re.M).group(1))
    return p, hosts, events


def main():
    lgs, txt2bin = sys.argv[1], sys.argv[2]
    res = {}
    with tempfile.TemporaryDirectory() as td:
        quiet = {}
        for f, t, cosched, seed, s in plan():
            params = dict(DEFAULT, **SETS[s])
            goal = os.path.join(GOAL, f)
            if (f, s) not in quiet:
                out = run(lgs, txt2bin, goal, params, td)
                assert "Noisegen" not in out and "noise per rank" not in out
                quiet[(f, s)] = parse(out, params)
            _, qhosts, qevents = quiet[(f, s)]
            out = run(lgs, txt2bin, goal, params, td, t, cosched, seed)
            p, hosts, events = parse(out, params)
            m = re.search(r"^Noisegen: read (\d+) noise events spanning (\S+)s \((independent|coscheduling)\)$",
                          out, re.M)
            assert m and m.group(3) == ("coscheduling" if cosched else "independent")
            npr = re.search(r"^noise per rank: ((?:\d+,)*)$", out, re.M)
            npr = [int(x) for x in npr.group(1).split(",") if x]
            assert len(npr) == p
            # trctime is the start of the reader's last entry: the last event's start (see README)
            lines = [l for l in open(os.path.join(HERE, t)).read().split("\n") if l and not l.startswith("#")]
            trctime = int(lines[-1].split("\t")[0])
            assert int(m.group(1)) == len(lines) + 1
            key = f"{f} {t} {'cosched' if cosched else 'indep'} seed={seed} {s}"
            res[key] = {
                "file": f, "trace": t, "cosched": cosched, "seed": seed, "set": s, "params": params,
                "p": p, "hosts": hosts, "max": max(hosts), "max_host": hosts.index(max(hosts)),
                "events": events, "noise_per_rank": npr,
                "noise_events_read": int(m.group(1)), "trctime": trctime,
                "phases": phases(seed, trctime, p, cosched),
                "noiseless_hosts": qhosts, "noiseless_max": max(qhosts), "noiseless_events": qevents,
            }
    with open(os.path.join(HERE, "loggopsim_noise_times.json"), "w") as fh:
        json.dump(res, fh, indent=1, sort_keys=True)
        fh.write("\n")
    print(len(res), "entries")


if __name__ == "__main__":
    main()
