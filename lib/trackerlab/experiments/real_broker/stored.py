"""The stored results of ``trackerlab broker run``, as ``notebooks/real_broker.ipynb`` reads
them: no broker, only the Parquet files under ``data/broker/``.

Every experiment writes per workload and release a comparison file
``<experiment>-<workload>-<release>[-smoke].parquet`` (rows carrying ``measured_deep_bytes``,
``plan_bytes``, ``error`` and ``verdict``: ``within``, ``outside`` or ``broker behind``) and a
time series ``...-samples.parquet`` (``t_s``, ``subscription``, ``deep_bytes``, ...), each with
its provenance as JSON in the Parquet schema metadata key ``trackerlab``
(:func:`trackerlab.experiments.real_broker.delayed.write_results`). :func:`read_results`
reads every such file of a folder; a file that is not Parquet, has no provenance or lacks the
columns gives one line naming it (:attr:`BrokerResults.problems`) and is left out.
:func:`worst_error` and :func:`answer_sentence` give the report's answer: the worst error of
the plan against the measured deep size over the rows the plan applies to (not "broker
behind"). Cost: O(rows) after reading the files.
"""

from __future__ import annotations

import math
import numbers
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from trackerlab.core.parquet_bytes import read_parquet_bytes
from trackerlab.core.paths import display_path, repo_root
from trackerlab.core.safe_yaml import FileRefused, load_json, read_user_file

#: Bound of the bounded reader for one stored broker result file.
MAX_RESULT_BYTES = 256 << 20

__all__ = [
    "BEHIND",
    "COMPARISON_COLUMNS",
    "RUN_COMMAND",
    "BrokerResults",
    "WorstError",
    "answer_sentence",
    "comparison_table",
    "data_notes",
    "experiments",
    "headlines",
    "heap_series",
    "read_result_file",
    "read_results",
    "results_folder",
    "run_panels",
    "runs_story",
    "summary",
    "time_series",
    "tolerance_notes",
    "worst_error",
]

#: The columns that make a file a comparison (one row per subscription and run).
COMPARISON_COLUMNS = ("measured_deep_bytes", "plan_bytes", "error", "verdict")
#: The columns a samples file must have (a nack run's one consumer has no subscription
#: column: its samples are filed under :data:`ONE_CONSUMER`).
SAMPLES_COLUMNS = ("t_s",)
ONE_CONSUMER = "consumer"
#: The verdict of a row the plan does not apply to (the dispatcher fell behind).
BEHIND = "broker behind"
#: Experiments whose names hold a hyphen, so the file-name prefix is read whole.
KNOWN_EXPERIMENTS = ("pending-acks", "nack", "delayed")
#: What a reader runs to store results.
RUN_COMMAND = "trackerlab broker run all"
PROVENANCE_KEY = b"trackerlab"


@dataclass
class BrokerResults:
    """Every stored result of one folder, tidy: ``comparison`` (one row per subscription and
    run), ``samples`` (one row per sample and subscription), ``runs`` (one row per comparison
    file: its provenance) and one line per file left out."""

    folder: Path
    comparison: pd.DataFrame
    samples: pd.DataFrame
    runs: pd.DataFrame
    problems: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return self.comparison.empty


@dataclass(frozen=True)
class WorstError:
    """The comparison row whose plan is furthest from the measured deep size."""

    experiment: str
    workload: str
    release: str
    subscription: str
    error: float  # (plan - measured) / measured
    measured_deep_bytes: float
    plan_bytes: float


def results_folder(text: str) -> Path:
    """The folder a notebook parameter names: absolute, or relative to the repository."""
    path = Path(text).expanduser()
    return path if path.is_absolute() else repo_root() / path


def experiment_of(stem: str, provenance: dict) -> str:
    """The experiment a file holds: its provenance's ``experiment`` when the file name starts
    with it, else the longest known prefix, else the name up to its first hyphen."""
    named = provenance.get("experiment")
    if isinstance(named, str) and named and stem.startswith(named + "-"):
        return named
    for known in KNOWN_EXPERIMENTS:
        if stem.startswith(known + "-"):
            return known
    return stem.split("-", 1)[0]


