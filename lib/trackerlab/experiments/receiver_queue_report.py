"""The receiver_queue report's frames and sentences, each computed from the fit
(:func:`~trackerlab.experiments.reproduce.receiver_queue.fit_report`), the reproduction
table and the sweeps of :mod:`~trackerlab.experiments.receiver_queue_sweeps`.

Every sentence is its own function so a test can check the numbers it states against the
frame it was given; :func:`conclusions` lists them in the report's order. Headlines are
``(label, value, note)`` triples for :func:`trackerlab.reporting.headline`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from trackerlab.experiments.receiver_queue_sweeps import memory_sweep, open_parameter_sweep
from trackerlab.experiments.reproduce.receiver_queue import (
    FIT_IDS,
    SEEDS,
    FitReport,
    TableRow,
    harness,
)
from trackerlab.models.receiver_queue import OPEN_PARAMETERS, HarnessConfig, simulate

MIB = 1024 * 1024
Headline = tuple[str, str, str]

#: The range each open parameter is swept over (µs): wide enough that a row whose size
#: depended on it would change.
SWEEP_RANGES_US = {
    "one_way_us": (25.0, 1600.0),
    "persist_us": (0.0, 5000.0),
    "read_us": (5.0, 500.0),
    "app_message_us": (1.0, 50.0),
}


def _outcome_text(outcome: Sequence[int]) -> str:
    return ",".join(map(str, outcome))


def open_parameters_frame() -> pd.DataFrame:
    """The open parameters of the harness: name, declared value (µs) and why."""
    return pd.DataFrame(
        [(name, value, why) for name, (value, why) in OPEN_PARAMETERS.items()],
        columns=["parameter", "value", "why"],
    )


def fit_headlines(report: FitReport) -> list[Headline]:
    """The fitted tick latency, then the held-out and leave-one-out scores."""
    fit_hits, fit_n = report.fit_score
    held_hits, held_n = report.held_out_score
    loo_hits, loo_n = report.loo_score
    return [
        ("tick latency fitted on N46-N51", f"{report.fitted_us:g} µs",
         f"fit {fit_hits}/{fit_n}; {len(SEEDS)} seeds per row and candidate"),
        ("held-out N52-N57 predicted exactly", f"{held_hits} of {held_n}",
         f"leave-one-out over all twelve rows: {loo_hits} of {loo_n}"),
    ]  # fmt: skip


def predictions_grid(report: FitReport, rows: Mapping[str, TableRow]) -> pd.DataFrame:
    """Per row: published outcome, role (fit or held-out) and the most frequent outcome under
    each candidate tick latency."""
    grid = pd.DataFrame(
        {f"at {c:g} µs": {pid: _outcome_text(p.mode) for pid, p in by.items()}
         for c, by in report.predictions.items()}
    )  # fmt: skip
    grid.insert(0, "published", [_outcome_text(rows[i].outcome) for i in grid.index])
    grid.insert(1, "role", ["fit" if i in FIT_IDS else "held-out" for i in grid.index])
    return grid.rename_axis("id").reset_index()


def published_share_grid(report: FitReport, rows: Mapping[str, TableRow]) -> pd.DataFrame:
    """Per row and candidate latency: the seeds whose outcome is the published one."""
    likely = pd.DataFrame(
        {f"at {c:g} µs": {pid: p.share(rows[pid].outcome) for pid, p in by.items()}
         for c, by in report.predictions.items()}
    )  # fmt: skip
    likely.insert(0, "published", [_outcome_text(rows[i].outcome) for i in likely.index])
    return likely.rename_axis("id").reset_index()


def candidate_spread(report: FitReport, ids: Sequence[str]) -> pd.DataFrame:
    """Per row: the least and largest most-frequent total size over the candidate latencies."""
    totals = {pid: [by[pid].total for by in report.predictions.values()] for pid in ids}
    return pd.DataFrame(totals).agg(["min", "max"]).T


@dataclass(frozen=True)
class N54Pull:
    """Where N54's published 4,4,8 comes out most often, and what N51 gets there."""

    best_us: float
    count: int
    n51_there: str


