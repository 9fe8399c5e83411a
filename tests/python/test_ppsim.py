"""The Python module against the command line (the same documents and messages), against closed
forms, and its examples. CTest runs it with PYTHONPATH=build/python and PPSIM_EXE set."""

import json
import math
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import ppsim

EXE = os.environ.get("PPSIM_EXE")
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
needs_exe = pytest.mark.skipif(not EXE, reason="PPSIM_EXE (the ppsim program) is not set; CTest sets it")


def cli(*args):
    """The ppsim program's exit code, stdout and stderr."""
    done = subprocess.run([EXE, *args], capture_output=True, text=True)
    return done.returncode, done.stdout, done.stderr


def without_wall(doc):
    return {k: v for k, v in doc.items() if k not in ("wall_seconds", "final")}


def test_import_prints_nothing():
    done = subprocess.run([sys.executable, "-c", "import ppsim"], capture_output=True, text=True)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_allreduce_hypercube_time_and_buffers():
    # Recursive doubling on p = 2^d: log p steps of one message of m words, T = (t_s + t_w m) log p.
    p, m, ts, tw = 16, 8, 2.0, 0.5
    doc = ppsim.run(topology="hypercube", p=p, op="allreduce", m=m, ts=ts, tw=tw, backend="cpu")
    assert doc["verified"] and doc["steps"] == math.log2(p)
    assert doc["time"] == (ts + tw * m) * math.log2(p) == doc["formula_time"]
    # iota input: processor i's word w is i*m + w + 1, so every processor ends with the column sums.
    data = doc["final"]["buffers"]["data"]
    assert isinstance(data, np.ndarray) and data.shape == (p, m)
    expected = np.arange(p * m).reshape(p, m).sum(axis=0) + p
    assert (data == expected).all()


@needs_exe
@pytest.mark.parametrize("options", [
    dict(topology="hypercube", p=64, op="allreduce", m=8),
    dict(topology="torus", dims="4x4", op="allgather", m=3, ts=10, tw=2),
    dict(topology="full", p=6, op="allreduce", lambda_=3, ports=2, trace=True),
    dict(topology="hypercube", p=16, op="reduce", root=5, combine="interval"),
    dict(topology="ring", p=9, op="multicast", group_stride=2, group_size=4, tw_class="link=3"),
    dict(topology="full", p=10, op="scan", exclusive=True, combine="affine"),
    dict(topology="cluster", dims="3x4x2", op="allreduce", algo="allreduce_nvls", ports=3, m=10, segments=2, combine="affine"),
    dict(topology="cluster-fattree", dims="4x2x2x2", op="allgather", algo="allgather_nvls", ports=2, m=3, trace=True),
    dict(preset="hgx-h100", nodes=2, op="allreduce", algo="allreduce_nccl_ring", size="64K", channels=8, ports=8, protocol="simple"),
    dict(topology="ring", p=4, op="allgather", size="1K", type="double", bw=25, lat_class="link=1.5"),
    dict(preset="hgx-a100", op="allreduce", algo="allreduce_nccl_ring", size="1G", channels=8, ports=8, timing="dataflow", protocol="ll128"),
])
def test_run_gives_the_cli_document(options):
    doc = ppsim.run(backend="cpu", **options)
    args = ppsim._args(dict(options, backend="cpu"))
    rc, out, err = cli("run", *args, "--json", "-")
    assert rc == 0, err
    expected = json.loads(out)
    assert without_wall(doc) == without_wall(expected)
    for name, words in expected["final"]["buffers"].items():  # the same words, as arrays where numbers
        assert np.array_equal(np.asarray(doc["final"]["buffers"][name]), np.asarray(words))


def test_interval_words_stay_text():
    data = ppsim.run(topology="ring", p=4, op="allreduce", combine="interval")["final"]["buffers"]["data"]
    assert data == [["0:3"]] * 4


