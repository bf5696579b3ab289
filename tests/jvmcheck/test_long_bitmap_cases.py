"""The newer structures' jvm-check cases match real objects to the byte, in both oops layouts:
the LongBitmap leaf in its three shapes (trim rule and drainTo included), form c's index,
PIP-448's shared index, PIP-379's pending acks and the JDK objects around them."""

from __future__ import annotations

import pytest

from tests.conftest import jvm_probe, require_fastutil
from trackerlab.jvmcheck.probe_cases import CASES, run_case

pytestmark = pytest.mark.spark
GROUPS = {"jdk-concurrent", "long-bitmap", "timebuckets-long-bitmap", "pip448"}
NEW = [c for c in CASES if c.group in GROUPS or c.name.startswith("pending-acks-rb-pairs")]


def test_every_shape_and_structure_has_cases():
    names = {c.name for c in NEW}
    for shape in ("wraps-roaring", "wraps-mutable", "extends-roaring"):
        for what in ("empty", "1", "remove-10000", "drain-300", "drain-all"):
            assert f"long-bitmap-{shape}-{what}" in names
        assert f"timebuckets-lb-{shape}-10x10x100" in names
    assert {"pip448-200x3x10", "pending-acks-rb-pairs-3x1000", "jdk-atomic-long-x2"} <= names


@pytest.mark.parametrize("uncompressed", [False, True], ids=["compressed", "uncompressed-oops"])
def test_new_cases_are_exact(uncompressed):
    probe = jvm_probe(uncompressed)
    require_fastutil(probe)
    wrong = [
        (r.name, r.model, r.measured)
        for r in (run_case(probe, c) for c in NEW)
        if r.measured != r.model
    ]
    assert wrong == []
