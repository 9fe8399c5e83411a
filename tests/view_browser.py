#!/usr/bin/env python3
"""`ppsim view`'s pages in a real browser: Debian's Chromium, headless, loads each page from a file
with JavaScript on and dumps the DOM the script built. For each page: no script error, the script
ran to its end, the processors drawn are p (detail) or the sample (aggregates), the messages the
page shows at a step are those `ppsim run --json` reports for that step, a processor that holds
nothing yet shows "-" in its panel (as --trace), and its last step says verified with the summary
the CLI prints.

    python3 tests/view_browser.py PPSIM [--screenshots DIR]

Exit 77 (CTest: skipped) when there is no Chromium. --screenshots also writes the pictures of
docs/ (a hypercube broadcast step, a mesh all-to-all heat map).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

CASES = [
    # name, the options of run, the steps looked at, the processors the page draws (None: p)
    ("hypercube-broadcast", "--topology hypercube --p 16 --op broadcast", [1, 3, 4], None),
    ("ring-on-mesh", "--logical ring --topology mesh --dims 4x4 --p 16 --map snake --op allgather", [2, 15], None),
    ("torus-alltoall", "--topology torus --dims 4x4 --op alltoall --algo alltoall_xor_ecube", [5], None),
    ("postal-broadcast", "--topology full --p 32 --op broadcast --algo broadcast_postal --lambda 3", [3], None),
    ("mesh-alltoall-heat", "--topology mesh --dims 32x32 --op alltoall --algo alltoall_xor_ecube", [1, 700], 64),
]


def browser():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    return None


def chromium(exe, profile, url, extra):
    cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run", "--user-data-dir=" + profile,
           "--virtual-time-budget=4000"] + extra + [url]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def attr(dom, element_id, name):
    tag = re.search(r'<[^>]*\bid="%s"[^>]*>' % re.escape(element_id), dom)
    if not tag:
        return None
    value = re.search(r'\b%s="([^"]*)"' % re.escape(name), tag.group(0))
    return value.group(1) if value else None


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[-3], file=sys.stderr)
        return 2
    ppsim = sys.argv[1]
    shots = sys.argv[sys.argv.index("--screenshots") + 1] if "--screenshots" in sys.argv else None
    exe = browser()
    if not exe:
        print("view_browser: no Chromium (scripts/setup.sh installs Debian's chromium): skipped")
        return 77
    failures = []
    work = tempfile.mkdtemp(prefix="ppsim_view_browser_")
    try:
        profile = os.path.join(work, "profile")
        for name, options, steps, drawn in CASES:
            page = os.path.join(work, name + ".html")
            report = os.path.join(work, name + ".json")
            made = subprocess.run([ppsim, "view", *options.split(), "--html", page, "--json", report], capture_output=True, text=True)
            if made.returncode != 0:
                failures.append("%s: ppsim view exited %d: %s" % (name, made.returncode, made.stderr.strip()))
                continue
            doc = json.load(open(report))
            p, per_step = int(doc["config"]["p"]), doc["per_step"]
            for step in steps + ["last"]:
                dom = chromium(exe, profile, "file://%s?step=%s" % (page, step), ["--dump-dom"]).stdout
                where = "%s, step %s" % (name, step)
                body = re.search(r"<body[^>]*>", dom)
                if not body or 'data-state="ready"' not in body.group(0):
                    failures.append(where + ": the page's script did not run to its end")
                    continue
                if 'data-errors="0"' not in body.group(0):
                    failures.append(where + ": script errors: " + re.sub(r"<[^>]+>", "", dom[dom.find('id="errors"'):][:300]))
                circles = len(re.findall(r'<circle[^>]*class="[^"]*\bproc\b[^"]*"[^>]*data-proc="\d+"', dom))
                if drawn is None:
                    want = p
                    if "--logical" in options:  # the logical ring and the physical mesh: p each
                        want = 2 * p
                else:
                    want = drawn
                if circles != want:
                    failures.append("%s: %d processors drawn, expected %d" % (where, circles, want))
                if step == "last":
                    if attr(dom, "badge", "data-verified") != "true":
                        failures.append(where + ": the page does not say verified")
                    summary = re.search(r'<section id="summary"([^>]*)>(.*?)</section>', dom, re.S)
                    if not summary or "hidden" in summary.group(1) or "verified: yes" not in summary.group(2):
                        failures.append(where + ": no summary saying 'verified: yes' at the last step")
                    continue
                if name == "hypercube-broadcast" and step == 1:
                    # Processor 5 holds nothing yet after step 1: its panel shows "-", as --trace does,
                    # not the fill pattern of a slot never written (0x5A5A... = 6510615555426900570).
                    panel = chromium(exe, profile, "file://%s?step=1&proc=5" % page, ["--dump-dom"]).stdout
                    body = re.search(r'<div id="procBody"[^>]*>(.*?)</section>', panel, re.S)
                    cells = re.findall(r"<td>([^<]*)</td>", body.group(1)) if body else []
                    if cells != ["-"]:
                        failures.append(where + ": processor 5's panel shows %s, not ['-'] as --trace does" % cells)
                shown, said = attr(dom, "stepInfo", "data-messages-drawn"), attr(dom, "stepInfo", "data-messages-report")
                want = per_step[step - 1]["messages"]
                if shown != str(want) or said != str(want):
                    failures.append("%s: the page shows %s messages (its report %s), ppsim run --json says %d" % (where, shown, said, want))
            if shots and name in ("hypercube-broadcast", "mesh-alltoall-heat"):
                step, proc = (3, 5) if name == "hypercube-broadcast" else (700, 0)
                out = os.path.join(shots, "view-" + name + ".png")
                chromium(exe, profile, "file://%s?step=%d&proc=%d" % (page, step, proc), ["--window-size=1400,900", "--screenshot=" + out])
                print("view_browser: wrote", out)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for f in failures:
        print("view_browser:", f, file=sys.stderr)
    print("view_browser: %d pages, %s" % (len(CASES), "all checks passed" if not failures else "%d checks failed" % len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