def read_result_file(path: Path) -> tuple[pd.DataFrame, dict]:
    """The frame and the provenance of one stored result file (through the bounded reader);
    ValueError with the reason otherwise. O(file size)."""
    try:
        data = read_user_file(path, "broker result", MAX_RESULT_BYTES)
    except FileRefused as exc:
        raise ValueError(exc.reason) from None
    try:
        table = read_parquet_bytes(data)
    except Exception as exc:  # OSError, pyarrow.ArrowInvalid and kin on a damaged file
        reason = (str(exc).splitlines() or [type(exc).__name__])[0]  # bytes: no path in it
        raise ValueError(f"not a readable Parquet file ({reason[:120]})") from None
    raw = (table.schema.metadata or {}).get(PROVENANCE_KEY)
    if raw is None:
        raise ValueError("no provenance (Parquet schema metadata key 'trackerlab')")
    try:
        provenance = load_json(raw, "provenance")
    except FileRefused:
        raise ValueError("its provenance is not JSON") from None
    if not isinstance(provenance, dict):
        raise ValueError("its provenance is not a JSON object")
    return table.to_pandas(), provenance


def _run_row(run: str, experiment: str, file: str, prov: dict) -> dict[str, object]:
    """One file's provenance as a row (units in the names)."""
    machine = m if isinstance(m := prov.get("machine"), dict) else {}
    workload = w if isinstance(w := prov.get("workload"), dict) else {}
    return {
        "run": run,
        "experiment": experiment,
        "file": file,
        "workload": workload.get("name"),
        "release": prov.get("pulsar_version"),
        "client": prov.get("client"),
        "smoke": bool(prov.get("smoke", False)),
        "achieved_rate_per_s": prov.get("achieved_rate_per_s"),
        "run_s": prov.get("run_seconds"),
        "broker_start_s": prov.get("broker_start_seconds"),
        "broker_rss_bytes": prov.get("broker_rss_bytes"),
        "tolerance": prov.get("tolerance"),
        "tolerance_reason": prov.get("tolerance_reason"),
        "machine": machine.get("node"),
        "cpus": machine.get("cpus"),
        "memory_bytes": machine.get("memory_bytes"),
        "system": machine.get("system"),
        "java": machine.get("java"),
        "git_commit": prov.get("git_commit"),
        "created": prov.get("created"),
    }


def read_results(folder: str | Path, include_smoke: bool = False) -> BrokerResults:
    """Every comparison and samples file under ``folder`` (``*.parquet``, sorted by name);
    ``*-smoke*`` files only with ``include_smoke``. A missing folder reads as no results.
    O(files + rows)."""
    folder = Path(folder)
    comparisons, samples, runs, problems = [], [], [], []
    try:
        names = sorted(e.name for e in os.scandir(folder) if e.name.endswith(".parquet"))
    except FileNotFoundError:
        names = []
    except OSError as exc:
        names = []
        problems.append(f"{display_path(folder)}: cannot read the folder ({exc.strerror})")
    for name in names:
        stem = name.removesuffix(".parquet")
        if "-smoke" in stem and not include_smoke:
            continue
        is_samples = stem.endswith("-samples")
        run = stem.removesuffix("-samples")
        try:
            frame, prov = read_result_file(folder / name)
        except ValueError as exc:
            problems.append(f"{name}: {exc}; left out")
            continue
        wanted = SAMPLES_COLUMNS if is_samples else COMPARISON_COLUMNS
        missing = [c for c in wanted if c not in frame.columns]
        if missing:
            problems.append(f"{name}: no column {', '.join(missing)}; left out")
            continue
        experiment = experiment_of(stem, prov)
        frame = frame.assign(experiment=experiment, run=run, file=name)
        if "pulsar_version" not in frame.columns:
            frame["pulsar_version"] = prov.get("pulsar_version")
        frame = frame.rename(columns={"pulsar_version": "release"})
        if is_samples:
            if "subscription" not in frame.columns:
                frame["subscription"] = ONE_CONSUMER
            samples.append(frame)
        else:
            if "workload" not in frame.columns:
                workload = prov.get("workload")
                frame["workload"] = workload.get("name") if isinstance(workload, dict) else run
            tolerance = prov.get("tolerance")
            frame["tolerance"] = (
                float(tolerance) if isinstance(tolerance, int | float) else math.nan
            )
            comparisons.append(frame)
            runs.append(_run_row(run, experiment, name, prov))
    return BrokerResults(
        folder,
        _stack(comparisons),
        _stack(samples),
        pd.DataFrame(runs),
        problems,
    )