def n54_pull(report: FitReport, rows: Mapping[str, TableRow]) -> N54Pull:
    """The candidate latency under which N54's published outcome is most frequent (ties: the
    smaller latency), its seed count, and N51's published share at that latency."""
    counts = {
        c: by["N54"].outcomes.get(rows["N54"].outcome, 0) for c, by in report.predictions.items()
    }
    best = min(counts, key=lambda c: (-counts[c], c))
    return N54Pull(best, counts[best], report.predictions[best]["N51"].share(rows["N51"].outcome))


def n54_headline(report: FitReport, rows: Mapping[str, TableRow]) -> Headline:
    """N54's best latency and N51's share there and at the fit."""
    pull = n54_pull(report, rows)
    return (
        "N54's 4,4,8 comes out most often at",
        f"{pull.best_us:g} µs",
        f"{pull.count} of {len(SEEDS)} seeds; there N51's 1000 comes out in {pull.n51_there}, "
        f"at the fit ({report.fitted_us:g} µs) in "
        f"{report.prediction('N51').share(rows['N51'].outcome)}",
    )


def sensitivity(
    report: FitReport,
    rows: Mapping[str, TableRow],
    ids: Sequence[str],
    points: int,
    duration_s: float,
) -> pd.DataFrame:
    """Each open parameter swept over :data:`SWEEP_RANGES_US` (lowest, declared, highest; the
    first ``points`` of them) for the rows ``ids``, at the fitted tick latency."""
    base = harness(1.0, 1, report.fitted_us).with_(duration_s=duration_s)
    picked = [(pid, rows[pid].rate, rows[pid].partitions) for pid in ids]
    frames = []
    for name, (lo, hi) in SWEEP_RANGES_US.items():
        values = sorted({lo, OPEN_PARAMETERS[name][0], hi})[: max(1, points)]
        frames.append(open_parameter_sweep(picked, name, values, base=base))
    return pd.concat(frames, ignore_index=True)


def sensitivity_headline(sens: pd.DataFrame) -> Headline:
    """How many (parameter, row) pairs change their final size over the sweep."""
    moved = sens.groupby(["parameter", "id"]).final_total_size.nunique().gt(1)
    return (
        "open parameters that move a swept row",
        f"{int(moved.sum())} of {len(moved)}",
        "parameter x row pairs whose final size changes over the range",
    )


def sensitivity_table(sens: pd.DataFrame) -> pd.DataFrame:
    """The sweep with one column of final sizes per row."""
    return sens.pivot_table(
        index=["parameter", "value"], columns="id", values="final_total_size"
    ).reset_index()


def queue_series(
    rates: Sequence[float], partitions: int, fitted_us: float, client: str, duration_s: float
) -> dict[float, pd.DataFrame]:
    """The simulated queue-size time series of each producer rate (``t_s``, ``total_size``)."""
    out = {}
    for rate in rates:
        cfg = harness(rate, partitions, fitted_us, client=client)
        out[rate] = simulate(cfg.with_(duration_s=duration_s)).frame()
    return out


def memory_runs(
    workloads: Sequence[Sequence[int]],
    partitions: Sequence[int],
    memory_limit_bytes: int,
    duration_s: float,
) -> pd.DataFrame:
    """:func:`memory_sweep` for Go and Java over every (rate, payload) workload and partition
    count, with the peaks in MiB (``peak_client_MiB``, ``peak_per_consumer_MiB``)."""
    runs = [
        memory_sweep(c, [rate], message_bytes=size, partitions=parts,
                     memory_limit_bytes=memory_limit_bytes, duration_s=duration_s)
        for c in ("go", "java") for rate, size in workloads for parts in partitions
    ]  # fmt: skip
    memory = pd.concat(runs, ignore_index=True)
    return memory.assign(
        peak_client_MiB=memory.peak_client_bytes / MIB,
        peak_per_consumer_MiB=memory.peak_prefetched_bytes_per_consumer / MIB,
    )


