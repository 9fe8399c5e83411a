#!/usr/bin/env python3
"""Random argument lists over every subcommand of ppsim, seeded (`make sanitize` runs it against
the AddressSanitizer + UndefinedBehaviorSanitizer build).

Each run gets a subcommand, a few of its options (read from its --help, so new options are covered
without editing this file) with values drawn from valid ones and from the bad and extreme ones a
probe found (empty, negative, leading zeros, overflowing, non-finite, trailing commas, unknown
names, paths to folders, links, missing folders, /dev/full and a device node; inputs that are
/dev/zero, a FIFO, a folder, a malformed or huge GOAL file, MSCCL program or noise trace; failures,
stragglers and noise specifications good and bad), and sometimes a stray word. A run passes when
it ends by exit 0, or 1 (a GOAL schedule or MSCCL program that cannot finish, or a wrong MSCCL
result), or 2 with exactly one line on stderr; it fails when it ends by a signal, an uncaught
exception, a sanitizer report or a hang (over --timeout seconds), or when a refusal is not one
line.

Everything a run writes lands in a temporary folder; nothing outside it is touched but /dev/full
(and /dev/zero, only opened).
Exit status: 0 when every run passed, 1 otherwise; the counts go to stdout.
"""
import argparse
import collections
import concurrent.futures
import os
import random
import re
import stat
import subprocess
import sys
import tempfile

TOPOLOGIES = ["linear", "ring", "mesh", "torus", "hypercube", "full", "star", "tree", "bintree", "binomial", "fattree", "dragonfly",
              "cluster", "cluster-fattree"]
OPERATIONS = ["broadcast", "reduce", "allreduce", "allgather", "reduce_scatter", "scan", "scatter", "gather", "alltoall", "shift",
              "barrier", "multicast", "kbroadcast", "kscatter", "MPI_Allreduce"]
BAD_WORDS = ["", " ", "-", "--", "x", "moebius", "ring,", ",ring", "a,,b", "\u00e9", "\t", "0x10", "1e3", "-0", "+1"]
INTS = ["0", "1", "2", "3", "8", "17", "64", "1000", "2^10", "-1", "-9223372036854775808", "2^62", "2^63", "99999999999999999999",
        "010", "1.5", "", "x", "2^", "^3", "1,2"]
REALS = ["0", "1", "0.5", "2", "10", "-1", "1e308", "1e999", "1e-320", "inf", "nan", "", "01.5", ".5", "1.", "x", "1,2"]
PROCESSORS = ["1", "2", "3", "4", "8", "16", "17", "64", "256", "1000", "1024", "2^12", "0", "-8", "010", "8,", "8,16",
              "2^2..2^6", "10..100:10", "2^40", "2^62", "2^2..2^62", "1..2^40:1", ""]
# Sizes stay small or absurd: the runs are to find crashes, not to take minutes (under the
# sanitizers, an allgather at p = 2^10 and m = 2^10 would).
SIZES = ["1", "2", "4", "8", "64", "0", "-1", "1,2,4", "1..64", "1..64:1", "2^44", "2^62", ""]
DIMS = ["4x4", "2x2x2", "3x5", "8x8", "4x2", "4x", "x4", "0x4", "2x2x2x2x2x2x2x2x2", "65536x65536", "4x4,8x8", "1x4", "2x4x2", "2x8x8x2",
        ""]
# The options that perturb a run, and the AI-cluster ones: valid values and the bad ones a probe found.
FAILS = ["proc:1@1", "link:0-1@1", "proc:1@1,link:2-3@2", "proc:2^2@1", "proc:04@1", "proc:1@01", "proc:9999@1", "proc:-1@1", "proc:1@0",
         "proc:1@99", "link:0-0@1", "link:0-99999@1", "link:0-1", "node:1@1", "proc:1@1,", ",".join("proc:%d@1" % i for i in range(9)), ""]
STRAGGLERS = ["1", "1,3", "0,1,2,3", "2^2", "03", "1,,2", "-1", "99999", "2^70", "1.5%", "100%", "0%", "101%", "01.5%", "x%", "%", ""]
NOISE = ["periodic:1000:25000", "periodic:200000:700", "random:1000:5000", "periodic:01000:5", "periodic:0x10:5", "periodic:1e9:5",
         "periodic:1000:1e12", "random:0:5", "periodic:1000", "white:1:1", ""]


