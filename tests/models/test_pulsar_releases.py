"""The release table (data/pulsar_releases.yaml) and its loader: every design it names is in
the catalog, every fact has its evidence and source, versions resolve to their lines."""

from __future__ import annotations

import pytest

from trackerlab.catalog import CATALOG
from trackerlab.core.errors import UsageError
from trackerlab.models import pulsar_releases
from trackerlab.models.delayed.bucketed_tracker import VARIANTS as BUCKET_VARIANTS
from trackerlab.models.nack.pip393_tracker import VARIANTS as NACK_VARIANTS
from trackerlab.models.primitives.triple_heap import VERSIONS as HEAP_VERSIONS

#: variant knobs the table may give, per design (checked against the models' own names)
KNOWN_VARIANTS = {
    "triple-heap": set(HEAP_VERSIONS),
    "time-buckets": {v if v != "c" else "a+counter" for v in BUCKET_VARIANTS},
    "nack-time-buckets": set(NACK_VARIANTS),
}
LINES = (
    "2.10",
    "2.11",
    "3.0.x",
    "3.3.x",
    "4.0.0",
    "4.0.1–4.0.5",
    "4.0.6+",
    "4.1.x",
    "4.2.x",
    "master",
)
SETTINGS = (
    "delayedDeliveryTickTimeMillis", "negativeAckPrecisionBitCnt", "negativeAckRedeliveryDelay_ms",
    "managedLedgerMaxEntriesPerLedger", "managedLedgerMinLedgerRolloverTimeMinutes",
    "managedLedgerMaxLedgerRolloverTimeMinutes", "receiverQueueSize",
    "maxUnackedMessagesPerConsumer", "maxUnackedMessagesPerSubscription", "memoryLimitBytes",
    "delayedDeliveryMinIndexCountPerBucket",
    "delayedDeliveryMaxTimeStepPerBucketSnapshotSegmentSeconds",
    "delayedDeliveryMaxIndexesPerBucketSnapshotSegment", "delayedDeliveryMaxNumBuckets",
)  # fmt: skip


def test_one_row_per_line_the_issue_names():
    assert pulsar_releases.known_versions() == LINES


@pytest.mark.parametrize("line", LINES)
def test_every_choice_is_a_catalog_design_with_evidence(line):
    rel = pulsar_releases.resolve(line)
    assert set(rel.choices) == set(pulsar_releases.TRACKERS)
    for row in pulsar_releases.lines():
        if row["line"] != line:
            continue
        for tracker, options in row["trackers"].items():
            for raw in options:
                choice = pulsar_releases._choice(tracker, raw)
                assert choice.evidence in pulsar_releases.EVIDENCE, (line, tracker)
                assert len(choice.source) > 20, (line, tracker)
                if choice.design is None:
                    assert choice.evidence == "absent" or choice.missing, (line, tracker)
                    continue
                design = CATALOG[choice.design]  # KeyError: not in the catalog
                if choice.shape is not None:
                    assert choice.shape in design.shapes, (line, tracker, choice.shape)
                if choice.variant is not None:
                    assert choice.variant in KNOWN_VARIANTS[choice.design], (line, choice.variant)


@pytest.mark.parametrize("line", LINES)
def test_every_setting_has_a_value_or_says_why_not(line):
    rel = pulsar_releases.resolve(line)
    assert set(SETTINGS) <= set(rel.defaults)
    units = pulsar_releases.units()
    for name, fact in rel.defaults.items():
        assert name in units
        assert fact.evidence in pulsar_releases.EVIDENCE and len(fact.source) > 20, (line, name)
        assert (fact.value is None) == (fact.evidence in ("absent", "not-established")), (
            line,
            name,
        )


@pytest.mark.parametrize(
    ("version", "line", "delayed", "nack"),
    [
        ("2.10.1", "2.10", "triple-heap", "nack-hash-map"),
        ("3.0.7", "3.0.x", "triple-heap", "nack-hash-map"),
        ("3.0.8", "3.0.x", "triple-heap", "nack-pair-map"),
        ("3.3.3", "3.3.x", "triple-heap", "nack-pair-map"),
        ("4.0.0", "4.0.0", "triple-heap", "nack-hash-map"),
        ("4.0.1", "4.0.1–4.0.5", "time-buckets", "nack-pair-map"),
        ("4.0.5", "4.0.1–4.0.5", "time-buckets", "nack-time-buckets"),
        ("4.0.7", "4.0.6+", "triple-heap", "nack-time-buckets"),
        ("4.0", "4.0.6+", "triple-heap", "nack-time-buckets"),
        ("4.1", "4.1.x", "time-buckets", "nack-time-buckets"),
        ("4.2.3", "4.2.x", "time-buckets", "nack-time-buckets"),
        ("master", "master", "time-buckets-long-bitmap", "nack-time-buckets"),
        ("4.0.1-4.0.5", "4.0.1–4.0.5", "time-buckets", "nack-time-buckets"),
    ],
)
def test_versions_resolve_to_their_line_and_designs(version, line, delayed, nack):
    rel = pulsar_releases.resolve(version)
    assert rel.line == line
    assert rel.design("delayed") == delayed and rel.design("nack") == nack


def test_patch_level_defaults_and_variants():
    assert pulsar_releases.resolve("4.0.1").default("negativeAckPrecisionBitCnt") is None
    assert pulsar_releases.resolve("4.0.2").default("negativeAckPrecisionBitCnt") == 8
    assert pulsar_releases.resolve("2.10.1").choice("delayed").variant == "v1"
    assert pulsar_releases.resolve("2.10.2").choice("delayed").variant == "v2"
    assert pulsar_releases.resolve("4.1").choice("delayed").variant == "a+counter"
    assert pulsar_releases.resolve("master").choice("delayed_topic").merged == "not-established"
    assert pulsar_releases.resolve(None).line == "4.2.x"  # the newest release, not master


@pytest.mark.parametrize("bad", ["5.0", "3.1", "4.0.x.1", "", "latest", "2.9.3"])
def test_unknown_versions_list_the_known_ones(bad):
    with pytest.raises(UsageError) as err:
        pulsar_releases.resolve(bad)
    text = str(err.value)
    assert "\n" not in text and "--pulsar-version" in text
    assert "2.10, 2.11, 3.0.x, 3.3.x, 4.0.0, 4.0.1–4.0.5, 4.0.6+, 4.1.x, 4.2.x, master" in text