def limited_runs(memory: pd.DataFrame) -> pd.DataFrame:
    """The runs under an enforced memory limit."""
    return memory[memory["mode"] == "auto+limit"]


def over_limit(memory: pd.DataFrame) -> pd.DataFrame:
    """The runs under an enforced memory limit that still went over it."""
    limited = limited_runs(memory)
    return limited[~limited.under_limit]


def unlimited_over(memory: pd.DataFrame) -> pd.DataFrame:
    """The runs without a limit that held more than the limit."""
    return memory[(memory["mode"] != "auto+limit") & ~memory.under_limit]


def memory_headline(memory: pd.DataFrame, memory_limit_bytes: int) -> Headline:
    """Runs over an enforced limit, and without one."""
    limited = limited_runs(memory)
    return (
        "runs that went over an enforced memoryLimit",
        f"{len(over_limit(memory))} of {len(limited)}",
        f"limit {memory_limit_bytes / MIB:g} MiB; without a limit {len(unlimited_over(memory))} of "
        f"{len(memory) - len(limited)} runs held more (largest "
        f"{memory.peak_client_MiB.max():.1f} MiB)",
    )


def java_drains(rate_per_s: float, duration_s: float, fitted_us: float) -> pd.DataFrame:
    """The Java partitioned consumer (3 partitions) with each drain: batch-receive (#16336)
    and the older per-message receive-async; one row per drain, indexed by it."""
    rows = []
    for drain in ("batch-receive", "receive-async"):
        res = simulate(HarnessConfig(client="java", rate=rate_per_s, partitions=3, duration_s=duration_s,
                                     java_drain=drain, tick_latency_us=fitted_us))  # fmt: skip
        rows.append({"drain": drain, "final_sizes": _outcome_text(res.final_sizes),
                     "parent_size": res.parent_size, "consumed": res.consumed,
                     "produced": res.produced, "lag_s": round(res.lag_s, 3),
                     "stalled": res.stalled})  # fmt: skip
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- sentences


def fit_sentence(report: FitReport, table: pd.DataFrame) -> str:
    """The fitted latency and what it predicts: held-out rows and leave-one-out."""
    held_hits, held_n = report.held_out_score
    loo_hits, _ = report.loo_score
    strict = table[(table.role == "held-out") & (table.category == "reproduced")].id.tolist()
    return (
        f"The harness modelled from the code, with one latency fitted on the non-partitioned table "
        f"({report.fitted_us:g} µs), predicts {held_hits} of the {held_n} held-out 3-partition rows "
        f"exactly ({', '.join(strict)} as predictions; the rest of the matches any latency "
        f"gives); leave-one-out over all twelve rows predicts {loo_hits}."
    )


def category_sentence(table: pd.DataFrame) -> str:
    """How many rows fall in each category, most frequent first."""
    cats = table.category.value_counts()
    return "Categories: " + ", ".join(f"{k} {v}" for k, v in cats.items()) + "."


def fixed_sentence(table: pd.DataFrame) -> str:
    """The rows reproduced by construction."""
    fixed = table[table.category == "reproduced by construction"].id.tolist()
    return (
        f"Rows fixed by the code whatever the latency, or fitted: {', '.join(fixed)}; N52's 2,1,1 "
        "is the sticky router keeping 1 msg/s on one partition for 100 s."
    )


def deviation_sentence(table: pd.DataFrame) -> str:
    """The rows not reproduced, with the model's and the published outcome."""
    dev = table[table.category.isin(["deviates", "seed wrong"])]
    return (
        "Not reproduced: "
        + "; ".join(
            f"{r.id} ({r.category}: model {r.model} vs {r.published})" for r in dev.itertuples()
        )
        + "."
    )


