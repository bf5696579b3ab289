"""Reproduction of every published number: a registry from id to a small function.

Each reproducer module (imported, and so registered, by the package
:mod:`trackerlab.experiments.reproduce`) decorates its functions with :func:`reproduces`;
they return a :class:`Reproduction` of **numbers only** (the model's value, the theories,
and the named ``values`` a reason quotes). Ids without a function are reported as
``pending``. The CLI (``trackerlab reproduce``) and the notebooks share these functions, so
a table in a report and on the terminal can never disagree.

The **verdicts** are data: ``data/published/verdicts.csv`` (next to the published numbers)
gives each id its claimed category, its evidence and a one-line reason whose
``{placeholders}`` the reproducer's numbers fill (:class:`Verdict`). :func:`judge` checks
every claim against the ratio and the tolerance of the row's kind (:data:`TOLERANCES`: 3%
for measured JVM sizes, exact for simulator tables, every point of the stated range for a
formula); a claim that fails its check becomes ``deviates``:

- ``reproduced``: the model lies within the tolerance;
- ``reproduced by construction``: the published number is an identity (a payload that is
  the sum of its fields, a formula at the point that defines it, a row a fit was chosen
  on); the evidence names the test that asserts the identity (a ``tests/...::test`` node);
- ``seed wrong``: outside the tolerance, and evidence that does not rest on the model alone
  (a real-JVM figure: a ``jvm-check:`` case or a test against a real JVM; a hand derivation
  from the Java source in a test) shows what the structure the seed describes, in the
  version the seed ran, holds; only for the seed's own arithmetic (``theory``/``derived``
  rows): a measurement is not overruled by a model;
- ``explained``: outside the tolerance, and a measured cause (a real-JVM figure) accounts
  for the gap between the seed's measurement and the modelled scenario;
- ``deviates``: anything else.

Evidence items are ``tests/<file>.py::<function>`` (the file must exist and define the
function), ``jvm-check:<case>`` (a case of :mod:`trackerlab.jvmcheck.probe_cases`) or a path under
the repository (a stored measurement).
"""

from __future__ import annotations

import csv
import functools
import io
import math
import re
import string
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from trackerlab.core import strict_json
from trackerlab.core.errors import UsageError
from trackerlab.core.paths import repo_root, verdicts_csv
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
    formula row's range. ``values`` are the named numbers a verdict's reason quotes.
    ``category``, ``why`` (the reason, filled) and ``evidence`` are set by :func:`judge`
    from the verdicts table; ``explanation`` gives the detail, from the same numbers.
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
    #: named numbers (or strings made from them) that the verdict's reason quotes
    values: dict[str, object] = field(default_factory=dict)
    evidence: str = ""
    #: the same quantity measured on a real broker here, where it was (a distribution in words)
    real_broker: str = ""

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


@dataclass(frozen=True)
class Verdict:
    """One reviewed row of ``verdicts.csv``: the claimed category, its evidence and a
    one-line reason with ``{placeholders}`` (:meth:`Reproduction.placeholders`)."""

    id: str
    category: str
    evidence: tuple[str, ...]
    reason: str


@functools.cache
def _load_verdicts(path: Path) -> dict[str, Verdict]:
    with path.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    verdicts = {}
    for row in rows:
        if row["category"] not in CATEGORIES or row["category"] == PENDING:
            allowed = ", ".join(c for c in CATEGORIES if c != PENDING)
            raise UsageError(
                f"verdicts file {path}: {row['id']} has category {row['category']!r}; "
                f"allowed: {allowed}"
            )
        evidence = tuple(e.strip() for e in row["evidence"].split(";") if e.strip())
        verdicts[row["id"]] = Verdict(row["id"], row["category"], evidence, row["reason"])
    return verdicts


def load_verdicts(path: Path | None = None) -> dict[str, Verdict]:
    """Every reviewed verdict by id (``data/published/verdicts.csv``)."""
    path = path or verdicts_csv()
    if not path.is_file():
        raise UsageError(f"verdicts file {path} not found")
    return dict(_load_verdicts(path))


