"""Reproduction of every published number: a registry from id to a small function.

Each reproducer module (imported, and so registered, by the package
:mod:`trackerlab.experiments.reproduce`) decorates its functions with :func:`reproduces`;
they return a :class:`Reproduction`. Ids without a function are reported as ``pending``.
The CLI (``trackerlab reproduce``) and the notebooks share these functions, so a table in
a report and on the terminal can never disagree.

The tolerance kind follows the row's ``kind`` in the CSV: ``measured`` sizes are JVM
measurements, ``theory`` and ``derived`` numbers are formulas; the simulator's tables say
so themselves.

**Categories** (a verdict is no more generous than its evidence):

- ``reproduced``: the model's prediction lies within the tolerance of the row's kind
  (:data:`TOLERANCES`: 3% for measured JVM sizes, exact for simulator tables, every point
  of the stated range for a formula), and the row was not used to fit anything;
- ``reproduced by construction``: identities (a formula evaluated where it is defined, a
  payload that is the sum of its fields) and rows matched whatever the harness, or fitted
  on themselves;
- ``seed wrong``: the model shows, with evidence, that the published figure is wrong, and
  by how much;
- ``explained``: the deviation has a measured cause (a measurement or a code line);
- ``deviates``: none of the above.

A reproducer states its category for every outcome except ``reproduced``, which only
:func:`judge` grants, from the ratio and the tolerance; a claimed ``reproduced`` outside
the tolerance becomes ``deviates``.
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

#: Categories, from best to worst.
REPRODUCED = "reproduced"
BY_CONSTRUCTION = "reproduced by construction"
SEED_WRONG = "seed wrong"
EXPLAINED = "explained"
DEVIATES = "deviates"
PENDING = "pending"
CATEGORIES = (REPRODUCED, BY_CONSTRUCTION, SEED_WRONG, EXPLAINED, DEVIATES, PENDING)

#: Tolerance kinds: relative band around the published value (formula rows check every
#: point of their range with the same band).
JVM_MEASURED = "measured JVM size"
SIMULATOR = "simulator table"
FORMULA = "formula over its range"
TOLERANCES = {JVM_MEASURED: 0.03, SIMULATOR: 0.0, FORMULA: 0.03}


@dataclass
class Reproduction:
    """One published number against the toolkit, every value in the published unit.

    ``jvm_model`` is the JVM layout model (or the simulator for non-byte quantities),
    ``python_real`` the measured Python bytes, ``theory_published`` the seed's formula as
    printed and ``theory_corrected`` the corrected formula. ``basis`` names the tolerance
    kind (:data:`TOLERANCES`); ``range_ratios`` holds model / formula at points across a
    formula row's range. ``category`` is the reproducer's own finding when the row is not
    simply reproduced; ``why`` says it in one line, ``explanation`` gives the evidence.
    """

    id: str
    published: str
    unit: str
    jvm_model: float | None = None
    python_real: float | None = None
    theory_published: float | None = None
    theory_corrected: float | None = None
    basis: str = JVM_MEASURED
    category: str | None = None
    why: str = ""
    explanation: str = ""
    published_value: float | None = None  # a formula row (8192/M) evaluated at a point
    range_ratios: tuple[float, ...] | None = None
    #: a note shared by several rows (a fit and its scores), printed once under the table
    context: str = ""
    system: str = ""
    quantity: str = ""
    parameters: str = ""

    @property
    def tolerance(self) -> float:
        return TOLERANCES[self.basis]

    @property
    def verdict(self) -> str:
        """The category (the name older readers use)."""
        return self.category or PENDING

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

    def within_tolerance(self) -> bool:
        """The prediction is within the tolerance of its kind (all of a formula's range)."""
        band = self.tolerance
        if self.basis == FORMULA:
            ratios = self.range_ratios or ((self.ratio,) if self.ratio is not None else ())
            return bool(ratios) and all(abs(r - 1) <= band + 1e-12 for r in ratios)
        ratio = self.ratio
        return ratio is not None and math.isfinite(ratio) and abs(ratio - 1) <= band + 1e-12


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
    """Settle the category: ``reproduced`` only within the tolerance, else the stated one."""
    claimed = rep.category
    if claimed not in (None, REPRODUCED):
        if claimed not in CATEGORIES:
            raise ValueError(f"{rep.id}: unknown category {claimed!r}")
        return rep
    if rep.jvm_model is None and rep.range_ratios is None:
        rep.category = PENDING
        return rep
    rep.category = REPRODUCED if rep.within_tolerance() else DEVIATES
    if not rep.why:
        where = "within" if rep.category == REPRODUCED else "outside"
        if rep.basis == FORMULA and rep.range_ratios:
            got = f"model/formula {min(rep.range_ratios):.3f}..{max(rep.range_ratios):.3f}"
        else:
            got = f"model/published {rep.ratio:.4f}" if rep.ratio is not None else "no ratio"
        rep.why = f"{got}, {where} the {rep.basis} tolerance ±{rep.tolerance:.0%}"
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
        if rep.basis == JVM_MEASURED and row.kind in ("theory", "derived"):
            rep.basis = FORMULA  # the tolerance follows the published number's kind
        results.append(judge(rep))
    return results


def summary(results: Iterable[Reproduction]) -> dict[str, int]:
    """Counts per category, every category present (0 where none)."""
    counts = dict.fromkeys(CATEGORIES, 0)
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
    "tolerance",
    "category",
    "why",
    "explanation",
    "context",
)


def as_rows(results: Iterable[Reproduction]) -> list[dict[str, object]]:
    """One dict per result with :data:`COLUMNS` as keys (and ``verdict`` = ``category``)."""
    rows = []
    for rep in results:
        row = asdict(rep)
        row["ratio"] = rep.ratio
        row["tolerance"] = f"{rep.basis} ±{rep.tolerance:.0%}"
        row["category"] = rep.verdict
        rows.append({**{c: row[c] for c in COLUMNS}, "verdict": rep.verdict})
    return rows


def format_results(results: list[Reproduction], fmt: str = "table") -> str:
    """Render results as an aligned text table, CSV or JSON."""
    rows = as_rows(results)
    if fmt == "json":
        return json.dumps(rows, indent=2)
    if fmt == "csv":
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n", extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
        return buf.getvalue().rstrip("\n")
    shown = [
        c for c in COLUMNS if c not in ("parameters", "explanation", "why", "tolerance", "context")
    ]
    cells = [
        [_fmt(r[c]) if isinstance(r[c], float) or r[c] is None else str(r[c]) for c in shown]
        for r in rows
    ]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(shown)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(shown, widths, strict=True))]
    lines += ["  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)) for row in cells]
    counts = summary(results)
    lines.append("")
    lines.append(", ".join(f"{k} {v}" for k, v in counts.items() if v) + f" of {len(rows)}")
    notes = [f"{r['id']} [{r['category']}]: {r['why']}" for r in rows if r["why"]]
    if notes:
        lines += ["", *notes]
    contexts = list(dict.fromkeys(r["context"] for r in rows if r["context"]))
    if contexts:
        lines += ["", *contexts]
    return "\n".join(lines)