def help_options(ppsim, command):
    """{option: kind} of `ppsim COMMAND --help`: kind is TEXT, INT, FLOAT, FLAG or a count of words."""
    text = subprocess.run([ppsim, command, "--help"], capture_output=True, text=True, timeout=60).stdout
    options = {}
    for line in text.splitlines():
        m = re.match(r"\s+(--[\w-]+)(?:\s+(TEXT|INT|FLOAT)(?:=\S*)?(?:\s+x\s+(\d+))?)?\s", line + " ")
        if not m or m.group(1) == "--help":
            continue
        options[m.group(1)] = m.group(3) or m.group(2) or "FLAG"
    return options


class Workspace:
    """The folder the runs write in, and the inputs some options read."""

    def __init__(self, root):
        self.root = root
        os.mkdir(os.path.join(root, "folder"))
        with open(os.path.join(root, "old.json"), "w") as f:
            f.write("old\n")
        os.symlink("old.json", os.path.join(root, "link.json"))
        os.symlink("missing/x.json", os.path.join(root, "dangling.json"))
        goal = "num_ranks 2\nrank 0 {\nl1: send 8b to 1 tag 1\n}\nrank 1 {\nl1: recv 8b from 0 tag 1\n}\n"
        msccl = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "msccl", "allreduce_ring_2ch.xml")).read()
        files = {"ok.goal": goal, "bom.goal": "\ufeff" + goal, "empty.goal": "", "bad.goal": "num_ranks 2\nrank 0 {\nl1: jump\n}\n",
                 "stuck.goal": "num_ranks 2\nrank 0 {\nl1: recv 8b from 1 tag 1\n}\nrank 1 {\nl1: recv 8b from 0 tag 1\n}\n",
                 "huge.goal": "num_ranks 99999999999\n", "binary.goal": "\x00\x01\xff\xfe",
                 "ok.xml": msccl, "two.xml": msccl + msccl, "stuck.xml": msccl.replace('type="s"', 'type="r"'),
                 "huge.xml": re.sub(r'i_chunks="\d+"', 'i_chunks="4294967296"', msccl), "bad.xml": "<algo name=", "empty.xml": "",
                 "ok.trace": "0\t1000\n100000\t1000\n", "wrap.trace": "".join("%d\t3074457345618259456\n" % (i * 100) for i in range(64)),
                 "bad.trace": "0\t1\n5\n", "down.trace": "10\t1\n5\t1\n", "empty.trace": ""}
        for name, text in files.items():
            with open(os.path.join(root, name), "w", encoding="utf-8", errors="surrogateescape") as f:
                f.write(text)
        os.mkfifo(os.path.join(root, "fifo"))  # an input nobody writes to (outputs never name it: it would block)
        self.device = None
        try:  # a device node of our own (the null device's numbers), never /dev/null itself
            os.mknod(os.path.join(root, "null"), 0o666 | stat.S_IFCHR, os.makedev(1, 3))
            self.device = "null"
        except OSError:
            pass

    def outputs(self):
        paths = ["-", "out.json", "out.csv", "out.svg", "out.png", "out.dot", "out.goal", "out.txt", "folder", "folder/x.json",
                 "missing/x.json", "link.json", "dangling.json", "/dev/full", "", "a b.json", "out"]
        return paths + ([self.device] if self.device else [])


