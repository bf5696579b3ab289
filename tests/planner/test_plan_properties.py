"""Property-based tests of the capacity planner over its stated ranges.

Hypothesis draws workloads: rates from 1/s to 1M/s, partitions, each delay family and
mixtures, shares, ticks, nack precisions, ledger rollovers and release versions. The plan
either answers or refuses in one line (:class:`~trackerlab.core.errors.UsageError`); any other
exception fails. On workloads small enough for the message-level path, the fast answer of the
time-bucket designs lies within its stated sampling bound of ``--exact``, widened by the
exact snapshot's own randomness (one realization of each Poisson placement).
"""

from __future__ import annotations

import math

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from trackerlab.core.errors import UsageError
from trackerlab.models import pulsar_releases
from trackerlab.planner.memory_plan import delayed_rows, nack_rows, plan
from trackerlab.planner.workload import PlanWorkload

DURATIONS = ("100ms", "1s", "30s", "5m", "1h", "1d", "7d")


@st.composite
def delays(draw) -> str:
    kind = draw(st.sampled_from(("fixed", "uniform", "exponential", "mix", "empirical")))
    a, b = sorted(draw(st.lists(st.sampled_from(DURATIONS), min_size=2, max_size=2)))
    a_ms, b_ms = (_ms(x) for x in (a, b))
    lo, hi = (a, b) if a_ms <= b_ms else (b, a)
    if kind == "fixed":
        return f"fixed:{hi}"
    if kind == "uniform":
        return f"uniform:0:{hi}" if lo == hi else f"uniform:{lo}:{hi}"
    if kind == "exponential":
        return f"exponential:{lo}"
    if kind == "empirical":
        return f"empirical:{lo}@0.5,{hi}@0.5"
    w = draw(st.sampled_from((0.2, 0.5, 0.8)))
    return f"mix:{w}*uniform:0:{hi}+{1 - w:.1f}*fixed:{lo}"


def _ms(text: str) -> float:
    from trackerlab.workloads.units import parse_duration_ms

    return parse_duration_ms(text)


@st.composite
def workloads(draw, max_rate_per_s: float = 1e6) -> dict:
    rate = 10 ** draw(st.floats(0, math.log10(max_rate_per_s)))
    raw: dict[str, object] = {
        "rate": f"{rate:.6g}/s",
        "partitions": draw(st.sampled_from((1, 2, 4, 16, 64))),
        "batch": draw(st.sampled_from((1, 1, 10, 100))),
        "delayed": f"{draw(st.sampled_from((0, 1, 10, 30, 100)))}%",
        "nacked": f"{draw(st.sampled_from((0, 0.1, 2, 10)))}%",
        "subscriptions": draw(st.sampled_from((1, 2))),
        "consumers": draw(st.sampled_from((1, 3))),
        "tick": draw(st.sampled_from(("1ms", "100ms", "1s", "4s", "1m"))),
        "nack_precision_bits": draw(st.integers(0, 16)),
        "ledger_min_rollover": draw(st.sampled_from(("0", "10m", "1h"))),
        "pulsar_version": draw(st.sampled_from(pulsar_releases.known_versions())),
    }
    if raw["delayed"] != "0%":
        raw["delay"] = draw(delays())
    if draw(st.booleans()):
        raw["nack_delay"] = draw(st.sampled_from(("100ms", "1m", "uniform:1s:30s", "10m")))
    return raw


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(workloads())
def test_a_plan_answers_or_refuses_in_one_line(raw):
    try:
        w = PlanWorkload.parse(raw)
        p = plan(w)
    except UsageError as exc:
        assert "\n" not in str(exc)
        return
    assert p.rows, raw
    for row in p.rows:
        assert row.steady_bytes >= 0 and row.peak_bytes >= row.steady_bytes * 0.999, raw
        assert 0 <= row.error_bound < math.inf, raw  # stated; wide for sparse or huge buckets


def _tolerance(fast, exact) -> float:
    """The fast row's stated bound, plus 3 relative standard deviations of one realization of
    the exact snapshot's Poisson placement (about 1/sqrt(bitmaps)), plus 1%."""
    return fast.error_bound + 3 / math.sqrt(max(exact.entries, 1)) + 0.01


#: The draw that found the ratio estimator's defect: 30 s and 7 d point masses at 53/s put
#: about 27 entries in each of 590k buckets, whose bytes are mostly a fixed part per bucket;
#: scaling the sample by its (binomially varying) entry count was 1.83% low with a stated
#: bound of 0.68%. The fast path now picks the estimator with the smaller variance
#: (``snapshot._estimator``): 0.03% off, bound 0.23%.
FOUND_BY_HYPOTHESIS = {
    "rate": "52.998/s", "partitions": 1, "batch": 1, "delayed": "100%", "nacked": "0%",
    "subscriptions": 1, "consumers": 1, "tick": "1s", "nack_precision_bits": 8,
    "ledger_min_rollover": "0", "pulsar_version": "4.2", "delay": "empirical:30s@0.5,7d@0.5",
}  # fmt: skip


