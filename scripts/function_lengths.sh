#!/usr/bin/env bash
# The longest functions in host/, cuda/ and include/, as Universal Ctags (Debian package
# universal-ctags) reads them: lines from the signature to the closing brace, a lambda counted in
# the function around it. The project keeps every function at 80 lines or fewer.
#   scripts/function_lengths.sh [N]   the N longest (default 10)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v ctags >/dev/null || { echo "function_lengths: needs ctags (Debian package universal-ctags)" >&2; exit 2; }
ctags -R --fields=+ne --kinds-c++=f --languages=C++ --langmap=C++:+.cu.def -f - host cuda include |
  awk -F'\t' '{ ln = ""; en = ""
                for (i = 4; i <= NF; i++) { if ($i ~ /^line:/) ln = substr($i, 6); if ($i ~ /^end:/) en = substr($i, 5) }
                if (ln != "" && en != "") printf "%4d  %s:%s  %s\n", en - ln + 1, $2, ln, $1 }' |
  sort -rn | head -n "${1:-10}"