def n54_sentence(report: FitReport, rows: Mapping[str, TableRow]) -> str:
    """N54 and N51 pull the latency in opposite directions."""
    pull = n54_pull(report, rows)
    return (
        f"N54 under one latency: its published 4,4,8 is the model's most frequent outcome at "
        f"{pull.best_us:g} µs ({pull.count} of {len(SEEDS)} seeds), but there N51's 1000 comes "
        f"out in only {pull.n51_there} seeds; the fit on N46–N51 takes {report.fitted_us:g} µs, where "
        f"4,4,8 comes out in {report.prediction('N54').share(rows['N54'].outcome)}."
    )


def prefetch_sentence(memory: pd.DataFrame, memory_limit_bytes: int) -> str:
    """The largest prefetch per consumer, and the runs over the limit with and without it."""
    limited, over = limited_runs(memory), over_limit(memory)
    listed = ""
    if len(over):
        listed = " (" + "; ".join(
            f"{r.client}, {r.partitions} partitions, {r.message_bytes:,} B: {r.peak_client_MiB:.1f} MiB"
            for r in over.itertuples()
        ) + ")"  # fmt: skip
    return (
        f"Prefetch with batching: a partition consumer held up to "
        f"{memory.peak_prefetched_per_consumer.max():,} messages "
        f"({memory.peak_per_consumer_MiB.max():.1f} MiB) in these runs, whole entries beyond its "
        f"queue size. Under an enforced {memory_limit_bytes / MIB:g} MiB limit {len(over)} of "
        f"{len(limited)} clients still went over it{listed}; without a limit "
        f"{len(unlimited_over(memory))} of {len(memory) - len(limited)} did."
    )


def drain_sentence(drains: pd.DataFrame, rate_per_s: float) -> str:
    """The lag of each Java partitioned drain."""
    d = drains.set_index("drain")
    return (
        f"Java partitioned drain at {rate_per_s:g} msg/s: batch-receive lag "
        f"{d.loc['batch-receive', 'lag_s']} s, receive-async lag "
        f"{d.loc['receive-async', 'lag_s']} s."
    )


def conclusions(
    report: FitReport,
    rows: Mapping[str, TableRow],
    table: pd.DataFrame,
    memory: pd.DataFrame,
    memory_limit_bytes: int,
    drains: pd.DataFrame,
    drain_rate_per_s: float,
) -> list[str]:
    """The report's conclusions in order."""
    return [
        fit_sentence(report, table),
        category_sentence(table),
        fixed_sentence(table),
        deviation_sentence(table),
        n54_sentence(report, rows),
        prefetch_sentence(memory, memory_limit_bytes),
        drain_sentence(drains, drain_rate_per_s),
    ]


def answer_sentence(
    memory: pd.DataFrame, memory_limit_bytes: int, workloads_text: str, partitions: Sequence[int]
) -> str:
    """The report's answer; ``workloads_text`` names the workloads (``"20,000 msg/s of 128 B"``
    joined by "and", written by the reporting layer)."""
    over, limited = over_limit(memory), limited_runs(memory)
    verdict = ("stays under it" if over.empty else
               f"went over it in {len(over)} of {len(limited)} runs (up to "
               f"{over.peak_client_MiB.max():.1f} MiB)")  # fmt: skip
    return (
        f"With batching, a Go or Java consumer under a {memory_limit_bytes / MIB:g} MiB memoryLimit "
        f"{verdict} for {workloads_text} on {' or '.join(map(str, partitions))} "
        f"partition{'s' if max(partitions) > 1 else ''}; "
        f"without the limit a client held up to {memory.peak_client_MiB.max():.1f} MiB, and a "
        f"partition consumer up to {memory.peak_prefetched_per_consumer.max():,} messages, whole "
        f"entries beyond its queue of 1000"
    )
