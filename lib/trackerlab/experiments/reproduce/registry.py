"""Reproduction of every published number: a registry from id to a small function.

Each reproducer module (imported, and so registered, by the package
:mod:`trackerlab.experiments.reproduce`) decorates its functions with :func:`reproduces`;
they return a :class:`Reproduction`. Ids without a function are
reported as ``pending``. The CLI (``trackerlab reproduce``) and the notebooks share these
functions, so a table in a report and on the terminal can never disagree.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass

from trackerlab.errors import UsageError
from trackerlab.experiments.reproduce.published import PublishedNumber, load_published

#: Verdicts, from best to worst.
REPRODUCED = "reproduced"
EXPLAINED = "explained"
PENDING = "pending"
DEVIATES = "deviates"


@dataclass
class Reproduction:
    """One published number against the toolkit, every value in the published unit.

    ``jvm_model`` is the JVM layout model (or the simulator for non-byte quantities),
    ``python_real`` the measured Python bytes, ``theory_published`` the seed's formula as
    printed and ``theory_corrected`` the corrected formula. ``tolerance`` is the relative
    band that counts as reproduced; outside it the verdict is ``explained`` only with an
    ``explanation`` backed by evidence.
    """

    id: str
    published: str
    unit: str
    jvm_model: float | None = None
    python_real: float | None = None
    theory_published: float | None = None
    theory_corrected: float | None = None
    tolerance: float = 0.20
    explanation: str = ""
    published_value: float | None = None  # a formula row (8192/M) evaluated at a point
    verdict: str = PENDING
    system: str = ""
    quantity: str = ""
    parameters: str = ""

    @property
    def ratio(self) -> float | None:
        """JVM model / published, where both are numbers."""
        published = self.published_value
        if published is None:
            try:
                published = float(self.published)
            except ValueError:
                return None
        if self.jvm_model is None or published == 0:
            return None
        return self.jvm_model / published


Reproducer = Callable[[PublishedNumber], Reproduction]
_REGISTRY: dict[str, Reproducer] = {}


def reproduces(*ids: str) -> Callable[[Reproducer], Reproducer]:
    """Register a function as the reproducer of the given published ids."""

    def decorate(fn: Reproducer) -> Reproducer:
        for pid in ids:
            if pid in _REGISTRY:
                raise RuntimeError(f"{pid} already has a reproducer ({_REGISTRY[pid].__name__})")
            _REGISTRY[pid] = fn
        return fn

    return decorate


def judge(rep: Reproduction) -> Reproduction:
    """Set the verdict from the ratio, the tolerance and any explanation."""
    ratio = rep.ratio
    if rep.jvm_model is None:
        rep.verdict = EXPLAINED if rep.explanation else PENDING
    elif ratio is not None and math.isfinite(ratio) and abs(ratio - 1) <= rep.tolerance:
        rep.verdict = REPRODUCED
    else:
        rep.verdict = EXPLAINED if rep.explanation else DEVIATES
    return rep


def reproduce(ids: Iterable[str] | None = None) -> list[Reproduction]:
    """Reproduce the given ids (default: all), in published order."""
    published = load_published()
    wanted = list(ids) if ids else list(published)
    unknown = [i for i in wanted if i not in published]
    if unknown:
        raise UsageError(
            f"unknown published id {unknown[0]!r}; valid ids are {min(published)}..{max(published)}"
        )
    results = []
    for pid in wanted:
        row = published[pid]
        fn = _REGISTRY.get(pid)
        rep = fn(row) if fn else Reproduction(pid, row.published, row.unit)
        rep.system, rep.quantity, rep.parameters = row.system, row.quantity, row.parameters
        results.append(judge(rep))
    return results


def summary(results: Iterable[Reproduction]) -> dict[str, int]:
    """Counts per verdict, every verdict present (0 where none)."""
    counts = {v: 0 for v in (REPRODUCED, EXPLAINED, DEVIATES, PENDING)}
    for rep in results:
        counts[rep.verdict] += 1
    return counts


def _fmt(value: float | None) -> str:
    if value is None:
        return "-"
    if value == 0 or 0.01 <= abs(value) < 1e6:
        return f"{value:.4g}"
    return f"{value:.3e}"


COLUMNS = (
    "id",
    "system",
    "parameters",
    "published",
    "unit",
    "jvm_model",
    "python_real",
    "theory_published",
    "theory_corrected",
    "ratio",
    "verdict",
    "explanation",
)


def as_rows(results: Iterable[Reproduction]) -> list[dict[str, object]]:
    """One dict per result with :data:`COLUMNS` as keys (ratio included)."""
    rows = []
    for rep in results:
        row = asdict(rep)
        row["ratio"] = rep.ratio
        rows.append({c: row[c] for c in COLUMNS})
    return rows


def format_results(results: list[Reproduction], fmt: str = "table") -> str:
    """Render results as an aligned text table, CSV or JSON."""
    rows = as_rows(results)
    if fmt == "json":
        return json.dumps(rows, indent=2)
    if fmt == "csv":
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        return buf.getvalue().rstrip("\n")
    shown = [c for c in COLUMNS if c not in ("parameters", "explanation")]
    cells = [
        [_fmt(r[c]) if isinstance(r[c], float) or r[c] is None else str(r[c]) for c in shown]
        for r in rows
    ]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(shown)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(shown, widths, strict=True))]
    lines += ["  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)) for row in cells]
    notes = [f"{r['id']}: {r['explanation']}" for r in rows if r["explanation"]]
    counts = summary(results)
    lines.append("")
    lines.append(", ".join(f"{k} {v}" for k, v in counts.items()) + f" of {len(rows)}")
    if notes:
        lines += ["", *notes]
    return "\n".join(lines)
