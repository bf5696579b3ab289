"""Pulsar's own classes from its released jars, against the models and the release table.

The real-class cases need ``mvn``, Maven Central and a JDK: without them they skip with the
one line that names what could not be resolved. With them, a compile error, a failed build,
a JVM without Instrumentation or a byte of difference is a failure. The suite checks the
releases of :data:`~trackerlab.jvmcheck.pulsar.lines.CI_BUILDS` (the newest, and one line
before 4.0); ``trackerlab jvm-check --pulsar all`` checks every line.
"""

from __future__ import annotations

import pytest

from tests.conftest import run_cli
from trackerlab.core.errors import UsageError
from trackerlab.core.java_runtime import JavaMissing, require_java
from trackerlab.experiments.real_pulsar import facts
from trackerlab.experiments.real_pulsar import release_cases as real
from trackerlab.jvmcheck.pulsar import harness_runner, lines, maven

CI = [b for b in lines.BUILDS if b.version in lines.CI_BUILDS]


@pytest.fixture(scope="module", params=CI, ids=lambda b: b.version)
def release(request):
    """A CI release's class path; skips only when Java, mvn or Central is missing."""
    build = request.param
    try:
        require_java()
    except JavaMissing as exc:
        pytest.skip(f"Java is missing: {exc}")
    try:
        classpath = maven.build(build.version, build.client_only)
    except maven.MavenUnavailable as exc:
        pytest.skip(str(exc))
    return build, classpath


def test_every_case_is_byte_exact_on_real_classes(release):
    build, classpath = release
    rows = real.run_build(build, real.CASES, lambda hc: harness_runner.run(classpath, hc).measured)
    # every tracker the release has, plus the pulsar-common queue and RoaringBitmap cases
    assert {r.tracker for r in rows} >= {"delayed", "nack", "pending_acks", "triple_queue"}
    bad = [(r.case, r.real_heap_bytes, r.model_heap_bytes, r.error, r.classes[:300])
           for r in rows if not r.exact]  # fmt: skip
    assert not bad


def test_the_release_runs_the_structure_the_table_names(release):
    """The classes measured are the table's: their class histograms name it."""
    build, classpath = release
    rows = real.run_build(
        build, real.select(["delayed-spread-1k", "nack-1k"]),
        lambda hc: harness_runner.run(classpath, hc).measured,
    )  # fmt: skip
    by_case = {r.case: r for r in rows}
    delayed = by_case["delayed-spread-1k"]
    if delayed.design.startswith("time-buckets (avl-rb)"):
        assert "Long2ObjectRBTreeMap" in delayed.classes
    elif delayed.design.startswith("triple-heap"):
        assert "SegmentedLongArray" in delayed.classes and "PooledUnsafeDirectByteBuf" in (
            delayed.classes
        )
    else:
        pytest.fail(f"unexpected delayed design {delayed.design}")


def test_recorded_facts_are_what_the_jars_say(release):
    """data/pulsar_measured.yaml holds what the release's classes say now."""
    build, classpath = release
    measured = facts.measure(build, classpath, harness_runner.facts(classpath))
    recorded = facts.record(build.version)
    assert recorded is not None, (
        f"no record of {build.version}: run trackerlab pulsar facts --write"
    )
    assert measured["defaults"] == recorded["defaults"]
    assert measured["trackers"] == recorded["trackers"]
    assert measured["jars"] == recorded["jars"]
    assert facts.disagreements({build.version: measured}) == []


def test_jol_refuses_to_measure_without_instrumentation(release, monkeypatch):
    """Without -Djdk.attach.allowAttachSelf JOL would fall back to its layout model: the
    harness stops instead of returning model numbers."""
    _, classpath = release
    options = [o for o in harness_runner.jvm_options() if "allowAttachSelf" not in o]
    monkeypatch.setattr(harness_runner, "jvm_options", lambda: options)
    with pytest.raises(harness_runner.HarnessFailed, match="Instrumentation"):
        harness_runner.facts(classpath)


# --------------------------------------------------------------------------- no Maven needed


def test_the_table_agrees_with_every_recorded_measurement():
    """A fact of data/pulsar_releases.yaml that differs from a jar's default fails here."""
    assert facts.read(), "data/pulsar_measured.yaml is missing"
    assert facts.disagreements() == []


