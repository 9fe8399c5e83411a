#!/usr/bin/env python3
"""The include graph points one way (docs/DESIGN.md §8): a file includes only files of its own
layer or of layers below it. Prints every include that runs back up, and exits 1 if there is one.

The layers, lowest first; a file belongs to the first layer whose folder holds it. The backends
(cpu/, cuda/, loggp/) share a layer and must not include one another.
"""
import os
import re
import sys

LAYERS = [
    ("public headers", ["include/ppsim/"]),
    ("input files", ["host/io/"]),
    ("machine model", ["host/machine/"]),
    ("algorithms", ["host/algorithms/", "host/pram/"]),
    ("step rules", ["host/rules/"]),
    ("backends", ["host/cpu/", "cuda/", "host/loggp/"]),
    ("schedule languages", ["host/goal/", "host/msccl/"]),
    ("distributed", ["host/dist/"]),
    ("run", ["host/run/"]),
    ("presentation", ["host/report/"]),
    ("studies", ["host/study/"]),
    ("command line", ["host/cli/"]),
    ("programs", ["python/", "bench/", "fuzz/", "tests/"]),
]
# Folders an include is looked up in (CMake's include directories), after the including file's own.
SEARCH = ["include", "host", "cuda", "host/cli"]
# Includes allowed to run back up, each with the reason docs/DESIGN.md gives: (from, to, why).
ALLOWED = []


def layer_of(path):
    for index, (_, folders) in enumerate(LAYERS):
        if any(path.startswith(f) for f in folders):
            return index
    return None


def folder_of(path):
    return next(f for _, folders in LAYERS for f in folders if path.startswith(f))


def resolve(root, including, name):
    for folder in [os.path.dirname(including)] + SEARCH:
        candidate = os.path.normpath(os.path.join(folder, name))
        if os.path.isfile(os.path.join(root, candidate)):
            return candidate
    return None


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    sources = []
    for top in ("include", "host", "cuda", "python", "bench", "fuzz", "tests"):
        for folder, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                if f.endswith((".h", ".cpp", ".cu", ".def")):
                    sources.append(os.path.relpath(os.path.join(folder, f), root))
    up, checked = [], 0
    for src in sorted(sources):
        here = layer_of(src)
        with open(os.path.join(root, src), encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                if not m:
                    continue
                target = resolve(root, src, m.group(1))
                if target is None:
                    continue
                checked += 1
                there = layer_of(target)
                if here is None or there is None or (src, target) in [(a, b) for a, b, _ in ALLOWED]:
                    continue
                peer = here == there and LAYERS[here][0] == "backends" and folder_of(target) != folder_of(src)
                if there > here or peer:
                    up.append("%s:%d includes %s (%s -> %s)" % (src, number, target, LAYERS[here][0], LAYERS[there][0]))
    for line in up:
        print(line)
    print("%d includes checked, %d run back up" % (checked, len(up)))
    return 1 if up else 0


if __name__ == "__main__":
    sys.exit(main())