_NODE = re.compile(r"^(tests/[\w/]+\.py)::(\w+)(?:::(\w+))?(\[.*\])?$")


def is_test_node(item: str) -> bool:
    """The evidence item is a pytest node id (``tests/<file>.py::<function>``)."""
    return bool(_NODE.match(item))


def missing_evidence(items: Iterable[str], root: Path | None = None) -> list[str]:
    """The evidence items that do not exist, each with why. O(items x file size).

    A test node needs its file and a ``def`` of its function (in its class, if named); a
    ``jvm-check:`` case must be one of :data:`trackerlab.jvmcheck.probe_cases.CASES`; anything
    else is a path under the repository."""
    root = root or repo_root()
    missing = []
    for item in items:
        if item.startswith("jvm-check:"):
            from trackerlab.jvmcheck.probe_cases import CASES

            if item.removeprefix("jvm-check:") not in {c.name for c in CASES}:
                missing.append(f"{item} (no such jvm-check case)")
            continue
        m = _NODE.match(item)
        if m:
            path = root / m.group(1)
            func = m.group(3) or m.group(2)
            if not path.is_file():
                missing.append(f"{item} (no file {m.group(1)})")
            elif not re.search(rf"^\s*def {func}\(", path.read_text(), re.M):
                missing.append(f"{item} (no function {func} in {m.group(1)})")
            continue
        if "::" in item or not (root / item).exists():
            missing.append(f"{item} (no such file)")
    return missing


def _measured(rep: Reproduction) -> str:
    """What the numbers say, in one phrase."""
    if rep.basis == FORMULA and rep.range_ratios:
        return f"model/formula {min(rep.range_ratios):.3f}..{max(rep.range_ratios):.3f}"
    return f"model/published {rep.ratio:.4f}" if rep.ratio is not None else "no ratio"


def placeholders(rep: Reproduction) -> dict[str, object]:
    """What a reason may quote: the reproducer's ``values`` and the row's own numbers
    (``published``, ``jvm_model``, ``ratio``, ``gap`` = published / model - 1, ...)."""
    published = rep.published_value
    if published is None:
        try:
            published = float(rep.published)
        except ValueError:
            published = None
    out: dict[str, object] = {
        "published": published,
        "jvm_model": rep.jvm_model,
        "python_real": rep.python_real,
        "theory_published": rep.theory_published,
        "theory_corrected": rep.theory_corrected,
        "ratio": rep.ratio,
        "gap": (published / rep.jvm_model - 1) if published and rep.jvm_model else None,
        "range_min": min(rep.range_ratios) if rep.range_ratios else None,
        "range_max": max(rep.range_ratios) if rep.range_ratios else None,
        "tolerance": rep.tolerance,
    }
    out.update(rep.values)
    return out


def fill(reason: str, rep: Reproduction) -> str:
    """The reason with its placeholders filled from the reproducer's numbers.

    Raises ``KeyError`` naming the id when a placeholder has no value."""
    try:
        return string.Formatter().vformat(reason, (), placeholders(rep))
    except (KeyError, IndexError, ValueError, TypeError) as exc:
        raise KeyError(f"{rep.id}: reason {reason!r} cannot be filled: {exc!r}") from exc


