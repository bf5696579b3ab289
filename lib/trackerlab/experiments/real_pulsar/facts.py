"""Release facts measured from the jars: defaults by reflection, tracker forms by their fields.

``measure(build, classpath)`` runs the harness's ``facts`` mode on one release: the defaults
of a new ``ServiceConfiguration``, ``ConsumerConfigurationData`` and
``ClientConfigurationData``; the declared fields of every tracker class; and the classes a
two-message build of each tracker holds. :func:`forms` turns those into the catalog design,
shape and variant the release runs. The records live in ``data/pulsar_measured.yaml``
(:func:`write`, ``trackerlab pulsar facts --write``); :mod:`trackerlab.models.pulsar_releases` marks a
table fact ``measured`` where a record of its line agrees, and :func:`disagreements` lists
where the table and a record differ (a test fails on any).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from trackerlab.core.durable import atomic_write_bytes
from trackerlab.core.paths import data_dir
from trackerlab.jvmcheck.pulsar.harness_runner import JvmRun
from trackerlab.jvmcheck.pulsar.lines import PulsarBuild
from trackerlab.jvmcheck.pulsar.maven import ClassPath
from trackerlab.models import pulsar_releases

__all__ = ["DEFAULTS", "disagreements", "forms", "measure", "read", "record", "write"]

FILE = "pulsar_measured.yaml"
SERVICE = "org.apache.pulsar.broker.ServiceConfiguration"
CONSUMER = "org.apache.pulsar.client.impl.conf.ConsumerConfigurationData"
CLIENT = "org.apache.pulsar.client.impl.conf.ClientConfigurationData"
#: Where each class lives (its artifact names the measurement).
ARTIFACTS = {SERVICE: "pulsar-broker-common", CONSUMER: "pulsar-client-original",
             CLIENT: "pulsar-client-original"}  # fmt: skip
#: Table knob -> (class, field, divisor): the value in the table's unit is field / divisor.
DEFAULTS: dict[str, tuple[str, str, int]] = {
    "delayedDeliveryTickTimeMillis": (SERVICE, "delayedDeliveryTickTimeMillis", 1),
    "delayedDeliveryTrackerFactoryClassName": (SERVICE, "delayedDeliveryTrackerFactoryClassName", 1),
    "isDelayedDeliveryDeliverAtTimeStrict": (SERVICE, "isDelayedDeliveryDeliverAtTimeStrict", 1),
    "delayedDeliveryFixedDelayDetectionLookahead":
        (SERVICE, "delayedDeliveryFixedDelayDetectionLookahead", 1),
    "managedLedgerMaxEntriesPerLedger": (SERVICE, "managedLedgerMaxEntriesPerLedger", 1),
    "managedLedgerMinLedgerRolloverTimeMinutes":
        (SERVICE, "managedLedgerMinLedgerRolloverTimeMinutes", 1),
    "managedLedgerMaxLedgerRolloverTimeMinutes":
        (SERVICE, "managedLedgerMaxLedgerRolloverTimeMinutes", 1),
    "maxUnackedMessagesPerConsumer": (SERVICE, "maxUnackedMessagesPerConsumer", 1),
    "maxUnackedMessagesPerSubscription": (SERVICE, "maxUnackedMessagesPerSubscription", 1),
    "delayedDeliveryMinIndexCountPerBucket": (SERVICE, "delayedDeliveryMinIndexCountPerBucket", 1),
    "delayedDeliveryMaxTimeStepPerBucketSnapshotSegmentSeconds":
        (SERVICE, "delayedDeliveryMaxTimeStepPerBucketSnapshotSegmentSeconds", 1),
    "delayedDeliveryMaxIndexesPerBucketSnapshotSegment":
        (SERVICE, "delayedDeliveryMaxIndexesPerBucketSnapshotSegment", 1),
    "delayedDeliveryMaxNumBuckets": (SERVICE, "delayedDeliveryMaxNumBuckets", 1),
    "negativeAckRedeliveryDelay_ms": (CONSUMER, "negativeAckRedeliveryDelayMicros", 1000),
    "negativeAckPrecisionBitCnt": (CONSUMER, "negativeAckPrecisionBitCnt", 1),
    "receiverQueueSize": (CONSUMER, "receiverQueueSize", 1),
    "acknowledgementsGroupTime_ms": (CONSUMER, "acknowledgementsGroupTimeMicros", 1000),
    "batchIndexAckEnabled": (CONSUMER, "batchIndexAckEnabled", 1),
    "memoryLimitBytes": (CLIENT, "memoryLimitBytes", 1),
}  # fmt: skip


def measure(build: PulsarBuild, classpath: ClassPath, run: JvmRun) -> dict[str, Any]:
    """The record of one release from a ``facts`` JVM run (:func:`harness.facts`)."""
    raw: dict[tuple[str, str], str] = {}
    fields: dict[str, dict[str, str]] = {}
    concrete: dict[str, str] = {}
    for line in run.lines:
        kind, *rest = line.split("\t")
        if kind == "fact":
            raw[(rest[0], rest[1])] = rest[2]
        elif kind == "form":
            fields.setdefault(rest[0], {})[rest[1]] = rest[2]
        elif kind == "concrete":
            concrete[rest[0]] = rest[2]
    defaults = {}
    for knob, (cls, field, divisor) in DEFAULTS.items():
        text = raw.get((cls, field))
        if text is None or text == "class-absent":  # a client-only build has no broker config
            continue
        artifact = ARTIFACTS[cls]
        defaults[knob] = {
            "value": None if text == "absent" else _value(text, divisor),
            "field": f"{cls.rsplit('.', 1)[1]}.{field}" + ("" if text != "absent" else " (absent)"),
            "artifact": f"org.apache.pulsar:{artifact}:{build.version}",
        }
    versions = {
        a: classpath.artifact_version(a) for a in ("RoaringBitmap", "fastutil", "netty-buffer")
    }
    return {
        "line": build.line,
        "client_only": build.client_only,
        "jars": {k: v for k, v in versions.items() if v is not None},
        "defaults": defaults,
        "trackers": forms(fields, concrete),
    }


def _value(text: str, divisor: int) -> Any:
    if text in ("true", "false"):
        return text == "true"
    if text == "null":
        return None
    try:
        number = int(text)
    except ValueError:
        return text
    return number // divisor if divisor != 1 else number


def forms(fields: Mapping[str, Mapping[str, str]], concrete: Mapping[str, str]) -> dict[str, Any]:
    """The catalog design each tracker runs, from its class's fields and a tiny build's
    classes. A tracker whose classes are absent (a client-only build's broker) is left out."""
    out: dict[str, Any] = {}
    delayed = fields.get("org.apache.pulsar.broker.delayed.InMemoryDelayedDeliveryTracker")
    if delayed and "-" not in delayed:
        if "priorityQueue" in delayed:
            segmented = fields.get("org.apache.pulsar.common.util.collections.SegmentedLongArray")
            variant = "v1" if not segmented or "-" in segmented else "v2"
            out["delayed"] = {"design": "triple-heap", "variant": variant,
                              "field": f"priorityQueue: {delayed['priorityQueue']}"}  # fmt: skip
        elif "delayedMessageMap" in delayed:
            counter = "delayedMessagesCount" in delayed
            out["delayed"] = {
                "design": "time-buckets",
                "shape": _shape(concrete.get("delayed-tracker", "")),
                "variant": "a+counter" if counter else "a",
                "field": f"delayedMessageMap: {delayed['delayedMessageMap']}",
            }
            if "precisionMillis" in delayed:  # getBucketCutoffTime's bucket width (#25996)
                out["delayed"]["due"] = "whole-bucket"
                out["delayed"]["field"] += f"; precisionMillis: {delayed['precisionMillis']}"
    bucket = fields.get("org.apache.pulsar.broker.delayed.bucket.BucketDelayedDeliveryTracker")
    broker = delayed is not None and "-" not in delayed
    if broker:
        present = bucket is not None and "-" not in bucket
        out["delayed_bucket"] = {"design": "pip195-buckets" if present else None,
                                 "field": "BucketDelayedDeliveryTracker " + (
                                     "present" if present else "absent")}  # fmt: skip
    nack = fields.get("org.apache.pulsar.client.impl.NegativeAcksTracker", {})
    declared = nack.get("nackedMessages", "")
    if declared:
        if declared.startswith("java.util.HashMap"):
            out["nack"] = {"design": "nack-hash-map"}
        elif declared.endswith("ConcurrentLongLongPairHashMap"):
            out["nack"] = {"design": "nack-pair-map"}
        else:
            out["nack"] = {"design": "nack-time-buckets",
                           "shape": _shape(concrete.get("nack-tracker", ""))}  # fmt: skip
        out["nack"]["field"] = f"nackedMessages: {declared}"
    consumer = fields.get("org.apache.pulsar.broker.service.Consumer", {})
    pending = fields.get("org.apache.pulsar.broker.service.PendingAcksMap", {})
    if broker:
        declared = consumer.get("pendingAcks", "")
        if declared.endswith("ConcurrentLongLongPairHashMap"):
            out["pending_acks"] = {"design": "pending-acks-pair-hash"}
        elif "pendingAcks" in pending:
            inner = pending["pendingAcks"]
            out["pending_acks"] = {
                "design": "pending-acks-rb-pairs" if "IntIntPair" in inner else None
            }
            declared = f"{declared}; PendingAcksMap.pendingAcks: {inner}"
        out["pending_acks"]["field"] = f"Consumer.pendingAcks: {declared}"
    base = fields.get("org.apache.pulsar.client.impl.ConsumerBase", {})
    auto = "currentReceiverQueueSize" in base
    out["receiver_queue"] = {"design": "receiver-queue-java" if auto else None,
                             "field": "ConsumerBase.currentReceiverQueueSize " + (
                                 "present" if auto else "absent")}  # fmt: skip
    return out


def _shape(classes: str) -> str | None:
    """The time-bucket shape from a tiny build's classes: the outer AVL map with inner
    open-hash, RB or AVL maps."""
    names = {item.split("*")[0] for item in classes.split(",") if item}
    if "Long2ObjectAVLTreeMap" not in names:
        return None
    if "Long2ObjectOpenHashMap" in names:
        return "avl-openhash"
    if "Long2ObjectRBTreeMap" in names:
        return "avl-rb"
    return "avl-avl"


# --------------------------------------------------------------------------- the data file


def path() -> Path:
    return data_dir() / FILE


HEADER = """\
# Release facts measured from Pulsar's released jars (trackerlab pulsar facts --write).
#
# One record per build resolved from Maven Central (trackerlab.jvmcheck.pulsar.lines):
# configuration defaults read by reflection from a new ServiceConfiguration,
# ConsumerConfigurationData and ClientConfigurationData of that release, and the design each
# tracker runs, from its class's declared fields and the classes a two-message build holds.
# Values are in the units of data/pulsar_releases.yaml (its `units`). trackerlab.models.pulsar_releases
# marks a table fact `measured` where a record of its line agrees with it;
# tests/experiments/test_real_pulsar_facts.py fails where they disagree.
"""


def read() -> dict[str, Any]:
    """Build version -> record (empty when the file is missing)."""
    try:
        text = path().read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    return dict((yaml.safe_load(text) or {}).get("builds") or {})


def write(records: Mapping[str, Any]) -> Path:
    """Merge ``records`` into the file (atomically); return its path."""
    merged = read()
    merged.update(records)
    order = {b: i for i, b in enumerate(_build_order())}
    builds = dict(sorted(merged.items(), key=lambda kv: order.get(kv[0], len(order))))
    text = HEADER + yaml.safe_dump({"builds": builds}, sort_keys=False, width=100)
    atomic_write_bytes(path(), text.encode("utf-8"))
    return path()


def _build_order() -> list[str]:
    from trackerlab.jvmcheck.pulsar.lines import BUILDS

    return [b.version for b in BUILDS]


def record(version: str) -> dict[str, Any] | None:
    return read().get(version)


def disagreements(records: Mapping[str, Any] | None = None) -> list[str]:
    """Where ``data/pulsar_releases.yaml`` (resolved at each measured version) differs from
    the measured records: one line each."""
    out = []
    for version, rec in (read() if records is None else records).items():
        release = pulsar_releases.resolve(version)
        for knob, fact in rec["defaults"].items():
            if knob not in release.defaults:
                out.append(f"{version}: {knob} is not in the table (measured {fact['value']!r})")
                continue
            table = release.default(knob)
            if table != fact["value"]:
                out.append(f"{version}: {knob} table {table!r}, {fact['field']} in "
                           f"{fact['artifact']} is {fact['value']!r}")  # fmt: skip
        jar = rec["jars"].get("RoaringBitmap")
        if jar is not None and release.default("roaringbitmap") != jar:
            out.append(f"{version}: roaringbitmap table {release.default('roaringbitmap')!r}, "
                       f"the class path has RoaringBitmap {jar}")  # fmt: skip
        for tracker, form in rec["trackers"].items():
            choice = release.choice(tracker)
            for key in pulsar_releases.MEASURED_FORM:
                if key in form and getattr(choice, key) != form[key]:
                    out.append(f"{version}: {tracker} {key} table {getattr(choice, key)!r}, "
                               f"measured {form[key]!r} ({form.get('field', '')})")  # fmt: skip
    return out