def test_pram_machine():
    # Prefix sums of iota (1, 2, ..., 8) on an EREW PRAM in ceil(log2 N) steps.
    doc = ppsim.run(machine="pram-erew", op="scan", p=8)
    assert doc["verified"] and doc["steps"] == 3
    assert doc["final"]["registers"][:, 0].tolist() == [i * (i + 1) // 2 for i in range(1, 9)]


@needs_exe
@pytest.mark.parametrize("options", [
    dict(p=8, op="nonsense"),
    dict(op="allreduce"),
    dict(p=8, radix=1),
    dict(topology="hypercube", p=6, op="allreduce", algo="allreduce_hypercube"),
    dict(p=8, no_such_option=1),
    dict(p=8, m="x"),
])
def test_bad_options_raise_the_cli_message(options):
    with pytest.raises(ppsim.ConfigError) as caught:
        ppsim.run(**options)
    rc, _, err = cli("run", *ppsim._args(options))
    assert rc == 2 and err.strip() == "ppsim: error: " + str(caught.value)
    assert isinstance(caught.value, ValueError)


def test_backends():
    cpu = ppsim.run(topology="ring", p=12, op="allgather", m=4, backend="cpu")
    assert cpu["backend_used"] == "cpu"
    auto = ppsim.run(topology="ring", p=12, op="allgather", m=4, backend="auto")
    assert auto["backend_used"] == ("cuda" if ppsim.cuda_usable() else "cpu")
    if not ppsim.cuda_usable():
        with pytest.raises(ppsim.ConfigError, match="--backend cuda"):
            ppsim.run(topology="ring", p=12, op="allgather", m=4, backend="cuda")
        return
    cuda = ppsim.run(topology="ring", p=12, op="allgather", m=4, backend="cuda")
    assert cuda["backend_used"] == "cuda"
    assert (cuda["time"], cuda["steps"], cuda["verified"]) == (cpu["time"], cpu["steps"], True)
    assert np.array_equal(cuda["final"]["buffers"]["data"], cpu["final"]["buffers"]["data"])


def test_a_run_releases_the_gil():
    # While one thread runs a large simulation, this one keeps running Python code. Were the GIL held
    # for the run, this loop would stall for the whole run; released, it never stalls for long.
    span = {}

    def simulate():
        span["start"] = time.perf_counter()
        ppsim.run(topology="hypercube", p="2^16", op="allreduce", m=64, backend="cpu", threads=1)
        span["end"] = time.perf_counter()

    worker = threading.Thread(target=simulate)
    stamps = [time.perf_counter()]
    worker.start()
    while worker.is_alive():
        stamps.append(time.perf_counter())
    worker.join()
    longest_stall = max(b - a for a, b in zip(stamps, stamps[1:]))
    assert longest_stall < (span["end"] - span["start"]) / 2


def test_sweep_rows():
    sweep = ppsim.sweep(topology=["hypercube", "ring"], p=[6, 8], m=[1, 16], op="allreduce", algo="allreduce_rs_ag", backend="cpu")
    assert len(sweep) == 2 * 2 * 2  # planned, nothing run yet
    rows = list(sweep)
    assert [r["point"] for r in rows] == list(range(8))
    for r in rows:
        if r["p"] == 6 or r["m"] % r["p"]:  # it needs p = 2^d and p equal parts of m
            assert r["status"] == "refused" and r["reason"]
            continue
        one = ppsim.run(topology=r["topology"], p=r["p"], m=r["m"], op="allreduce", algo="allreduce_rs_ag", backend="cpu")
        assert r["status"] == "ok" and r["verified"] and (r["time"], r["steps"]) == (one["time"], one["steps"])
    assert sum(r["status"] == "ok" for r in rows) == 2
    assert list(sweep) == rows  # kept, not run again


def test_sweep_to_pandas():
    pandas = pytest.importorskip("pandas")
    sweep = ppsim.sweep(topology="ring", p="2^2..2^5", op="allgather", algo="allgather_ring", m=[1, 4], lambda_=[1, 2])
    frame = sweep.to_pandas()
    assert isinstance(frame, pandas.DataFrame) and len(frame) == 4 * 2 * 2
    assert list(frame.columns) == list(ppsim._core.sweep_columns)
    assert sorted(frame["lambda"].unique()) == [1, 2] and (frame["status"] == "ok").all()


def test_sweep_bad_options():
    with pytest.raises(ppsim.ConfigError, match="is unknown"):
        ppsim.sweep(topology="ring,nonsense", p=8)
    with pytest.raises(ppsim.ConfigError, match="csv"):
        ppsim.sweep(p=8, csv="-")
    with pytest.raises(ppsim.ConfigError, match="no point of the sweep can run"):
        ppsim.sweep(topology="hypercube", p=6, op="allreduce", algo="allreduce_hypercube")


@needs_exe
def test_best_gives_the_cli_document():
    options = dict(op="allreduce", topology="hypercube", p=16, m="1..2^12", ts=100)
    rc, out, err = cli("best", *ppsim._args(options), "--json")
    assert rc == 0, err
    assert ppsim.best(**options) == json.loads(out)


def test_bounds():
    # Lin–Yeh Theorem 1: G(j) = 1 for j < lambda, G(j) = G(j-1) + k G(j-lambda); the fewest steps
    # are min{ i | G(i) >= n }.
    n, k, lam = 1000, 2, 3
    doc = ppsim.bounds(n=n, k=k, lambda_=lam)
    g = []
    for j in range(doc["min_steps"] + 1):
        g.append(1 if j < lam else g[j - 1] + k * g[j - lam])
    assert doc["G"] == g and g[-1] >= n > g[-2]
    with pytest.raises(ppsim.ConfigError, match="--k"):
        ppsim.bounds(n=10, k=0)


@needs_exe
def test_registries_match_ppsim_list():
    rc, out, _ = cli("list")
    assert rc == 0
    listed = out.split("algorithms:\n")[1].split("shared-memory machines")[0]
    names = [line.split()[0] for line in listed.splitlines() if line.startswith("  ") and not line.startswith("      ")]
    assert [a["name"] for a in ppsim.algorithms()] == names
    topologies = out.split("topologies:\n")[1].split("operations:")[0]
    assert [t["name"] for t in ppsim.topologies()] == [line.split()[0] for line in topologies.splitlines() if not line.startswith("      ")]
    hypercube = next(a for a in ppsim.algorithms() if a["name"] == "allreduce_hypercube")
    assert hypercube["op"] == "allreduce" and "hypercube" in hypercube["topologies"]


def run_example(name, *args, tmp_path):
    env = dict(os.environ, MPLBACKEND="Agg")
    done = subprocess.run([sys.executable, str(EXAMPLES / name), *args], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_example_sweep_plot(tmp_path):
    pytest.importorskip("matplotlib")
    out = run_example("sweep_plot.py", str(tmp_path), tmp_path=tmp_path)
    png = tmp_path / "sweep_plot.png"
    assert out.strip() == str(png) and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_example_crossover_map(tmp_path):
    out = run_example("crossover_map.py", tmp_path=tmp_path)
    assert "A: allreduce_hypercube" in out and "B: allreduce_rs_ag" in out
    sys.path.insert(0, str(EXAMPLES))
    try:
        import crossover_map
    finally:
        sys.path.pop(0)
    # p = 8, t_s = 100, t_w = 1. Recursive doubling: (t_s + t_w m) log p = 300 + 3 m [eq. 4-5];
    # reduce-scatter + all-gather: 2 (t_s log p + t_w (m/p)(p - 1)) = 600 + 1.75 m [eq. 4-14].
    # The first wins while 300 + 3 m < 600 + 1.75 m, i.e. m < 240.
    (row,) = crossover_map.crossover_map(ps=(8,), ms="1..2^12").values()
    assert [m for m, _ in row] == [2**i for i in range(13)]
    for m, winner in row:
        assert winner == ("allreduce_hypercube" if 300 + 3 * m < 600 + 1.75 * m else "allreduce_rs_ag"), m


def test_loggp_model_gives_loggopsims_binomial_times():
    # LogGOPSim's times for its generator's binomial broadcast (tests/data/goal/loggopsim_times.json).
    doc = ppsim.run(topology="full", p=8, op="broadcast", algo="broadcast_binomial_low_first", model="loggp")
    assert doc["loggp"]["finish"] == [4500, 8542, 8542, 12584, 8542, 12584, 12584, 16626]
    assert doc["time"] == 16626
    # The parameters are keywords too: L, o, g, G, O, S; one message of 8 bytes costs 2o + L + 7 max(O, G).
    two = ppsim.run(topology="full", p=2, op="broadcast", model="loggp", L=100, o=10, g=5, G=2, O=1, S=64)
    assert two["loggp"]["finish"] == [10 + 7 * 1, 10 + 100 + 10 + 7 * 2]
    assert doc["loggp"]["timing"] in ("rounds", "windows", "events")


def test_noise_and_stragglers(tmp_path):
    # OS noise (LogGOPSim's rule): the noiseless time beside the noisy one, the detours per processor.
    doc = ppsim.run(topology="full", p=64, op="allreduce", algo="allreduce_hypercube", model="loggp",
                    noise="periodic:100000:2000", seed=3)
    noise = doc["loggp"]["noise"]
    assert doc["time"] >= noise["noiseless_time"] > 0
    assert noise["injected_ns"] == sum(noise["injected_per_processor"]) > 0
    assert doc["config"]["noise"]["phases"] == "independent"
    cosched = ppsim.run(topology="full", p=64, op="allreduce", algo="allreduce_hypercube", model="loggp",
                        noise="periodic:100000:2000", noise_cosched=True, seed=3)
    assert cosched["config"]["noise"]["phases"] == "co-scheduled"
    # A straggler in a chain (linear model): its step takes the factor longer, (p - 1 + F - 1)(t_s + t_w m).
    chain = ppsim.run(topology="linear", p=8, op="broadcast", algo="broadcast_chain", m=4, ts=2, tw=0.5,
                      stragglers="3", straggler_factor=3)
    assert chain["time"] == (7 + 2) * (2 + 0.5 * 4)
    trace = tmp_path / "bad.trace"
    trace.write_text("0\t10\nnot a line\n")
    with pytest.raises(ppsim.ConfigError, match="line 2"):
        ppsim.run(topology="full", p=8, op="allreduce", model="loggp", noise_trace=str(trace))
    with pytest.raises(ppsim.ConfigError, match="not on the machine"):
        ppsim.run(topology="full", p=8, op="allreduce", stragglers="8")


def test_failures():
    # The binomial broadcast of test_failures.cpp: processor 4 down from step 1 leaves 4, 5, 6 and 7 without the data.
    doc = ppsim.run(topology="hypercube", p=8, op="broadcast", algo="broadcast_binomial", m=2, fail="proc:4@1")
    failures = doc["failures"]
    assert not doc["verified"] and failures["completed"] is False
    assert [d["processor"] for d in failures["damage"]] == [4, 5, 6, 7]
    assert failures["missing_words"] == 8 and failures["dropped_messages"] == 3
    # A link rerouted the other way round the ring: the all-gather completes.
    one = ppsim.run(topology="ring", p=8, op="allgather", algo="allgather_ring", fail="link:0-1@1", reroute=True)
    assert one["failures"]["completed"] is True and one["failures"]["rerouted_messages"] == 7
    # Two links as a list: 0->1 goes round through 4-5 in steps 1 and 2; from step 3 the ring is cut
    # twice, and 0->1 and 4->5 (5 steps each) have no way left.
    both = ppsim.run(topology="ring", p=8, op="allgather", algo="allgather_ring", fail=["link:0-1@1", "link:4-5@3"], reroute=True)
    assert both["failures"]["completed"] is False
    assert both["failures"]["rerouted_messages"] == 2 and both["failures"]["dropped_messages"] == 10
    with pytest.raises(ppsim.ConfigError, match="not a step of the run"):
        ppsim.run(topology="hypercube", p=8, op="broadcast", fail="proc:1@9")


def test_view(tmp_path):
    # The page `ppsim view --html` writes, as a string; in Jupyter it renders in a frame of its own.
    page = ppsim.view(topology="hypercube", p=16, op="broadcast")
    assert isinstance(page.html, str) and page.html.startswith("<!DOCTYPE html>")
    start = page.html.index('id="ppsim-data">') + len('id="ppsim-data">')
    data = json.loads(page.html[start:page.html.index("</script>", start)])
    doc = ppsim.run(topology="hypercube", p=16, op="broadcast")
    assert data["p"] == 16 and data["verified"] is True and data["mode"] == "detail"
    assert [len(s["messages"]) for s in data["detail"]] == [s["messages"] for s in doc["per_step"]]
    frame = page._repr_html_()
    assert frame.startswith("<iframe srcdoc=") and "<script" not in frame  # the page is escaped inside the frame
    saved = page.save(tmp_path / "b.html")
    assert Path(saved).read_text() == page.html
    # The command line's file is the same page.
    out = tmp_path / "a.html"
    subprocess.run([os.environ.get("PPSIM_EXE", "ppsim"), "view", "--topology", "hypercube", "--p", "16", "--op", "broadcast", "--html", str(out)],
                   check=True, capture_output=True)
    def parts(html):  # the page around its data, and the data less the summary (its wall time differs)
        start = html.index('id="ppsim-data">') + len('id="ppsim-data">')
        end = html.index("</script>", start)
        data = json.loads(html[start:end])
        data.pop("summary")
        return html[:start] + html[end:], data

    assert parts(out.read_text()) == parts(page.html)
    assert ppsim.view(topology="mesh", dims="4x4", op="alltoall", aggregate=True).html.count('"mode":"aggregate"') == 1
    with pytest.raises(ppsim.ConfigError, match="no steps"):
        ppsim.view(topology="full", p=8, op="broadcast", model="loggp")


def test_timeline(tmp_path):
    # A trace-event file Perfetto opens: a track per kept processor, the last CPU slice at its finish.
    path = tmp_path / "t.json"
    doc = ppsim.run(topology="full", p=8, op="broadcast", model="loggp", timeline=str(path))
    trace = json.loads(path.read_text())
    assert trace["otherData"]["processors_kept"] == list(range(8))
    for i in range(8):
        ends = [e["ts"] + e["dur"] for e in trace["traceEvents"] if e["ph"] == "X" and e["pid"] == i and e["tid"] == 0]
        assert round(max(ends) * 1000) == doc["loggp"]["finish"][i]
    with pytest.raises(ppsim.ConfigError, match="must end in .svg or .png"):
        ppsim.run(topology="full", p=8, op="broadcast", plot=str(tmp_path / "x.txt"))


def test_goal_export_and_import(tmp_path):
    # An algorithm's GOAL text (as `ppsim goal --out -`), read back by run(goal=...): the same times.
    text = ppsim.goal(topology="full", p=8, op="broadcast", algo="broadcast_binomial_low_first", m=4)
    assert text.splitlines()[2] == "num_ranks 8"
    path = tmp_path / "bcast.goal"
    path.write_text(text)
    imported = ppsim.run(goal=str(path), L=700, o=90)
    direct = ppsim.run(topology="full", p=8, op="broadcast", algo="broadcast_binomial_low_first", m=4, model="loggp", L=700, o=90)
    assert imported["finish"] == direct["loggp"]["finish"]
    assert imported["time"] == direct["time"] and imported["ranks"] == 8
    with pytest.raises(ppsim.ConfigError, match="does not apply to --goal"):
        ppsim.run(goal=str(path), p=8)
    path.write_text("num_ranks 2\nrank 0 {\nl1: send 8b to 1 tag 0\n}\nrank 1 {\n}\n")
    with pytest.raises(ppsim.ScheduleError, match="cannot finish"):
        ppsim.run(goal=str(path))
    with pytest.raises(ppsim.ConfigError):
        ppsim.goal(topology="full", p=8, op="broadcast", backend="cpu")


def test_an_input_file_must_be_a_regular_file(tmp_path):
    # /dev/zero never ends: the readers refuse it (and a folder) before reading, as the CLI does.
    loggp = dict(topology="full", p=64, op="allreduce", model="loggp")
    for options in (dict(loggp, noise_trace="/dev/zero"), dict(goal="/dev/zero"), dict(loggp, noise_trace=str(tmp_path))):
        with pytest.raises(ppsim.ConfigError, match="not a regular file|is a directory"):
            ppsim.run(**options)


def test_detours_that_add_up_past_2_to_64_raise(tmp_path):
    # Six detours of 2^64/6 ns overlap each operation: their sum wrapped to 0 and the run passed.
    trace = tmp_path / "sixth.trace"
    trace.write_text("".join("%d\t3074457345618259456\n" % (i * 100) for i in range(64)))
    with pytest.raises(ppsim.ConfigError, match="wrapped past 2"):
        ppsim.run(topology="full", p=2, op="broadcast", model="loggp", o=500, noise_trace=str(trace))


@needs_exe
def test_msccl_program_as_the_cli(tmp_path):
    # run(msccl=...) ran nothing ("give --p"): it runs the file as `ppsim run --msccl` does.
    data = Path(__file__).resolve().parents[1] / "data" / "msccl"
    ring = str(data / "allreduce_ring_2ch.xml")
    for options in ([], ["--m", "8", "--tw-class", "nvlink=0.5"], ["--model", "loggp"]):
        keywords = {options[i][2:].replace("-", "_"): options[i + 1] for i in range(0, len(options), 2)}
        doc = ppsim.run(msccl=ring, **keywords)
        code, out, err = cli("run", "--msccl", ring, *options, "--json", "-")
        assert code == 0, err
        assert without_wall(doc) == without_wall(json.loads(out))
        assert doc["verified"] and doc["ngpus"] == 4
    wrong = ppsim.run(msccl=str(data / "broken" / "allreduce_reduce_as_copy.xml"))
    assert wrong["verified"] is False and wrong["first_wrong"]["gpu"] == 0
    with pytest.raises(ppsim.ConfigError, match="does not apply to --msccl"):
        ppsim.run(msccl=ring, algo="allreduce_ring")
    with pytest.raises(ppsim.ConfigError, match="not a regular file"):
        ppsim.run(msccl="/dev/zero")
    stuck = tmp_path / "stuck.xml"
    stuck.write_text(open(ring).read().replace('type="s"', 'type="r"'))
    with pytest.raises(ppsim.ScheduleError, match="cannot finish"):
        ppsim.run(msccl=str(stuck))


def test_a_run_that_cannot_end_raises_before_it_starts():
    # As `ppsim run`: the least time of 2^40 processor-rounds is past the 60 minutes of --time-limit.
    with pytest.raises(ppsim.ConfigError, match="--time-limit"):
        ppsim.run(topology="linear", p="2^20", op="broadcast", algo="broadcast_chain")
    with pytest.raises(ppsim.ConfigError, match="--time-limit must be a positive"):
        ppsim.run(topology="ring", p=8, time_limit=0)


@needs_exe
def test_nccl_tests_gives_the_cli_document():
    # nccl-tests' one-letter options as keywords; each row a verified run, algbw = size / time.
    doc = ppsim.nccl_tests("all_gather", preset="hgx-h100", nodes=2, b="64K", e="16M", f=16, backend="cpu")
    rc, out, err = cli("nccl-tests", "all_gather", "--preset", "hgx-h100", "--nodes", "2", "-b", "64K", "-e", "16M", "-f", "16",
                       "--backend", "cpu", "--json", "-")
    assert rc == 0, err
    assert doc == json.loads(out)
    assert [r["bytes"] for r in doc["rows"]] == [65536, 1048576, 16777216]
    for r in doc["rows"]:
        assert r["wrong"] == 0 and r["count"] == r["bytes"] // 4 // 16
        assert math.isclose(r["algbw_GBps"], r["bytes"] / r["time_us"] / 1e3)
    with pytest.raises(ppsim.ConfigError, match="nccl-tests runs all_reduce"):
        ppsim.nccl_tests("all_to_all", preset="hgx-h100")
    # algo="nccl": NCCL's tuner picks for each size, and the row says what it picked and what ran.
    tuned = ppsim.nccl_tests("all_reduce", preset="hgx-a100", b="64", e="1K", f=16, algo="nccl", backend="cpu")
    assert [r["protocol"] for r in tuned["rows"]] == ["LL", "LL"]
    assert all(r["nccl_choice"].startswith("NCCL 2.20.3's tuner: Ring, LL") for r in tuned["rows"])
    run = ppsim.run(preset="hgx-a100", op="allreduce", size="8G", algo="nccl", backend="cpu")
    assert run["config"]["nccl_choice"].startswith("NCCL 2.20.3's tuner: Ring, Simple, 24 channels")
    with pytest.raises(ppsim.ConfigError, match="--algo nccl needs --preset"):
        ppsim.run(topology="ring", p=8, op="allreduce", algo="nccl")


@needs_exe
def test_nccl_tests_compare_takes_the_half_asked(tmp_path):
    # compare= and measured=: each row held to the lower of its two times, or to the half named.
    table = tmp_path / "rows.txt"
    table.write_text("     1048576        262144     float     sum      -1    160.0    6.55   12.29      0    150.0    6.99   13.11      0\n"
                     "     2097152        524288     float     sum      -1    150.0   13.98   26.21      0    170.0   12.34   23.13      0\n")
    lower = ppsim.nccl_tests("all_reduce", preset="hgx-h100", nodes=2, compare=str(table), backend="cpu")["compare"]
    assert lower["measured"] == "lower"
    assert [r["measured_time_us"] for r in lower["rows"]] == [150.0, 150.0]
    assert [r["measured_half"] for r in lower["rows"]] == ["in-place", "out-of-place"]
    in_place = ppsim.nccl_tests("all_reduce", preset="hgx-h100", nodes=2, compare=str(table), measured="in-place", backend="cpu")["compare"]
    assert [r["measured_time_us"] for r in in_place["rows"]] == [150.0, 170.0]
    with pytest.raises(ppsim.ConfigError, match="--measured 'min' is none of"):
        ppsim.nccl_tests("all_reduce", preset="hgx-h100", nodes=2, compare=str(table), measured="min")