def judge(rep: Reproduction, verdict: Verdict | None = None) -> Reproduction:
    """Check the claimed category (default ``reproduced``) against the numbers and the
    evidence; a claim that fails its check becomes ``deviates``, saying why. O(evidence)."""
    if rep.jvm_model is None and rep.range_ratios is None:
        rep.category = PENDING
        rep.why = rep.why or "no reproducer"
        return rep
    claim = verdict.category if verdict else REPRODUCED
    evidence = verdict.evidence if verdict else ()
    within = rep.within_tolerance()
    missing = missing_evidence(evidence)
    where = "within" if within else "outside"
    got = f"{_measured(rep)}, {where} the {rep.basis} tolerance ±{rep.tolerance:.0%}"
    failure = ""
    if claim == REPRODUCED and not within:
        failure = "it lies outside the tolerance"
    elif claim == BY_CONSTRUCTION and not any(is_test_node(e) for e in evidence):
        failure = "it names no identity test"
    elif claim in (SEED_WRONG, EXPLAINED):
        if within:
            failure = "it lies within the tolerance"
        elif not evidence:
            failure = "it names no evidence"
    if missing:
        failure = failure or "its evidence does not exist: " + ", ".join(missing)
    rep.evidence = "; ".join(evidence)
    if failure:
        rep.category = DEVIATES
        rep.why = f"claimed {claim}, but {failure}; {got}"
        return rep
    rep.category = claim
    reason = fill(verdict.reason, rep) if verdict and verdict.reason else ""
    rep.why = reason or got
    return rep


def reproduce(ids: Iterable[str] | None = None) -> list[Reproduction]:
    """Reproduce the given ids (default: all), in published order, each judged against
    its reviewed verdict."""
    published = load_published()
    verdicts = load_verdicts()
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
        results.append(judge(rep, verdicts.get(pid)))
    return results


def summary(results: Iterable[Reproduction]) -> dict[str, int]:
    """Counts per category, every category present (0 where none)."""
    counts = dict.fromkeys(CATEGORIES, 0)
    for rep in results:
        counts[rep.verdict] += 1
    return counts


def describe_counts(counts: dict[str, int], total: int | None = None) -> str:
    """Every category present, in words: "4 of 10 reproduce within tolerance, 3 are seed
    wrong, 2 deviate, 1 is reproduced by construction" (none is dropped). O(categories)."""
    total = sum(counts.values()) if total is None else total
    words = {
        REPRODUCED: ("reproduces within tolerance", "reproduce within tolerance"),
        BY_CONSTRUCTION: ("is reproduced by construction", "are reproduced by construction"),
        SEED_WRONG: ("is seed wrong", "are seed wrong"),
        EXPLAINED: ("is explained", "are explained"),
        DEVIATES: ("deviates", "deviate"),
        PENDING: ("is pending", "are pending"),
    }
    parts = [
        f"{n} {words[c][n != 1]}" for c in CATEGORIES if (n := counts.get(c, 0)) or c == REPRODUCED
    ]
    parts[0] = parts[0].replace(
        f"{counts.get(REPRODUCED, 0)} ", f"{counts.get(REPRODUCED, 0)} of {total} ", 1
    )
    return ", ".join(parts)


def _cell(value: object) -> str:
    """A table cell: numbers (and None) by :func:`_fmt`, anything else as text."""
    return _fmt(value) if isinstance(value, float) or value is None else str(value)


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
    "real_broker",
    "ratio",
    "tolerance",
    "category",
    "why",
    "evidence",
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
        return strict_json.dumps(rows, indent=2)
    if fmt == "csv":
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n", extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
        return buf.getvalue().rstrip("\n")
    shown = [
        c
        for c in COLUMNS
        if c not in ("parameters", "explanation", "why", "evidence", "tolerance", "context")
    ]
    cells = [[_cell(r[c]) for c in shown] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(shown)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(shown, widths, strict=True))]
    lines += ["  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)) for row in cells]
    counts = summary(results)
    lines.append("")
    lines.append(", ".join(f"{k} {v}" for k, v in counts.items() if v) + f" of {len(rows)}")
    notes = [
        f"{r['id']} [{r['category']}]: {r['why']}"
        + (f" (evidence: {r['evidence']})" if r["evidence"] else "")
        for r in rows
        if r["why"]
    ]
    if notes:
        lines += ["", *notes]
    contexts = list(dict.fromkeys(str(r["context"]) for r in rows if r["context"]))
    if contexts:
        lines += ["", *contexts]
    return "\n".join(lines)
