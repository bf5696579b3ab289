"""``trackerlab broker``'s bad inputs: one line, exit code 2, before anything starts."""

from __future__ import annotations

import os

import pytest

from tests.conftest import assert_one_line_error, run_cli


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (("start", "--pulsar-version", "9.9"), ["unknown --pulsar-version '9.9'", "4.2.4"]),
        (("start", "--pulsar-version", "4.1"), ["Pulsar 4.1 cannot run", "blocked"]),
        (("start", "--pulsar-version", "4.1.3"), ["Pulsar 4.1.3 cannot run", "blocked"]),
        (("start", "--pulsar-version", "3.3.6"), ["pulsar-opentelemetry 3.3.x"]),
        (("start", "--timeout", "0"), ["--timeout 0"]),
        (("stop", "--timeout", "-5"), ["--timeout -5"]),
        (("status", "--dir", "/nonexistent/run"), ["no broker run there"]),
        (("stop", "--dir", "/nonexistent/run"), ["no broker run there"]),
        (("frobnicate",), ["invalid choice"]),
        (("run", "all", "--workload", "fixed-20s"), ["--workload fixed-20s", "not all"]),
        (("run", "delayed", "--workload", "nope"), ["--workload nope: not in this set"]),
        (("run", "everything"), ["invalid choice: 'everything'"]),
    ],
)
def test_bad_input_is_one_line(args, needles):
    assert_one_line_error(run_cli("broker", *args), *needles)


def test_status_without_runs_says_so(tmp_path):
    env = {**os.environ, "TRACKERLAB_CACHE": str(tmp_path)}
    result = run_cli("broker", "status", env=env)
    assert result.returncode == 3 and result.stdout.strip() == "no broker running"
    result = run_cli("broker", "stop", env=env)
    assert result.returncode == 0 and result.stdout.strip() == "no broker running"


def test_run_all_runs_every_registered_experiment_and_fails_if_one_fails(monkeypatch, capsys):
    """``broker run all`` iterates the registry: a later experiment plugs in by adding a
    runner; one outside (exit 1) makes the whole run exit 1, the others still run."""
    import argparse

    from trackerlab.commands import broker_run

    calls = []

    def runner(name, code):
        def go(args):
            calls.append((name, args.smoke))
            print(f"table of {name}")
            return code

        return go

    monkeypatch.setattr(
        broker_run, "RUNNERS", {"delayed": runner("delayed", 1), "later": runner("later", 0)}
    )
    args = argparse.Namespace(experiment="all", workload=None, smoke=True)
    assert broker_run.run(args) == 1
    assert calls == [("delayed", True), ("later", True)]
    out = capsys.readouterr().out
    assert "table of delayed" in out and "table of later" in out
    assert "broker run all: delayed exit 1, later ok" in out
    monkeypatch.setattr(broker_run, "RUNNERS", {"later": runner("later", 0)})
    assert broker_run.run(args) == 0
