"""The design lab's proposals built from real Java objects (jvmcheck/java/LabProbe.java) match
the layout model to the byte, and the Java stream encoder writes GapStream's very bytes."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import require_fastutil
from trackerlab.jvmcheck.probe_cases import run_case
from trackerlab.models.proposals.gap_stream import GapStream
from trackerlab.models.proposals.jvm_cases import CASES

pytestmark = pytest.mark.spark


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_proposal_is_byte_exact(probe, case):
    require_fastutil(probe)
    result = run_case(probe, case)
    assert result.measured == result.model, f"{case.name}: {result.model} vs {result.measured}"


def test_every_proposal_has_a_case():
    kinds = {c.name.split("-")[1] for c in CASES}
    assert kinds == {"flat", "sealed", "adaptive", "hier"}
    assert all(c.group == "proposal" for c in CASES)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    items=st.lists(
        st.tuples(st.integers(0, 2), st.integers(0, 70_000 // 1000), st.integers(0, 3)),
        max_size=60,
    ),
    w=st.sampled_from([8, 16]),
)
def test_java_stream_bytes_equal_the_python_stream(probe, items, w):
    items = sorted(items, key=lambda x: (x[0], x[1]))  # stream order, arrival kept
    stream = GapStream(w)
    for slot, entry, offset in items:
        stream.append(slot, entry, offset)
    cols = [[x[i] for x in items] for i in range(3)]
    java = probe.jvm.trackerlab.probe.LabProbe.stream(*(probe.longs(c) for c in cols), w)
    assert bytes(java) == bytes(stream.tokens)
