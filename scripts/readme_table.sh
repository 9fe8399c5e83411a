#!/usr/bin/env bash
# Rewrites README.md's algorithm table with `ppsim list --markdown` (the registry is its source;
# tests/test_cli.cpp checks that every row is there). Usage: scripts/readme_table.sh [path/to/ppsim]
set -euo pipefail
cd "$(dirname "$0")/.."
ppsim="${1:-build/ppsim}"
table="$("$ppsim" list --markdown)"
TABLE="$table" python3 - <<'PY'
import os
lines = open("README.md").read().split("\n")
start = next(i for i, l in enumerate(lines) if l.startswith("| operation | algorithm | runs on"))
end = start
while end < len(lines) and lines[end].startswith("|"):
    end += 1
lines[start:end] = os.environ["TABLE"].rstrip("\n").split("\n")
open("README.md", "w").write("\n".join(lines))
PY
