"""The skip rule (tests/README.md): a test skips only when something outside the repository is
missing -- Java, a jar, Maven Central, Chromium, another user. A compile error in the
project's Java, a Spark configuration Spark refuses or a failed build is a failure.

Three ways of holding the suite to it:

- every ``pytest.skip`` under an ``except`` catches only the "missing" kinds, every skip
  says why, and nothing skips on a missing Python package (the environment is pyproject's);
- the helpers of ``tests/conftest.py`` (``jvm_probe``, ``spark_session``,
  ``require_fastutil``), driven into each kind of failure: they skip for the missing kinds
  and raise for the rest;
- the ``spark`` fixture itself, in a pytest run of its own with a broken Spark
  configuration: the test errors instead of skipping.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.conftest import REPO, jvm_probe, require_fastutil, spark_session
from trackerlab.core.errors import UsageError
from trackerlab.core.java_runtime import JavaMissing, require_java
from trackerlab.jvmcheck import probe as probe_module
from trackerlab.jvmcheck.probe import ProbeBuildFailed, ProbeMissing, ProbeUnavailable

#: The exceptions that mean "missing outside the repository", and the only ones a test may
#: skip on: no Java 17+ (``JavaMissing``, and the Spark session's ``SparkJavaMissing``), no
#: ``javac`` (``ProbeMissing``), no ``mvn`` or no Central (``MavenUnavailable``), and the
#: broker's wrapper of those two (``BrokerUnavailable``), and no Go toolchain or no Go module
#: proxy (``GoPerfUnavailable``; a failed build of what it fetched is ``GoPerfBuildFailed``).
MISSING_KINDS = {
    "GoPerfUnavailable",
    "JavaMissing",
    "SparkJavaMissing",
    "ProbeMissing",
    "MavenUnavailable",
    "BrokerUnavailable",
}
TESTS = REPO / "tests"


def _outcome(call) -> tuple[str, object]:
    """``("skipped", reason)``, ``("raised", exception)`` or ``("returned", value)``: a skip
    must not escape, or a helper that wrongly skips would skip this test too."""
    try:
        return "returned", call()
    except pytest.skip.Exception as exc:
        return "skipped", str(exc)
    except Exception as exc:
        return "raised", exc


def _is_skip_call(node: ast.AST, name: str = "skip") -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == name
        and isinstance(node.func.value, ast.Name | ast.Attribute)
        and (getattr(node.func.value, "id", None) or getattr(node.func.value, "attr", None))
        in ("pytest", "mark")
    )


def _names(node: ast.expr | None) -> list[str]:
    if node is None:
        return ["<bare except>"]
    if isinstance(node, ast.Tuple):
        return [n for elt in node.elts for n in _names(elt)]
    if isinstance(node, ast.Attribute):
        return [node.attr]
    if isinstance(node, ast.Name):
        return [node.id]
    return [ast.dump(node)]


def _test_modules() -> list[Path]:
    return sorted(p for p in TESTS.rglob("*.py") if "__pycache__" not in p.parts)


# --------------------------------------------------------------------------- every skip


def test_skips_under_except_catch_only_what_is_missing_outside_the_repository():
    wrong = []
    for path in _test_modules():
        tree = ast.parse(path.read_text(), filename=str(path))
        for handler in ast.walk(tree):
            if not isinstance(handler, ast.ExceptHandler):
                continue
            if any(_is_skip_call(node) for node in ast.walk(handler)):
                caught = set(_names(handler.type))
                if not caught <= MISSING_KINDS:
                    where = f"{path.relative_to(REPO)}:{handler.lineno}"
                    wrong.append((where, sorted(caught - MISSING_KINDS)))
    assert wrong == []


def test_every_skip_says_why_and_none_is_unconditional_or_for_a_python_package():
    silent, unconditional, importorskip = [], [], []
    for path in _test_modules():
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            where = f"{path.relative_to(REPO)}:{getattr(node, 'lineno', 0)}"
            if _is_skip_call(node) and not (node.args or node.keywords):
                silent.append(where)
            if _is_skip_call(node, "skipif") and not any(k.arg == "reason" for k in node.keywords):
                silent.append(where)
            if _is_skip_call(node, "importorskip"):
                importorskip.append(where)
            if (  # @pytest.mark.skip, with or without a reason
                isinstance(node, ast.Attribute)
                and node.attr == "skip"
                and isinstance(node.value, ast.Attribute)
                and node.value.attr == "mark"
            ):
                unconditional.append(where)
    assert silent == []
    assert unconditional == []
    assert importorskip == []


def test_the_scan_sees_a_wrong_skip():
    """The scan itself can fail: a skip on a UsageError is reported."""
    source = "try:\n    f()\nexcept (JavaMissing, UsageError) as exc:\n    pytest.skip(str(exc))\n"
    handler = next(n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.ExceptHandler))
    assert any(_is_skip_call(n) for n in ast.walk(handler))
    assert set(_names(handler.type)) - MISSING_KINDS == {"UsageError"}


# --------------------------------------------------------------------------- the probe JVM


@pytest.fixture
def fresh_probe(monkeypatch, tmp_path):
    """The probe module with no probe started yet and an empty build cache."""
    monkeypatch.setenv("TRACKERLAB_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("PYSPARK_GATEWAY_PORT", raising=False)
    monkeypatch.setattr(probe_module, "_PROBES", {})
    return probe_module


def _no_java(monkeypatch, tmp_path) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.delenv("JAVA_HOME", raising=False)


def test_a_compile_error_in_the_probe_sources_fails_not_skips(fresh_probe, monkeypatch):
    try:
        require_java()
    except JavaMissing as exc:
        pytest.skip(f"Java is missing: {exc}")
    if fresh_probe.javac_executable() is None:
        pytest.skip("javac not found (a JRE without a JDK)")
    sources = fresh_probe._java_sources()
    broken = [
        (name, text.replace(b"public final class Probe {", b'public final class Probe {\n  int broken = "a compile error";', 1))
        for name, text in sources
    ]  # fmt: skip
    assert broken != sources
    monkeypatch.setattr(fresh_probe, "_java_sources", lambda: broken)
    kind, exc = _outcome(jvm_probe)
    assert kind == "raised", (kind, exc)
    assert isinstance(exc, ProbeBuildFailed), exc
    assert str(exc).startswith("javac failed: ") and "Probe.java" in str(exc)


def test_a_probe_jvm_that_does_not_start_fails(fresh_probe, monkeypatch):
    def start(uncompressed_oops: bool = False):
        raise ProbeUnavailable("the probe JVM did not start: Invalid maximum heap size")

    monkeypatch.setattr(fresh_probe.JvmProbe, "start", start)
    kind, exc = _outcome(jvm_probe)
    assert kind == "raised" and type(exc) is ProbeUnavailable, (kind, exc)


def test_no_javac_skips(fresh_probe, monkeypatch):
    try:
        require_java()
        expected = "no probe JVM: javac not found"
    except JavaMissing:  # then the missing java is what it names
        expected = "no probe JVM: java not found"
    monkeypatch.setattr(fresh_probe, "javac_executable", lambda: None)
    kind, reason = _outcome(jvm_probe)
    assert kind == "skipped" and expected in reason, (kind, reason)


def test_no_java_skips_the_probe_and_spark(fresh_probe, monkeypatch, tmp_path):
    _no_java(monkeypatch, tmp_path)
    for helper in (jvm_probe, spark_session):
        kind, reason = _outcome(helper)
        assert kind == "skipped", (helper.__name__, kind, reason)
        assert "java not found" in reason, reason


def test_the_probe_error_kinds_keep_the_cli_s_handling():
    """``jvm-check`` and ``bench plan`` catch ProbeUnavailable: both kinds still reach them."""
    assert issubclass(ProbeMissing, ProbeUnavailable)
    assert issubclass(ProbeBuildFailed, ProbeUnavailable)
    assert not issubclass(ProbeBuildFailed, ProbeMissing)


def test_fastutil_skips_only_when_the_jar_is_absent(monkeypatch, tmp_path):
    monkeypatch.setenv("TRACKERLAB_FASTUTIL_JAR", str(tmp_path / "absent.jar"))
    kind, reason = _outcome(lambda: require_fastutil(SimpleNamespace(fastutil=False)))
    assert kind == "skipped" and "fastutil jar not found" in reason, (kind, reason)
    jar = tmp_path / "fastutil.jar"
    jar.write_bytes(b"PK")
    monkeypatch.setenv("TRACKERLAB_FASTUTIL_JAR", str(jar))
    kind, exc = _outcome(lambda: require_fastutil(SimpleNamespace(fastutil=False)))
    assert kind == "raised" and isinstance(exc, AssertionError), (kind, exc)
    assert _outcome(lambda: require_fastutil(SimpleNamespace(fastutil=True))) == (
        "returned",
        None,
    )


# --------------------------------------------------------------------------- Spark


def test_a_spark_start_failure_other_than_java_fails(monkeypatch):
    def get_session(*args, **kwargs):
        raise UsageError("cannot start Spark (local[2]): spark.task.cpus must be positive")

    monkeypatch.setattr("trackerlab.spark.session.get_session", get_session)
    kind, exc = _outcome(spark_session)
    assert kind == "raised" and isinstance(exc, UsageError), (kind, exc)


FIXTURE_USER = """\
def test_uses_the_spark_fixture(spark):
    assert spark.range(3).count() == 3