def _stack(frames: list[pd.DataFrame]) -> pd.DataFrame:
    """The files' rows in one frame; a column that is empty in one file (a nack run's
    ``simulate_bytes``) is left to the others, which pandas will not infer from. O(rows)."""
    keep = {*COMPARISON_COLUMNS, *SAMPLES_COLUMNS}
    kept = [f.drop(columns=[c for c in f if c not in keep and f[c].isna().all()]) for f in frames]
    return pd.concat(kept, ignore_index=True) if kept else pd.DataFrame()


def compared(comparison: pd.DataFrame) -> pd.DataFrame:
    """The rows the plan applies to: every verdict but "broker behind"."""
    if comparison.empty:
        return comparison
    return comparison[comparison["verdict"] != BEHIND]


def worst_error(comparison: pd.DataFrame) -> WorstError | None:
    """The compared row with the largest ``|error|`` (the first in experiment, workload,
    release, subscription order on a tie), or None when no row is compared. O(rows)."""
    rows = compared(comparison)
    rows = rows[rows["error"].notna()] if not rows.empty else rows
    if rows.empty:
        return None
    keys = [c for c in ("experiment", "workload", "release", "subscription") if c in rows]
    rows = rows.sort_values(keys, kind="stable")
    r = rows.loc[rows["error"].abs().idxmax()]
    return WorstError(
        str(r["experiment"]), str(r["workload"]), str(r["release"]),
        str(r.get("subscription", "")), float(r["error"]),
        float(r["measured_deep_bytes"]), float(r["plan_bytes"]),
    )  # fmt: skip


def _percent(value: float, signed: bool = True) -> str:
    """``-0.0439`` -> ``-4.4%``, ``0.05`` -> ``+5%`` (``5%`` unsigned), ``0`` -> ``0%``."""
    text = f"{abs(value) * 100:.1f}".rstrip("0").rstrip(".")
    if text == "0":
        return "0%"
    sign = "-" if value < 0 else ("+" if signed else "")
    return f"{sign}{text}%"


#: Binary units for prose, largest first (as ``trackerlab.reporting.format_bytes``, a layer
#: above this one).
_BYTE_UNITS = (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10))


def _bytes(value: float) -> str:
    """``113301.3`` -> ``110.6 KiB``: one decimal in the largest unit that keeps it >= 1."""
    for unit, size in _BYTE_UNITS:
        if abs(value) >= size:
            return f"{value / size:,.1f} {unit}"
    return f"{value:,.0f} B"


def _releases(releases: list[str]) -> str:
    names = [f"{r}'s" for r in releases]
    if len(names) == 1:
        return f"Pulsar {names[0]} broker"
    return f"Pulsar {', '.join(names[:-1])} and {names[-1]} brokers"


def answer_sentence(results: BrokerResults) -> str:
    """The report's answer, led by the worst error of the plan against the broker:
    "Against Pulsar 4.2.4's broker the planner is within 5% on 10 of 12 rows; worst: ...".
    O(rows)."""
    where = display_path(results.folder)
    if results.empty:
        return f"No stored real-broker results in {where}: run `{RUN_COMMAND}`."
    frame = results.comparison
    releases = sorted(frame["release"].dropna().astype(str).unique(), key=_version_key)
    total, within = len(frame), int((frame["verdict"] == "within").sum())
    behind = int((frame["verdict"] == BEHIND).sum())
    tolerances = sorted(frame["tolerance"].dropna().unique())
    bound = (
        f"within {_percent(tolerances[0], signed=False)}"
        if len(tolerances) == 1
        else "within its experiment's tolerance"
    )
    head = f"Against {_releases(releases)} the planner is {bound} on {within} of {total} rows"
    worst = worst_error(frame)
    if worst is None:
        return f"{head}; none compared: the broker fell behind on all {total}."
    tail = (
        f"; worst: {_percent(worst.error)} ({worst.experiment} {worst.workload} on "
        f"{worst.release}: plan {_bytes(worst.plan_bytes)} against "
        f"{_bytes(worst.measured_deep_bytes)} measured)"
    )
    if behind:
        tail += f"; {behind} not compared (broker behind)"
    return head + tail + "."


def _version_key(version: str) -> tuple:
    return tuple(int(p) if p.isdigit() else p for p in version.split("."))