#: The draw that found the phase snapshots' shared sample budget too small: 1 ms buckets with
#: an exponential 5 min delay left each of 16 phases the 16-key floor; fast was 10.1% above
#: exact with a stated bound of 7.2%. Each phase now gets a whole snapshot's budget.
FOUND_WITH_SPLIT_PHASES = {
    "rate": "1778.28/s", "partitions": 1, "batch": 1, "delayed": "30%", "nacked": "0%",
    "subscriptions": 1, "consumers": 1, "tick": "1ms", "nack_precision_bits": 0,
    "ledger_min_rollover": "0", "pulsar_version": "2.10", "delay": "exponential:5m",
}  # fmt: skip


#: The draw that found the sparse limit: 1/s, 10% delayed over 100 ms to 7 d with 1 ms ticks
#: leaves 30k lone entries among 605M keys, and a 4,096-key sample saw a few of them: fast was
#: 52.6% below exact with a stated bound of 48.6%. The closed form now answers the sparse limit
#: (``snapshot.SPARSE_ENTRIES_PER_KEY``): 0.13% off.
FOUND_SPARSE = {
    "rate": "1/s", "partitions": 1, "batch": 1, "delayed": "10%", "nacked": "0%",
    "subscriptions": 1, "consumers": 1, "tick": "1ms", "nack_precision_bits": 0,
    "ledger_min_rollover": "0", "pulsar_version": "4.2", "delay": "uniform:100ms:7d",
}  # fmt: skip


#: The largest exact snapshot the property test folds (entries): a random draw of 1 ms ticks
#: over a day of 3k/s (86M single-entry buckets) took one worker past 21 GB; the found
#: workload below holds 16M entries (about 60 s and 0.7 GB).
EXACT_ENTRIES_MAX = 20_000_000


def _exact_entries(w: PlanWorkload, rows) -> float:
    """Entries the exact snapshot of ``rows``' tracker generates (inf: beyond any machine)."""
    from trackerlab.planner.memory_plan import delayed_stream, nack_stream

    stream = (delayed_stream if rows is delayed_rows else nack_stream)(w)
    try:
        return stream.workload(stream.steady_time_ms(), 0)[0].messages
    except UsageError:
        return math.inf


#: Found by hypothesis: at 1 msg/s, 30% delayed by one day given as two equal point masses
#: (``1d@0.5,1d@0.5``), tick 100 ms, the fast time-bucket row was 8.3% below exact
#: (17,854,743 B against 19,474,374 B over 26,175 entries), its stated bound 0.2%. The fast
#: path drew each atom's window on its own, so an id in both windows was counted twice and
#: 7.4% of the buckets held two entries where the broker holds one. A message now takes one
#: delay (``snapshot._atom_cluster_cards``): 19,284,660 B, the exact bytes per entry.
FOUND_ONE_DAY_AT_1_PER_S = {
    "rate": "1/s", "partitions": 1, "batch": 1, "delayed": "30%", "nacked": "0%",
    "subscriptions": 1, "consumers": 1, "tick": "100ms", "nack_precision_bits": 0,
    "ledger_min_rollover": "0", "pulsar_version": "4.2", "delay": "empirical:1d@0.5,1d@0.5",
}  # fmt: skip


# derandomize: every run of the suite (CI's too) checks the same 12 workloads plus the
# examples, so a failure is a change, not luck; the examples keep what random searches found.
@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
@given(workloads(max_rate_per_s=3e3))
@example(FOUND_BY_HYPOTHESIS)
@example(FOUND_WITH_SPLIT_PHASES)
@example(FOUND_SPARSE)
@example(FOUND_ONE_DAY_AT_1_PER_S)
def test_fast_is_within_its_bound_of_exact(raw):
    raw = {**raw, "pulsar_version": "4.2", "partitions": 1}
    try:
        w = PlanWorkload.parse(raw)
    except UsageError:
        return
    for rows in (delayed_rows, nack_rows):
        if (rows is delayed_rows and not w.values["delayed"]) or (
            rows is nack_rows and not w.values["nacked"]
        ):
            continue
        if _exact_entries(w, rows) > EXACT_ENTRIES_MAX:
            continue  # the message-level answer would take minutes and gigabytes
        try:
            fast, _ = rows(w)
            exact, _ = rows(w, exact=True)
        except UsageError:  # the exact snapshot is over the machine's budget
            continue
        for f, e in zip(fast, exact, strict=True):
            if "time-buckets" not in f.design or e.entries < 100:
                continue  # a handful of entries: one realization says little
            assert abs(f.steady_bytes / e.steady_bytes - 1) <= _tolerance(f, e), (raw, f, e)