"""


def _run_spark_fixture(tmp_path: Path, env: dict[str, str]) -> ET.Element:
    """Run a one-test file that uses ``tests/conftest.py``'s ``spark`` fixture in a pytest of
    its own (a fresh process: this one may hold a session already) under ``env``; return its
    junit ``testcase`` element."""
    test_file = tmp_path / "test_fixture_user.py"
    test_file.write_text(FIXTURE_USER)
    report = tmp_path / "report.xml"
    cmd = [
        sys.executable, "-m", "pytest", "-p", "tests.conftest", "-p", "no:cacheprovider",
        "-q", f"--rootdir={tmp_path}", f"--junitxml={report}", str(test_file),
    ]  # fmt: skip
    env = {**env, "TRACKERLAB_CACHE": str(tmp_path / "cache")}
    proc = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert report.is_file(), proc.stdout + proc.stderr
    return ET.parse(report).getroot().find(".//testcase")


@pytest.mark.spark
@pytest.mark.parametrize(
    ("setting", "reason"),
    [
        ("PYSPARK_SUBMIT_ARGS", "Java gateway process exited"),
        ("SPARK_CONF_DIR", "cpus per task"),
    ],
    ids=["driver-memory-banana", "task-cpus-1000"],
)
def test_a_broken_spark_configuration_fails_the_spark_tests(tmp_path, setting, reason):
    """A driver JVM that cannot start (``spark.driver.memory=banana``) and a configuration the
    SparkContext refuses (``spark.task.cpus`` above the cores of ``local[2]``) make the
    ``spark`` fixture error: the Spark tests fail, with Spark's own reason."""
    conf = tmp_path / "conf"
    conf.mkdir()
    (conf / "spark-defaults.conf").write_text("spark.task.cpus 1000\n")
    value = {
        "PYSPARK_SUBMIT_ARGS": "--conf spark.driver.memory=banana pyspark-shell",
        "SPARK_CONF_DIR": str(conf),
    }[setting]
    case = _run_spark_fixture(tmp_path, {**os.environ, setting: value})
    assert case.find("skipped") is None, ET.tostring(case, encoding="unicode")
    error = case.find("error")
    assert error is not None, ET.tostring(case, encoding="unicode")
    text = (error.get("message") or "") + (error.text or "")
    assert "cannot start Spark (local[2])" in text and reason in text, text


@pytest.mark.spark
def test_the_spark_fixture_skips_without_java(tmp_path):
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "JAVA_HOME"}
    case = _run_spark_fixture(tmp_path, {**env, "PATH": str(empty)})
    skipped = case.find("skipped")
    assert skipped is not None, ET.tostring(case, encoding="unicode")
    assert "no Spark session: java not found" in (skipped.get("message") or ""), skipped.attrib
