#!/usr/bin/env python3
"""What each unit of a build cost to compile, read from the build folder's .ninja_log.

    python3 bench/compile_times.py [BUILD] [--top N] [--by folder|unit] [--target NAME]

BUILD is the build folder (default: build). Prints the units, longest first, with their seconds
of wall time as ninja measured them (one core each), their share of the sum, and the sum: the
CPU-seconds a build from nothing spends compiling. `--by folder` sums them per source folder
(host/cpu, host/cli, cuda, tests, ...). `--target` keeps the units of one CMake target (ppsim_core,
ppsim_cli, ...). Only the latest build of each output counts: a unit rebuilt twice is counted once,
at its last time. Run it after a build from nothing to see what a newcomer's first build pays for,
and after adding a feature to see what the feature costs.
"""
import argparse
import os
import re
import sys


def read_log(path):
    """{output: seconds} for the latest build of every output in a .ninja_log (format v5 or v6)."""
    latest = {}
    with open(path, encoding="utf-8") as f:
        header = f.readline()
        if not header.startswith("# ninja log v"):
            raise SystemExit("compile_times: %s is not a ninja log" % path)
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if len(fields) < 4:
                continue
            start, end, output = int(fields[0]), int(fields[1]), fields[3]
            latest[output] = (end - start) / 1000.0
    return latest


def unit_name(output):
    """(source, CMake target) of a compile output, or None for a link or a copy. A source is named
    from the repository's top (tests/test_cli.cpp); a unity or precompiled-header unit by its target."""
    m = re.match(r"(?:(.*)/)?CMakeFiles/([^/]+)\.dir/(.*)\.(?:o|obj|gch)$", output)
    if not m:
        return None
    folder, target, rest = m.group(1) or "", m.group(2), m.group(3)
    if rest.startswith("Unity/"):
        return "%s (unity %s)" % (target, re.sub(r"^Unity/unity_(.*)_cxx\.cxx$", r"\1", rest)), target
    if rest.startswith("cmake_pch"):
        return "%s (precompiled header)" % target, target
    return os.path.join(folder, rest), target


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build", nargs="?", default="build")
    parser.add_argument("--top", type=int, default=25, help="rows to print (0: all)")
    parser.add_argument("--by", choices=("unit", "folder"), default="unit")
    parser.add_argument("--target", help="only the units of this CMake target")
    args = parser.parse_args()
    log = os.path.join(args.build, ".ninja_log")
    if not os.path.isfile(log):
        print("compile_times: no %s (build with Ninja first)" % log, file=sys.stderr)
        return 2
    rows = {}
    for output, seconds in read_log(log).items():
        named = unit_name(output)
        if named is None:
            continue
        name, target = named
        if args.target and target != args.target:
            continue
        key = (os.path.dirname(name) or name) if args.by == "folder" else name
        rows[key] = rows.get(key, 0.0) + seconds
    total = sum(rows.values())
    if not rows:
        print("compile_times: nothing compiled in %s%s" % (log, " for " + args.target if args.target else ""), file=sys.stderr)
        return 2
    ordered = sorted(rows.items(), key=lambda kv: -kv[1])
    shown = ordered if args.top == 0 else ordered[: args.top]
    width = max(len(k) for k, _ in shown)
    print("%-*s %9s %7s" % (width, args.by, "seconds", "share"))
    for name, seconds in shown:
        print("%-*s %9.1f %6.1f%%" % (width, name, seconds, 100.0 * seconds / total))
    if len(shown) < len(ordered):
        rest = sum(s for _, s in ordered[len(shown):])
        print("%-*s %9.1f %6.1f%%" % (width, "(%d more)" % (len(ordered) - len(shown)), rest, 100.0 * rest / total))
    print("%-*s %9.1f" % (width, "sum (CPU-seconds compiling)", total))
    return 0


if __name__ == "__main__":
    sys.exit(main())