def value_for(rng, option, kind, ws):
    if option in ("--topology", "--logical"):
        return rng.choice(TOPOLOGIES + BAD_WORDS + ["ring,hypercube", "mesh,torus"])
    if option == "--op":
        return rng.choice(OPERATIONS + BAD_WORDS + ["allreduce,broadcast"])
    if option in ("--p", "--n") and kind == "TEXT":
        return rng.choice(PROCESSORS)
    if option in ("--m", "--lambda") and kind == "TEXT":
        return rng.choice(SIZES)
    if option in ("--dims", "--logical-dims"):
        return rng.choice(DIMS)
    if option == "--algo":
        return rng.choice(ws.algorithms + BAD_WORDS + ["all", ",".join(rng.sample(ws.algorithms, 2))])
    if option == "--inter":
        return rng.choice(ws.algorithms + BAD_WORDS)
    if option == "--combine":
        return rng.choice(["sum", "prod", "min", "max", "and", "or", "xor", "affine", "interval", "fsum", "fsum32", "avg", ""])
    if option == "--ports":
        return rng.choice(["single", "half-duplex", "telephone", "all", "1", "2", "4", "32", "33", "0", "-1", "", "single,all"])
    if option == "--input":
        return rng.choice(["iota", "random:1", "random:7:-1:1", "random:1:1:0", "random:1:inf:2", "random:", "random:x", "zeros", ""])
    if option == "--goal":
        return rng.choice(["ok.goal", "bom.goal", "empty.goal", "bad.goal", "stuck.goal", "huge.goal", "binary.goal", "missing.goal",
                           "folder", "fifo", "/dev/zero", ""])
    if option == "--msccl":
        return rng.choice(["ok.xml", "two.xml", "stuck.xml", "huge.xml", "bad.xml", "empty.xml", "ok.goal", "missing.xml", "folder", "fifo",
                           "/dev/zero", ""])
    if option == "--noise-trace":
        return rng.choice(["ok.trace", "wrap.trace", "bad.trace", "down.trace", "empty.trace", "missing.trace", "folder", "fifo", "/dev/zero", ""])
    if option == "--noise":
        return rng.choice(NOISE)
    if option == "--noise-phases":
        return rng.choice(["ppsim", "loggopsim", "x", ""])
    if option == "--fail":
        return rng.choice(FAILS)
    if option == "--stragglers":
        return rng.choice(STRAGGLERS)
    if option == "--straggler-factor":
        return rng.choice(REALS + ["1.5", "3", "1e6", "1e7"])
    if option == "--protocol":
        return rng.choice(["simple", "ll", "ll128", "ll256", ""])
    if option in ("--json", "--out", "--csv", "--jsonl", "--plot", "--html", "--timeline"):
        return rng.choice(ws.outputs())
    if option in ("--ts", "--tw", "--th") and kind == "TEXT":
        return rng.choice(REALS + ["1,2", "0,1e308"])
    if option == "--tw-class":
        return rng.choice(["link=2", "global=4", "terminal=1,global=2", "link=", "=2", "link=-1", "link=inf", "nope=1", ""])
    if option in ("--machine",):
        return rng.choice(["network", "pram-erew", "pram-crew", "pram-crcw-common", "pram-crcw-priority", "pram-x", ""])
    if option in ("--map",):
        return rng.choice(["identity", "gray", "snake", "spiral", ""])
    if option in ("--routing",):
        return rng.choice(["cut-through", "store-and-forward", "wormhole", ""])
    if option in ("--backend",):
        return rng.choice(["cpu", "cuda", "auto", "tpu", ""])
    if option in ("--model",):
        return rng.choice(["linear", "loggp", "logp", ""])
    if option in ("--kind",):
        return rng.choice(["messages", "spacetime", "heatmap", "pie", ""])
    if option in ("--format",):
        return rng.choice(["dot", "svg", "png", "gif", ""])
    if option in ("--plot-y",):
        return rng.choice(["time", "steps", "speedup", "efficiency", "cost", "joy", ""])
    if option in ("--jobs", "--threads"):
        return rng.choice(["0", "1", "2", "-1", "100000", "2^31", ""])
    if option == "--time-limit":
        return rng.choice(["60", "0.01", "0", "-1", "1e308", "inf", ""])
    if kind == "INT":
        return rng.choice(INTS)
    if kind == "FLOAT":
        return rng.choice(REALS)
    return rng.choice(BAD_WORDS + ["1", "8", "ring"])


