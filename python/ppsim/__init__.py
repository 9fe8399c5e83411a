"""ppsim: simulate collective communication on massively parallel processor arrays.

Every function takes the options of the matching ``ppsim`` command as keywords: the same names
without the dashes, ``-`` written ``_`` (``group_stride=4``; ``lambda_=2``, since ``lambda`` is a
Python keyword). A list or tuple stands for a comma-separated list (``m=[1, 64, 4096]``), ``True``
for a flag. Bad options raise :class:`ConfigError` with the command line's message.

    >>> doc = ppsim.run(topology="hypercube", p=1024, op="allreduce", m=8)
    >>> doc["time"], doc["verified"]
"""

import numpy as np

from . import _core
from ._core import ConfigError, ScheduleError

__all__ = ["run", "view", "View", "sweep", "best", "bounds", "nccl_tests", "goal", "algorithms", "topologies", "cuda_usable", "Sweep", "ConfigError", "ScheduleError"]


def _args(options):
    """Keywords -> the command line's options: p=1024 -> ["--p", "1024"]."""
    args = []
    for key, value in options.items():
        if value is None or value is False:
            continue
        name = "--" + key.rstrip("_").replace("_", "-")
        if value is True:
            args.append(name)
            continue
        if isinstance(value, (list, tuple, range)):
            value = ",".join(str(v) for v in value)
        args += [name, str(value)]
    return args


def _as_array(rows):
    """A buffer (one list of words per processor) as a 2-D NumPy array, when its words are numbers."""
    words = np.asarray(rows)
    return words if words.dtype.kind in "iuf" else rows


def run(**options):
    """One run, verified against the sequential reference: the document of ``ppsim run --json``
    (a dict), its final buffers as NumPy arrays (processors x words) where the words are numbers.
    ``goal="file.goal"`` and ``msccl="file.xml"`` run those files as ``ppsim run --goal`` and
    ``ppsim run --msccl`` do."""
    doc = _core.run(_args(options))
    final = doc.get("final", {})
    for group in ("buffers", "registers", "cells"):
        if group == "buffers" and isinstance(final.get(group), dict):
            final[group] = {name: _as_array(rows) for name, rows in final[group].items()}
        elif group != "buffers" and group in final:
            final[group] = _as_array(final[group])
    return doc


class View:
    """The page of ``ppsim view``: a run replayed step by step on its topology, self-contained HTML.
    In Jupyter it shows inline; ``.html`` is its text, ``.save(path)`` writes it."""

    def __init__(self, html):
        self.html = html

    def save(self, path):
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.html)
        return path

    def _repr_html_(self):
        # In a frame of its own: the page's script and styles stay out of the notebook's.
        import html as _html

        return '<iframe srcdoc="%s" style="width: 100%%; height: 760px; border: 1px solid #ddd"></iframe>' % _html.escape(self.html, quote=True)

    def __str__(self):
        return self.html


def view(**options):
    """A run replayed in the browser, as ``ppsim view --html`` writes it (the options of ``run``,
    and ``aggregate=True`` for aggregates at any size): view(topology="hypercube", p=16, op="broadcast")."""
    options.pop("html", None)
    return View(_core.view(_args(options)))


class Sweep:
    """The points of ``ppsim sweep``, planned at once (bad options raise here) and run as they are
    iterated over: each yields its row (a dict with the CSV's columns; a point that cannot run has
    status "refused" and the reason). Rows are kept, so a second pass runs nothing."""

    def __init__(self, **options):
        self._points = _core.Sweep(_args(options))
        self._rows = []

    def __len__(self):
        return len(self._points)

    def __iter__(self):
        for i in range(len(self._points)):
            if i == len(self._rows):
                self._rows.append(self._points.row(i))
            yield self._rows[i]

    def to_pandas(self):
        """Every row as a pandas DataFrame (pandas must be installed)."""
        import pandas

        return pandas.DataFrame(list(self), columns=_core.sweep_columns)


def sweep(**options):
    """Every point of lists and ranges, as ``ppsim sweep``: ``p="2^4..2^10"``, ``m=[1, 1024]``,
    ``algo="all"``; iterate over the result for rows, or call ``.to_pandas()``."""
    return Sweep(**options)


def best(**options):
    """The algorithms of an operation ranked by simulated time over a range of m, as
    ``ppsim best --json``: {"rows", "changes", "formula_changes", "refused"}."""
    return _core.best(_args(options))


def goal(**options):
    """An algorithm's rounds as a GOAL schedule, LogGOPSim's format (the text ``ppsim goal --out -``
    writes): goal(topology="full", p=8, op="broadcast", m=4). ``run(goal="file.goal", L=...)``
    times such a file under LogGP, as ``ppsim run --goal``."""
    return _core.goal(_args(options))


def bounds(**options):
    """The k-port postal lower bound (``ppsim bounds --json``): bounds(n=1000, k=2, lambda_=3)."""
    return _core.bounds(_args(options))


def algorithms():
    """Every registered algorithm: name, op, description, formula, topologies, default_on, ..."""
    return _core.algorithms()


def topologies():
    """Every topology: name, hint (what p it takes), link_classes."""
    return _core.topologies()


def cuda_usable():
    """Whether a GPU is there for backend="cuda" (backend="auto" uses it when it is)."""
    return _core.cuda_usable()


# nccl-tests' one-letter options, as keywords: b="1M" is -b 1M (--minbytes), o="sum" the reduction.
_NCCL_TESTS_LETTERS = {"b": "minbytes", "e": "maxbytes", "f": "stepfactor", "d": "datatype", "o": "op"}


def nccl_tests(collective, **options):
    """nccl-tests' size sweep on a machine, as ``ppsim nccl-tests COLLECTIVE --json -`` writes it:
    ``rows`` (size, count, time in µs, algbw and busbw in GB/s, each size a verified run) and, with
    ``compare="file.txt"`` (a saved nccl-tests output), ``compare`` with each row's predicted and
    measured time and the errors over all rows and over those of 64 MiB and more.

        >>> doc = ppsim.nccl_tests("all_reduce", preset="hgx-h100", nodes=2, b="1M", e="1G", f=2)
        >>> [(r["bytes"], r["busbw_GBps"]) for r in doc["rows"]]
    """
    named = {_NCCL_TESTS_LETTERS.get(key, key): value for key, value in options.items()}
    return _core.nccl_tests([str(collective)] + _args(named))
