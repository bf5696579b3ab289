"""``plan --verify``: the planned steady state in Pulsar's own classes (4.2.4 and 3.3.6, the
releases CI resolves). Skips only when Java, mvn or Maven Central is missing."""

from __future__ import annotations

import pytest

from tests.conftest import run_cli
from trackerlab.core.errors import UsageError
from trackerlab.core.java_runtime import JavaMissing, require_java
from trackerlab.jvmcheck.pulsar import maven
from trackerlab.planner.memory_plan import plan
from trackerlab.planner.verify import build_for, verify
from trackerlab.planner.workload import PlanWorkload

WORKLOAD = {"rate": "20k/s", "nacked": "2%", "delayed": "30%", "delay": "uniform:0:10m"}


@pytest.fixture(scope="module", params=["4.2.4", "3.3.6"])
def release(request):
    try:
        require_java()
        maven.build(request.param)
    except JavaMissing as exc:
        pytest.skip(f"Java is missing: {exc}")
    except maven.MavenUnavailable as exc:
        pytest.skip(str(exc))
    return request.param


def test_the_exact_model_is_the_real_class_byte_for_byte(release):
    """1.79M delayed entries, 23,799 nacks (of delayed messages too), 26,000 pending acks per
    unit: the message-level snapshot sized by the model equals Pulsar's own classes to the
    byte; the fast answer within 0.5% where it samples (the maps and the heap: exact)."""
    w = PlanWorkload.parse({**WORKLOAD, "pulsar_version": release})
    version, checked, note = verify(w, plan(w))
    assert version == release and note == ""
    assert {c.tracker for c in checked} == {
        "delayed-delivery index", "negative-ack tracker", "pending acks"
    }  # fmt: skip
    for c in checked:
        assert c.exact_bytes == c.real_bytes, c
        if "time-buckets" in c.design:
            assert abs(c.diff) < 0.005, c
        elif c.design != "nack-hash-map":  # its plan adds the timer scan's lateness
            assert c.planned_bytes == c.real_bytes, c


def test_verify_from_the_command_line(release):
    result = run_cli(
        "plan", *(f"--{k}={v}" for k, v in WORKLOAD.items()), "--pulsar-version", release,
        "--verify",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert f"Verified in Pulsar {release}'s own classes" in result.stdout


def test_a_line_without_a_build_is_one_line():
    w = PlanWorkload.parse({**WORKLOAD, "pulsar_version": "master"})
    with pytest.raises(UsageError, match="no release of line master resolves"):
        build_for(w)
    result = run_cli("plan", "--rate", "1k/s", "--verify", "--json")
    assert result.returncode == 2 and "--verify prints a table" in result.stderr


def test_a_stand_in_release_is_named_and_sized_as_built():
    """4.0.5's jars are not on Central: 4.0.1's classes stand in. Their inner maps are
    open-hash (4.0.1-4.0.2), 4.0.5's red-black (from 4.0.4): the exact-model column sizes
    4.0.1's structures, so it still matches the classes that ran, and a note says so."""
    from trackerlab.planner.verify import stand_in

    w = PlanWorkload.parse(
        {"rate": "2k/s", "delayed": "30%", "delay": "uniform:0:10m", "pulsar_version": "4.0.5"}
    )
    built, note = stand_in(w, "4.0.1")
    assert built.defaults.delayed_shape != w.defaults.delayed_shape
    assert "4.0.1's classes stand in" in note and "delayed shape" in note
    try:
        version, checked, note = verify(w, plan(w))
    except (JavaMissing, maven.MavenUnavailable) as exc:
        pytest.skip(str(exc))
    assert version == "4.0.1" and "stand in" in note
    for c in checked:
        assert c.exact_bytes == c.real_bytes, c