def comparison_table(comparison: pd.DataFrame, experiment: str) -> pd.DataFrame:
    """One experiment's rows, ordered by workload, release and subscription, with
    ``error_percent`` (the plan's error in %) beside the bytes. O(rows)."""
    rows = comparison[comparison["experiment"] == experiment]
    rows = rows.assign(error_percent=rows["error"] * 100)
    keys = [c for c in ("workload", "release", "subscription") if c in rows]
    return rows.sort_values(keys, key=_sort_key).reset_index(drop=True)


def _sort_key(column: pd.Series) -> pd.Series:
    if column.name == "release":
        return column.astype(str).map(_version_key)
    return column


def time_series(results: BrokerResults, run: str) -> pd.DataFrame:
    """One run's samples, long: ``t_s``, ``series`` ("deep size (JOL)", "broker metric"),
    ``bytes`` (mean over the subscriptions at each sample). O(samples)."""
    s = results.samples
    s = s[s["run"] == run] if not s.empty else s
    if s.empty:
        return pd.DataFrame(columns=["t_s", "series", "bytes"])
    names = {"deep_bytes": "deep size (JOL)", "metric_index_bytes": "broker metric"}
    present = [c for c in names if c in s]
    mean = s.groupby("t_s", as_index=False)[present].mean()
    long = mean.melt(id_vars="t_s", var_name="series", value_name="bytes").dropna()
    return long.assign(series=long["series"].map(names)).reset_index(drop=True)


def runs_story(results: BrokerResults) -> str:
    """What was run, on which releases and machine, from the provenance: a few Markdown
    lines. O(files)."""
    runs = results.runs
    if runs.empty:
        return f"No stored results in `{display_path(results.folder)}`."
    lines = []
    for experiment, g in runs.groupby("experiment", sort=True):
        releases = sorted(g["release"].dropna().astype(str).unique(), key=_version_key)
        workloads = ", ".join(f"`{w}`" for w in dict.fromkeys(g["workload"].dropna()))
        clients = ", ".join(sorted(g["client"].dropna().astype(str).unique())) or "unknown"
        lines.append(
            f"* **{experiment}**: {len(g)} runs, workloads {workloads or 'unknown'} on Pulsar "
            f"{', '.join(releases)} (client {clients})."
        )
    for (node, cpus, memory, system, java), g in runs.groupby(
        ["machine", "cpus", "memory_bytes", "system", "java"], dropna=False, sort=True
    ):
        mem = (
            _bytes(float(memory)) if isinstance(memory, numbers.Real) and memory == memory else "?"
        )
        dates = sorted({str(c)[:10] for c in g["created"].dropna()})
        when = (dates[0] if len(dates) == 1 else f"{dates[0]} to {dates[-1]}") if dates else "?"
        commits = ", ".join(sorted({str(c)[:10] + (" (dirty)" if str(c).endswith("-dirty") else "")
                                    for c in g["git_commit"].dropna()}))  # fmt: skip
        lines.append(
            f"* Machine `{node}`: {_count(cpus)} CPUs, {mem} memory, Java {java}, {system}; "
            f"{len(g)} runs on {when}, trackerlab commit {commits or 'unknown'}."
        )
    return "\n".join(lines)


def _count(value: object) -> str:
    """A count as digits; ``?`` when missing (None or NaN)."""
    if value is None or value != value:
        return "?"
    if not isinstance(value, int | float | str | np.integer | np.floating):
        raise TypeError(f"not a count: {value!r}")
    return f"{int(value)}"


def summary(comparison: pd.DataFrame) -> pd.DataFrame:
    """Per experiment and release: rows, how many within, outside and behind, and the worst
    error over the compared rows in % (NaN when none is compared). O(rows)."""
    columns = ["experiment", "release", "rows", "within", "outside", "behind",
               "worst_error_percent"]  # fmt: skip
    if comparison.empty:
        return pd.DataFrame(columns=columns)
    out = []
    for (experiment, release), g in comparison.groupby(["experiment", "release"], sort=False):
        worst = worst_error(g)
        out.append({
            "experiment": experiment, "release": release, "rows": len(g),
            "within": int((g["verdict"] == "within").sum()),
            "outside": int((g["verdict"] == "outside").sum()),
            "behind": int((g["verdict"] == BEHIND).sum()),
            "worst_error_percent": worst.error * 100 if worst else math.nan,
        })  # fmt: skip
    frame = pd.DataFrame(out, columns=columns)
    return frame.sort_values(["experiment", "release"], key=_sort_key).reset_index(drop=True)