def arguments(rng, commands, ws):
    command = rng.choice(sorted(commands))
    options = commands[command]
    args = [command]
    for option in rng.sample(sorted(options), min(len(options), rng.randint(0, 7))):
        kind = options[option]
        if kind == "FLAG":
            args.append(option)
        elif kind.isdigit():
            args.append(option)
            args += [rng.choice(["ompi-rules", "mpich-json", "xml", ""])] + [rng.choice(ws.outputs()) for _ in range(int(kind) - 1)]
        else:
            args += [option, value_for(rng, option, kind, ws)]
    # A run of a file, or one under LogGP with noise, now and then: few random lists would reach them.
    if command == "run" and rng.random() < 0.1:
        args += rng.choice([["--msccl", value_for(rng, "--msccl", "TEXT", ws)], ["--goal", value_for(rng, "--goal", "TEXT", ws)],
                            ["--model", "loggp", "--noise-trace", value_for(rng, "--noise-trace", "TEXT", ws)],
                            ["--model", "loggp", "--timeline", rng.choice(ws.outputs()), "--json", rng.choice(ws.outputs())]])
    if command in ("run", "view") and rng.random() < 0.1:
        args += rng.choice([["--fail", rng.choice(FAILS)], ["--stragglers", rng.choice(STRAGGLERS)], ["--topology", "cluster"]])
    # Processors most of the time, else most runs stop at the first check.
    if command in ("run", "sweep", "best", "draw", "view", "goal") and "--p" not in args and "--dims" not in args and rng.random() < 0.8:
        args += ["--p", rng.choice(["4", "8", "16", "64"])]
    if rng.random() < 0.05:
        args.insert(rng.randint(1, len(args)), rng.choice(BAD_WORDS + ["--bogus", "--p", "stray"]))
    if command in ("best", "sweep") and rng.random() < 0.7:
        args.append("--quiet")
    if command in ("best", "sweep") and "--time-limit" not in args and rng.random() < 0.8:
        args += ["--time-limit", "1"]
    return args


def verdict(code, err, args):
    """Why a run failed, or None when it passed."""
    for sign in ("terminate called", "AddressSanitizer", "LeakSanitizer", "runtime error:", "Segmentation fault"):
        if sign in err:
            return "report: " + sign
    if code is None:
        return "hang"
    if code < 0:
        return "signal %d" % -code
    if code == 2:
        lines = err.count("\n")
        if lines != 1 or not err.startswith("ppsim: "):
            return "refusal of %d lines" % lines
        return None
    if code == 1 and ("--goal" in args or "--msccl" in args):  # a schedule or program that cannot finish
        return None
    if code == 0:
        return None
    return "exit %d" % code


def run_one(ppsim, args, cwd, timeout):
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:exitcode=99", UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=98")
    try:
        p = subprocess.run([ppsim] + args, cwd=cwd, capture_output=True, timeout=timeout, env=env, stdin=subprocess.DEVNULL)
        return p.returncode, p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return None, ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ppsim", required=True, help="the ppsim program to run")
    parser.add_argument("--runs", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--timeout", type=float, default=300, help="seconds a run may take before it counts as a hang")
    a = parser.parse_args()
    ppsim = os.path.abspath(a.ppsim)
    commands = {c: help_options(ppsim, c) for c in ("list", "run", "sweep", "best", "draw", "view", "bounds", "goal")}
    listing = subprocess.run([ppsim, "list"], capture_output=True, text=True).stdout
    rng = random.Random(a.seed)
    with tempfile.TemporaryDirectory(prefix="ppsim-fuzz-args-") as root:
        ws = Workspace(root)
        ws.algorithms = re.findall(r"^  (\w+)  \[", listing, re.M)
        runs = [arguments(rng, commands, ws) for _ in range(a.runs)]
        codes, failures = collections.Counter(), []
        with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
            for args, (code, err) in zip(runs, pool.map(lambda r: run_one(ppsim, r, root, a.timeout), runs)):
                codes["hang" if code is None else code] += 1
                why = verdict(code, err, args)
                if why:
                    failures.append((why, args, err))
        if ws.device and not stat.S_ISCHR(os.stat(os.path.join(root, ws.device)).st_mode):
            failures.append(("the device node was replaced", [], ""))
    print("ppsim fuzz_args: %d runs (seed %d): %s" % (a.runs, a.seed, ", ".join("exit %s: %d" % kv for kv in sorted(codes.items(), key=str))))
    for why, args, err in failures[:20]:
        print("FAIL (%s): ppsim %s\n  %s" % (why, " ".join(repr(x) if (not x or " " in x) else x for x in args), err.strip()[:500]))
    print("%d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