def test_a_changed_table_value_is_caught():
    records = facts.read()
    changed = {v: dict(r) for v, r in records.items()}
    some = next(iter(changed))
    defaults = {k: dict(v) for k, v in changed[some]["defaults"].items()}
    defaults["delayedDeliveryTickTimeMillis"]["value"] = 999
    changed[some] = {**changed[some], "defaults": defaults}
    problems = facts.disagreements(changed)
    assert any("delayedDeliveryTickTimeMillis table 1000" in p for p in problems)


def test_measured_facts_are_marked_measured_in_the_table():
    from trackerlab.models import pulsar_releases

    rel = pulsar_releases.resolve("4.2.4")
    tick = rel.defaults["delayedDeliveryTickTimeMillis"]
    assert tick.evidence == "measured" and "pulsar-broker-common:4.2.4" in tick.source
    assert rel.choice("delayed").evidence == "measured"
    assert rel.choice("delayed").shape == "avl-rb"
    # a patch of the line the record does not cover keeps its own evidence
    assert pulsar_releases.resolve("4.0.5").choice("delayed").evidence == "read"
    assert (
        pulsar_releases.resolve("2.10.0").default("delayedDeliveryFixedDelayDetectionLookahead")
        is None
    )
    assert (
        pulsar_releases.resolve("2.10.5").default("delayedDeliveryFixedDelayDetectionLookahead")
        == 50_000
    )


def test_maven_failures_name_what_is_missing(tmp_path):
    log = tmp_path / "maven.log"
    log.write_text(
        "[ERROR] Failed to execute goal on project x: Could not resolve dependencies: "
        "Failed to read artifact descriptor for org.apache.pulsar:pulsar-websocket:jar:4.0.5: "
        "Could not transfer artifact\n"
    )
    exc = maven._failure("4.0.5", log)
    assert isinstance(exc, maven.MavenUnavailable)
    assert "org.apache.pulsar:pulsar-websocket:jar:4.0.5" in str(exc)
    log.write_text(
        "[ERROR] COMPILATION ERROR :\n[ERROR] /x/Structures.java:[10,5] cannot find symbol\n"
    )
    exc = maven._failure("4.2.4", log)
    assert isinstance(exc, maven.HarnessBuildFailed)  # a defect of ours: never a skip
    assert "Structures.java" in str(exc)
    log.write_text("[ERROR] Unknown host repo.maven.apache.org\n")
    assert "not reachable" in str(maven._failure("4.2.4", log))
    log.write_text("[ERROR] No plugin found for prefix 'dependency' in the current project\n")
    assert "not reachable" in str(maven._failure("4.2.4", log))


def test_unknown_release_is_one_line_listing_the_known_ones():
    with pytest.raises(UsageError, match=r"known: all, 2\.10\.5"):
        lines.select_builds("9.9")
    assert [b.version for b in lines.select_builds("4.0")] == ["4.0.1", "4.0.8"]
    result = run_cli("jvm-check", "--pulsar", "9.9")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "4.2.4" in result.stderr
    result = run_cli("jvm-check", "--pulsar", "all", "--only", "nope-*")
    assert result.returncode == 2 and "delayed-spread-1k" in result.stderr
    result = run_cli("pulsar", "fetch", "--pulsar-version", "1.0")
    assert result.returncode == 2


def test_every_release_line_of_the_issue_has_a_build():
    assert {b.line for b in lines.BUILDS} == {"2.10", "2.11", "3.0", "3.3", "4.0", "4.1", "4.2"}
    four_oh = [b.version for b in lines.BUILDS if b.line == "4.0"]
    assert any("4.0.1" <= v <= "4.0.5" for v in four_oh) and len(four_oh) == 2


def test_a_new_build_removes_the_release_s_older_builds_only(tmp_path):
    cache = tmp_path / "pulsar"
    names = ["4.2.4-aaaaaaaaaaaa", "4.2.4-bbbbbbbbbbbb", "4.1.1-client-aaaaaaaaaaaa",
             "4.2.4-client-aaaaaaaaaaaa", "3.3.6-aaaaaaaaaaaa", "mine"]  # fmt: skip
    for name in names:
        (cache / name).mkdir(parents=True)
    maven._remove_older_builds(cache / "4.2.4-bbbbbbbbbbbb")
    left = sorted(p.name for p in cache.iterdir())
    assert left == ["3.3.6-aaaaaaaaaaaa", "4.1.1-client-aaaaaaaaaaaa",
                    "4.2.4-bbbbbbbbbbbb", "4.2.4-client-aaaaaaaaaaaa", "mine"]  # fmt: skip