def headlines(results: BrokerResults) -> list[tuple[str, str, str]]:
    """The index's figures, ``(label, value, note)``: the worst error first, then the rows
    within the tolerance; without results, where to get them. O(rows)."""
    if results.empty:
        return [("stored real-broker results", "none", f"run `{RUN_COMMAND}`")]
    frame = results.comparison
    out = []
    worst = worst_error(frame)
    if worst is not None:
        out.append((
            "worst error of the plan against the broker", _percent(worst.error),
            f"{worst.experiment} {worst.workload}, Pulsar {worst.release}: plan "
            f"{_bytes(worst.plan_bytes)}, measured {_bytes(worst.measured_deep_bytes)}",
        ))  # fmt: skip
    within = int((frame["verdict"] == "within").sum())
    behind = int((frame["verdict"] == BEHIND).sum())
    note = f"{behind} with the broker behind" if behind else "every row compared"
    out.append(("rows within the tolerance", f"{within} of {len(frame)}", note))
    return out


def data_notes(results: BrokerResults) -> list[str]:
    """The report's opening Markdown, one block each: every file left out, a note when
    nothing is stored (and how to run it), then the data folder and :func:`runs_story`."""
    notes = [f"> **Left out:** {line}" for line in results.problems]
    where = display_path(results.folder)
    if results.empty:
        notes.append(
            f"> **No stored results in `{where}`.** Run `{RUN_COMMAND}` "
            "(a real broker per release, minutes per workload) and render this report again."
        )
    notes.append(f"*Data: `{where}`.*\n\n" + runs_story(results))
    return notes


def experiments(results: BrokerResults) -> list[str]:
    """The experiments with stored comparisons, sorted by name (none without results)."""
    return [] if results.empty else sorted(results.comparison["experiment"].unique())


def run_panels(results: BrokerResults, experiment: str) -> pd.DataFrame:
    """One row per run of ``experiment`` (its first comparison row), with the ``title`` of
    its panel: workload, release and, for a run the broker fell behind on, why its plan line
    is not compared or is planned at its read lag. O(rows)."""
    table = comparison_table(results.comparison, experiment)
    behind = set(table.loc[table["verdict"] == BEHIND, "run"])
    lagging = (
        set(table.loc[table["dispatcher"] == "behind", "run"]) if "dispatcher" in table else set()
    )
    rows = table.drop_duplicates("run")
    titles = []
    for run, workload, release in zip(rows["run"], rows["workload"], rows["release"], strict=True):
        note = (" (broker behind: not compared)" if run in behind
                else " (behind: planned at its read lag)" if run in lagging else "")  # fmt: skip
        titles.append(f"{workload} on Pulsar {release}{note}")
    return rows.assign(title=titles)


def heap_series(results: BrokerResults) -> pd.DataFrame:
    """The broker JVM's heap in use per run over time, long: ``run``, ``label`` (experiment,
    workload and release), ``t_s``, ``heap_mib`` (the first subscription's sample at each
    time); empty when no sample carries it. O(samples)."""
    heap = results.samples
    if heap.empty or "broker_heap_used_bytes" not in heap.columns:
        return pd.DataFrame(columns=["run", "label", "t_s", "heap_mib"])
    heap = heap.groupby(["run", "t_s"])["broker_heap_used_bytes"].first().reset_index()
    names = results.runs.set_index("run")

    def label(run: str) -> str:
        if run not in names.index:
            return run
        return f"{names.at[run, 'experiment']} {names.at[run, 'workload']} on {names.at[run, 'release']}"

    return pd.DataFrame({
        "run": heap["run"], "label": heap["run"].map(label), "t_s": heap["t_s"],
        "heap_mib": heap["broker_heap_used_bytes"] / 2**20,
    })  # fmt: skip


def tolerance_notes(results: BrokerResults) -> list[str]:
    """One Markdown line per distinct tolerance reason of the stored runs."""
    if results.runs.empty:
        return []
    return [f"*Tolerance:* {r}." for r in results.runs["tolerance_reason"].dropna().unique()]
